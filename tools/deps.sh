#!/bin/sh
# tools/deps.sh [extra-group...]
#
# Make sure the Debian 12 packages the build needs are installed.
# Runs before every `make run` / `make test`, so the common case (nothing
# missing) must be silent and fast: one dpkg-query call, exit 0.
#
# Extra groups:
#   bench   adds python3-matplotlib (plots for the benchmarks)
#   model   adds spin (the model checker of make model; it also needs gcc)
#   fuzz    adds clang, libclang-rt-14-dev (libFuzzer and the sanitizers) and
#           python3-hypothesis (property tests of the host parsers)
#   slides  adds chromium, poppler-utils and fonts-dejavu-core (make slides
#           renders the lecture in headless Chromium and checks the PDF), and
#           nodejs with npm when no npm is on PATH (reveal.js comes from npm)
#   web     adds python3-websockets (make web's server, tools/web.py), and
#           nodejs with npm when no npm is on PATH (xterm.js comes from npm)

set -u

pkgs="qemu-system-x86 qemu-system-arm grub-pc-bin grub-common xorriso mtools
gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu newlib-source gdb-multiarch
python3 binutils gcc make ccache"

for group in "$@"; do
    case "$group" in
        bench) pkgs="$pkgs python3-matplotlib" ;;
        model) pkgs="$pkgs spin" ;;
        fuzz) pkgs="$pkgs clang libclang-rt-14-dev python3-hypothesis" ;;
        slides) pkgs="$pkgs chromium poppler-utils fonts-dejavu-core"
                # A Node.js from elsewhere (NodeSource's) brings its own npm.
                command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm" ;;
        web) pkgs="$pkgs python3-websockets"
             command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm" ;;
        *) echo "deps: unknown group '$group' (known: bench, model, fuzz, slides, web)" >&2; exit 2 ;;
    esac
done

# One dpkg-query for all packages: it prints a line for every package it
# knows (installed or not) and complains on stderr about unknown ones.
# shellcheck disable=SC2086  # $pkgs is a word list
status=$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null)

# (No process per package: this runs before every make.)
installed=" $(printf '%s\n' "$status" | awk '$2 == "install" && $3 == "ok" && $4 == "installed" { printf "%s ", $1 }')"
missing=""
for p in $pkgs; do
    case "$installed" in
        *" $p "*) ;;
        *) missing="$missing $p" ;;
    esac
done
missing=${missing# }

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing packages: $missing" >&2
    echo "deps: not root; run this, then try again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends $missing" >&2
    exit 1
fi

echo "deps: installing $missing"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp "${TMPDIR:-/tmp}/deps.XXXXXX")
trap 'rm -f "$log"' EXIT

# shellcheck disable=SC2086
if apt-get install -y --no-install-recommends $missing >"$log" 2>&1; then
    exit 0
fi

# A fresh machine has empty package lists ("Unable to locate package"):
# refresh them and try once more.
echo "deps: apt-get install failed; running apt-get update and retrying"
if ! apt-get update >>"$log" 2>&1; then
    tail -20 "$log" >&2
    echo "deps: apt-get update failed" >&2
    exit 1
fi
# shellcheck disable=SC2086
if ! apt-get install -y --no-install-recommends $missing >>"$log" 2>&1; then
    tail -30 "$log" >&2
    echo "deps: apt-get install failed for: $missing" >&2
    exit 1
fi
exit 0

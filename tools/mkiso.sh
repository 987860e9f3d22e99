#!/bin/bash
# tools/mkiso.sh [-m 'FILE ARGV0 [ARG...]']... ELF ISO [CMDLINE-WORD...]
#
# Wrap a multiboot2 kernel ELF in a small GRUB (BIOS) rescue ISO that boots
# it at once with the given command-line words.  Each -m adds a boot
# module (a user program: docs/user.md): FILE, stripped of its symbols,
# loaded by a module2 line whose command line is ARGV0 and the ARGs, the
# program's argv (the kernel finds the program by ARGV0).
#
# Every word is single-quoted in grub.cfg so that GRUB's script parser
# takes it literally ($, ;, \, ", # ... included); an embedded ' is written
# as '\''.  GRUB 2.06 then rebuilds the multiboot2 command line from the
# parsed words (measured here): the words only, without the kernel path,
# joined by single spaces, with a backslash put before every \ ' and ",
# and a word that contains a space wrapped in double quotes.  So
#   mkiso.sh k.elf k.iso a b "it's" 'x y'   gives   a b it\'s "x y"
# No arguments give an empty command line.

set -euo pipefail

modules=()
while [ $# -gt 0 ] && [ "$1" = "-m" ]; do
    [ $# -ge 2 ] || { echo "mkiso: -m needs 'FILE ARGV0 [ARG...]'" >&2; exit 2; }
    modules+=("$2")
    shift 2
done
if [ $# -lt 2 ]; then
    echo "usage: $0 [-m 'FILE ARGV0 [ARG...]']... ELF ISO [CMDLINE-WORD...]" >&2
    exit 2
fi
elf=$1
iso=$2
shift 2

if [ ! -f "$elf" ]; then
    echo "mkiso: $elf not found" >&2
    exit 1
fi

# Quote one word for GRUB's script parser.
grub_quote() {
    local q="'\\''"
    printf "'%s'" "${1//\'/$q}"
}

args=""
for w in "$@"; do
    args+=" $(grub_quote "$w")"
done

mkdir -p "$(dirname "$iso")"
stage=$iso.d
rm -rf "$stage"
mkdir -p "$stage/boot/grub" "$stage/boot/m"
cp "$elf" "$stage/boot/kernel.elf"

# One module2 line per program; the ISO holds each stripped (the build
# keeps the ELF with symbols for the runner's reports).
module_lines=""
n=0
for spec in "${modules[@]}"; do
    read -r -a words <<<"$spec"
    file=${words[0]}
    if [ ! -f "$file" ] || [ ${#words[@]} -lt 2 ]; then
        echo "mkiso: module '$spec': needs an existing FILE and ARGV0" >&2
        exit 1
    fi
    # Stripped once per build of the program, beside it (a boot's ISO
    # takes 40-odd programs: stripping them all each time cost more CPU
    # than QEMU's whole boot of a short test).
    stripped=$file.stripped
    if [ ! "$stripped" -nt "$file" ]; then
        strip --strip-all -o "$stripped.$$" "$file"
        mv -f "$stripped.$$" "$stripped"
    fi
    cp "$stripped" "$stage/boot/m/$n"
    line="    module2 /boot/m/$n"
    for w in "${words[@]:1}"; do
        line+=" $(grub_quote "$w")"
    done
    module_lines+="$line"$'\n'
    n=$((n + 1))
done

cat >"$stage/boot/grub/grub.cfg" <<EOF
set timeout=0
set default=0
menuentry "Quiescent" {
    multiboot2 /boot/kernel.elf$args
${module_lines}    boot
}
EOF

# Debian 12's xorriso (1.5.4) sometimes dies of SIGSEGV while it shuts
# down, after "Writing to ... completed successfully" (1 run in 40 here,
# on a loaded host; CI builds hundreds of ISOs): grub-mkrescue then
# fails.  Such a crash says "UNIX-SIGNAL"; try again, at most twice.
log=$iso.log
for attempt in 1 2 3; do
    if grub-mkrescue -o "$iso" "$stage" \
            --install-modules="multiboot2 normal configfile iso9660 biosdisk boot" \
            --locales= --fonts= --themes= >"$log" 2>&1; then
        break
    fi
    if [ "$attempt" = 3 ] || ! grep -q 'UNIX-SIGNAL' "$log"; then
        cat "$log" >&2
        echo "mkiso: grub-mkrescue failed" >&2
        exit 1
    fi
    echo "mkiso: xorriso crashed ($(grep -m1 'UNIX-SIGNAL' "$log" | tr -s ' ')); building the ISO again" >&2
done
rm -f "$log"
rm -rf "$stage"

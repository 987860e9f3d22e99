#!/bin/bash
# tools/newlib.sh: newlib, built once per key and kept in a cache outside
# the tree, appearing where the build looks for it (build/newlib-ARCH and
# build/newlib-user-ARCH).  tools/build-newlib.sh does the building.
#
#   tools/newlib.sh key     ARCH DEST CC_PREFIX -- CFLAGS...
#       write DEST.key (what decides the build's contents), only if it changed
#   tools/newlib.sh install ARCH DEST CC_PREFIX -- CFLAGS...
#       make DEST a valid newlib for that key: a symbolic link to the cache's
#       entry (built first if the cache has none), or, with NEWLIB_CACHE=0,
#       a folder of its own
#   tools/newlib.sh list | prune [--all]
#       the cache's entries; prune removes the least recently used until the
#       cache fits NEWLIB_CACHE_MAX_MB (--all: every entry)
#   tools/newlib.sh share TREE
#       this checkout's newlib builds (links into the cache, or folders of
#       their own with NEWLIB_CACHE=0) appear in TREE/build too, as they are
#       here: for a clone the labs' or handouts' CI makes
#
# The key is a hash of everything that decides what the build produces:
# the source tarball's checksum, tools/build-newlib.sh itself (the
# configure options live there), the compiler's and binutils' versions,
# the target and the flags.  An entry is used only if its .key matches and
# every file its .manifest lists has the checksum written there when it
# was built, so a partial or damaged entry is rebuilt, never used.  An entry
# is filled atomically: built in a temporary folder, its manifest written
# last, then renamed into place under a lock (make -j2 builds the kernel's
# and the user newlib at once; two clones may want one entry at once).
#
# Environment (make passes its variables of the same names):
#   NEWLIB_CACHE=0        no cache: DEST is a folder of its own (rebuilt
#                         the same atomic way); default 1
#   NEWLIB_CACHE_DIR=DIR  where the entries live; default
#                         $XDG_CACHE_HOME/quiescent/newlib, or
#                         ~/.cache/quiescent/newlib
#   NEWLIB_CACHE_MAX_MB=N the size cap, pruned after each new entry
#                         (default 1024; an entry is about 3 MB)
#   NEWLIB_TARBALL, NEWLIB_BUILDER: the tarball and the build script
#                         (tools/tests/test_newlib_cache.py uses stand-ins)

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tarball=${NEWLIB_TARBALL:-/usr/src/newlib/newlib-3.3.0.tar.xz}
builder=${NEWLIB_BUILDER:-$here/build-newlib.sh}
cache=${NEWLIB_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/quiescent/newlib}
use_cache=${NEWLIB_CACHE:-1}
max_mb=${NEWLIB_CACHE_MAX_MB:-1024}

die() { echo "newlib: $*" >&2; exit 1; }
usage() {
	echo "usage: $0 key|install ARCH DEST CC_PREFIX -- CFLAGS... | list | prune [--all] | share TREE" >&2
	exit 2
}

case "$use_cache" in 0|1) ;; *) die "NEWLIB_CACHE=$use_cache: use NEWLIB_CACHE=1 or NEWLIB_CACHE=0" ;; esac
case "$max_mb" in ''|*[!0-9]*) die "NEWLIB_CACHE_MAX_MB=$max_mb: not a number of MB" ;; esac

# The lines that decide the build's contents, one fact each, so that a
# person reading DEST.key sees why two builds differ.
key_material() {
	local arch=$1 cc=$2 flags=$3
	[ -f "$tarball" ] || die "$tarball not found (install newlib-source: tools/deps.sh)"
	command -v "${cc}gcc" >/dev/null 2>&1 || die "${cc}gcc not found (tools/deps.sh installs it)"
	echo "arch: $arch"
	echo "tarball: $(tarball_sum)"
	echo "builder: $(sha256sum <"$builder" | cut -d' ' -f1)"
	echo "gcc: $("${cc}gcc" --version | head -n 1) $("${cc}gcc" -dumpmachine)"
	echo "binutils: $("${cc}as" --version | head -n 1)"
	echo "flags: $flags"
}

# The tarball's sha256, remembered beside the cache by its size, inode
# and times (make asks for the key on every run; hashing 5.5 MB each time
# would not be free).  The times to the nanosecond: a tarball rewritten
# with the same size within one second (tools/tests/test_newlib_cache.py
# does it) must not keep the old sum.
tarball_sum() {
	local stat memo
	stat=$(stat -L -c '%s %i %.9Y %.9Z' "$tarball")
	memo=$cache/.tarball-$(printf '%s' "$tarball" | sha256sum | cut -c1-16)
	if [ -f "$memo" ] && [ "$(head -n 1 "$memo")" = "$stat" ]; then
		sed -n 2p "$memo"
		return
	fi
	local sum
	sum=$(sha256sum <"$tarball" | cut -d' ' -f1)
	mkdir -p "$cache" 2>/dev/null && printf '%s\n%s\n' "$stat" "$sum" >"$memo.$$" &&
		mv -f "$memo.$$" "$memo" || true
	echo "$sum"
}

# An entry is valid when its key is this key and its manifest checks.
entry_valid() {
	local dir=$1 material=$2
	[ -f "$dir/.key" ] && [ -f "$dir/.manifest" ] || return 1
	[ "$(cat "$dir/.key")" = "$material" ] || return 1
	grep -q ' \./[^ ]*/lib/libc\.a$' "$dir/.manifest" || return 1
	(cd "$dir" && sha256sum --quiet --strict -c .manifest >/dev/null 2>&1)
}

# Builds into a temporary folder next to DIR, writes the key and manifest
# last, and renames it to DIR.
build_entry() {
	local arch=$1 dir=$2 cc=$3 flags=$4 material=$5
	local tmp=$dir.tmp.$$
	rm -rf "$tmp" "$tmp.build" "$tmp.log"
	# shellcheck disable=SC2086  # $flags is a word list
	if ! bash "$builder" "$arch" "$tmp" "$cc" -- $flags; then
		rm -rf "$tmp" "$tmp.build"
		die "building newlib for $arch failed (the lines above say why)"
	fi
	[ -f "$tmp.log" ] && mv -f "$tmp.log" "$tmp/build.log"
	(cd "$tmp" && find . -type f ! -name .manifest ! -name .key ! -name build.log -print0 |
		sort -z | xargs -0 sha256sum >.manifest)
	printf '%s\n' "$material" >"$tmp/.key"
	rm -rf "$dir"
	mv -T "$tmp" "$dir"
}

cmd_key() {
	local arch=$1 dest=$2 cc=$3 flags=$4 material
	material=$(key_material "$arch" "$cc" "$flags")
	mkdir -p "$(dirname "$dest")"
	if ! printf '%s\n' "$material" | cmp -s - "$dest.key"; then
		printf '%s\n' "$material" >"$dest.key"
	fi
}

cmd_install() {
	local arch=$1 dest=$2 cc=$3 flags=$4 material
	material=$(key_material "$arch" "$cc" "$flags")
	mkdir -p "$(dirname "$dest")"
	if [ "$use_cache" = 0 ]; then
		[ -L "$dest" ] && rm -f "$dest"
		exec 9>"$dest.lock"
		flock 9
		entry_valid "$dest" "$material" ||
			{ say_why "$dest" "$material"; build_entry "$arch" "$dest" "$cc" "$flags" "$material"; }
		return
	fi
	local name entry
	name=$(basename "$dest")-$(printf '%s\n' "$material" | sha256sum | cut -c1-16)
	entry=$cache/$name
	mkdir -p "$cache"
	exec 9>"$cache/.lock-$name"
	flock 9
	if ! entry_valid "$entry" "$material"; then
		say_why "$entry" "$material"
		rm -rf "$entry".tmp.*
		build_entry "$arch" "$entry" "$cc" "$flags" "$material"
		echo "newlib: cached as $entry"
		prune_to_cap "$entry"
	fi
	touch "$entry/.manifest"  # its time says when it was last used
	# Swap the link in one rename (a folder left by NEWLIB_CACHE=0 goes first).
	[ -d "$dest" ] && [ ! -L "$dest" ] && rm -rf "$dest"
	ln -sfn "$entry" "$dest.link.$$"
	mv -T "$dest.link.$$" "$dest"
}

# One line saying why an entry is (re)built, when it is not simply new.
say_why() {
	local dir=$1 material=$2
	if [ -f "$dir/.key" ] && [ "$(cat "$dir/.key")" != "$material" ]; then
		echo "newlib: $dir was built for another key: building it again"
	elif [ -e "$dir" ]; then
		echo "newlib: $dir is incomplete or damaged (its manifest does not check): building it again"
	fi
}

# The entries, least recently used first: "TIME KB NAME".
entries() {
	[ -d "$cache" ] || return 0
	local e
	for e in "$cache"/*/; do
		e=${e%/}
		[ -f "$e/.manifest" ] || continue
		echo "$(stat -c %Y "$e/.manifest") $(du -sk "$e" | cut -f1) $(basename "$e")"
	done | sort -n
}

# Removes the least recently used entries until the cache fits the cap;
# never KEEP (the entry just made).
prune_to_cap() {
	local keep=${1:-} total t kb name
	total=$(entries | awk '{s += $2} END {print s + 0}')
	while read -r t kb name; do
		[ "$total" -le $((max_mb * 1024)) ] && break
		[ "$cache/$name" = "$keep" ] && continue
		echo "newlib: the cache is over ${max_mb} MB: removing $name (last used $(date -d "@$t" '+%F %T'))"
		rm -rf "${cache:?}/$name"
		total=$((total - kb))
	done < <(entries)
}

cmd_list() {
	echo "newlib cache: $cache (cap ${max_mb} MB$([ "$use_cache" = 0 ] && echo '; off: NEWLIB_CACHE=0'))"
	entries | while read -r t kb name; do
		printf '  %-44s %6d KB  last used %s\n' "$name" "$kb" "$(date -d "@$t" '+%F %T')"
	done
}

cmd_prune() {
	if [ "${1:-}" = --all ]; then
		echo "newlib: removing every entry of $cache"
		rm -rf "${cache:?}"/newlib-* "$cache"/.lock-* "$cache"/.tarball-*
	else
		prune_to_cap ""
	fi
}

cmd_share() {
	local tree=$1 d
	mkdir -p "$tree/build"
	for d in "$here"/../build/newlib-*; do
		case $d in *.key|*.ok|*.lock|*.log|*.flags|*.tmp.*) continue ;; esac
		[ -e "$d.ok" ] || continue
		cp -a "$d" "$d.key" "$d.ok" "$tree/build/"
	done
}

[ $# -ge 1 ] || usage
verb=$1
shift
case "$verb" in
	key|install)
		[ $# -ge 3 ] || usage
		arch=$1 dest=$2 cc=$3
		shift 3
		[ "${1:-}" = -- ] || usage
		shift
		"cmd_$verb" "$arch" "$dest" "$cc" "$*" ;;
	list) cmd_list ;;
	prune) cmd_prune "$@" ;;
	share) [ $# -eq 1 ] || usage; cmd_share "$1" ;;
	*) usage ;;
esac

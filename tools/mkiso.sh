#!/bin/bash
# tools/mkiso.sh ELF ISO [CMDLINE-WORD...]
#
# Wrap a multiboot2 kernel ELF in a small GRUB (BIOS) rescue ISO that boots
# it at once with the given command-line words.
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

if [ $# -lt 2 ]; then
    echo "usage: $0 ELF ISO [CMDLINE-WORD...]" >&2
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
mkdir -p "$stage/boot/grub"
cp "$elf" "$stage/boot/kernel.elf"
cat >"$stage/boot/grub/grub.cfg" <<EOF
set timeout=0
set default=0
menuentry "Quiescent" {
    multiboot2 /boot/kernel.elf$args
    boot
}
EOF

log=$iso.log
if ! grub-mkrescue -o "$iso" "$stage" \
        --install-modules="multiboot2 normal configfile iso9660 biosdisk boot" \
        --locales= --fonts= --themes= >"$log" 2>&1; then
    cat "$log" >&2
    echo "mkiso: grub-mkrescue failed" >&2
    exit 1
fi
rm -f "$log"
rm -rf "$stage"

#!/bin/sh
# tools/check-vars.sh MACHINE MAX_SMP MIN_MEM_MB MEM NAME=COUNTS...
#
# The make variables a person may get wrong, checked before anything is
# built or booted (the Makefile runs this for the targets that boot).
# Prints one line saying what is wrong and what is accepted, or nothing.
#
#   MACHINE     the QEMU machine, for the message (pc, virt)
#   MAX_SMP     the most CPUs that machine takes (QEMU 7.2: pc 255, virt 512)
#   MIN_MEM_MB  the least memory the kernel boots with, in MiB (measured)
#   MEM         as given: a number of MiB, or with an M or G suffix
#   NAME=COUNTS a variable holding CPU counts: SMP=4, TORTURE_SMP="1 2 4"
#
# Numbers are compared as digit strings first: the shell's arithmetic
# wraps around (or refuses) beyond 64 bits, and SMP=99999999999999999999
# must not pass for a small count.

set -f		# a value like SMP='*' is a word, not a file name pattern
machine=$1 max_smp=$2 min_mem=$3 mem=$4
shift 4

# Is the whole number $1 (digits, no leading zero) greater than $2 (small)?
greater() {
    [ ${#1} -gt ${#2} ] || { [ ${#1} -eq ${#2} ] && [ "$1" -gt "$2" ]; }
}

words() { echo $#; }

not_a_count() {
    echo "$1=$2: not a CPU count; use a whole number from 1 to $max_smp (the QEMU $machine machine's maximum)"
    exit 0
}

for var in "$@"; do
    name=${var%%=*}
    counts=${var#*=}
    # An empty or blank value is one wrong count, not none.
    shown=
    [ -n "$counts" ] && shown="'$counts'"
    [ -n "$(echo $counts)" ] || counts="''"
    # SMP is one count; TORTURE_SMP and BENCH_SMP are lists.
    [ "$name" = SMP ] && [ "$(words $counts)" -gt 1 ] && not_a_count "$name" "$shown"
    for smp in $counts; do
        case "$smp" in
            ''|"''"|*[!0-9]*|0*)
                [ "$smp" = "''" ] && smp=$shown
                not_a_count "$name" "$smp" ;;
        esac
        if greater "$smp" "$max_smp"; then
            echo "$name=$smp: the QEMU $machine machine takes at most $max_smp CPUs; use a whole number from 1 to $max_smp"
            exit 0
        fi
    done
done

case "$mem" in
    *[Gg]) mb=${mem%?}; scale=1024 ;;
    *[Mm]) mb=${mem%?}; scale=1 ;;
    *)     mb=$mem; scale=1 ;;
esac
case "$mb" in
    ''|*[!0-9]*)
        echo "MEM=$mem: not a memory size; give MiB or GiB such as MEM=128M or MEM=2G (at least ${min_mem}M)"
        exit 0 ;;
esac
# Strip leading zeros (the shell reads 010 as octal); the digits are checked above.
mb=$(echo "$mb" | sed 's/^0*//')
# 1 TiB at most: far beyond the 4 GiB the kernel uses, and a number the
# shell multiplies safely once it has at most 7 digits.
max_mb=1048576
if [ ${#mb} -gt 7 ] || [ $(( ${mb:-0} * scale )) -gt $max_mb ]; then
    echo "MEM=$mem: more than 1 TiB; give at most MEM=1024G (the kernel uses the first 4 GiB)"
    exit 0
fi
mb=$(( ${mb:-0} * scale ))
if [ "$mb" -lt "$min_mem" ]; then
    echo "MEM=$mem: too little memory; the kernel boots with MEM=${min_mem}M or more (measured)"
fi

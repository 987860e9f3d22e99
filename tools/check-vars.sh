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

machine=$1 max_smp=$2 min_mem=$3 mem=$4
shift 4

for var in "$@"; do
    name=${var%%=*}
    counts=${var#*=}
    [ -n "$counts" ] || counts="''"
    for smp in $counts; do
        case "$smp" in
            ''|"''"|*[!0-9]*|0*)
                [ "$smp" = "''" ] && smp=
                echo "$name=$smp: not a CPU count; use a whole number from 1 to $max_smp (the QEMU $machine machine's maximum)"
                exit 0 ;;
        esac
        if [ "$smp" -gt "$max_smp" ]; then
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
mb=$(( ${mb:-0} * scale ))
if [ "$mb" -lt "$min_mem" ]; then
    echo "MEM=$mem: too little memory; the kernel boots with MEM=${min_mem}M or more (measured)"
fi

#!/usr/bin/env bash
# make torture: rcutorture for DURATION seconds at each CPU count of
# "SMP LIST", then its reader-pipe histogram and the grace periods and
# callbacks it completed, per CPU count.  Fails if any run failed.  The
# consoles stay in DIR/smpN.log, the runner's output in DIR/smpN.out.
#
#   tools/torture.sh DIR DURATION "SMP LIST" "EXTRA KERNEL WORDS" --arch ... (tools/run.py's
#       other options: --arch, --kernel, --mem, --accel)
set -u
dir=$1 duration=$2 smps=$3 words=$4
shift 4
# The runner's deadline: the run, a boot's worth of slack, and more for more vCPUs.
SLACK_S=300
PER_CPU_S=30
mkdir -p "$dir"
rc=0
for n in $smps; do
	echo "=== rcutorture: $duration s at SMP=$n ==="
	python3 "$(dirname "$0")/run.py" "$@" --smp "$n" \
		--timeout $((duration + SLACK_S + PER_CPU_S * n)) --mode test \
		--log "$dir/smp$n.log" \
		--cmdline "ktest.filter=rcutorture rcutorture.duration=$duration $words" \
		>"$dir/smp$n.out" 2>&1 || rc=1
	grep -E 'Reader Pipe|Reader Batch|grace periods|updates|End of test|passed, ' \
		"$dir/smp$n.out" | sed 's/^# //'
done
exit "$rc"

#!/usr/bin/env bash
# make trace: boot the trace scenario (tests/trace_scenario.c) with
# trace=rcu, keep the console in DIR/console.log and draw it with
# tools/timeline.py: DIR/timeline.svg (and .png when it can).  Fails if
# the kernel test failed or the timeline finds an RCU violation.
#
#   tools/trace.sh DIR "EXTRA KERNEL WORDS" python3 tools/run.py --arch ... (the runner)
set -u
dir=$1 words=$2
shift 2
mkdir -p "$dir"
rc=0
"$@" --mode test --log "$dir/console.log" \
	--cmdline "ktest.filter=trace_scenario* trace=rcu $words" >"$dir/run.out" 2>&1 || rc=1
# The trace itself is in the console log; here, only the test's verdict.
sed '/^# trace: begin/,/^# trace: end/d' "$dir/run.out"
echo "trace: the whole console is in $dir/console.log"
python3 "$(dirname "$0")/timeline.py" "$dir/console.log" -o "$dir/timeline.svg" \
	--png "$dir/timeline.png" || rc=1
[ "$rc" -eq 0 ] || echo "trace: FAILED (kernel test or timeline check)"
exit "$rc"

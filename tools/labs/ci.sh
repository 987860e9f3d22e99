#!/usr/bin/env bash
# CI for the labs (.ci/run), in three parts:
#  - here: every lab's functions exist and its wrong solutions are well
#    formed and apply (labs.py check); `make grade LAB=NAME` (the
#    reference) scores full marks, and its results.json says the same;
#  - in a clone under build/ (never this checkout's branch), for each lab:
#    each wrong solution of tools/labs/wrong/NAME/ loses points in the part
#    that must catch it, at the one CPU count named, with the message its
#    header expects (labs.py wrong: the boot stops at the first failure);
#  - then `make lab LAB=NAME` succeeds, the starter builds and boots, and
#    `make grade` scores below full marks.
# x86-64 only (a part that reads AArch64 instructions compiles its objects
# for AArch64).  Prints one "labs-ci: ok|FAILED ..." line per check (the
# messages indented below), then "labs-ci: N passed, N failed"; exits
# non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
clone=$root/build/labs-ci
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0
failed=0

ok() { echo "labs-ci: ok: $*"; passed=$((passed + 1)); }
bad() { echo "labs-ci: FAILED: $*"; failed=$((failed + 1)); }

if python3 tools/labs/labs.py check; then ok "every lab's functions exist, its wrong solutions apply"
else bad "labs.py check"; fi
# The labs in an order that rebuilds least: those whose functions live in a
# header every file includes (rcupdate.h, rculist.h) last, since each of
# their patches rebuilds the whole kernel.
labs=$(python3 - <<'EOF'
import sys
sys.path.insert(0, "tools/labs")
import labs
def in_header(lab):
    return any(path.endswith(".h") for path, _, _ in lab["FUNCTIONS"])
for lab in sorted(labs.all_labs(), key=lambda lab: (in_header(lab), lab["ORDER"])):
    print(lab["NAME"])
EOF
)

for lab in $labs; do
	t0=$SECONDS
	make --no-print-directory grade LAB="$lab" >"$log" 2>&1
	rc=$?
	score=$(sed -n 's/^Score: //p' "$log")
	json=$(python3 -c 'import json; d = json.load(open("build/grade/results.json"))
print("%s/%s" % (d["score"], d["extra_data"]["max_score"]))' 2>&1)
	if [ "$rc" -eq 0 ] && [ -n "$score" ] && [ "${score%/*}" = "${score#*/}" ] &&
	   [ "$json" = "$score" ]; then
		ok "reference $lab scores $score ($((SECONDS - t0)) s)"
	else
		cat "$log"; echo "results.json: $json"
		bad "reference $lab: make grade LAB=$lab must score full marks, results.json too"
	fi
done

# The clone reuses this checkout's newlib (tools/newlib.sh share: the
# cache's links, or copies with NEWLIB_CACHE=0) and the kernel objects the
# references just built (copied, then made newer than the clone's
# sources): only what a patch or make lab changes is rebuilt.
rm -rf "$clone"
git clone -q "$root" "$clone" || { bad "git clone"; exit 1; }
bash tools/newlib.sh share "$clone"
for d in build/x86_64 build/x86_64-preempt build/aarch64; do
	[ -e "$d" ] && cp -a "$d" "$clone/build/"
done
find "$clone/build" -type f -exec touch {} +
start=$(git -C "$clone" rev-parse HEAD)

for lab in $labs; do
	# The wrong solutions, on the reference.
	git -C "$clone" switch -q --detach "$start"
	python3 "$clone/tools/labs/labs.py" wrong "$lab" >"$log" 2>&1
	while IFS= read -r line; do
		case $line in
		"wrong: ok: "*) ok "wrong ${line#wrong: ok: }" ;;
		"wrong: FAILED: "*) bad "wrong ${line#wrong: FAILED: }" ;;
		"    "*) echo "$line" ;;
		esac
	done <"$log"
	grep -q '^wrong: [0-9]* caught' "$log" || { cat "$log"; bad "labs.py wrong $lab did not finish"; }

	# The starter.
	t0=$SECONDS
	if ! make -C "$clone" --no-print-directory lab LAB="$lab" >"$log" 2>&1; then
		cat "$log"; bad "make lab LAB=$lab"; continue
	fi
	# The first failed part is enough to show a starter below full marks.
	make -C "$clone" --no-print-directory grade GRADE_FLAGS=--stop-at-first-failure >"$log" 2>&1
	rc=$?
	score=$(sed -n 's/^Score: //p' "$log")
	got=${score%/*} total=${score#*/}
	if [ "$rc" -eq 0 ] || [ -z "$score" ] || [ "$got" -ge "$total" ]; then
		cat "$log"; bad "starter $lab: make grade must score below full marks"
	elif grep -q "does not build" "$log"; then
		cat "$log"; bad "starter $lab: does not build"
	else
		grep -E '^  ' "$log" | head -n 2 | sed 's/^/    /'
		ok "starter $lab scores $score ($((SECONDS - t0)) s)"
	fi
done

echo "labs-ci: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# CI for the labs (.ci/run): every lab's functions exist; here,
# `make grade LAB=NAME` (the reference) scores full marks; in a clone
# under build/ (never this checkout's branch), `make lab LAB=NAME`
# succeeds for every lab, its starter builds and boots, and `make grade`
# scores below full marks.  Starters on x86-64 only (their stubs panic at the first test).
# Prints one "labs-ci: ok|FAILED ..." line per check, then
# "labs-ci: N passed, N failed"; exits non-zero on any failure.
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

if python3 tools/labs/labs.py check; then ok "every lab's functions exist"; else bad "labs.py check"; fi
labs=$(ls tools/labs/defs/*.py | xargs -n1 basename | sed 's/\.py$//')
# Starters: the labs whose starter changes a header everything includes
# (kernel/rcu/rcupdate.h) last, so that the others rebuild only their own files.
starters="$(echo "$labs" | grep -vx 'publish\|preempt') publish preempt"

for lab in $labs; do
	t0=$SECONDS
	make --no-print-directory grade LAB="$lab" >"$log" 2>&1
	rc=$?
	score=$(sed -n 's/^Score: //p' "$log")
	if [ "$rc" -eq 0 ] && [ -n "$score" ] && [ "${score%/*}" = "${score#*/}" ]; then
		ok "reference $lab scores $score ($((SECONDS - t0)) s)"
	else
		cat "$log"; bad "reference $lab: make grade LAB=$lab must score full marks"
	fi
done

# The clone reuses this checkout's newlib and the kernel objects the
# references just built (copied, then made newer than the clone's
# sources): only what make lab changes is rebuilt.
rm -rf "$clone"
git clone -q "$root" "$clone" || { bad "git clone"; exit 1; }
mkdir -p "$clone/build"
cp -a build/newlib-x86_64 "$clone/build/"
for d in build/x86_64 build/x86_64-preempt; do
	[ -d "$d" ] && cp -a "$d" "$clone/build/"
done
find "$clone/build" -type f -exec touch {} +
start=$(git -C "$clone" rev-parse HEAD)

for lab in $starters; do
	t0=$SECONDS
	git -C "$clone" switch -q --detach "$start"
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
		grep -E '^  |^Score' "$log" | sed 's/^/    /'
		ok "starter $lab scores $score ($((SECONDS - t0)) s)"
	fi
done

echo "labs-ci: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

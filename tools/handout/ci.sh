#!/usr/bin/env bash
# CI for the student repositories (.ci/run; docs/labs/INSTRUCTOR.md):
# make handout for every lab (each checked for its reference: the build
# fails if a line of it is anywhere in the handout), then, for one lab
# (HANDOUT_CI_LAB, default idle: the shortest grade), what a student does
# in that repository (HANDOUT_CI_LAB must be among HANDOUT_CI_BUILD):
# make grade on the starter scores below full marks,
# and the reference bodies, committed as a student's answer, score full
# marks.  Needs this checkout built first (make all): the handout reuses
# its newlib and kernel objects, and rebuilds what the lab changed.
# Each handout's docs are checked too (tools/check_docs.py run inside it):
# every path they name is in the student repository, every path:line lands
# where it says (redact.py rewrites what names the instructor's files).
# HANDOUT_CI_LAB=none builds and checks the handouts and grades none.
# Prints one "handout-ci: ok|FAILED ..." line per check, then
# "handout-ci: N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
lab=${HANDOUT_CI_LAB:-idle}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0
failed=0

ok() { echo "handout-ci: ok: $*"; passed=$((passed + 1)); }
bad() { echo "handout-ci: FAILED: $*"; failed=$((failed + 1)); }

# HANDOUT_CI_BUILD: the labs whose handouts to build and check (default
# all; each is a few seconds on a quiet machine, about 20 s under load).
build=${HANDOUT_CI_BUILD:-$(ls tools/labs/defs/*.py | xargs -n1 basename | sed 's/\.py$//')}
for name in $build; do
	t0=$SECONDS
	if make --no-print-directory handout LAB="$name" >"$log" 2>&1; then
		ok "make handout LAB=$name: $(tail -n 1 "$log" | sed 's/^handout check: //') ($((SECONDS - t0)) s)"
	else
		cat "$log"; bad "make handout LAB=$name"
		continue
	fi
	# The grader's tool starts without the instructor's files (a module
	# of theirs imported at the top once broke make grade in every handout).
	if (cd "build/handout/$name" && python3 tools/labs/labs.py list) >"$log" 2>&1; then
		ok "lab $name's handout: tools/labs/labs.py starts"
	else
		sed 's/^/    /' "$log"; bad "lab $name's handout: tools/labs/labs.py does not start"
	fi
	t0=$SECONDS
	if (cd "build/handout/$name" && python3 tools/check_docs.py) >"$log" 2>&1; then
		ok "lab $name's handout: $(tail -n 1 "$log") ($((SECONDS - t0)) s)"
	else
		grep -v '^check_docs:' "$log" | sed 's/^/    /'
		bad "lab $name's handout: its docs name what it does not hold: $(tail -n 1 "$log")"
	fi
done
[ "$lab" = none ] && { echo "handout-ci: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

dir=$root/build/handout/$lab
if [ ! -f "$dir/.lab" ]; then
	bad "no handout of lab $lab to grade"
else
	# This checkout's newlib and objects, older than the files the handout
	# changed (its lab's functions), so that make rebuilds exactly those.
	bash tools/newlib.sh share "$dir"
	[ -d build/x86_64 ] && cp -a build/x86_64 "$dir/build/"
	find "$dir/build" -type f -exec touch -d '-1 minute' {} +
	for f in $(cd "$dir" && git ls-files); do
		if ! cmp -s "$dir/$f" "$root/$f"; then touch "$dir/$f"; fi
	done

	t0=$SECONDS
	make -C "$dir" --no-print-directory grade GRADE_FLAGS=--stop-at-first-failure >"$log" 2>&1
	rc=$?
	score=$(sed -n 's/^Score: //p' "$log")
	if [ "$rc" -ne 0 ] && [ -n "$score" ] && [ "${score%/*}" -lt "${score#*/}" ] &&
		! grep -q 'does not build' "$log"; then
		grep -E '^  |^Score' "$log" | sed 's/^/    /'
		ok "the starter of lab $lab, graded in its handout, scores $score ($((SECONDS - t0)) s)"
	else
		cat "$log"; bad "the starter of lab $lab in its handout must build and score below full marks"
	fi

	t0=$SECONDS
	if python3 tools/handout/handout.py solve "$lab" "$dir" >"$log" 2>&1 &&
		make -C "$dir" --no-print-directory grade >"$log" 2>&1; then
		ok "lab $lab's handout with the reference as the answer: $(sed -n 's/^Score: /Score: /p' "$log") ($((SECONDS - t0)) s)"
	else
		cat "$log"; bad "lab $lab's handout with the reference as the answer must score full marks"
	fi
	# The solved handout holds the reference: leave no copy of it about.
	rm -rf "$dir"
fi

echo "handout-ci: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

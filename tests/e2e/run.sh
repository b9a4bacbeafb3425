#!/bin/sh
# Run every tests/e2e/tNNNN-*.sh against the built loopkit ($LOOPKIT).
# A test exits 0 (pass), 77 (skip, reason on its last line) or anything
# else (fail). Each runs in its own scratch directory, from the source
# tree root, with $LOOPKIT, $SRC and $TMPD set. Arguments, if any, are
# name prefixes (t0010 t05): only the tests they match run.
#
# A test that measures nothing (it builds, generates, counts exactly,
# parses) says so with a line "# e2e: shares the machine": those run first,
# E2E_JOBS (default 2) at a time; every other test then runs alone, so
# that what it measures has the cores to itself.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export SRC LOOPKIT

# run.sh --one FILE: run one test, print its result as one block.
if [ "${1:-}" = --one ]; then
	t=$2
	name=$(basename "$t" .sh)
	TMPD=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-e2e.XXXXXX")
	export TMPD
	start=$(date +%s)
	(cd "$SRC" && sh "$t") >"$TMPD/.log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) out="ok   $name (${secs}s)" ;;
	77) out="skip $name: $(tail -n 1 "$TMPD/.log")" ;;
	*) out="FAIL $name (exit $rc, ${secs}s)
$(sed 's/^/     | /' "$TMPD/.log" | tail -n 40)" ;;
	esac
	[ $rc -eq 0 ] || [ $rc -eq 77 ] || out="$out
     (kept: $TMPD)"
	[ $rc -eq 0 ] || [ $rc -eq 77 ] && rm -rf "$TMPD"
	printf '%s\n' "$out"
	exit 0
fi

shared="" alone=""
for t in "$SRC"/tests/e2e/t[0-9][0-9][0-9][0-9]-*.sh; do
	name=$(basename "$t" .sh)
	if [ $# -gt 0 ]; then
		want=0
		for p in "$@"; do
			case $name in "$p"*) want=1 ;; esac
		done
		[ $want -eq 1 ] || continue
	fi
	if grep -q '^# e2e: shares the machine$' "$t"; then
		shared="$shared $t"
	else
		alone="$alone $t"
	fi
done
out=$(mktemp "${TMPDIR:-/tmp}/loopkit-e2e-results.XXXXXX")
# Each test prints its block in one write; tee shows them as they end.
{
	[ -z "$shared" ] || printf '%s\n' $shared |
		xargs -P "${E2E_JOBS:-2}" -I{} sh "$0" --one {}
	for t in $alone; do sh "$0" --one "$t"; done
} | tee "$out"
pass=$(grep -c '^ok ' "$out") skip=$(grep -c '^skip ' "$out")
fail=$(grep -c '^FAIL ' "$out")
rm -f "$out"
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

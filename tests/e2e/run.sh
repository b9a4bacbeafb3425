#!/bin/sh
# Run every tests/e2e/tNNNN-*.sh against the built loopkit ($LOOPKIT).
# A test exits 0 (pass), 77 (skip, reason on its last line) or anything
# else (fail). Each runs in its own scratch directory, from the source
# tree root, with $LOOPKIT, $SRC and $TMPD set. Arguments, if any, are
# name prefixes (t0010 t05): only the tests they match run.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
export SRC LOOPKIT
pass=0 fail=0 skip=0 failed=""
for t in "$SRC"/tests/e2e/t[0-9][0-9][0-9][0-9]-*.sh; do
	name=$(basename "$t" .sh)
	if [ $# -gt 0 ]; then
		want=0
		for p in "$@"; do
			case $name in "$p"*) want=1 ;; esac
		done
		[ $want -eq 1 ] || continue
	fi
	TMPD=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-e2e.XXXXXX")
	export TMPD
	start=$(date +%s)
	(cd "$SRC" && sh "$t") >"$TMPD/.log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "ok   $name (${secs}s)" ;;
	77) skip=$((skip + 1))
	    echo "skip $name: $(tail -n 1 "$TMPD/.log")" ;;
	*) fail=$((fail + 1)); failed="$failed $name"
	   echo "FAIL $name (exit $rc)"; sed 's/^/     | /' "$TMPD/.log" | tail -n 40 ;;
	esac
	[ $rc -eq 0 ] || [ $rc -eq 77 ] || continue
	rm -rf "$TMPD"
done
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]

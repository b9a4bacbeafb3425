# Bad sweep files: one clear line naming file and line, exit 2, nothing
# stored and nothing lost from an existing store.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
cp "$SRC"/tests/data/kernels/sum.c .
"$LOOPKIT" run -q -m tsc -r 3 sum.c >/dev/null
before=$(sqlite3 loopkit.d/store.db "select count(*) from runs")

expect_error() { # FILE LINE PATTERN
	set +e
	"$LOOPKIT" run -q -c "$1" >out 2>err; rc=$?
	set -e
	[ $rc -eq 2 ] || fail "$1: exit 2, got $rc"
	[ "$(wc -l <err)" -eq 1 ] || { cat err; fail "$1: one line"; }
	grep -q "^loopkit: error: $1:$2: .*$3" err ||
		{ cat err; fail "$1: message names line $2 and '$3'"; }
}
printf 'sources: [sum.c]\nmethod:\n  repetitons: 5\n' >misspelt.yaml
expect_error misspelt.yaml 3 "repetitons"
printf 'sources: [sum.c]\ndefines:\n  N: []\n' >empty-axis.yaml
expect_error empty-axis.yaml 3 "empty"
printf 'sources: [sum.c]\nmethod: {repetitions: many}\n' >type.yaml
expect_error type.yaml 2 "repetitions"
printf 'sources: [nope.c]\n' >nosource.yaml
expect_error nosource.yaml 1 "nope.c"
printf 'sources: [sum.c]\nmetrics: [tsc, cycels]\n' >metric.yaml
expect_error metric.yaml 2 "cycels"
printf 'sources: [sum.c\n' >syntax.yaml
set +e
"$LOOPKIT" run -q -c syntax.yaml 2>err; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'syntax.yaml:[0-9]*:' err || fail "YAML syntax error"
# A sweep file that is not there: the user's mistake, as a missing source.
for cmd in "run -q" "campaign" "mdl eval"; do
	set +e
	"$LOOPKIT" $cmd -c none.yaml >out 2>err; rc=$?
	set -e
	[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
		grep -q "^loopkit: error: cannot open none.yaml: No such file" err ||
		fail "$cmd -c none.yaml: exit $rc, $(cat err)"
done

after=$(sqlite3 loopkit.d/store.db "select count(*) from runs")
[ "$before" -eq "$after" ] || fail "nothing lost or added: $before/$after"
[ "$(sqlite3 loopkit.d/store.db "select count(*) from variants")" -eq 1 ] ||
	fail "no variant stored by a bad config"

# A kernel that segfaults, one that reaches a trap (SIGILL, the
# instruction named), one that never returns and one that does not
# compile are recorded with their reasons; the rest of the sweep completes.
. tests/e2e/lib.sh
cd "$TMPD"
cp "$SRC"/tests/data/kernels/*.c .
cat >sweep.yaml <<'Y'
sources: [segv.c, trap.c, hang.c, broken.c, sum.c]
defines: {N: [64, 128]}
exclude: [{source: [segv.c, trap.c, hang.c, broken.c], N: 128}]
metrics: [tsc]
method: {repetitions: 5, timeout: 2}
Y
set +e
"$LOOPKIT" run -q -c sweep.yaml >out 2>err; rc=$?
set -e
cat out err
[ $rc -eq 1 ] || fail "a sweep with failures exits 1, got $rc"
grep -Eq '^segv.c .* crashed .*SIGSEGV' out || fail "segfault recorded"
grep -Eq '^trap.c .* crashed .*killed by SIGILL: at ud2, the compiler.s trap' \
	out || fail "trap recorded with its instruction"
grep -Eq '^hang.c .* timed-out .*timed out after 2 s' out ||
	fail "hang recorded as timed out"
grep -Eq '^broken.c .* build-failed .*undeclared_kernel' out ||
	fail "compile error recorded with the compiler's message"
[ "$(grep -Ec '^sum.c .* ok ' out)" -eq 2 ] || fail "the rest completes"
db=loopkit.d/store.db
[ "$(sqlite3 $db "select count(*) from runs")" -eq 6 ] || fail "6 runs"
sqlite3 $db "select status, reason from runs" | grep -q '^crashed|' ||
	fail "crash stored"
# nothing half-stored: a crashed run has no samples
n=$(sqlite3 $db "select count(*) from samples s join runs r on
	s.run_id = r.id where r.status != 'ok'")
[ "$n" -eq 0 ] || fail "no samples from failed runs, got $n"
# A rerun does not retry them unless asked.
set +e
"$LOOPKIT" run -c sweep.yaml >/dev/null 2>err2
"$LOOPKIT" run --retry-failed -q -c sweep.yaml >/dev/null 2>err3
set -e
grep -q '0 measured now, 6 stored earlier' err2 || fail "no silent retry"
[ "$(sqlite3 $db "select count(*) from runs")" -eq 6 ] || fail "still 6 runs"

# A program that never measures anything is a failure, not an empty ok.
set +e
"$LOOPKIT" run -q -o nm nomeasure.c >out 2>&1; rc=$?
set -e
[ $rc -eq 1 ] || fail "nothing measured: exit 1, got $rc"
grep -q 'failed: no LK_MEASURE: the program ran and exited 0 without measuring anything; wrap the kernel call in LK_MEASURE(...) (see lkrt.h)' out ||
	{ cat out; fail "reason shown"; }
# One that never starts the runtime at all (no lkrt call): the same
# reason, not a crash. One whose stream stops without 'end' at a clean
# exit (_exit after a measurement) failed; a crash is a signal.
cat >plain.c <<'C'
#include <stdio.h>
int main(void) { volatile double s = 0; for (int i = 0; i < 1000; i++) s += i; printf("%g\n", s); return 0; }
C
cat >quick.c <<'C'
#include <lkrt.h>
#include <unistd.h>
static volatile double s;
static void k(void) { for (int i = 0; i < 1000; i++) s += i; }
int main(void) { LK_MEASURE(k()); _exit(0); }
C
for p in plain quick; do
	set +e
	"$LOOPKIT" run -q -o $p $p.c -r 2 -p 1 >out 2>&1; rc=$?
	set -e
	[ $rc -eq 1 ] || { cat out; fail "$p: exit 1, got $rc"; }
	grep -q "^$p.c .* failed: " out && ! grep -q crashed out ||
		{ cat out; fail "$p: failed, not crashed"; }
done
sqlite3 plain/store.db "select status, reason from runs" |
	grep -q '^failed|no LK_MEASURE: ' || fail "plain: no LK_MEASURE stored"
sqlite3 quick/store.db "select reason from runs" |
	grep -q 'result stream ended early (exit 0)' || fail "quick: reason"

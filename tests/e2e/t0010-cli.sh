# The command line: help, usage errors, exit codes, loopkit check.
. tests/e2e/lib.sh
cd "$TMPD"

"$LOOPKIT" --help | grep -q '^    run ' || fail "--help lists run"
"$LOOPKIT" run -h | grep -q -- '--repetitions' || fail "run -h lists options"
"$LOOPKIT" env -h | grep -q -- '--tune' || fail "env -h"
"$LOOPKIT" export -h | grep -q -- '--csv' || fail "export -h"

set +e
"$LOOPKIT" frobnicate 2>err; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown command exits 2, got $rc"
grep -q "unknown command 'frobnicate'" err || fail "unknown command named"

set +e
"$LOOPKIT" run --no-such-option x.c 2>err; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown option exits 2, got $rc"
[ "$(wc -l <err)" -le 2 ] || fail "a short message"
grep -q "unknown option '--no-such-option'" err || fail "option named"

set +e
"$LOOPKIT" run missing.c 2>err; rc=$?
set -e
[ $rc -eq 2 ] || fail "missing kernel exits 2, got $rc"
grep -q "missing.c" err || fail "missing file named"
[ ! -e loopkit.d ] || fail "nothing stored for a missing kernel"

"$LOOPKIT" check >check.out
for cap in cc runtime pmu perf-sw ptrace zydis llvm-mca valgrind gcc-plugin; do
	grep -q "^$cap " check.out || fail "check reports $cap"
done
grep -q '^runtime  *yes' check.out || fail "the runtime is found"

# Benchmarks that misbehave: nothing a launch started outlives it (a
# forked child, a grandchild that left the session with setsid), under
# run and under count; an unbounded allocation is stopped by the memory
# limit with a clear reason; a closed result descriptor and a truncated
# binary are named for what they are; an endless #include does not hang
# gen.
. tests/e2e/lib.sh
cd "$TMPD"
cp "$SRC"/tests/data/hostile/*.c .
# Every process these benchmarks start runs a binary under a directory
# named with this marker: ps finds the survivors by it.
mark=lkhostile$$
survivors() { ps -eo pid=,args= | grep -F "$mark" | grep -v grep || true; }
trap 'survivors | awk "{print \$1}" | xargs -r kill -9 2>/dev/null || true' EXIT

for b in fork setsid; do
	timeout 120 "$LOOPKIT" run -q -o "$mark-run-$b" -p 2 -r 3 $b.c \
		>out 2>&1 || { cat out; fail "run $b"; }
	s=$(survivors)
	[ -z "$s" ] || { echo "$s"; fail "run $b: processes survive it"; }
done

rt=$(dirname "$LOOPKIT")/lib/liblkrt.a
mkdir "$mark-bin"
for b in fork setsid; do
	cc -O2 -g -I"$SRC"/rt $b.c "$rt" -lm -o "$mark-bin/$b"
	set +e
	timeout 120 "$LOOPKIT" count "$mark-bin/$b" >out 2>err; rc=$?
	set -e
	if [ $rc -ne 0 ]; then
		cat err
		grep -q ptrace err && skip "ptrace refused here"
		fail "count $b"
	fi
	s=$(survivors)
	[ -z "$s" ] || { echo "$s"; fail "count $b: processes survive it"; }
done

# Unbounded allocation: stopped by the limit, with the reason, quickly.
set +e
timeout 60 "$LOOPKIT" run -q -o mem --memory-limit 64M -p 1 hog.c >out 2>&1
rc=$?
set -e
cat out
[ $rc -eq 1 ] || fail "hog: exit 1, got $rc"
grep -q 'out of memory under the 64 MiB limit.*(method.memory-limit)' out ||
	fail "hog: the reason names the limit"
[ "$(sqlite3 mem/store.db "select memory_limit from runs")" = 67108864 ] ||
	fail "the limit is stored with the run"
# The method section says the same; a bad value is one line, exit 2.
printf 'sources: [hog.c]\nmethod: {processes: 1, memory-limit: 48MiB}\n' \
	>hog.yaml
set +e
timeout 60 "$LOOPKIT" run -q -o mem2 -c hog.yaml >out 2>&1
set -e
grep -q 'out of memory under the 48 MiB limit' out || { cat out;
	fail "method.memory-limit"; }
printf 'sources: [hog.c]\nmethod: {memory-limit: lots}\n' >bad.yaml
set +e
"$LOOPKIT" run -q -o mem3 -c bad.yaml >out 2>err; rc=$?
set -e
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
	grep -q "bad value 'lots' for method.memory-limit" err ||
	{ cat err; fail "bad memory-limit: one line, exit 2 (got $rc)"; }
# The default limit (half the memory) lets an ordinary benchmark run.
timeout 120 "$LOOPKIT" run -q -o ok -p 1 -r 3 "$SRC"/tests/data/kernels/sum.c \
	>out 2>&1 || { cat out; fail "sum under the default limit"; }
half=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 / 2 }' /proc/meminfo)
got=$(sqlite3 ok/store.db "select memory_limit from runs")
num_ok "$got > 0.9 * $half && $got < 1.1 * $half" ||
	fail "default limit $got, half the memory is $half"

# A closed result descriptor: said so, not a bare exit status.
set +e
"$LOOPKIT" run -q -o cl -p 1 closefd.c >out 2>&1
set -e
cat out
grep -q 'failed: no result received: cannot write the results to descriptor 3' out ||
	fail "closed result fd named"

# A truncated binary: named as such, with the file, exit 2.
head -c 3000 "$mark-bin/fork" >trunc
for cmd in count blocks; do
	set +e
	"$LOOPKIT" $cmd trunc >out 2>err; rc=$?
	set -e
	[ $rc -eq 2 ] && grep -q '^loopkit: error: trunc: truncated or malformed ELF' err ||
		{ cat err; fail "$cmd on a truncated ELF (exit $rc)"; }
done

# An endless #include: gen fails in one line naming the source.
cp "$SRC"/tests/data/gen/conv2d.c "$SRC"/tests/data/gen/checksum.h .
sed '1i #include "/dev/zero"' conv2d.c >zero.c
set +e
timeout 60 "$LOOPKIT" gen zero.c >out 2>err; rc=$?
set -e
[ $rc -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
	grep -q '^loopkit: error: zero.c: the preprocessor .* did not finish' err ||
	{ cat err; fail "gen on #include /dev/zero (exit $rc)"; }
exit 0

# kill -9 in the middle of a sweep, rerun: the same number of variants,
# none duplicated, finished ones not rerun.
. tests/e2e/lib.sh
cd "$TMPD"
cp "$SRC"/tests/data/kernels/sum.c .
cat >sweep.yaml <<'Y'
sources: [sum.c]
defines: {N: {from: 100, to: 1600, step: 100}}
metrics: [tsc, cycles]
method: {repetitions: 200, processes: 2}
Y
"$LOOPKIT" run -q -c sweep.yaml >/dev/null 2>&1 &
pid=$!
db=loopkit.d/store.db
i=0
until [ -f $db ] && [ "$(sqlite3 $db 'select count(*) from runs' 2>/dev/null)" \
	-ge 3 ] 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 600 ] || fail "the sweep never stored 3 runs"
	sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null || true
done1=$(sqlite3 $db "select count(*) from runs")
[ "$done1" -lt 16 ] || skip "the sweep finished before it was killed"
sqlite3 $db "select v.hash, r.started from runs r join variants v
	on r.variant_id = v.id order by v.hash" >before.txt
# every stored run is whole: 2 x 200 tsc samples in the launches kept
# (the last of each process: a contended launch is launched again, and
# both are stored) and its results
n=$(sqlite3 $db "select count(*) from runs r where (select count(*) from
	samples s where s.run_id = r.id and s.metric = 'tsc' and s.attempt =
	(select max(attempt) from samples t where t.run_id = r.id and
	t.process = s.process)) != 400
	or (select count(*) from results x where x.run_id = r.id) != 2")
[ "$n" -eq 0 ] || fail "$n runs stored partially"

"$LOOPKIT" run -c sweep.yaml >/dev/null 2>err
grep -q "$((16 - done1)) measured now, $done1 stored earlier" err ||
	{ cat err; fail "only the unfinished ones measured"; }
[ "$(sqlite3 $db "select count(*) from variants")" -eq 16 ] || fail "16 variants"
[ "$(sqlite3 $db "select count(*) from runs")" -eq 16 ] || fail "16 runs"
[ "$(sqlite3 $db "select count(distinct variant_id) from runs")" -eq 16 ] ||
	fail "no run duplicated"
sqlite3 $db "select v.hash, r.started from runs r join variants v
	on r.variant_id = v.id order by v.hash" >after.txt
# the runs finished before the kill are untouched
while read -r line; do
	grep -qx "$line" after.txt || fail "finished run redone: $line"
done <before.txt

# loopkit blocks / count / lift on a campaign: a real small kernel is
# measured, its blocks and one call's counts stored, then SYNTHETIC
# predictions (tool "synthetic-e2e": the predict stage lives in another
# branch; these rows stand in for its output, in its table and format)
# are inserted with sqlite3 and lift must give exactly
# sum over blocks of occurrences x prediction, recomputed here by python3.
. tests/e2e/lib.sh
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
command -v python3 >/dev/null || skip "python3 not installed"
cp examples/run/triad.c examples/run/dot.c "$TMPD/"
cat >"$TMPD/c.yaml" <<'EOF'
name: lift-e2e
sources: [triad.c, dot.c]
flags:
  scalar: -O2 -fno-tree-vectorize
defines:
  N: [300, 1000]
method:
  warmup: 1
  steps: 1
  repetitions: 2
  processes: 1
EOF
store=$TMPD/d
db=$store/store.db
"$LOOPKIT" run -q -c "$TMPD/c.yaml" -o "$store" >/dev/null || fail "run"

# Before any count, lift has nothing to lift and says why.
"$LOOPKIT" lift -c "$TMPD/c.yaml" -o "$store" >"$TMPD/lift0" 2>&1 ||
	fail "lift before count"
grep -q "not counted" "$TMPD/lift0" || fail "lift before count: no reason"

"$LOOPKIT" blocks -c "$TMPD/c.yaml" -o "$store" >"$TMPD/blocks" 2>&1 ||
	fail "blocks -c"
check "blocks stored 4 functions" \
	test "$(sqlite3 "$db" 'select count(*) from bb_functions')" = 4
"$LOOPKIT" count -c "$TMPD/c.yaml" -o "$store" -j 2 -q >"$TMPD/count" 2>&1 || {
	cat "$TMPD/count"
	grep -q ptrace "$TMPD/count" && skip "ptrace refused here"
	fail "count -c"
}
check "4 ok count runs" \
	test "$(sqlite3 "$db" "select count(*) from bb_count_runs
		where status = 'ok' and regions = 1")" = 4
# The loop body of triad N=300 ran 300 times (scalar: one element each).
body=$(sqlite3 "$db" "select max(c.count) from bb_counts c
	join bb_functions f on f.id = c.function_id
	join bb_count_runs r on r.function_id = f.id")
check "the largest count is a loop's (got $body)" test "$body" -ge 300
# A rerun finds everything stored.
"$LOOPKIT" count -c "$TMPD/c.yaml" -o "$store" -q >"$TMPD/count2" 2>&1 ||
	fail "count rerun"
grep -q "0 done now, 4 stored earlier" "$TMPD/count2" ||
	fail "count rerun did not skip: $(cat "$TMPD/count2")"
# Blocks stored by count agree with blocks printed for one binary.
bin=$(sqlite3 "$db" "select binary from builds where binary != ''
	order by id limit 1")
"$LOOPKIT" blocks --json "$store/$bin" >"$TMPD/one.json" || fail "blocks json"
python3 - "$TMPD/one.json" "$db" "$store/$bin" <<'EOF' || fail "blocks differ"
import json, sqlite3, sys
blocks = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
rows = db.execute("""select b.start, b."end" from bb_blocks b
    join bb_functions f on f.id = b.function_id where f.id = 1
    order by b.idx""").fetchall()
printed = [(int(b["start"], 16), int(b["end"], 16)) for b in blocks]
assert printed == [tuple(r) for r in rows], (printed, rows)
EOF

# Synthetic predictions: every block of every stored function gets one
# from "synthetic-e2e" (exact binary fractions, so the sum is exact);
# "synthetic-e2e-broken" fails on the hottest block of each kernel.
sqlite3 "$db" <<'EOF' || fail "insert synthetic predictions"
insert or ignore into predictions (block_hash, tool, tool_version, params,
	status, value, unit, reason, raw)
select hash, 'synthetic-e2e', '0', 'synthetic=1', 'ok',
	0.25 * (1 + (length(att) % 13)), 'cycles/iter', '',
	'SYNTHETIC: inserted by tests/e2e/t0740-lift.sh'
from bb_blocks;
insert or ignore into predictions (block_hash, tool, tool_version, params,
	status, value, unit, reason, raw)
select b.hash, 'synthetic-e2e-broken', '0', '',
	case when c.count = (select max(count) from bb_counts
		where function_id = b.function_id) then 'failed' else 'ok' end,
	1.0, 'cycles/iter', 'synthetic failure',
	'SYNTHETIC: inserted by tests/e2e/t0740-lift.sh'
from bb_blocks b join bb_counts c
	on c.function_id = b.function_id and c.idx = b.idx;
EOF
"$LOOPKIT" lift -c "$TMPD/c.yaml" -o "$store" >"$TMPD/lift" 2>"$TMPD/lift.err" ||
	fail "lift: $(cat "$TMPD/lift.err")"
cat "$TMPD/lift"
grep -Eq '^synthetic-e2e +0 +synthetic=1 +4 +0$' "$TMPD/lift" ||
	fail "tally of synthetic-e2e"
grep -Eq '^synthetic-e2e-broken +0 +- +0 +4$' "$TMPD/lift" ||
	fail "tally of synthetic-e2e-broken"
grep -q "excluded: block [0-9]* at 0x[0-9a-f]* ([0-9]* occurrences): failed: synthetic failure" \
	"$TMPD/lift" || fail "excluded reason"

# lifted = sum of occurrences x prediction, recomputed from the tables.
python3 - "$db" <<'EOF' || fail "lifted values differ from the sum"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = 0
for vid, fid, value in db.execute("""select variant_id, function_id, value
        from lifted where tool = 'synthetic-e2e' and status = 'ok'"""):
    total = 0.0
    for count, pred in db.execute("""select c.count, p.value
            from bb_blocks b join bb_counts c
              on c.function_id = b.function_id and c.idx = b.idx
            join predictions p on p.block_hash = b.hash
              and p.tool = 'synthetic-e2e'
            where b.function_id = ? and c.count > 0 order by b.idx""",
            (fid,)):
        total += count * pred
    assert total > 0 and total == value, (vid, total, value)
    n += 1
assert n == 4, n
bad = db.execute("""select count(*) from lifted
    where tool = 'synthetic-e2e-broken' and status = 'excluded'
    and value is null and nfailed = 1""").fetchone()[0]
assert bad == 4, bad
print("lifted ok for", n, "kernels")
EOF

# Without -c, the store's only campaign with variants is the one.
"$LOOPKIT" lift -o "$store" >"$TMPD/lift-o" 2>/dev/null || fail "lift -o"
cmp -s "$TMPD/lift" "$TMPD/lift-o" || fail "lift -o differs from lift -c"
"$LOOPKIT" count -o "$store" -q >/dev/null 2>&1 || fail "count -o DIR"
sed 's/^name: lift-e2e/name: other/' "$TMPD/c.yaml" >"$TMPD/other.yaml"
"$LOOPKIT" run -q -c "$TMPD/other.yaml" -o "$store" >/dev/null ||
	fail "run other"
"$LOOPKIT" lift -o "$store" >/dev/null 2>"$TMPD/two" && fail "two campaigns"
grep -q "holds 2 campaigns (lift-e2e, other): name one with -c" \
	"$TMPD/two" || fail "two campaigns: $(cat "$TMPD/two")"

# loopkit mdl db build|show|export and mdl predict on a tiny database
# (three seeds, scalar code, L1 and RAM, one (unroll, bundles) each):
# values positive (the least sample at L1 and L2, tsc-calibrated
# beyond), RAM >= L1 for the memory-only
# seeds, two load streams >= 0.8 x one at L1; the latencies bound a
# reduction and a failed store forward; a rerun measures nothing;
# a build killed with -9 completes on a rerun with only what was missing;
# predict of a seed's own MDL gives its stored value; bad input exits 2
# with one line and changes nothing stored.
. tests/e2e/lib.sh
cd "$TMPD"
seeds=L1S0,L2S0,L1S0A1M1
build="$LOOPKIT mdl db build --isa scalar --levels L1,RAM --explore minimal -q"
# The latency units: add, mul, div, store-load, forward-fail, and fma
# on a CPU that has it.
lat=5
grep -qw fma /proc/cpuinfo && lat=6
u=$((6 + lat)) u12=$((12 + lat))
# Runs: three rounds of each unit at L1 to L3, one at RAM.
r=$(( (3 + lat) * 3 + 3 )) r12=$(( (9 + lat) * 3 + 3 ))

$build -o d --seeds $seeds >build1.out || fail "build: $(cat build1.out)"
grep -q "^mdl-db:scalar: 3 seeds, $u units ($u variants), 3 rounds: $r runs measured now, 0 stored earlier, 0 not ok; database [0-9a-f]\{12\}" \
	build1.out || fail "first build: $(cat build1.out)"
"$LOOPKIT" mdl db export -o d >db1.csv || fail "export"
"$LOOPKIT" mdl db show -o d >show.txt || fail "show"
grep -q '^L2S0 ' show.txt || fail "show: $(cat show.txt)"
python3 - db1.csv <<'PY' || fail "properties: $(cat db1.csv)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6, rows
v = {}
for r in rows:
    assert r["isa"] == "scalar" and r["unit"] == "cycles/iter", r
    # L1 and L2: the least sample at the build's clock (src/mdl/db.c)
    want = "tsc-least" if r["level"] in ("L1", "L2") else "tsc-calibrated"
    assert r["source"] == want and r["flags"] == "", r
    assert float(r["value"]) > 0, r
    v[r["seed"], r["level"]] = float(r["value"])
for s in ("L1S0", "L2S0"):          # memory-only seeds
    assert v[s, "RAM"] >= v[s, "L1"], (s, v)
assert v["L2S0", "L1"] >= 0.8 * v["L1S0", "L1"], v
f = {r["seed"]: (r["f_load"], r["f_streams"], r["f_add"]) for r in rows}
assert f["L2S0"] == ("1", "2", "0") and f["L1S0A1M1"][2] == "1", f
print("L1S0 L1 %.4g RAM %.4g, L2S0 L1 %.4g RAM %.4g cycles/iter" % (
    v["L1S0", "L1"], v["L1S0", "RAM"], v["L2S0", "L1"], v["L2S0", "RAM"]))
PY

# Each value at RAM is the median of its variant's runs (one round
# there); at L1, of three rounds, from each run's least sample in TSC
# ticks. The clock: where the runs' own clocks (each run's fastest
# reference) show one state, the least of the three at the build's
# clock (the 99th percentile of every sample's reference ratio); where
# they show two or more (a core that changes turbo state from run to
# run), each run's least at its own clock, the median of the three
# (src/mdl/db.c, mdl.h's struct lk_mdl_clock).
sqlite3 d/store.db "SELECT p.name, p.level, p.value, x.value /
	(SELECT vp.value FROM variant_params vp
		WHERE vp.variant_id = p.variant_id AND
		vp.name = 'iterations-per-step'),
	(SELECT min(m.value) FROM samples m WHERE m.run_id = r.id AND
		m.metric = 'tsc' AND m.value > 0) /
	(SELECT vp.value FROM variant_params vp
		WHERE vp.variant_id = p.variant_id AND
		vp.name = 'iterations-per-step'),
	(SELECT max(c.raw / t.raw) FROM samples c JOIN samples t
		ON t.run_id = c.run_id AND t.process = c.process AND
		t.attempt = c.attempt AND t.idx = c.idx AND
		t.metric = 'ref_tsc'
		WHERE c.run_id = r.id AND c.metric = 'ref_cycles' AND
		t.raw > 0)
	FROM mdl_seed_perf p JOIN runs r ON r.variant_id = p.variant_id
	JOIN results x ON x.run_id = r.id AND x.metric = 'cycles'
	WHERE p.name NOT LIKE 'latency:%'" >rounds.txt
sqlite3 d/store.db "SELECT c.raw / t.raw FROM samples c JOIN samples t
	ON t.run_id = c.run_id AND t.process = c.process AND
	t.attempt = c.attempt AND t.idx = c.idx AND t.metric = 'ref_tsc'
	WHERE c.metric = 'ref_cycles' AND t.raw > 0" >clock.txt
sqlite3 d/store.db "SELECT max(c.raw / t.raw) AS q FROM samples c
	JOIN samples t ON t.run_id = c.run_id AND t.process = c.process AND
	t.attempt = c.attempt AND t.idx = c.idx AND t.metric = 'ref_tsc'
	WHERE c.metric = 'ref_cycles' AND t.raw > 0 GROUP BY c.run_id
	ORDER BY q" >runclocks.txt
python3 - rounds.txt clock.txt runclocks.txt <<'PY' >states.txt ||
import collections, sys
runs = collections.defaultdict(list)
for l in open(sys.argv[1]):
    seed, level, value, run, ticks, own = l.strip().split("|")
    runs[seed, level, float(value)].append(
        (float(run), float(ticks or 0), float(own or 0)))
q = sorted(float(x) for x in open(sys.argv[2]))
clock = q[int(0.99 * (len(q) - 1))]
assert len(runs) == 6 and 0.2 < clock < 10, (runs, clock)
# the states: clusters with no gap over 0.2 %, >= 5 % of the runs,
# within 1 %, no slower than 3/4 of the fastest; each its p90
c = [float(x) for x in open(sys.argv[3])]
states, i = [], 0
while i < len(c):
    j = i + 1
    while j < len(c) and c[j] <= c[j - 1] * 1.002:
        j += 1
    if j - i >= 0.05 * len(c) and c[j - 1] <= c[i] * 1.01:
        states.append(c[i + int(0.9 * (j - 1 - i))])
    i = j
states = [x for x in states if x >= 0.75 * states[-1]]
for (seed, level, value), v in runs.items():
    assert len(v) == (3 if level == "L1" else 1), runs
    if level != "L1":
        want = sorted(x for x, _, _ in v)[(len(v) - 1) // 2]
    elif len(states) > 1:
        want = sorted(t * o for _, t, o in v)[(len(v) - 1) // 2]
    else:
        want = min(t for _, t, _ in v) * clock
    assert abs(value / want - 1) < 1e-9, (seed, level, value, want, states)
print("states:", " ".join("%.4f" % x for x in states))
PY
	fail "rounds: $(cat rounds.txt)"

# A rerun measures nothing and stores the same database.
runs() { sqlite3 "$1/store.db" 'SELECT count(*) FROM runs'; }
n1=$(runs d)
$build -o d --seeds $seeds >build2.out || fail "rerun: $(cat build2.out)"
grep -q " 0 runs measured now, $r stored earlier, 0 not ok" build2.out ||
	fail "rerun: $(cat build2.out)"
[ "$(runs d)" = "$n1" ] || fail "rerun added runs: $n1 -> $(runs d)"
"$LOOPKIT" mdl db export -o d >db2.csv
cmp -s db1.csv db2.csv || fail "rerun changed the database"

# predict: a seed's own description gives its stored value, per level,
# greedily (--orders 1); by default (orders 2) the weighted mean of that
# and the decomposition that starts from the second nearest seed,
# L1S0 here (the same loads over half the streams), 2:1.
"$LOOPKIT" mdl predict seed:L2S0 -o d --isa scalar --orders 1 --json \
	>p.json || fail "predict: $(cat p.json)"
"$LOOPKIT" mdl predict seed:L2S0 -o d --isa scalar --json >p2.json ||
	fail "predict: $(cat p2.json)"
python3 - p.json db1.csv p2.json <<'PY' || fail "predict: $(cat p.json p2.json)"
import csv, json, sys
p = json.load(open(sys.argv[1]))
p2 = json.load(open(sys.argv[3]))
v = {(r["seed"], r["level"]): float(r["value"])
     for r in csv.DictReader(open(sys.argv[2]))}
assert [x["level"] for x in p["predictions"]] == ["L1", "RAM"], p
for x, y in zip(p["predictions"], p2["predictions"]):
    want = v["L2S0", x["level"]]
    assert abs(x["value"] - want) <= 1e-9 * want, (x, want)
    assert x["source"] == "tsc-calibrated" and x["residual"] == 0, x
    assert [s["seed"] for s in x["trace"]] == ["L2S0"], x
    assert [(s["order"], s["seed"]) for s in y["trace"]] == \
        [(1, "L2S0"), (2, "L1S0")], y
    s2 = y["trace"][1]["scale"]
    want2 = (want + s2 * v["L1S0", x["level"]] / 2) / 1.5
    assert abs(y["value"] - want2) <= 1e-9 * want2, (y, want2)
PY
"$LOOPKIT" mdl predict seed:L1S0A1M1 -o d --isa scalar --level L1 --trace \
	>trace.txt || fail "trace"
grep -q '^L1 .*cycles/iter (tsc-calibrated' trace.txt || fail "$(cat trace.txt)"
grep -q '^  step 1: .* seed L1S0A1M1 scale 1 residual 0$' trace.txt ||
	fail "trace: $(cat trace.txt)"

# The latencies: a dependent add takes at least a cycle; a dot product's
# single accumulator bounds it by that latency per iteration, its
# four-accumulator version by a quarter of it.
grep -q '^# cycles per dependent operation: add [0-9.]*, ' show.txt ||
	fail "show: no latency: $(cat show.txt)"
A=$SRC/tests/data/mdl/asm
"$LOOPKIT" mdl predict "$A/dot.s" -o d --isa scalar --level L1 --json \
	>dot.json || fail "predict dot: $(cat dot.json)"
"$LOOPKIT" mdl predict "$A/dot-x4.s" -o d --isa scalar --level L1 --json \
	>dot4.json || fail "predict dot-x4: $(cat dot4.json)"
"$LOOPKIT" mdl predict "$A/forward-fail.s" -o d --isa scalar --level L1 \
	--json >ff.json || fail "predict forward-fail: $(cat ff.json)"
"$LOOPKIT" mdl db show -o d --json >show.json
python3 - show.json dot.json dot4.json ff.json <<'PY' || fail "latency bound"
import json, sys
db = json.load(open(sys.argv[1]))[0]
lat = {v["seed"]: v["value"] for v in db["values"] if v["seed"].startswith("latency:")}
assert lat["latency:add"] >= 0.9 and lat["latency:mul"] >= 0.9, lat
one = json.load(open(sys.argv[2]))["predictions"][0]
four = json.load(open(sys.argv[3]))["predictions"][0]
assert abs(one["chain_bound"] - lat["latency:add"]) < 1e-9, (one, lat)
assert one["value"] == max(one["knn"], one["chain_bound"]), one
assert abs(four["chain_bound"] - lat["latency:add"] / 4) < 1e-9, four
# a load no store forwards to: its cost per compiled iteration bounds it
ff = json.load(open(sys.argv[4]))
assert lat["latency:forward-fail"] >= 1, lat
assert abs(ff["predictions"][0]["chain_bound"] * ff["unroll"] -
           lat["latency:forward-fail"]) < 1e-9, (ff, lat)
print("add latency %.3g, dot %.3g, dot-x4 %.3g cycles per iteration; "
      "a failed store forward %.3g" % (lat["latency:add"], one["value"],
                                       four["value"],
                                       lat["latency:forward-fail"]))
PY

# kill -9 in the middle of a build, then a rerun finishes the rest.
$build -o k --seeds $seeds --levels L1,L2,L3,RAM >kill.out 2>&1 &
pid=$!
i=0
while [ "$(sqlite3 k/store.db 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)" -lt 2 ]; do
	i=$((i + 1))
	[ $i -lt 600 ] || fail "no run stored after 60 s"
	kill -0 $pid 2>/dev/null || fail "build ended before the kill: $(cat kill.out)"
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null || true
done_before=$(runs k)
[ "$done_before" -lt $u12 ] || fail "the build had finished: $done_before runs"
$build -o k --seeds $seeds --levels L1,L2,L3,RAM >resume.out ||
	fail "resume: $(cat resume.out)"
sed -n "s/.* $u12 units ($u12 variants), 3 rounds: \([0-9]*\) runs measured now, \([0-9]*\) stored earlier, 0 not ok.*/\1 \2/p" \
	resume.out >counts
read now earlier <counts || fail "resume: $(cat resume.out)"
[ "$earlier" -ge "$done_before" ] && [ $((now + earlier)) = $r12 ] ||
	fail "resume measured $now, kept $earlier of $done_before: $(cat resume.out)"
"$LOOPKIT" mdl db export -o k >resumed.csv && python3 - resumed.csv <<'PY' ||
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 12 and all(
    float(r["value"]) > 0 and r["source"] ==
    ("tsc-least" if r["level"] in ("L1", "L2") else "tsc-calibrated")
    for r in rows), rows
PY
	fail "resumed database: $("$LOOPKIT" mdl db export -o k)"

# Bad input: one line, exit 2, nothing stored changes.
expect2() {
	want=$1; shift
	set +e
	"$LOOPKIT" "$@" >out 2>err; rc=$?
	set -e
	[ $rc = 2 ] || fail "$* exited $rc: $(cat err)"
	head -1 err | grep -q -- "^loopkit: error: .*$want" || fail "$*: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || sed -n '2,$p' err | grep -q "^(see 'loopkit" ||
		fail "$*: more than one line: $(cat err)"
}
printf 'MDL 1\nMeta:\nData:\nBody:\nTrip: 4\nI/O: In: Out:\nLoopBody:\n  In: b\n' >bad.mdl
expect2 "bad.mdl:8:7: " mdl predict bad.mdl -o d --isa scalar
expect2 "none.mdl" mdl predict none.mdl -o d --isa scalar
expect2 "empty: no MDL database for scalar: build it with 'loopkit mdl db build --isa scalar -o empty'" \
	mdl predict seed:L1S0 -o empty --isa scalar
expect2 "d: no MDL database for sse" mdl predict seed:L1S0 -o d --isa sse
expect2 "--level: 'L4'" mdl predict seed:L1S0 -o d --level L4
expect2 "--combine: 'max'" mdl predict seed:L1S0 -o d --combine max
expect2 "unrecognized option\|unknown option" mdl predict seed:L1S0 --frob
expect2 "--explore: 'some'" mdl db build -o d --explore some
expect2 "--level(s): 'L9'" mdl db build -o d --levels L1,L9
expect2 "nosuch: no such seed" mdl db build -o d --isa scalar --seeds L1S0,nosuch
expect2 "horner-8.mdl: seed horner-8 is not measured for sse (Meta: classes = \"scalar\")" \
	mdl db build -o d --isa sse --seeds L1S0,horner-8
# The seeds are checked, for every class asked, before a store opens.
expect2 "nosuch: no such seed" mdl db build -o empty --isa scalar --seeds nosuch
expect2 "horner-8.mdl: seed horner-8 is not measured for sse" \
	mdl db build -o empty --isa scalar,sse --seeds horner-8
expect2 "unknown ISA class 'mmx'" mdl db build -o d --isa mmx
expect2 "expected build, show or export" mdl db
expect2 "empty: no campaign store" mdl db show -o empty
[ ! -e empty ] || fail "an error created a store"
"$LOOPKIT" mdl db export -o d >db3.csv
cmp -s db1.csv db3.csv || fail "an error changed the database"
[ "$(runs d)" = "$n1" ] || fail "an error added runs"
echo ok

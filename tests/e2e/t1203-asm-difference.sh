# n/2n differencing (nanoBench's method): with --difference (asm.difference
# in a sweep) the binary also measures 2 x unroll copies in region
# kernel-2u, and (t(2U) - t(U)) / U is stored as the run's row
# cycles/copy, source n/2n:<cycles source>. For U = 100 the two differ
# by the per-call overhead the difference removes: at most 2 % of the
# call, or 5 cycles a call where the body is faster than a cycle (Golden
# Cove folds an `add $1` chain at rename, and the call's fixed part does
# not fold: 0.18 cycles a copy plain, 0.17 by n/2n, 1 cycle a call, on
# the Emerald Rapids guest; 0.190 and 0.159, 3.1 cycles a call, on a
# Sapphire Rapids-class guest, 2026-12-02); for U = 5 the plain figure carries the per-call overhead
# (the zeroing AND alone is one cycle of the chain a call: 20 % of five
# adds) and the difference does not. On Zen 3 and 4 the difference is
# the latency within 5 % (the table and sources of t1200).
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
arch=$(env_key cpu.microarch)
cd "$TMPD"
M="-m repetitions=20 -m processes=3 -q --json --difference"
# Each body up to three times: on a busy host one process can draw a
# slow state while the other region's did not (the figures are ~1 %
# apart, against a tolerance of 2 %). A wrong difference fails all three.
check() { # UNROLL TEMPLATE LATENCY-ON-ZEN (0: none)
	for attempt in 1 2 3; do
		"$LOOPKIT" asm $M -o "d$attempt.d" --unroll "$1" "$2" \
			>out.json || fail "'$2' exited $?: $(cat out.json)"
		python3 - "$@" out.json "$arch" <<'PY' && return 0
import json, sys
u, insn, lat, rows, arch = int(sys.argv[1]), sys.argv[2], \
    float(sys.argv[3]), json.load(open(sys.argv[4])), sys.argv[5]
(r,) = rows
plain, diff = r["cycles_per_iteration"], r["difference_cycles_per_iteration"]
print("unroll %d %-34s plain %.3f n/2n %.3f" % (u, insn, plain, diff))
assert r["status"] == "ok" and r["difference_source"] == "n/2n:" + r["source"], r
if u >= 100:
    assert abs(plain - diff) * u <= max(5.0, 0.02 * plain * u), \
        "plain and n/2n differ"
else:
    # At least half of the zeroing's cycle a call removed.
    assert (plain - diff) * u >= 0.5, "no per-call overhead removed"
if lat and arch in ("Zen 3", "Zen 4"):
    assert abs(diff / lat - 1) <= 0.05, "n/2n %.3f, latency %g" % (diff, lat)
PY
		rm -rf "d$attempt.d"
	done
	fail "'$2' --unroll $1: see above (three attempts)"
}
check 100 'add $1, {r}' 1
check 100 'imul {r}, {r}' 3
check 100 'vaddpd %ymm{r}, %ymm{r}, %ymm{r}' 3
check 100 'vfmadd231pd %ymm11, %ymm10, %ymm{r}' 4
check 5 'add $1, {r}' 1
check 5 'imul {r}, {r}' 3

# The same from a sweep under run -c: the row is the run's, stored.
cat >sweep.yaml <<'YAML'
name: diff
asm:
  unroll: 50
  difference: true
  chains: [1, 2]
  bodies:
    imul: ["imul {r}, {r}"]
method: {repetitions: 5, processes: 1}
YAML
"$LOOPKIT" run -q -c sweep.yaml -o s.d --json >run.json || fail "run -c"
"$LOOPKIT" run -q -c sweep.yaml -o s.d --json >rerun.json || fail "rerun"
python3 - run.json rerun.json <<'PY' || fail "run -c: see above"
import json, sys
for f in sys.argv[1:]:
    rows = json.load(open(f))
    assert len(rows) == 2, rows
    for r in rows:
        by = {(x["region"], x["metric"]): x for x in r["results"]}
        d = by[("kernel", "cycles/copy")]
        u, u2 = by[("kernel", "cycles")], by[("kernel-2u", "cycles")]
        assert d["source"] == "n/2n:" + u["source"] and d["unit"] == "cycles/copy"
        assert abs(d["value"] - (u2["value"] - u["value"]) / 50) < 1e-6, r
        assert by[("kernel-2u", "instructions/cycle")]["value"] > 0, r
        print(f, r["params"]["asm.chains"], "n/2n", d["value"])
PY
n=$(sqlite3 s.d/store.db "select count(*) from results where
	metric = 'cycles/copy'")
[ "$n" -eq 2 ] || fail "stored difference rows: $n, want 2"

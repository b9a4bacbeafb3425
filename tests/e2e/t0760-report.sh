# loopkit report on a real store: three kernels measured by loopkit run,
# then SYNTHETIC lifted predictions, parameters and filter verdicts
# inserted with sqlite3 (standing in for gen, predict, lift and the L1
# filter, which are not on this branch). The CSV and JSON figures are
# checked against an independent computation in Python from the store;
# the HTML page is opened in headless Chromium: no console message, and
# the plots' colours are on the screenshot.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (gnuplot-nox)"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium is not installed"
cd "$TMPD"
cp "$SRC"/examples/run/dot.c "$SRC"/examples/run/triad.c \
	"$SRC"/tests/data/kernels/sum.c .
cat >campaign.yaml <<'Y'
name: t0760
sources: [dot.c, triad.c, sum.c]
flags: {O1: -O1, O2: -O2}
defines:
  N: [2000]
metrics: [tsc, cycles, ns]
method: {repetitions: 5, processes: 1, timeout: 30}
report:
  title: t0760 <synthetic> & "analyzers"
  group-by: [family, transformation, flagset]
Y
"$LOOPKIT" run -q -c campaign.yaml >run.out || fail "loopkit run"

# Nothing lifted yet: a clear refusal, exit 1, no page.
rc=0
"$LOOPKIT" report -c campaign.yaml --report-dir early >early.out \
	2>early.err || rc=$?
[ $rc -eq 1 ] || fail "nothing to report exits 1, got $rc"
grep -q "nothing to report: no lifted prediction" early.err ||
	fail "the refusal says why: $(cat early.err)"
[ ! -e early ] || fail "nothing to report writes nothing"

# SYNTHETIC: parameters the generator would store, lifted predictions
# (a fixed factor of the measured cycles per variant and tool), one
# failed lift, one variant excluded by the L1 filter, one unknown.
sqlite3 loopkit.d/store.db <<'SQL'
PRAGMA foreign_keys = ON;
INSERT INTO variant_params(variant_id, position, name, value)
 SELECT id, 1, 'family', CASE WHEN source LIKE '%triad.c' THEN 'stream'
  ELSE 'reduction' END FROM variants;
INSERT INTO variant_params(variant_id, position, name, value)
 SELECT id, 2, 'transformation', CASE WHEN flagset = 'O1' THEN 'none'
  ELSE 'vectorize' END FROM variants;
INSERT INTO bb_functions(id, binary_hash, function, addr, size)
 VALUES (1, 'synthetic', 'kernel', 4096, 64);
CREATE TEMP TABLE m AS SELECT v.id AS vid, x.value AS cyc
 FROM variants v JOIN runs r ON r.variant_id = v.id
 JOIN results x ON x.run_id = r.id AND x.metric = 'cycles';
INSERT INTO lifted(variant_id, function_id, tool, tool_version, params,
  status, value, unit, nblocks, nfailed, reason)
 SELECT vid, 1, 'llvm-mca', '19.1.7', '-mcpu=znver5 -iterations=100',
  'ok', cyc * (0.55 + 0.1 * (vid % 5)), 'cycles', 4, 0, '' FROM m;
INSERT INTO lifted(variant_id, function_id, tool, tool_version, params,
  status, value, unit, nblocks, nfailed, reason)
 SELECT vid, 1, 'adapter<&"''>', '0.1', '',
  CASE WHEN vid = 2 THEN 'excluded' ELSE 'ok' END,
  CASE WHEN vid = 2 THEN NULL ELSE cyc * (1.45 - 0.07 * vid) END,
  'cycles', 4, CASE WHEN vid = 2 THEN 1 ELSE 0 END,
  CASE WHEN vid = 2 THEN 'block 0x1130: the adapter''s rule matched nothing'
  ELSE '' END FROM m;
-- SYNTHETIC: whether this host's calibrations were reliable or not (a
-- loaded machine, ASan), every run's is declared reliable first ...
UPDATE results SET flags = replace(flags, 'calibration-unreliable', '')
 WHERE metric = 'cycles';
UPDATE results SET is_primary = (metric = 'cycles')
 WHERE metric IN ('cycles', 'tsc');
-- ... then variant 6's calibration declared unreliable, so that
-- its run's primary figure is TSC ticks: never compared with cycles.
UPDATE results SET flags = 'calibration-unreliable', is_primary = 0
 WHERE metric = 'cycles' AND run_id = (SELECT id FROM runs
  WHERE variant_id = 6);
UPDATE results SET is_primary = 1 WHERE metric = 'tsc'
 AND run_id = (SELECT id FROM runs WHERE variant_id = 6);
INSERT INTO verdicts(variant_id, filter, verdict, value, source, reason)
 VALUES (3, 'l1', 'exclude', 0.21, 'cachegrind', 'D1 miss ratio 21.0% > 10%'),
        (4, 'l1', 'unknown', NULL, 'generator', 'AVX-512: valgrind cannot run it');
SQL

"$LOOPKIT" report -c campaign.yaml >report.out 2>report.err ||
	fail "loopkit report: $(cat report.err)"
for f in report.html report.csv report.json variants.csv; do
	[ -s "loopkit.d/report/$f" ] || fail "loopkit.d/report/$f written"
	grep -q "loopkit.d/report/$f" report.out || fail "$f listed"
done
# The same CSV on stdout.
"$LOOPKIT" report -q -c campaign.yaml --csv - >stdout.csv
cmp -s stdout.csv loopkit.d/report/report.csv || fail "--csv - is the CSV"

python3 - loopkit.d <<'PY' || fail "the report's figures"
import csv, json, math, sqlite3, statistics, sys
store = sys.argv[1]
db = sqlite3.connect(store + "/store.db")
rows = list(csv.DictReader(open(store + "/report/report.csv")))
doc = json.load(open(store + "/report/report.json"))

# Independently: each variant's measured figure from its ok run.
meas, fallback = {}, {}
for vid, value, flags, tsc in db.execute("""
    SELECT r.variant_id, c.value, c.flags, t.value FROM runs r
    JOIN results c ON c.run_id = r.id AND c.metric = 'cycles'
    JOIN results t ON t.run_id = r.id AND t.metric = 'tsc'
    WHERE r.status = 'ok'"""):
    if "calibration-unreliable" in flags:
        fallback[vid] = tsc
    else:
        meas[vid] = value
excluded = {v for (v,) in db.execute(
    "SELECT variant_id FROM verdicts WHERE verdict = 'exclude'")}
unknown = {v for (v,) in db.execute(
    "SELECT variant_id FROM verdicts WHERE verdict = 'unknown'")}
params = {}
for vid, name, value in db.execute(
        "SELECT variant_id, name, value FROM variant_params"):
    params.setdefault(vid, {})[name] = value
nvariants = db.execute("SELECT count(*) FROM variants").fetchone()[0]
assert nvariants == 6, nvariants

def tau_b(x, y):
    n = len(x); c = d = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            sx, sy = x[i] - x[j], y[i] - y[j]
            tx += sx == 0; ty += sy == 0
            c += sx * sy > 0; d += sx * sy < 0
    n0 = n * (n - 1) / 2
    den = math.sqrt((n0 - tx) * (n0 - ty))
    return (c - d) / den if den else None

def q(v, k):
    if len(v) == 1:
        return v[0]
    return statistics.quantiles(v, n=4, method="inclusive")[k]

def expect(tool, group=None):
    key, val = group or (None, None)
    lifted = db.execute("SELECT variant_id, status, value FROM lifted "
                        "WHERE tool = ?", (tool,)).fetchall()
    pred, m, counts = [], [], dict(variants=0, excluded=0, failed=0,
                                   compared=0, not_measured=0, no_cycles=0,
                                   unknown=0)
    for vid, status, value in lifted:
        if key and params[vid].get(key) != val:
            continue
        counts["variants"] += 1
        if vid in excluded:
            counts["excluded"] += 1
        elif status != "ok":
            counts["failed"] += 1
        elif vid in fallback:
            counts["no_cycles"] += 1
        elif vid not in meas:
            counts["not_measured"] += 1
        else:
            counts["compared"] += 1
            counts["unknown"] += vid in unknown
            pred.append(value); m.append(meas[vid])
    rel = [(p - x) / x for p, x in zip(pred, m)]
    if not rel:  # every variant of the group left out: no figure at all
        return counts, dict.fromkeys(("mape_pct", "rel_err_median_pct",
                                      "rmse", "kendall_tau_b"))
    return counts, dict(
        mape_pct=100 * sum(abs(r) for r in rel) / len(rel),
        rel_err_q1_pct=100 * q(rel, 0), rel_err_median_pct=100 * q(rel, 1),
        rel_err_q3_pct=100 * q(rel, 2),
        abs_rel_err_median_pct=100 * q([abs(r) for r in rel], 1),
        rmse=math.sqrt(sum((p - x) ** 2 for p, x in zip(pred, m)) / len(m)),
        kendall_tau_b=tau_b(pred, m))

def check(row, tool, group=None):
    counts, stats = expect(tool, group)
    for k, v in counts.items():
        assert int(row[k]) == v, (tool, group, k, row[k], v)
    for k, v in stats.items():
        if v is None:
            assert row[k] in ("", None), (k, row[k])
        else:
            assert math.isclose(float(row[k]), v, rel_tol=1e-9,
                                abs_tol=1e-9), (tool, group, k, row[k], v)

tools = {"llvm-mca": "llvm-mca 19.1.7",
         "adapter<&\"'>": "adapter<&\"'> 0.1"}
for tool, label in tools.items():
    [row] = [r for r in rows if r["analyzer"] == label and
             r["group_by"] == "" and r["basis_metric"] == "cycles"]
    check(row, tool)
    for key in ("family", "transformation"):
        for val in sorted({p[key] for p in params.values()}):
            [row] = [r for r in rows if r["analyzer"] == label and
                     r["group_by"] == key and r["group"] == val and
                     r["basis_metric"] == "cycles"]
            check(row, tool, (key, val))
# variants without trustworthy cycles: counted apart, never compared
# with their TSC ticks (no row on another basis, not in MAPE or tau)
assert 6 in fallback and 6 not in excluded
assert all(r["basis_metric"] == "cycles" for r in rows), rows
for tool, label in tools.items():
    [row] = [r for r in rows if r["analyzer"] == label and
             r["group_by"] == ""]
    assert int(row["no_cycles"]) == 1, row
vrows = list(csv.DictReader(open(store + "/report/variants.csv")))
six = [v for v in vrows if v["measured_metric"] == "tsc"]
assert len(six) == len(tools), six
for v in six:
    assert v["outcome"] == "no-cycles" and v["rel_err_pct"] == "", v
    assert v["measure_note"] == ("no trustworthy core-cycle figure: "
                                 "calibration unreliable"), v
assert doc["compared"] == sum(int(r["compared"]) for r in rows
                              if r["group_by"] == ""), doc["compared"]
# the failed lift and the exclusion are counted with their reasons
reasons = {(r["what"], r["reason"]): r["count"] for r in doc["reasons"]}
assert reasons[("exclude", "l1: D1 miss ratio 21.0% > 10%")] == 1, reasons
assert reasons[("failed", "block 0x1130: the adapter's rule matched "
                "nothing")] == 1, reasons
assert reasons[("no-cycles", "no trustworthy core-cycle figure: "
                "calibration unreliable")] == 1, reasons
# JSON and CSV hold the same rows
assert len(doc["rows"]) == len(rows)
for j, c in zip(doc["rows"], rows):
    for k, v in c.items():
        if v == "":
            assert j[k] in (None, ""), (k, j[k])
        elif isinstance(j[k], (int, float)):
            assert math.isclose(j[k], float(v), rel_tol=1e-15), (k, v)
        else:
            assert j[k] == v, (k, j[k], v)
assert doc["title"] == 't0760 <synthetic> & "analyzers"'
assert doc["group_by"] == ["family", "transformation", "flagset"]
assert len(doc["variants"]) == 6
print("checked", len(rows), "rows;", len(meas), "variants in cycles,",
      len(fallback), "without trustworthy cycles, not compared")
PY

html=loopkit.d/report/report.html
grep -q 'adapter&lt;&amp;&quot;&#39;&gt; 0.1' "$html" ||
	fail "the analyzer's name is escaped in the page"
! grep -q 'adapter<&' "$html" || fail "no raw '<&' name in the page"
! grep -Eiq '<script|<link|src=|https?://[^"]*\.(js|css)' "$html" ||
	fail "the page is self-contained"
[ "$(grep -c '<svg' "$html")" -eq 2 ] || fail "two inline plots"

# Chromium: a screenshot and every console message (shoot, in lib.sh).
# The console check must be able to fail: a page that logs an error.
printf '<!DOCTYPE html><p>x</p><script>console.error("boom")</script>\n' \
	>bad.html
shoot "$TMPD/bad.html" bad.png bad.log
grep -q 'CONSOLE.*boom' bad.log ||
	skip "chromium does not log console messages here"
shoot "$TMPD/$html" shot.png chrome.log
! grep -q 'CONSOLE' chrome.log ||
	fail "console messages: $(grep CONSOLE chrome.log)"
[ -s shot.png ] || fail "no screenshot"

# The plots rendered: the series' colours are on the screenshot.
python3 "$E2E_DIR/pngcheck.py" shot.png || fail "the plots are on the screenshot"

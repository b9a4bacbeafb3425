"""summarycheck.py OUTPUT REPORT_CSV: the analyzer lines of 'loopkit
campaign' (or 'loopkit report') in OUTPUT give, for every row of
report.csv without a group, the same coverage, MAPE, median |error| and
Kendall tau-b as that row, to the digits printed."""
import csv, re, sys

text = open(sys.argv[1]).read()
rows = [r for r in csv.DictReader(open(sys.argv[2])) if not r["group_by"]]
assert rows, "report.csv has no row without a group"
line_re = re.compile(
    r"^\s*(?P<label>.+?): (?P<cov>.+?), MAPE (?P<mape>\S+)(?: %)?, "
    r"median \|error\| (?P<med>\S+)(?: %)?, Kendall tau-b (?P<tau>\S+)$")
lines = [m for m in map(line_re.match, text.splitlines()) if m]


def shown(cell, fmt):
    return "n/a" if cell == "" else format(float(cell), fmt)


for r in rows:
    # one basis: predictions in cycles meet measurements in cycles only
    assert r["basis_metric"] == "cycles", r
    mine = [m for m in lines if m["label"] == r["analyzer"]]
    assert len(mine) == 1, (r["analyzer"], text)
    m = mine[0]
    cov = "%s/%s kernel" % (r["compared"], r["variants"])
    assert m["cov"].startswith(cov), (m["cov"], cov)
    if int(r["no_cycles"]):
        assert "%s without a trustworthy cycles figure" % r["no_cycles"] \
            in m["cov"], (m["cov"], r)
    assert m["mape"] == shown(r["mape_pct"], ".1f"), (m["mape"], r)
    assert m["med"] == shown(r["abs_rel_err_median_pct"], ".1f"), (
        m["med"], r)
    assert m["tau"] == shown(r["kendall_tau_b"], ".3f"), (m["tau"], r)
    print("%s: MAPE %s %%, median |error| %s %%, tau-b %s as in report.csv"
          % (m["label"], m["mape"], m["med"], m["tau"]))
assert len(lines) == len(rows), (len(lines), len(rows), text)

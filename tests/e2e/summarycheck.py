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
    fallback = r["basis_metric"] != "cycles"
    mine = [m for m in lines if m["label"] == r["analyzer"] and
            ("instead of cycles" in m["cov"]) == fallback and
            (not fallback or " with %s " % r["basis_metric"] in m["cov"])]
    assert len(mine) == 1, (r["analyzer"], r["basis_metric"], text)
    m = mine[0]
    if fallback:
        cov = "%s kernel%s compared with " % (
            r["compared"], "" if r["compared"] == "1" else "s")
        assert m["cov"].startswith(cov), (m["cov"], cov)
    else:
        cov = "%s/%s kernel" % (r["compared"], r["variants"])
        assert m["cov"].startswith(cov), (m["cov"], cov)
    assert m["mape"] == shown(r["mape_pct"], ".1f"), (m["mape"], r)
    assert m["med"] == shown(r["abs_rel_err_median_pct"], ".1f"), (
        m["med"], r)
    assert m["tau"] == shown(r["kendall_tau_b"], ".3f"), (m["tau"], r)
    print("%s: MAPE %s %%, median |error| %s %%, tau-b %s as in report.csv"
          % (m["label"], m["mape"], m["med"], m["tau"]))
assert len(lines) == len(rows), (len(lines), len(rows), text)

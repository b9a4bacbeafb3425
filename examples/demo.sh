#!/bin/sh
# make demo: the demo campaign (examples/campaign/demo.yaml) from kernels
# to its HTML report, into ./loopkit.d; then the foundation's example
# sweep and a memory profile.
set -eu
loopkit=${1:-build/loopkit}
"$loopkit" check
echo
"$loopkit" env --no-calibrate | head -n 12
echo
echo "== loopkit campaign -c examples/campaign/demo.yaml"
"$loopkit" campaign -c examples/campaign/demo.yaml
echo
echo "== the analyzers against the measurement (loopkit.d/report/report.csv)"
python3 - loopkit.d/report/report.csv <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if not r["group_by"]]
print("%-22s %-8s %9s %9s %9s %11s %9s" % ("analyzer", "against",
      "compared", "excluded", "MAPE %", "median %", "tau"))
for r in rows:
    name = "%s %s" % (r["tool"], r["tool_version"])
    f = lambda k: "%.1f" % float(r[k]) if r[k] else "-"
    print("%-22s %-8s %9s %9s %9s %11s %9s" % (name, r["basis_metric"],
          r["compared"], r["excluded"] or "-",
          f("mape_pct"), f("rel_err_median_pct"),
          "%.2f" % float(r["kendall_tau_b"]) if r["kendall_tau_b"] else "-"))
PY
echo
echo "== loopkit run -c examples/run/sweep.yaml"
"$loopkit" run -c examples/run/sweep.yaml
if [ -r "$(dirname "$loopkit")/plugin/lkmemprof.so" ]; then
	echo
	echo "== loopkit memprof run examples/memprof/mix.c -O1"
	"$loopkit" memprof run examples/memprof/mix.c -O1 | tail -n 16
fi
echo
echo "The campaign is in ./loopkit.d (store.db: SQLite); its report:"
echo "  $(pwd)/loopkit.d/report/report.html"
echo "Rerun 'make demo': every stage skips what the store holds."

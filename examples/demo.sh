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
echo "== loopkit run -c examples/run/sweep.yaml"
"$loopkit" run -c examples/run/sweep.yaml
if [ -r "$(dirname "$loopkit")/plugin/lkmemprof.so" ]; then
	echo
	echo "== loopkit memprof run examples/memprof/mix.c -- -O1"
	"$loopkit" memprof run examples/memprof/mix.c -- -O1 | tail -n 16
fi
echo
echo "The campaign is in ./loopkit.d (store.db: SQLite); its report:"
echo "  $(pwd)/loopkit.d/report/report.html"
echo "which parameters explain its cycles (linked from the report):"
echo "  $(pwd)/loopkit.d/analyze/cycles/analysis.html"
echo "Rerun 'make demo': every stage skips what the store holds."

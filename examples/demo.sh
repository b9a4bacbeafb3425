#!/bin/sh
# make demo: the example sweep into ./loopkit.d, then its tidy export.
set -eu
loopkit=${1:-build/loopkit}
"$loopkit" check
echo
"$loopkit" env --no-calibrate | head -n 12
echo
"$loopkit" run -c examples/run/sweep.yaml
echo
echo "== loopkit export --csv (first rows)"
"$loopkit" export --csv | head -n 8
if [ -r "$(dirname "$loopkit")/plugin/lkmemprof.so" ]; then
	echo
	echo "== loopkit memprof run examples/memprof/mix.c -O1"
	"$loopkit" memprof run examples/memprof/mix.c -O1 | tail -n 16
fi
echo
echo "The campaign is in ./loopkit.d (store.db: SQLite). Rerun 'make demo':"
echo "finished variants are not measured again."

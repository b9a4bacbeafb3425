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
echo
echo "The campaign is in ./loopkit.d (store.db: SQLite). Rerun 'make demo':"
echo "finished variants are not measured again."

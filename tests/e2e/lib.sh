# Helpers for the end-to-end tests (sourced).
set -eu
# Sourced from the source tree (run.sh starts every test there).
E2E_DIR=$(pwd)/tests/e2e
# Python helpers the tests share (lkstats.py, fmachains.py).
export PYTHONPATH="$E2E_DIR${PYTHONPATH:+:$PYTHONPATH}"
# Two tests run at a time, each the other's neighbour on a 2-core machine,
# so the contention rule often relaunches: the tests check properties, not
# figures stable to 1 %, and 3 relaunches (the budget until 2026-11-28)
# keep make check's time bounded (doc/method.md). t0210 tests the default.
export LOOPKIT_RELAUNCHES="${LOOPKIT_RELAUNCHES:-3}"
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
# check DESCRIPTION COMMAND...: run, fail with the description if false.
check() { d=$1; shift; "$@" || fail "$d"; }
# The value of column $2 in the first CSV row of file $1 whose metric is $3.
# Numbers are compared with awk: expr 'a < b' etc.
num_ok() { awk "BEGIN { exit !($1) }"; }
has_pmu() { "$LOOPKIT" check | grep -q '^pmu  *yes'; }
# env_key KEY: the value `loopkit env` prints for KEY (cpu.microarch,
# cpu.isa, ...), empty when it prints none.
env_key() { "$LOOPKIT" env 2>/dev/null | awk -v k="$1" '$1 == k {
	$1 = ""; sub(/^ /, ""); print }'; }
# has_isa EXT: does `loopkit env` list EXT (fma, avx2, avx512f, ...) in
# cpu.isa?
has_isa() { case " $(env_key cpu.isa) " in *" $1 "*) ;; *) return 1 ;; esac; }
# series_pause N: before the Nth series of a measurement a test repeats
# (a machine state outlasts seconds: doc/method.md), wait 2, 8, 20 s.
series_pause() { case $1 in 2) sleep 2 ;; 3) sleep 8 ;; 4) sleep 20 ;; esac; }

# shoot PAGE PNG LOG: headless Chromium screenshots PAGE (an absolute
# path) into PNG and logs every console message to LOG. $chromium is the
# browser; the profile goes under $TMPD.
shoot() {
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --user-data-dir="$TMPD/chrome-profile" \
		--screenshot="$2" --window-size=1200,2000 \
		--enable-logging=stderr --v=0 "file://$1" >"$3" 2>&1 || true
}

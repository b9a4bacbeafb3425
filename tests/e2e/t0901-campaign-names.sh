#!/bin/sh
# Names a person can read: a generated campaign's progress lines, stage
# summaries, report tables and export name each variant by kernel,
# chain, compiler and flag set, never by the hashed file gen wrote; the
# campaign and report print each analyzer's coverage, MAPE, median
# |error| and tau-b, the figures of report.csv.
# e2e: shares the machine
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"
command -v llvm-mca-19 >/dev/null || command -v llvm-mca >/dev/null ||
	skip "no llvm-mca installed"
src=$(pwd)
cd "$TMPD"

cat >c.yaml <<EOF2
name: e2e-names
sources:
  - $src/kernels/gemm.c
  - $src/kernels/trisolv.c
compilers: [gcc]
flags:
  O2: -O2 -DMINI_DATASET
gen:
  transformations:
    - original
    - isl+tile,sizes=8x8+kernelify
predict:
  tools: [llvm-mca, bprof]
EOF2

# no_hash FILE...: no 30-hex-digit run (a content-addressed name) in them.
no_hash() {
	for f; do
		! grep -E '[0-9a-f]{30}' "$f" >/dev/null ||
			fail "a hash in $f: $(grep -E '[0-9a-f]{30}' "$f")"
	done
}
# names FILE WHAT: every variant named, by kernel and chain.
names() {
	for k in gemm trisolv; do
		for chain in original isl+tile,sizes=8x8+kernelify; do
			grep -qF "$k $chain gcc O2" "$1" ||
				fail "$2: no '$k $chain gcc O2' in $(cat "$1")"
		done
	done
}

"$LOOPKIT" campaign -c c.yaml >out 2>err || fail "campaign: $(cat err)"
no_hash out err
for stage in measure count filter; do
	grep "^$stage [0-9]/4 " err >"$stage.progress" ||
		fail "no $stage progress: $(cat err)"
	names "$stage.progress" "$stage progress"
done
grep -q '^gen [0-9]/4 gemm isl+tile,sizes=8x8+kernelify ' err ||
	fail "gen progress names the kernel: $(cat err)"
python3 "$E2E_DIR/summarycheck.py" out loopkit.d/report/report.csv ||
	fail "campaign summary against report.csv: $(cat out)"
grep -q '^         llvm-mca[^:]*: [0-9]/4 kernels compared' out ||
	fail "llvm-mca's line: $(cat out)"
grep -q '^         bprof [^:]*: [0-9]/4 kernels compared' out ||
	fail "bprof's line: $(cat out)"

# Each stage on its own: its summary table names the variants.
for stage in blocks count lift filter; do
	"$LOOPKIT" $stage -c c.yaml >$stage.out 2>$stage.err ||
		fail "$stage -c: $(cat $stage.err)"
	no_hash $stage.out $stage.err
	names $stage.out "$stage summary"
done
"$LOOPKIT" predict -c c.yaml >predict.out 2>predict.err ||
	fail "predict -c: $(cat predict.err)"
no_hash predict.out predict.err

"$LOOPKIT" report -c c.yaml >report.out 2>report.err ||
	fail "report: $(cat report.err)"
no_hash report.out report.err
python3 "$E2E_DIR/summarycheck.py" report.out loopkit.d/report/report.csv ||
	fail "report summary against report.csv: $(cat report.out)"
r=loopkit.d/report
no_hash $r/report.html $r/report.csv $r/report.json $r/variants.csv
grep -q '<h2>By source</h2>' $r/report.html || fail "no By source table"
! grep -q '<h2>By kernel</h2>' $r/report.html ||
	fail "By kernel repeats By source"
# kernelify's facts describe the micro-kernels; nobody chose them: no
# table per working set, kernel loop or fixed outer loop.
! grep -Eq '<h2>By (working_set_|kernel\.|fixed\.)' $r/report.html ||
	fail "a table by a kernelify fact: $(grep -o '<h2>By [^<]*' $r/report.html)"
python3 - $r/report.csv <<'PY' || fail "By source groups by kernel"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
groups = {r["group"] for r in rows if r["group_by"] == "source"}
assert groups == {"gemm", "trisolv"}, groups
PY
names $r/report.html "report.html"
names $r/variants.csv "variants.csv"

# export: a name column beside the stored source.
"$LOOPKIT" export --csv >all.csv || fail "export --csv"
python3 - all.csv <<'PY' || fail "export's name column"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
names = {r["name"] for r in rows}
want = {"%s %s gcc O2" % (k, c) for k in ("gemm", "trisolv")
        for c in ("original", "isl+tile,sizes=8x8+kernelify")}
assert names == want, names
assert all(r["source"].startswith("loopkit.d/objects/") for r in rows)
PY
"$LOOPKIT" export --opt-report >opt.txt || fail "export --opt-report"
[ "$(grep -c '^== [0-9a-f]* gemm original gcc O2 (loopkit.d/objects/' \
	opt.txt)" -eq 1 ] || fail "opt-report heading: $(grep '^==' opt.txt)"
exit 0

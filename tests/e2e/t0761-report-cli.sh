# loopkit report's command line: choosing the campaign, exit statuses,
# nothing to report, the page without gnuplot. The lifted rows are
# SYNTHETIC (inserted with sqlite3; lift is not on this branch).
. tests/e2e/lib.sh
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
cd "$TMPD"
cp "$SRC"/tests/data/kernels/sum.c .
for name in first second; do
	"$LOOPKIT" run -q --name $name --method repetitions=5 \
		--method processes=1 -D N=500 sum.c >/dev/null ||
		fail "loopkit run --name $name"
done
expect_exit() { # STATUS COMMAND...: run it, its stderr in err.txt
	want=$1; shift
	rc=0
	"$@" >out.txt 2>err.txt || rc=$?
	[ $rc -eq "$want" ] || fail "$* exits $rc, not $want: $(cat err.txt)"
}

expect_exit 2 "$LOOPKIT" report -o nowhere
grep -q "nowhere: no campaign store here" err.txt || fail "no store: $(cat err.txt)"
expect_exit 2 "$LOOPKIT" report
grep -q "holds 2 campaigns (first, second): say which" err.txt ||
	fail "two campaigns: $(cat err.txt)"
expect_exit 1 "$LOOPKIT" report --campaign third
grep -q "no campaign 'third'.*campaigns: first, second" err.txt ||
	fail "unknown campaign: $(cat err.txt)"
expect_exit 2 "$LOOPKIT" report --campaign first extra
expect_exit 1 "$LOOPKIT" report --campaign first --report-dir out
grep -q "nothing to report: no lifted prediction" err.txt ||
	fail "nothing lifted: $(cat err.txt)"
[ ! -e out ] || fail "nothing to report writes nothing"

# SYNTHETIC: a lifted prediction for the first campaign's variant.
sqlite3 loopkit.d/store.db <<'SQL'
INSERT INTO bb_functions(id, binary_hash, function, addr, size)
 VALUES (1, 'synthetic', 'sum', 4096, 64);
INSERT INTO lifted(variant_id, function_id, tool, tool_version, params,
  status, value, unit, nblocks, nfailed, reason)
 SELECT v.id, 1, 'llvm-mca', '19', '', 'ok', 2 * x.value, 'cycles', 3, 0, ''
 FROM variants v JOIN campaigns c ON c.id = v.campaign_id
 JOIN runs r ON r.variant_id = v.id
 JOIN results x ON x.run_id = r.id AND x.metric = 'cycles'
 WHERE c.name = 'first';
SQL
# Whether this host's calibration was reliable or not, the test needs a
# cycles figure to compare with: SYNTHETIC, it is declared reliable
# (and unreliable again at the end, to see the refusal).
flags=$(sqlite3 loopkit.d/store.db "SELECT flags FROM results
	WHERE metric = 'cycles' AND run_id = 1")
sqlite3 loopkit.d/store.db "UPDATE results SET flags = replace(flags,
	'calibration-unreliable', '') WHERE metric = 'cycles' AND run_id = 1"
expect_exit 1 "$LOOPKIT" report --campaign second --report-dir out
grep -q "campaign 'second': nothing to report" err.txt ||
	fail "the other campaign has nothing: $(cat err.txt)"

# Without gnuplot in PATH: the page says so, a warning, still exit 0.
expect_exit 0 env PATH=/nonexistent "$LOOPKIT" report --campaign first \
	--report-dir out
grep -q "warning: gnuplot is not installed" err.txt ||
	fail "no gnuplot: a warning: $(cat err.txt)"
grep -q "No plots: gnuplot is not installed" out/report.html ||
	fail "no gnuplot: the page says so"
! grep -q "<svg" out/report.html || fail "no gnuplot: no plot"
[ "$(grep -c '^out/' out.txt)" -eq 4 ] ||
	fail "four files listed: $(cat out.txt)"
# Then the analyzer's figures, those of report.csv.
grep -q '^llvm-mca 19: [01]/1 kernel compared' out.txt ||
	fail "the analyzer's line: $(cat out.txt)"
if command -v python3 >/dev/null; then
	python3 "$E2E_DIR/summarycheck.py" out.txt out/report.csv ||
		fail "the figures are report.csv's: $(cat out.txt)"
fi
# One prediction at twice the measured cycles: +100 %.
row=$(grep ',cycles,' out/report.csv)
echo "$row" | grep -q ',0,1,0,100,100,100,100,100,100,100,100,' ||
	fail "one kernel at +100 %: $row"

expect_exit 0 "$LOOPKIT" report -q --campaign first --no-plots \
	--html page.html --json - --report-dir out2
grep -q "Plots were not asked for" page.html || fail "--no-plots"
grep -q '"campaign": "first"' out.txt || fail "--json - on stdout"
[ ! -s err.txt ] || fail "-q is quiet: $(cat err.txt)"
[ -s out2/report.csv ] && [ -s out2/variants.csv ] ||
	fail "the files not named go to --report-dir"
[ ! -e out2/report.html ] && [ ! -e out2/report.json ] ||
	fail "the files named go where they are named"

# The same variant with its calibration unreliable: its only figure in
# cycles is not trustworthy, and its TSC ticks are no basis for a
# prediction in cycles: nothing to report, and why.
sqlite3 loopkit.d/store.db "UPDATE results SET flags = 'calibration-unreliable'
	WHERE metric = 'cycles' AND run_id = 1"
expect_exit 1 "$LOOPKIT" report --campaign first --report-dir out3
grep -q "nothing to report: no variant kept has a trustworthy core-cycle figure" err.txt ||
	fail "unreliable calibration: $(cat err.txt)"
[ ! -e out3 ] || fail "nothing to report writes nothing"

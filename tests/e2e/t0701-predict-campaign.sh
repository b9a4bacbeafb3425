# loopkit predict -c: every distinct block of every built variant, by
# llvm-mca and an adapter (a fake tool), stored; a rerun predicts nothing
# again; a changed parameter predicts again; config errors name file:line.
. tests/e2e/lib.sh
command -v gcc >/dev/null || skip "gcc not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
ls /usr/lib/llvm-*/bin/llvm-mca >/dev/null 2>&1 ||
	command -v llvm-mca >/dev/null || skip "no llvm-mca installed"

cat >"$TMPD/c.yaml" <<EOF
name: predict-e2e
sources: [$SRC/examples/run/triad.c, $SRC/examples/run/dot.c]
flags: {o2: "-O2", native: "-O3 -march=native"}
defines: {N: [1000]}
method: {repetitions: 2, processes: 1, warmup: 1}
predict:
  tools: [llvm-mca, fake]
  iterations: [50, 150]
  adapters:
    - name: fake
      command: [$SRC/tests/data/predict/fake-tool.sh, "{asm}", "{arch}"]
      parse: 'Throughput: ([0-9.]+)'
      markers: iaca
EOF
"$LOOPKIT" run -q -c "$TMPD/c.yaml" -o "$TMPD/d" >/dev/null ||
	fail "loopkit run failed"
"$LOOPKIT" predict -q -c "$TMPD/c.yaml" -o "$TMPD/d" >"$TMPD/1.txt" ||
	fail "predict -c failed"
cat "$TMPD/1.txt"
grep -q '4 variants (0 without a binary)' "$TMPD/1.txt" ||
	fail "not 4 variants"
grep -q ' 0 stored earlier' "$TMPD/1.txt" || fail "first run found some"

q() { sqlite3 "$TMPD/d/store.db" "$1"; }
nblocks=$(sed -n 's/.*, \([0-9]*\) distinct blocks.*/\1/p' "$TMPD/1.txt")
[ "$nblocks" -gt 4 ] || fail "only $nblocks blocks"
for t in $(q "select distinct tool from predictions"); do
	n=$(q "select count(*) from predictions where tool = '$t'")
	[ "$n" -eq "$nblocks" ] || fail "$t: $n predictions, $nblocks blocks"
done
# One llvm-mca per installed LLVM version (however many this host has),
# plus the adapter.
nmca=$(for m in /usr/lib/llvm-*/bin/llvm-mca $(command -v llvm-mca); do
	[ -x "$m" ] && "$m" --version 2>/dev/null | grep -m1 'LLVM version'
done | sort -u | wc -l)
[ "$(q "select count(distinct tool) from predictions")" -eq $((nmca + 1)) ] ||
	fail "not one tool per llvm-mca version ($nmca) + fake"
[ "$(q "select count(*) from predictions where params like '%native%'
	and tool like 'llvm-mca%'")" -eq 0 ] || fail "-mcpu=native recorded"
[ "$(q "select count(*) from predictions where status = 'ok' and
	(value is null or value <= 0)")" -eq 0 ] || fail "ok without a value"
[ "$(q "select count(*) from predictions where status != 'ok' and
	reason = ''")" -eq 0 ] || fail "not ok without a reason"
q "select raw from predictions where tool = 'fake' limit 1" |
	grep -q 'markers: yes' || fail "no IACA markers in the adapter's file"
q "select raw from predictions where tool like 'llvm-mca%' and
	status = 'ok' limit 1" | grep -q 'Code Region' ||
	fail "no llvm-mca section stored"
q "select params from predictions where tool like 'llvm-mca%' limit 1" |
	grep -q -- '-iterations=50,150' || fail "iterations not recorded"
# The fake tool counts lines: the text of each block, minus markers.
[ "$(q "select count(*) from predictions where tool = 'fake' and
	status = 'ok'")" -gt 0 ] || fail "the adapter predicted nothing"

# A rerun predicts nothing again.
"$LOOPKIT" predict -q -c "$TMPD/c.yaml" -o "$TMPD/d" >"$TMPD/2.txt" ||
	fail "rerun failed"
grep -q ': 0 predicted now' "$TMPD/2.txt" || fail "rerun predicted again"
before=$(q "select count(*) from predictions")

# Other iteration counts are other parameters: predicted again.
sed -i 's/iterations: \[50, 150\]/iterations: [100, 200]/' "$TMPD/c.yaml"
"$LOOPKIT" predict -q -c "$TMPD/c.yaml" -o "$TMPD/d" --tool llvm-mca \
	>"$TMPD/3.txt" || fail "new iterations failed"
grep -q ': 0 predicted now' "$TMPD/3.txt" && fail "nothing predicted anew"
after=$(q "select count(*) from predictions")
[ "$after" -gt "$before" ] || fail "no new rows ($before -> $after)"

# Config errors: file:line, exit 2.
expect_error() {
	want=$1
	rc=0
	"$LOOPKIT" predict -q -c "$TMPD/bad.yaml" -o "$TMPD/d" \
		>/dev/null 2>"$TMPD/err" || rc=$?
	cat "$TMPD/err"
	[ $rc -eq 2 ] || fail "exit $rc, not 2"
	grep -q "^loopkit: error: .*$want" "$TMPD/err" ||
		fail "no '$want' in the message"
}
head -n 5 "$TMPD/c.yaml" >"$TMPD/bad.yaml"
printf 'predict:\n  tools: [llvm-mca, uica]\n' >>"$TMPD/bad.yaml"
expect_error "bad.yaml:7: unknown tool 'uica' (available here: llvm-mca-"
head -n 5 "$TMPD/c.yaml" >"$TMPD/bad.yaml"
printf 'predict:\n  itertions: [1, 2]\n' >>"$TMPD/bad.yaml"
expect_error "bad.yaml:7: unknown key 'itertions'.*did you mean 'iterations'"
head -n 5 "$TMPD/c.yaml" >"$TMPD/bad.yaml"
printf 'predict:\n  tools: [x]\n  adapters:\n    - name: x\n' >>"$TMPD/bad.yaml"
printf '      command: [/nonexistent/x, "{asm}"]\n' >>"$TMPD/bad.yaml"
printf '      parse: "(.*)"\n' >>"$TMPD/bad.yaml"
expect_error "bad.yaml:9: adapter 'x': cannot run '/nonexistent/x'"
echo ok

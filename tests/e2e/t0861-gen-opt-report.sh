# method.opt-report: each variant's build keeps the compiler's
# vectorisation report (gcc -fopt-info, clang -Rpass), and loopkit
# export --opt-report prints it under a line naming the variant.
. tests/e2e/lib.sh
command -v clang >/dev/null || skip "no clang"
cd "$TMPD"
cat >rep.yaml <<YAML
name: rep
sources: [$SRC/kernels/gemm.c]
compilers: [gcc, clang]
flags: {O3: -O3}
defines: {MINI_DATASET: ['']}
method: {opt-report: true}
gen:
  transformations: [original, 'tile,sizes=8']
YAML
"$LOOPKIT" gen -q -c rep.yaml >units || { cat units; fail "gen -c"; }
"$LOOPKIT" run -q -c rep.yaml -m tsc -r 3 -p 1 --warmup 1 >table ||
	{ cat table; fail "run -c"; }
"$LOOPKIT" export --opt-report >report || fail "export --opt-report"
[ "$(grep -c '^== .* gcc O3 ' report)" -eq 2 ] || { cat report; fail "gcc"; }
[ "$(grep -c '^== .* clang O3 ' report)" -eq 2 ] || fail "clang headers"
grep -q 'optimized: loop vectorized' report || fail "gcc's report"
grep -q 'remark: vectorized loop' report || fail "clang's report"
grep -q 'objects/.*\.c:[0-9]*:[0-9]*: missed:' report ||
	fail "gcc's missed loops, on the generated file's lines"
grep -q 'Rpass-missed=loop-vectorize' report || fail "clang's missed loops"
n=$(sqlite3 loopkit.d/store.db "select count(*) from builds where log like
	'%vectoriz%'")
[ "$n" -eq 4 ] || fail "4 builds keep a report, got $n"
# Without the key: no report, and export says why.
sed '/opt-report/d; s/name: rep/name: plain/' rep.yaml >plain.yaml
"$LOOPKIT" gen -q -c plain.yaml >/dev/null || fail "gen -c plain"
"$LOOPKIT" run -q -c plain.yaml -m tsc -r 3 -p 1 --warmup 1 >/dev/null ||
	fail "run -c plain"
"$LOOPKIT" export --opt-report --campaign plain >report2 || fail "export"
[ "$(grep -c '^(empty: built without method.opt-report)' report2)" -eq 4 ] ||
	{ cat report2; fail "no report without method.opt-report"; }
set +e
"$LOOPKIT" export --opt-report --campaign nope >/dev/null 2>err; rc=$?
set -e
[ $rc -ne 0 ] && grep -q "no campaign 'nope'" err || fail "unknown campaign"
exit 0

# The full suite (examples/campaign/full-suite.yaml): every kernel x 18
# chains x gcc/clang x 4 flag sets generated, verified, built and run
# once. Slow (about 10 minutes on 2 cores): only with LOOPKIT_SLOW_TESTS=1.
. tests/e2e/lib.sh
[ "${LOOPKIT_SLOW_TESTS:-0}" = 1 ] || skip "slow: set LOOPKIT_SLOW_TESTS=1"
command -v clang >/dev/null || skip "no clang"
# Without AVX-512 the x86-64-v4 variants build but cannot run: each
# must be a recorded failure (killed by SIGILL), not a crash of loopkit.
avx512=0
grep -qw avx512f /proc/cpuinfo && avx512=1
cd "$TMPD"
config=$SRC/examples/campaign/full-suite.yaml
"$LOOPKIT" gen -q -c "$config" -o "$TMPD/d" >units || fail "gen -c"
if grep -E ' (unsupported|failed) ' units; then fail "unsupported or failed units"; fi
db=$TMPD/d/store.db
kernels=$(sqlite3 "$db" "select count(distinct value) from variant_params
	where name = 'kernel'")
variants=$(sqlite3 "$db" "select count(*) from variants")
[ "$kernels" -ge 26 ] || fail "$kernels kernels give variants, want >= 26"
[ "$variants" -ge 2000 ] || fail "$variants variants, want >= 2000"
most=$(sqlite3 "$db" "select max(n) from (select count(*) n from
	variant_params where name = 'kernel' group by value)")
[ "$most" -le 144 ] || fail "$most variants for one kernel, want <= 144"
"$LOOPKIT" run -q -c "$config" -o "$TMPD/d" -m tsc -r 3 -p 1 --warmup 1 \
	--steps 1 >table 2>err || true
built=$(sqlite3 "$db" "select count(*) from builds where ok = 1")
bad=$(sqlite3 "$db" "select count(*) from builds where ok = 0")
[ "$bad" -eq 0 ] || fail "$bad builds failed"
[ "$built" -eq "$variants" ] || fail "$built builds for $variants variants"
ran=$(sqlite3 "$db" "select count(*) from runs where status in
	('ok', 'unstable')")
sigill=$(sqlite3 "$db" "select count(*) from runs r join variants v on
	v.id = r.variant_id where v.flagset = 'O3-v4' and r.reason like
	'%SIGILL%'")
runs=$(sqlite3 "$db" "select count(*) from runs")
[ "$runs" -eq "$variants" ] || fail "$runs runs recorded for $variants variants"
if [ $avx512 = 1 ]; then
	want=$variants
else
	want=$((variants - sigill))
	v4=$(sqlite3 "$db" "select count(*) from variants where
		flagset = 'O3-v4'")
	[ "$sigill" -eq "$v4" ] || fail "$sigill of $v4 v4 runs: SIGILL"
fi
[ "$ran" -eq "$want" ] || {
	sqlite3 "$db" "select status, reason from runs where status not in
		('ok', 'unstable') limit 10"
	fail "$ran of $want variants ran"
}
echo "$kernels kernels, $variants variants, all built, $ran run," \
	"$sigill SIGILL (AVX-512 here: $avx512)"
exit 0

# The full suite (examples/campaign/full-suite.yaml): every kernel x 18
# chains, micro-kernelified, x gcc/clang x 4 flag sets generated,
# verified (each transformed nest against the original's checksum), built
# and run once; every binary's kernel function has exactly one loop (one
# back edge in its CFG). Slow (about 6 minutes on 2 cores): only with
# LOOPKIT_SLOW_TESTS=1.
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
# One loop per kernel function: the blocks stage stores each distinct
# binary's CFG; back edges are found by a depth-first walk (backedges.py).
"$LOOPKIT" blocks -c "$config" -o "$TMPD/d" >blocks 2>blocks.err ||
	{ cat blocks.err; fail "blocks -c"; }
# (identical binaries share their blocks: "stored earlier")
grep -q ": $variants variants: .* 0 failed, 0 skipped" blocks.err ||
	{ cat blocks.err; fail "blocks of every variant"; }
functions=$(sqlite3 "$db" "select count(*) from bb_functions")
sqlite3 "$db" "select function_id, start, succ, idx from bb_blocks" |
python3 -c '
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from backedges import count
funcs = {}
for line in sys.stdin:
    fid, start, succ, idx = line.rstrip("\n").split("|")
    funcs.setdefault(fid, {})[int(idx)] = [int(x) for x in succ.split()]
bad = [(f, count(s, min(s))) for f, s in funcs.items()]
bad = [b for b in bad if b[1] != (1, 1)]
for f, c in bad[:20]:
    print("function", f, "back edges and loops:", *c)
sys.exit(1 if bad else 0)
' "$E2E_DIR" || fail "kernel functions without exactly one loop"
echo "$kernels kernels, $variants variants, all built, $ran run," \
	"$sigill SIGILL (AVX-512 here: $avx512), $functions kernel functions" \
	"with one loop"
exit 0

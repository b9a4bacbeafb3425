# loopkit filter on AVX-512 code, which valgrind cannot run: judged by
# cachegrind on a build of the same source it can run (the campaign
# builds it with -march=x86-64-v3; one binary takes --proxy), so a
# variant whose proxy streams is excluded even though its recorded
# working set would fit; without a proxy, "unknown" says what to do.
# The simulated L1D is given (64 KiB, 8 ways, 64-byte lines): no verdict
# depends on the host's cache.
. tests/e2e/lib.sh
command -v valgrind >/dev/null || skip "valgrind not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
rt=$(dirname "$LOOPKIT")/lib/liblkrt.a
cc=${CC:-cc}
src=tests/data/filter/avx512.c
build() { # name flags...
	out=$TMPD/$1; shift
	$cc -Irt "$@" "$src" "$rt" -lm -o "$out" || fail "build $1"
}
build evex -O1 -mavx512f -DN=200000
build proxy -O1 -march=x86-64-v3 -DN=200000
"$LOOPKIT" blocks "$TMPD/evex" | grep -q zmm || fail "evex has no zmm code"
geometry="--l1d-size 65536 --l1d-assoc 8 --line-size 64"

# One binary: no proxy, no verdict (and a reason naming --proxy);
# with the proxy, cachegrind's verdict on it.
# shellcheck disable=SC2086
"$LOOPKIT" filter $geometry "$TMPD/evex" >"$TMPD/none" || fail "filter"
grep -q "unknown (decoder): AVX-512 code (vaddpd.*--proxy" "$TMPD/none" ||
	fail "no proxy: $(cat "$TMPD/none")"
# shellcheck disable=SC2086
"$LOOPKIT" filter $geometry --proxy "$TMPD/proxy" "$TMPD/evex" \
	>"$TMPD/one" || fail "filter --proxy"
grep -q "exclude (cachegrind-proxy): AVX-512 code (vaddpd .*) judged by \
its --proxy build: warm D1 miss ratio" "$TMPD/one" ||
	fail "--proxy: $(cat "$TMPD/one")"

# A campaign: the AVX-512 variants judged by their x86-64-v3 builds.
cp "$src" "$TMPD/"
cat >"$TMPD/c.yaml" <<'YAML'
name: filter-proxy
sources: [avx512.c]
flags:
  v3: -O1 -march=x86-64-v3
  avx512: -O1 -mavx512f
defines:
  N: [1000, 200000]
  working_set_bytes: [8000]
method:
  warmup: 1
  steps: 1
  repetitions: 2
  processes: 1
filter:
  l1d-size: 65536
  l1d-assoc: 8
  line-size: 64
YAML
store=$TMPD/d
"$LOOPKIT" run -q -c "$TMPD/c.yaml" -o "$store" >/dev/null 2>&1
"$LOOPKIT" filter -q -c "$TMPD/c.yaml" -o "$store" >"$TMPD/camp" 2>&1 ||
	fail "filter -c: $(cat "$TMPD/camp")"
q() { sqlite3 "$store/store.db" "$1"; }
rows=$(q "select v.flagset, p.value, r.verdict, r.source from verdicts r
	join variants v on v.id = r.variant_id
	join variant_params p on p.variant_id = v.id and p.name = 'N'
	order by v.id")
echo "$rows"
for want in "v3|1000|pass|cachegrind" "v3|200000|exclude|cachegrind" \
	"avx512|1000|pass|cachegrind-x86-64-v3" \
	"avx512|200000|exclude|cachegrind-x86-64-v3"; do
	echo "$rows" | grep -qx "$want" || fail "expected $want"
done
# No AVX-512 variant passes where the same source's x86-64-v3 build is
# excluded, whatever its working_set_bytes says.
check "the proxy's ratio is the v3 variant's" test "$(q "select
	count(distinct round(r.value, 6)) from verdicts r join variant_params p
	on p.variant_id = r.variant_id and p.name = 'N' and p.value =
	'200000'")" = 1
grep -q "judged by its x86-64-v3 build ('-O1 -march=x86-64-v3')" \
	"$TMPD/camp" || fail "the reason names the proxy: $(cat "$TMPD/camp")"
check "the proxy is a build in the store" test "$(q "select count(*)
	from builds where command like '%-march=x86-64-v3%-DN=200000%'")" -ge 1
# A store from a loopkit without proxies: its working-set pass of the
# streaming AVX-512 variant is judged again, not kept.
q "update verdicts set verdict = 'pass', source = 'generator', value = NULL
	where variant_id = (select v.id from variants v join variant_params p
	on p.variant_id = v.id and p.name = 'N' and p.value = '200000'
	where v.flagset = 'avx512')"
"$LOOPKIT" filter -q -c "$TMPD/c.yaml" -o "$store" >"$TMPD/again" 2>&1 ||
	fail "filter -c again: $(cat "$TMPD/again")"
grep -q "1 done now, 3 stored earlier" "$TMPD/again" ||
	fail "rerun: $(cat "$TMPD/again")"
check "the old working-set pass is gone" test "$(q "select count(*) from
	verdicts where source = 'generator' or (verdict = 'pass' and
	variant_id in (select variant_id from variant_params where name = 'N'
	and value = '200000'))")" = 0

# AVX-512 code outside the kernel (main's, as -march=native gives it):
# valgrind dies on it with SIGILL. One binary: unknown, saying what to
# do; with --proxy, or in a campaign, judged on the x86-64-v3 build.
src=tests/data/filter/avx512-main.c
build mainevex -O1 -mavx512f -DN=200000
build mainproxy -O1 -march=x86-64-v3 -DN=200000
# shellcheck disable=SC2086
"$LOOPKIT" filter $geometry "$TMPD/mainevex" >"$TMPD/sigill" ||
	fail "filter mainevex"
grep -q "unknown (cachegrind): valgrind .*filter the campaign (-c).*--proxy" \
	"$TMPD/sigill" || fail "SIGILL without a proxy: $(cat "$TMPD/sigill")"
# shellcheck disable=SC2086
"$LOOPKIT" filter $geometry --proxy "$TMPD/mainproxy" "$TMPD/mainevex" \
	>"$TMPD/sigill2" || fail "filter --proxy mainevex"
grep -q "exclude (cachegrind-proxy): a binary valgrind cannot run (SIGILL \
outside the kernel) judged by its --proxy build" "$TMPD/sigill2" ||
	fail "SIGILL with --proxy: $(cat "$TMPD/sigill2")"
cp "$src" "$TMPD/"
sed 's/avx512\.c/avx512-main.c/; s/^name: filter-proxy/name: filter-sigill/' \
	"$TMPD/c.yaml" >"$TMPD/m.yaml"
mstore=$TMPD/m
# Without AVX-512 (Zen 3) main's EVEX code dies with SIGILL and the run
# exits 1: the filter judges the builds all the same.
if ! "$LOOPKIT" run -q -c "$TMPD/m.yaml" -o "$mstore" >/dev/null 2>&1; then
	"$LOOPKIT" env | grep '^cpu.isa.absent' | grep -qw avx512f ||
		fail "run -c m.yaml failed on a machine with AVX-512"
fi
"$LOOPKIT" filter -q -c "$TMPD/m.yaml" -o "$mstore" >"$TMPD/mcamp" 2>&1 ||
	fail "filter -c m: $(cat "$TMPD/mcamp")"
mrows=$(sqlite3 "$mstore/store.db" "select v.flagset, p.value, r.verdict,
	r.source from verdicts r join variants v on v.id = r.variant_id
	join variant_params p on p.variant_id = v.id and p.name = 'N'
	order by v.id")
echo "$mrows"
for want in "avx512|1000|pass|cachegrind-x86-64-v3" \
	"avx512|200000|exclude|cachegrind-x86-64-v3"; do
	echo "$mrows" | grep -qx "$want" || fail "expected $want"
done
exit 0

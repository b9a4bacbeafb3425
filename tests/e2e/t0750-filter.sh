# loopkit filter: an L1-resident kernel passes, a streaming one over a
# large array is excluded (warm D1 miss ratio of the kernel function from
# cachegrind); an AVX-512 kernel never reaches valgrind and is "unknown"
# or judged by its working set, never a silent pass; a valgrind that
# hangs is "unknown" with the reason; campaign mode stores the verdicts
# and re-judges stored ratios without valgrind.
. tests/e2e/lib.sh
command -v valgrind >/dev/null || skip "valgrind not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
rt=$(dirname "$LOOPKIT")/lib/liblkrt.a
cc=${CC:-cc}
build() { # name source flags...
	out=$TMPD/$1; src=$2; shift 2
	$cc -O2 -Irt "$@" "$src" "$rt" -lm -o "$out" || fail "build $1"
}
build resident examples/run/triad.c -DN=1000 -fno-tree-vectorize
build streaming examples/run/triad.c -DN=200000 -fno-tree-vectorize
build evex tests/data/filter/evex.c
"$TMPD/evex" >/dev/null || fail "the EVEX path must never run"

# cachegrind simulates the geometry it is given: an explicit one (64 KiB,
# 8 ways, 64-byte lines), not the host's, so the 24 KB triad is resident
# on any host (the host's 32 KiB 8-way L1D gives it 0.1-0.7 % of conflict
# misses, depending on where the arrays land).
geometry="--l1d-size 65536 --l1d-assoc 8 --line-size 64"
verdict() { # binary [options]: "verdict source ratio ran_valgrind"
	b=$1; shift
	# shellcheck disable=SC2086
	"$LOOPKIT" filter --json $geometry "$@" "$TMPD/$b" >"$TMPD/$b.json" ||
		fail "filter $b"
	python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))
print(v["verdict"], v["source"], v.get("ratio", "none"),
      str(v["ran_valgrind"]).lower())' "$TMPD/$b.json"
}

set -- $(verdict resident)
check "resident: pass by cachegrind (got $*)" test "$1 $2 $4" = \
	"pass cachegrind true"
check "resident: ratio ~0 (got $3)" num_ok "$3 < 0.001"
set -- $(verdict streaming)
check "streaming: exclude (got $*)" test "$1 $2" = "exclude cachegrind"
# Scalar doubles: one miss per 64-byte line of 8.
check "streaming: ratio ~1/8 (got $3)" num_ok "$3 > 0.11 && $3 < 0.14"
# The threshold decides: above the streaming ratio, it passes.
set -- $(verdict streaming --threshold 20%)
check "streaming under a 20% threshold passes (got $*)" test "$1" = pass

# A valgrind that records being started and hangs: the AVX-512 kernel
# must not start it, the others time out into "unknown".
mkdir -p "$TMPD/bin"
cat >"$TMPD/bin/valgrind" <<EOF
#!/bin/sh
echo started >>"$TMPD/valgrind-started"
exec sleep 30
EOF
chmod +x "$TMPD/bin/valgrind"
PATH=$TMPD/bin:$PATH
set -- $(verdict evex)
check "evex: unknown by the decoder (got $*)" test "$1 $2 $4" = \
	"unknown decoder false"
grep -q "AVX-512 code (vaddpd" "$TMPD/evex.json" ||
	"$LOOPKIT" filter "$TMPD/evex" | grep -q "AVX-512 code (vaddpd" ||
	fail "evex: the reason names the instruction"
set -- $(verdict evex --working-set 4096)
check "evex with a small working set: pass (got $*)" test "$1 $2" = \
	"pass working-set"
set -- $(verdict evex --working-set 100000000)
check "evex with a big working set: exclude (got $*)" test "$1 $2" = \
	"exclude working-set"
check "valgrind never started for evex" test ! -e "$TMPD/valgrind-started"
"$LOOPKIT" filter --timeout 1 "$TMPD/resident" >"$TMPD/hang" ||
	fail "filter with a hanging valgrind"
grep -q "unknown (cachegrind): valgrind timed out" "$TMPD/hang" ||
	fail "hanging valgrind: $(cat "$TMPD/hang")"
rm "$TMPD/valgrind-started"
# A valgrind whose output never mentions the kernel: unknown, not pass.
cat >"$TMPD/bin/valgrind" <<EOF
#!/bin/sh
for a; do
	case \$a in --cachegrind-out-file=*)
		cp "$SRC/tests/data/filter/two-files.out" "\${a#*=}" ;;
	esac
done
EOF
"$LOOPKIT" filter "$TMPD/resident" >"$TMPD/nocost" || fail "filter nocost"
grep -q "unknown (cachegrind): cachegrind reports no cost for" \
	"$TMPD/nocost" || fail "no cost: $(cat "$TMPD/nocost")"
# A valgrind reporting made-up costs for the kernel, LK_REPETITIONS calls
# of FAKE_IR instructions each (0: the same count whatever the calls) and
# no data access.
fn=$("$LOOPKIT" blocks "$TMPD/resident" | sed -n '1s/^function \([^ ]*\) .*/\1/p')
cat >"$TMPD/bin/valgrind" <<EOF
#!/bin/sh
for a; do
	case \$a in --cachegrind-out-file=*) out=\${a#*=} ;; esac
done
ir=\$((FAKE_IR * LK_REPETITIONS))
[ "\$FAKE_IR" = 0 ] && ir=1000
printf 'events: Ir Dr D1mr Dw D1mw\nfn=%s\n1 %d 0 0 0 0\n' "$fn" \$ir >"\$out"
EOF
FAKE_IR=100 "$LOOPKIT" filter "$TMPD/resident" >"$TMPD/nodata" ||
	fail "filter nodata"
grep -q "pass (cachegrind): $fn makes no data accesses" "$TMPD/nodata" ||
	fail "no data: $(cat "$TMPD/nodata")"
FAKE_IR=0 "$LOOPKIT" filter "$TMPD/resident" >"$TMPD/nocalls" ||
	fail "filter nocalls"
grep -q "unknown (cachegrind): $fn ran no more instructions" \
	"$TMPD/nocalls" || fail "no calls: $(cat "$TMPD/nocalls")"
PATH=${PATH#"$TMPD/bin:"}

# Campaign mode: verdicts with reasons in the store.
cp examples/run/triad.c tests/data/filter/evex.c "$TMPD/"
cat >"$TMPD/c.yaml" <<'EOF'
name: filter-e2e
sources: [triad.c, evex.c]
flags:
  scalar: -O2 -fno-tree-vectorize
defines:
  N: [1000, 200000]
  working_set_bytes: [8000]
exclude:
  - {source: evex.c, N: 200000}
method:
  warmup: 1
  steps: 1
  repetitions: 2
  processes: 1
filter:
  threshold: 1%
  l1d-size: 65536
  l1d-assoc: 8
  line-size: 64
EOF
store=$TMPD/d
"$LOOPKIT" run -q -c "$TMPD/c.yaml" -o "$store" >/dev/null || fail "run"
"$LOOPKIT" filter -q -c "$TMPD/c.yaml" -o "$store" >"$TMPD/camp" 2>&1 ||
	fail "filter -c: $(cat "$TMPD/camp")"
cat "$TMPD/camp"
q() { sqlite3 "$store/store.db" "$1"; }
rows=$(q "select v.source, p.value, r.verdict, r.source from verdicts r
	join variants v on v.id = r.variant_id
	join variant_params p on p.variant_id = v.id and p.name = 'N'
	order by v.id")
echo "$rows"
echo "$rows" | grep -q "triad.c|1000|pass|cachegrind" || fail "resident"
echo "$rows" | grep -q "triad.c|200000|exclude|cachegrind" ||
	fail "streaming"
echo "$rows" | grep -q "evex.c|1000|pass|working-set" || fail "evex"
check "every verdict has a reason" \
	test "$(q "select count(*) from verdicts where reason = ''")" = 0
# A rerun with a higher threshold re-judges the stored ratio, no valgrind.
cat >"$TMPD/bin/valgrind" <<EOF
#!/bin/sh
echo started >>"$TMPD/valgrind-started"
exit 1
EOF
sed 's/threshold: 1%/threshold: 20%/' "$TMPD/c.yaml" >"$TMPD/c2.yaml"
PATH=$TMPD/bin:$PATH "$LOOPKIT" filter -q -c "$TMPD/c2.yaml" -o "$store" \
	>"$TMPD/camp2" 2>&1 || fail "filter rerun"
check "no valgrind on a rerun" test ! -e "$TMPD/valgrind-started"
check "the streaming kernel passes at 20%" test "$(q "select count(*)
	from verdicts where verdict = 'pass'")" = 3
grep -q "3 stored earlier" "$TMPD/camp2" || fail "rerun: $(cat "$TMPD/camp2")"

# mdl eval on a machine without AVX-512, of a kernel built with -march=
# x86-64-v4 (extraction is static: it reads any x86-64 code): the loop is
# extracted, its replay refused with the reason (not run into a SIGILL),
# and its rows say that this machine cannot build the avx512 database,
# rather than naming a build that would be refused. On a machine with
# AVX-512 none of this is reached: skipped.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
"$LOOPKIT" env | grep '^cpu\.isa ' | grep -w avx512f | grep -qw avx512vl &&
	skip "this machine runs AVX-512: no refusal to check"
cd "$TMPD"
cp "$SRC/examples/run/triad.c" .
cat >c.yaml <<'Y'
name: v4
sources: [triad.c]
compilers: [gcc]
flags:
  v4: -O3 -march=x86-64-v4 -mprefer-vector-width=512
defines:
  N: [2000]
method:
  warmup: 1
  repetitions: 3
  processes: 1
mdl:
  levels: [L1]
Y
# the run itself dies of SIGILL here: only the binary matters
"$LOOPKIT" run -c c.yaml -o d -q >run.out 2>&1 || true
"$LOOPKIT" mdl eval -c c.yaml -o d --csv >eval.csv 2>eval.err ||
	fail "eval exited $?: $(cat eval.err)"
python3 - eval.csv <<'PY' || fail "rows: $(cat eval.csv)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, rows
for r in rows:
    assert r["isa"] == "avx512", r
    assert r["status"] in ("no-database", "replay-refused"), r
    if r["status"] == "no-database":
        assert r["reason"] == ("no MDL database for avx512, and this "
                               "machine cannot run avx512 code to build "
                               "one"), r
print("%d rows: %s" % (len(rows), ", ".join(sorted({r["status"] for r in rows}))))
PY

# The predict tool says the same of an AVX-512 loop block, beside a
# database of another class (a one-seed scalar one, L1 only).
"$LOOPKIT" mdl db build --isa scalar --levels L1 --seeds L1S0 -q -o t \
	>db.out 2>&1 || fail "db build: $(cat db.out)"
cc -c "$SRC/tests/data/mdl/asm/triad-avx512.s" -o avx512.o
"$LOOPKIT" predict avx512.o --function triad_avx512 --tool mdl -o t \
	>tool.txt || fail "predict exited $?: $(cat tool.txt)"
grep -q "^  mdl  *unsupported no MDL database for avx512, and this machine cannot run avx512 code to build one$" \
	tool.txt || fail "the tool: $(cat tool.txt)"

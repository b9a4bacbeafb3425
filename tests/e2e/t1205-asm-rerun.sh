# A rerun of a changed asm: sweep measures the sweep as it now is, not
# every variant the campaign ever recorded: the dropped ones keep their
# runs (the export still has them) but are no longer current, and
# loopkit asm's campaign 'asm' holds only the last command's variants as
# current. A gen: sweep's rerun after 'loopkit gen -c' is the same.
. tests/e2e/lib.sh
cd "$TMPD"
cat >sweep.yaml <<'YAML'
name: rerun
asm:
  unroll: 10
  chains: 1..3
  bodies:
    add: ["add $1, {r}"]
method: {repetitions: 3, processes: 1}
YAML
"$LOOPKIT" run -q -c sweep.yaml >/dev/null || fail "first run"
sed -i 's/chains: 1\.\.3/chains: 4..5/' sweep.yaml
"$LOOPKIT" run -c sweep.yaml >out.txt 2>err.txt || fail "rerun: $(cat err.txt)"
grep -q '^loopkit: 2 variants: 2 measured now, 0 stored earlier' err.txt ||
	fail "the rerun measured more than the sweep: $(cat err.txt)"
[ "$(grep -c 'asm.chains=' out.txt)" -eq 2 ] || fail "$(cat out.txt)"
q() { sqlite3 loopkit.d/store.db "$1"; }
[ "$(q "select count(*) from variants")" -eq 5 ] || fail "variants lost"
[ "$(q "select count(*) from runs")" -eq 5 ] || fail "runs lost"
[ "$(q "select group_concat(value) from variant_params p join variants v
	on v.id = p.variant_id where v.current and p.name = 'asm.chains'")" \
	= "4,5" ] || fail "current: $(q "select id, current from variants")"
# Back to the first sweep: its variants are current again, nothing is
# measured twice.
sed -i 's/chains: 4\.\.5/chains: 1..3/' sweep.yaml
"$LOOPKIT" run -c sweep.yaml >/dev/null 2>err.txt || fail "third run"
grep -q '^loopkit: 3 variants: 0 measured now, 3 stored earlier' err.txt ||
	fail "third run: $(cat err.txt)"

# loopkit asm: each command's variants are the campaign's current ones;
# a second command with another method measures only its own.
"$LOOPKIT" asm -q -o a.d --no-mca -m repetitions=2 -m processes=1 \
	--chains 1,2 'imul {r}, {r}' >/dev/null || fail "asm imul"
"$LOOPKIT" asm -o a.d --no-mca -m repetitions=3 -m processes=1 \
	'add $1, {r}' >/dev/null 2>err.txt || fail "asm add"
grep -c '^measure ' err.txt >n.txt || true
[ "$(cat n.txt)" -eq 1 ] || fail "the second asm measured: $(cat err.txt)"
[ "$(sqlite3 a.d/store.db "select count(*) from variants where current")" \
	-eq 1 ] || fail "asm: not one current variant"

# gen: a changed transformation list, generated again, then run -c.
mkdir gen && cd gen
cp "$SRC"/tests/data/gen/conv2d.c "$SRC"/tests/data/gen/checksum.h .
cat >camp.yaml <<'YAML'
name: conv
sources: [conv2d.c]
defines:
  MINI_DATASET: [""]
gen:
  transformations: [original, interchange]
method: {repetitions: 2, processes: 1}
YAML
"$LOOPKIT" gen -q -c camp.yaml >/dev/null || fail "gen -c"
"$LOOPKIT" run -q -c camp.yaml >/dev/null || fail "gen: run -c"
sed -i 's/original, interchange/original, unroll-jam,factor=2/' camp.yaml
"$LOOPKIT" gen -q -c camp.yaml >/dev/null || fail "gen -c again"
"$LOOPKIT" run -c camp.yaml >out.txt 2>err.txt || fail "gen: rerun"
grep -q '^loopkit: 2 variants: 1 measured now, 1 stored earlier' err.txt ||
	fail "gen: the rerun measured more than the sweep: $(cat err.txt)"
grep -q 'interchange' out.txt && fail "gen: the dropped chain was shown"
true

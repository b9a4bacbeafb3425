# Stored blocks carry their machine code (schema 7): the blocks stage
# stores each block's bytes, and a store of schema 6 (blocks without
# code) opened by this loopkit migrates, keeps its blocks, and predicts
# and filters them as a store made now does (those stages read the
# kernel from the binary when the store has no code for it).
. tests/e2e/lib.sh
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
cp examples/run/triad.c tests/data/filter/evex.c "$TMPD/"
cat >"$TMPD/c.yaml" <<EOF
name: code-e2e
sources: [triad.c, evex.c]
flags:
  scalar: -O2 -fno-tree-vectorize
defines:
  N: [1000]
  working_set_bytes: [8000]
method: {warmup: 1, steps: 1, repetitions: 2, processes: 1}
predict:
  tools: [fake]
  adapters:
    - name: fake
      command: [$SRC/tests/data/predict/fake-tool.sh, "{asm}", "{arch}"]
      parse: 'Throughput: ([0-9.]+)'
filter:
  l1d-size: 65536
  l1d-assoc: 8
  line-size: 64
EOF
new=$TMPD/new old=$TMPD/old
"$LOOPKIT" run -q -c "$TMPD/c.yaml" -o "$new" >/dev/null || fail "run"
"$LOOPKIT" blocks -c "$TMPD/c.yaml" -o "$new" >/dev/null || fail "blocks"
q() { sqlite3 "$1/store.db" "$2"; }

# Every block of a store made now has its code, as long as the block.
latest=$(q "$new" 'pragma user_version')
check "schema 7 or later" test "$latest" -ge 7
nblocks=$(q "$new" "select count(*) from bb_blocks")
[ "$nblocks" -gt 2 ] || fail "only $nblocks blocks"
check "every block has its code" test "$(q "$new" "select count(*) from
	bb_blocks where length(code) = \"end\" - start")" = "$nblocks"

# The same store as a loopkit of schema 6 left it: no code column, and
# none of what later migrations add (each adds its undo here).
cp -r "$new" "$old"
q "$old" "alter table bb_blocks drop column code;
	drop table variant_predictions; alter table variants drop column current;
	drop table mdl_evals;
	drop table mdl_seed_perf; drop table mdl_seeds; drop table mdl_dbs;
	pragma user_version = 6"
check "made a schema-6 store" test "$(q "$old" 'pragma user_version')" = 6

for d in "$new" "$old"; do
	"$LOOPKIT" predict -q -c "$TMPD/c.yaml" -o "$d" >"$d.predict" ||
		fail "predict $d: $(cat "$d.predict")"
	cat "$d.predict"
done
check "the old store migrated" test "$(q "$old" 'pragma user_version')" = "$latest"
check "its blocks are all there, without code" test "$(q "$old" "select
	count(*) from bb_blocks where code is null")" = "$nblocks"
summary() { sed 's/; store: .*//' "$1"; }
check "the same summary" test "$(summary "$new.predict")" = \
	"$(summary "$old.predict")"
preds() { q "$1" "select block_hash, status, value from predictions
	order by block_hash"; }
[ -n "$(preds "$new")" ] || fail "nothing predicted"
check "the same predictions" test "$(preds "$new")" = "$(preds "$old")"
check "every stored block predicted" test "$(q "$new" "select count(*)
	from bb_blocks b left join predictions p on p.block_hash = b.hash
	where p.id is null")" = 0

if command -v valgrind >/dev/null; then
	for d in "$new" "$old"; do
		"$LOOPKIT" filter -q -c "$TMPD/c.yaml" -o "$d" >"$d.filter" \
			2>&1 || fail "filter $d: $(cat "$d.filter")"
		cat "$d.filter"
	done
	verdicts() { q "$1" "select v.source, r.verdict, r.source, r.reason
		from verdicts r join variants v on v.id = r.variant_id
		order by v.source"; }
	verdicts "$new"
	check "two verdicts" test "$(verdicts "$new" | wc -l)" = 2
	verdicts "$new" | grep -q 'triad.c|pass|' || fail "triad does not pass"
	# The AVX-512 kernel is found in the stored code, as in the binary.
	verdicts "$new" | grep -q 'evex.c|.*AVX-512 code' ||
		fail "evex not judged as AVX-512"
	# Ratios differ in their last digits from run to run: compare the
	# verdicts and their sources.
	short() { verdicts "$1" | cut -d'|' -f1-3; }
	check "the same verdicts" test "$(short "$new")" = "$(short "$old")"
else
	echo "valgrind not installed: the filter half is not run"
fi
echo ok

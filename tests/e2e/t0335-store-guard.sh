# The store guards itself: a second writer is refused (naming the holder)
# while readers work, and the first writer's runs stay its own; an empty
# file, another program's SQLite file and a damaged store are refused by
# export and run -c, named, and left as they were.
. tests/e2e/lib.sh
command -v sqlite3 >/dev/null || skip "sqlite3 (the CLI) is not installed"
cd "$TMPD"
cp "$SRC"/tests/data/kernels/sum.c .
cat >sweep.yaml <<'Y'
sources: [sum.c]
defines: {N: {from: 100, to: 1600, step: 100}}
metrics: [tsc]
method: {repetitions: 200, processes: 2}
Y
db=loopkit.d/store.db

# -- two writers: the second refuses, naming the first -------------------
"$LOOPKIT" run -q -c sweep.yaml >first.out 2>first.err &
pid=$!
i=0
# The lock is taken before store.db is made (whole, by a rename): wait
# for both, or the reader below may come before there is a store.
until [ -s loopkit.d/store.lock ] && [ -f loopkit.d/store.db ]; do
	i=$((i + 1)); [ $i -lt 600 ] || fail "the first run never took the lock"
	sleep 0.05
done
kill -0 $pid 2>/dev/null || skip "the first run ended before the second began"
rc=0
"$LOOPKIT" run -q -c sweep.yaml >second.out 2>second.err || rc=$?
[ $rc -eq 1 ] || { cat second.err; fail "the second run exits 1, not $rc"; }
grep -qx "loopkit: error: $db: in use by loopkit run -q -c sweep.yaml (pid $pid); wait for it to finish or use another -o DIR" \
	second.err || { cat second.err; fail "the refusal names the store and holder"; }
[ ! -s second.out ] || fail "the refused run printed results"
# a stage refuses too; a reader works beside the writer
rc=0
"$LOOPKIT" predict -c sweep.yaml >/dev/null 2>predict.err || rc=$?
[ $rc -eq 1 ] && grep -q "$db: in use by loopkit run" predict.err ||
	{ cat predict.err; fail "predict -c refuses while run -c writes"; }
"$LOOPKIT" export --csv >during.csv 2>export.err ||
	{ cat export.err; fail "export works while run -c writes"; }
head -1 during.csv | grep -q '^campaign,variant,' || fail "export wrote its header"
kill -0 $pid 2>/dev/null || echo "note: the first run ended during the checks"
wait $pid || { cat first.err; fail "the first run failed"; }
# The first run's 16 runs, each inserted once: a second writer replacing
# them would have given them new ids.
[ "$(sqlite3 $db "select count(*) from runs where status = 'ok'")" -eq 16 ] ||
	fail "16 runs"
[ "$(sqlite3 $db "select max(id) from runs")" -eq 16 ] ||
	fail "runs replaced: ids up to $(sqlite3 $db "select max(id) from runs")"
sqlite3 $db "select id, variant_id, started, finished from runs order by id" \
	>runs.before
"$LOOPKIT" export --csv >after.csv
[ "$(grep -c ',tsc,' after.csv)" -eq 16 ] || fail "export shows 16 tsc rows"
# the lock went with the holder: a writer gets it now, and redoes nothing
"$LOOPKIT" run -c sweep.yaml >/dev/null 2>again.err ||
	{ cat again.err; fail "run -c after the first one ended"; }
grep -q "0 measured now, 16 stored earlier" again.err ||
	{ cat again.err; fail "nothing measured again"; }
sqlite3 $db "select id, variant_id, started, finished from runs order by id" \
	>runs.after
cmp -s runs.before runs.after || fail "the stored runs changed"

# -- not a store --------------------------------------------------------
mkdir empty
: >empty/store.db
for cmd in "export --csv -o empty" "run -q -c sweep.yaml -o empty" \
	"count -c sweep.yaml -o empty"; do
	rc=0
	"$LOOPKIT" $cmd >out 2>err || rc=$?
	[ $rc -eq 2 ] || { cat err; fail "$cmd: exit 2, not $rc"; }
	grep -qx "loopkit: error: empty/store.db: not a loopkit store (an empty file)" \
		err || { cat err; fail "$cmd: names the empty file"; }
	[ ! -s empty/store.db ] || fail "$cmd wrote into the empty file"
done
mkdir other
sqlite3 other/store.db "create table photos (id integer primary key);
	insert into photos values (7)"
cp other/store.db other.copy
for cmd in "export --json -o other" "run -q -c sweep.yaml -o other"; do
	rc=0
	"$LOOPKIT" $cmd >out 2>err || rc=$?
	[ $rc -eq 2 ] || { cat err; fail "$cmd: exit 2, not $rc"; }
	grep -qx "loopkit: error: other/store.db: not a loopkit store (an SQLite database without loopkit's application_id)" \
		err || { cat err; fail "$cmd: names the foreign file"; }
	cmp -s other/store.db other.copy || fail "$cmd changed the foreign file"
done

# -- a damaged store ----------------------------------------------------
cp -r loopkit.d bad
[ ! -s bad/store.db-wal ] || fail "the finished run left its WAL unfolded"
page=$(sqlite3 bad/store.db "pragma page_size")
pages=$(($(stat -c %s bad/store.db) / page))
[ $pages -gt 20 ] || fail "a store of $pages pages is too small to damage"
yes garbage | head -c "$page" |
	dd of=bad/store.db bs="$page" seek=$((pages / 2)) conv=notrunc 2>/dev/null
cp bad/store.db bad.copy
for cmd in "export --csv -o bad" "run -q -c sweep.yaml -o bad" \
	"report -o bad"; do
	rc=0
	"$LOOPKIT" $cmd >out 2>err || rc=$?
	[ $rc -ne 0 ] || fail "$cmd on a damaged store exits 0"
	[ "$(wc -l <err)" -eq 1 ] || { cat err; fail "$cmd: one line"; }
	grep -q "^loopkit: error: bad/store.db: the store is damaged (.*); nothing was written to it" \
		err || { cat err; fail "$cmd: reports the damage"; }
	cmp -s bad/store.db bad.copy || fail "$cmd wrote into the damaged store"
done

# loopkit blocks -c and count -c exit 1 when a variant failed (its
# binary cannot be decoded or run), as their pages say, and 0 on a
# rerun where nothing failed; the failure and its reason are printed.
. tests/e2e/lib.sh
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
cp examples/run/triad.c "$TMPD/"
cat >"$TMPD/c.yaml" <<'EOF2'
name: exit-e2e
sources: [triad.c]
defines:
  N: [300, 600]
method:
  warmup: 1
  steps: 1
  repetitions: 2
  processes: 1
EOF2
store=$TMPD/d
"$LOOPKIT" run -q -c "$TMPD/c.yaml" -o "$store" >/dev/null || fail "run"
"$LOOPKIT" blocks -c "$TMPD/c.yaml" -o "$store" >/dev/null 2>&1 ||
	fail "blocks -c on good binaries exited $?"
# Break one variant's binary: it no longer decodes nor runs.
bin=$(sqlite3 "$store/store.db" 'select binary from builds where ok = 1 order by id limit 1')
[ -n "$bin" ] && [ -f "$store/$bin" ] || fail "no binary in the store ($bin)"
chmod u+w "$store/$bin"
printf 'not an ELF file' >"$store/$bin"
set +e
"$LOOPKIT" blocks -c "$TMPD/c.yaml" -o "$store" >"$TMPD/blocks" 2>&1; rc=$?
set -e
[ $rc = 1 ] || fail "blocks -c with a broken binary exited $rc: $(cat "$TMPD/blocks")"
grep -q failed "$TMPD/blocks" || fail "blocks -c: no failed line: $(cat "$TMPD/blocks")"
set +e
"$LOOPKIT" count -c "$TMPD/c.yaml" -o "$store" -q >"$TMPD/count" 2>&1; rc=$?
set -e
grep -q ptrace "$TMPD/count" && skip "ptrace refused here"
[ $rc = 1 ] || fail "count -c with a broken binary exited $rc: $(cat "$TMPD/count")"
echo ok

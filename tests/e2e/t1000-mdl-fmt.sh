# loopkit mdl fmt: MDL text in canonical form (a fixed point), --check
# lists what is not canonical (exit 1), --write rewrites in place, --json
# is JSON, and malformed text is one error with file, line and column
# (exit 2) that changes nothing.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
cp "$SRC/tests/data/mdl/gemm.mdl" g.mdl
"$LOOPKIT" mdl fmt g.mdl >c.mdl || fail "fmt exited $?"
"$LOOPKIT" mdl fmt c.mdl >cc.mdl
check "canonical text is a fixed point" cmp -s c.mdl cc.mdl
check "comments are dropped" sh -c '! grep -q "#" c.mdl'
grep -q '^I/O: In: A n\*8 C n\*8 Out: C n\*8$' c.mdl || fail "I/O line: $(cat c.mdl)"
# --check: the hand-written file is not canonical, the printed one is.
set +e
"$LOOPKIT" mdl fmt --check g.mdl c.mdl >list; rc=$?
set -e
[ $rc = 1 ] || fail "--check on a non-canonical file exited $rc"
[ "$(cat list)" = g.mdl ] || fail "--check listed: $(cat list)"
"$LOOPKIT" mdl fmt --check c.mdl || fail "--check on canonical text"
# --write: in place, then canonical.
"$LOOPKIT" mdl fmt --write g.mdl
check "--write made it canonical" cmp -s g.mdl c.mdl
# stdin and JSON.
"$LOOPKIT" mdl fmt - <c.mdl | cmp -s - c.mdl || fail "stdin"
"$LOOPKIT" mdl fmt --json c.mdl >c.json
python3 - c.json <<'PY' || fail "JSON: $(cat c.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["meta"]["unroll"] == 8
assert [f["name"] for f in d["flows"]] == ["A", "C"]
u = d["body"]["ukernels"][0]
assert [a["flow"] for a in u["in"]] == ["A", "C"] and u["add"] == 1
assert u["out"][0] == {"flow": "C", "stride": 8, "offset": 0, "size": 8}
PY
# Malformed: exit 2, file:line:col, nothing rewritten.
printf 'MDL 1\nMeta:\nData:\n  flow a\nBody:\nTrip: 4\nI/O: In: Out:\nLoopBody:\n  In: b Stride: 8 Offset: 0 Size: 8\n' >bad.mdl
cp bad.mdl bad.orig
# A byte order mark is skipped (an editor's): the rest is canonical.
printf '\357\273\277' | cat - "$SRC/share/mdl/seeds/L2S1A1M1.mdl" >bom.mdl
"$LOOPKIT" mdl fmt bom.mdl >bom.out || fail "a file with a byte order mark"
cmp -s bom.out "$SRC/share/mdl/seeds/L2S1A1M1.mdl" ||
	fail "a byte order mark: $(head -2 bom.out)"
set +e
"$LOOPKIT" mdl fmt --write bad.mdl 2>err; rc=$?
set -e
[ $rc = 2 ] || fail "malformed MDL exited $rc"
[ "$(cat err)" = "loopkit: error: bad.mdl:9:7: 'b' is not a declared flow" ] ||
	fail "message: $(cat err)"
check "a malformed file is left alone" cmp -s bad.mdl bad.orig
set +e
"$LOOPKIT" mdl fmt missing.mdl 2>err; rc=$?
set -e
[ $rc = 2 ] && grep -q missing.mdl err || fail "missing file: rc $rc $(cat err)"
set +e
"$LOOPKIT" mdl frobnicate x 2>err; rc=$?
set -e
[ $rc = 2 ] && grep -q "unknown subcommand 'frobnicate'" err ||
	fail "unknown subcommand: rc $rc $(cat err)"
set +e
"$LOOPKIT" mdl fmt --bogus c.mdl 2>err; rc=$?
set -e
[ $rc = 2 ] || fail "unknown option exited $rc"
echo "ok"

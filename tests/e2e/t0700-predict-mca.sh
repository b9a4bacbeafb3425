# loopkit predict with llvm-mca: the predictions equal llvm-mca run by hand
# on the printed block text at both iteration counts, differenced; every
# installed version is there, under a CPU name (never "native"); errors.
# e2e: shares the machine
. tests/e2e/lib.sh
command -v gcc >/dev/null || skip "gcc not installed"
ls /usr/lib/llvm-*/bin/llvm-mca >/dev/null 2>&1 ||
	command -v llvm-mca >/dev/null || skip "no llvm-mca installed"
rtlib=$(dirname "$LOOPKIT")/lib/liblkrt.a

gcc -O2 -I rt -o "$TMPD/triad" examples/run/triad.c "$rtlib" -lm
gcc -O3 -march=native -I rt -o "$TMPD/dot" examples/run/dot.c "$rtlib" -lm

"$LOOPKIT" predict --json --raw "$TMPD/triad" "$TMPD/dot" >"$TMPD/p.json" ||
	fail "loopkit predict --json failed"

# By hand: for two ok blocks of every llvm-mca, the printed text in a file of
# its own, llvm-mca at I1 and I2 with the recorded -mcpu, and
# (total(I2) - total(I1)) / (I2 - I1) must be the prediction exactly.
python3 - "$TMPD" <<'PY' || fail "predictions differ from llvm-mca by hand"
import json, re, subprocess, sys
tmp = sys.argv[1]
blocks = json.load(open(tmp + "/p.json"))
assert blocks, "no blocks"
tools = {}
for b in blocks:
    assert re.fullmatch(r"[0-9a-f]{32}", b["hash"]), b["hash"]
    for p in b["predictions"]:
        tools.setdefault(p["tool"], []).append((b, p))
assert tools, "no tools"
tools = {t: p for t, p in tools.items() if t.startswith("llvm-mca")}
assert tools, "no llvm-mca"
for tool, preds in tools.items():
    params = preds[0][1]["params"]
    assert "native" not in params, params
    m = re.match(r"-mcpu=(\S+) -iterations=(\d+),(\d+)", params)
    assert m, params
    cpu, i1, i2 = m.group(1), int(m.group(2)), int(m.group(3))
    path = re.search(r"^\$ (\S+) ", preds[0][1]["raw"], re.M).group(1)
    ok = [(b, p) for b, p in preds if p["status"] == "ok"]
    assert len(ok) >= 2, (tool, [p["reason"] for _, p in preds])
    for b, p in ok[:2] + ok[-1:]:
        f = "%s/%s-%s.s" % (tmp, tool, b["hash"])
        open(f, "w").write(p["input"])
        total = []
        for it in (i1, i2):
            out = subprocess.run([path, "-mtriple=x86_64-unknown-linux-gnu",
                                  "-mcpu=" + cpu, "-iterations=%d" % it, f],
                                 capture_output=True, text=True, check=True)
            total.append(int(re.search(r"^Total Cycles:\s+(\d+)",
                                       out.stdout, re.M).group(1)))
        want = (total[1] - total[0]) / (i2 - i1)
        assert p["value"] == want, (tool, b["start"], p["value"], want)
        assert p["value"] > 0
        print("%s %s: %.4g cycles/iter, by hand %.4g" %
              (tool, b["start"], p["value"], want))
    for b, p in preds:
        assert p["status"] in ("ok", "failed", "unsupported", "timed-out")
        assert p["status"] == "ok" or p["reason"], p
        assert p["unit"] == "cycles/iter"
PY

# Every installed llvm-mca version is a tool.
for v in /usr/lib/llvm-*/bin/llvm-mca; do
	[ -x "$v" ] || continue
	ver=$("$v" --version | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p')
	grep -q "\"version\": \"$ver\"" "$TMPD/p.json" ||
		fail "llvm-mca $ver is not among the tools"
done

# The listing: a tool line each, then the blocks.
"$LOOPKIT" predict "$TMPD/triad" >"$TMPD/p.txt" || fail "listing failed"
grep -q '^tool llvm-mca-[0-9]* ' "$TMPD/p.txt" || fail "no tool line"
grep -q '^block \[0x' "$TMPD/p.txt" || fail "no block line"
grep -q 'cycles/iter$' "$TMPD/p.txt" || fail "no prediction"

# One tool, one CPU, one process per block: the same numbers as batched.
tool=$(sed -n 's/^tool \(llvm-mca-[0-9]*\) .*/\1/p' "$TMPD/p.txt" | head -n 1)
"$LOOPKIT" predict "$TMPD/triad" --tool "$tool" --mcpu skylake --json \
	>"$TMPD/b.json" || fail "--mcpu skylake failed"
"$LOOPKIT" predict "$TMPD/triad" --tool "$tool" --mcpu skylake --json \
	--batch 1 >"$TMPD/b1.json" || fail "--batch 1 failed"
python3 - "$TMPD/b.json" "$TMPD/b1.json" <<'PY' || fail "batch 1 differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
va = [(x["start"], x["predictions"][0]["value"]) for x in a]
vb = [(x["start"], x["predictions"][0]["value"]) for x in b]
assert va == vb, (va, vb)
assert all(x["predictions"][0]["params"].startswith("-mcpu=skylake ")
           for x in a)
PY

# Errors: one line, exit 2.
expect_error() {
	want=$1; shift
	rc=0
	"$LOOPKIT" predict "$@" >/dev/null 2>"$TMPD/err" || rc=$?
	cat "$TMPD/err"
	[ $rc -eq 2 ] || fail "predict $*: exit $rc, not 2"
	grep -q "^loopkit: error: .*$want" "$TMPD/err" ||
		fail "predict $*: no '$want' in the message"
}
expect_error "unknown tool 'uica' (available here: llvm-mca-" \
	"$TMPD/triad" --tool uica
expect_error "no installed llvm-mca knows this CPU" "$TMPD/triad" \
	--mcpu nosuchcpu
expect_error "not an x86-64 ELF" "$TMPD/missing"
rc=0
"$LOOPKIT" predict >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "no argument: exit $rc"
echo "ok"

# loopkit predict --tool mdl (and mdl-ram), on a tiny scalar database:
# the single-block loop of a hand-written triad (and of a four-times
# unrolled one) is ok with the value 'loopkit mdl predict BINARY' gives
# per loop iteration (1e-9); every other block is unsupported, "not a
# single-block loop"; an indirect loop is unsupported with extraction's
# reason; an AVX2 loop names the database to build. A campaign's
# predict: tools: [mdl, mdl-ram] (the campaign command's stage and
# predict -c) stores the same, and a rerun predicts nothing new. The
# tool is never in the default list; without a database, naming it is
# one error line (exit 2); an unknown tool still errors.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
command -v gcc >/dev/null || skip "gcc not installed"
A=$SRC/tests/data/mdl/asm
cd "$TMPD"

"$LOOPKIT" mdl db build --isa scalar --levels L1,RAM --explore minimal -q \
	-o d --seeds L1S0,L2S0,L1S0A1M1 >db.out || fail "db build: $(cat db.out)"
hash=$(sed -n 's/.* database \([0-9a-f]\{12\}\).*/\1/p' db.out)
[ -n "$hash" ] || fail "no database hash: $(cat db.out)"

# Each loop: predict's block against mdl predict's loop, per iteration.
check() {   # NAME FUNCTION WANT (ok, or the start of the loop's reason)
	cc -c "$A/$1.s" -o "$1.o" || fail "assemble $1.s"
	"$LOOPKIT" predict "$1.o" --function "$2" --tool mdl --tool mdl-ram \
		-o d --json --raw >"$1.json" || fail "predict $1 exited $?"
	"$LOOPKIT" mdl predict "$1.o" --function "$2" --isa scalar \
		--level L1 --json -o d >"$1.mdl.json" ||
		fail "mdl predict $1 exited $?"
	python3 - "$1.json" "$1.mdl.json" "$3" "$hash" <<'PY' ||
import json, sys
blocks = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))
want, db = sys.argv[3], sys.argv[4]
loops = 0
for b in blocks:
    p = {x["tool"]: x for x in b["predictions"]}
    assert sorted(p) == ["mdl", "mdl-ram"], p
    for t, x in p.items():
        assert x["version"] == "mdl-2", x
        level = "L1" if t == "mdl" else "RAM"
        assert x["params"].startswith("level=%s db=scalar:%s " % (level, db)), x
        assert x["unit"] == "tsc-calibrated-cycles/iter", x
    last = b["instructions"].strip().split("\n")[-1].split()
    if not (last[0].startswith("j") and last[-1] == b["start"]):
        for x in p.values():
            assert x["status"] == "unsupported", (b, x)
            assert x["reason"] == ("not a single-block loop: MDL predicts "
                                   "innermost loop bodies"), x
        continue
    loops += 1
    x = p["mdl"]
    if want != "ok":
        assert ref["status"] == "refused", ref
        for x in p.values():
            assert x["status"] == "unsupported", x
            assert x["reason"].startswith(want), (x["reason"], want)
        continue
    assert x["status"] == "ok" and x["value"] > 0, x
    r = ref["predictions"][0]
    assert abs(x["value"] - r["cycles_per_iteration"]) <= 1e-9 * x["value"], (x, r)
    assert x["input"].startswith("MDL 1\n"), x
    assert "# step 1: " in x["raw"], x
    ram = p["mdl-ram"]
    assert ram["status"] == "ok" and ram["value"] > 0, ram
    print("%s: mdl %.4g, mdl-ram %.4g cycles per iteration (unroll %d)" %
          (sys.argv[1][:-5], x["value"], ram["value"], ref["unroll"]))
assert loops == 1, loops
PY
		fail "$1: $(cat "$1.json") / $(cat "$1.mdl.json")"
}
check triad triad ok
check triad-x4 triad_x4 ok
check indirect indirect "indirect access (%rax is loaded in the loop)"
python3 -c 'import json, sys
d = json.load(open("triad-x4.mdl.json"))
assert d["unroll"] == 4, d' || fail "triad-x4: not unrolled 4 times"

# An AVX2 loop: its class has no database here.
cc -c "$A/triad-avx2.s" -o avx2.o
"$LOOPKIT" predict avx2.o --function triad_avx2 --tool mdl -o d >avx2.txt ||
	fail "predict avx2 exited $?"
grep -q "^  mdl  *unsupported no MDL database for avx2 in d: build it with 'loopkit mdl db build --isa avx2 -o d'$" \
	avx2.txt || fail "avx2: $(cat avx2.txt)"

# A campaign: -O2 (vectorised: sse, no database) and scalar code.
cat >c.yaml <<EOF
name: mdl-tool
sources: [$SRC/examples/run/triad.c]
flags: {o2: "-O2", scalar: "-O2 -fno-tree-vectorize"}
defines: {N: [1000]}
method: {repetitions: 2, processes: 1, warmup: 1}
predict:
  tools: [mdl, mdl-ram]
EOF
"$LOOPKIT" run -q -c c.yaml -o d >/dev/null || fail "loopkit run failed"
"$LOOPKIT" campaign -q -c c.yaml -o d --only predict >camp.txt ||
	fail "campaign predict: $(cat camp.txt)"
grep -q '^predict .* 2 tools: [1-9][0-9]* predictions made now' camp.txt ||
	fail "campaign: $(cat camp.txt)"
q() { sqlite3 d/store.db "$1"; }
n1=$(q "select count(*) from predictions")
[ "$(q "select count(distinct tool) from predictions")" = 2 ] ||
	fail "tools: $(q "select distinct tool from predictions")"
[ "$(q "select count(*) from predictions where status = 'ok' and tool = 'mdl'")" = 1 ] ||
	fail "not one ok mdl block: $(q "select status, reason from predictions")"
[ "$(q "select count(*) from predictions where reason like 'no MDL database for sse in d: build it with %'
	and tool = 'mdl'")" = 1 ] || fail "the sse loop: $(q "select reason from predictions")"
[ "$(q "select count(*) from predictions where status = 'unsupported' and
	reason = 'not a single-block loop: MDL predicts innermost loop bodies'")" \
	-eq $((n1 - 4)) ] || fail "the other blocks: $(q "select status, reason from predictions")"
# The stored value is mdl predict's for the scalar variant's binary.
bin=d/$(q "select binary from builds where command like '%-fno-tree-vectorize%'")
"$LOOPKIT" mdl predict "$bin" --isa scalar --level L1 --json -o d >camp.json ||
	fail "mdl predict $bin"
stored=$(q "select printf('%.17g', value) from predictions where status = 'ok' and tool = 'mdl'")
python3 - camp.json "$stored" <<'PY' || fail "campaign value $stored: $(cat camp.json)"
import json, sys
want = json.load(open(sys.argv[1]))["predictions"][0]["cycles_per_iteration"]
assert abs(float(sys.argv[2]) - want) <= 1e-9 * want, (sys.argv[2], want)
PY

# A rerun (the command) predicts nothing new.
"$LOOPKIT" predict -q -c c.yaml -o d >rerun.txt || fail "rerun failed"
grep -q ': 0 predicted now (0 not ok), [1-9][0-9]* stored earlier' rerun.txt ||
	fail "rerun: $(cat rerun.txt)"
[ "$(q "select count(*) from predictions")" = "$n1" ] || fail "rerun added rows"

# Never a default; errors.
cc -c "$A/triad.s" -o t.o
"$LOOPKIT" predict t.o --function triad -o d --json >default.json ||
	fail "predict with the default tools exited $?"
python3 - default.json <<'PY' || fail "default tools: $(cat default.json)"
import json, sys
tools = {p["tool"] for b in json.load(open(sys.argv[1])) for p in b["predictions"]}
assert tools and not any(t.startswith("mdl") for t in tools), tools
PY
expect2() {
	want=$1; shift
	set +e
	"$LOOPKIT" "$@" >out 2>err; rc=$?
	set -e
	[ $rc = 2 ] || fail "$* exited $rc: $(cat err)"
	grep -q -- "^loopkit: error: $want" err || fail "$*: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "$*: more than one line: $(cat err)"
}
expect2 "--tool: unknown tool 'frob' (available here: .*mdl, mdl-ram" \
	predict t.o --function triad --tool frob -o d
expect2 "none: no MDL database for the tool mdl: build one with 'loopkit mdl db build --isa CLASS -o none'" \
	predict t.o --function triad --tool mdl -o none
[ ! -e none ] || fail "an error created a store"
expect2 "d: no MDL database has L2 values (the tool mdl-l2)" \
	predict t.o --function triad --tool mdl-l2 -o d
sed 's/tools: \[mdl, mdl-ram\]/tools: [mdl-l3]/' c.yaml >bad.yaml
expect2 "bad.yaml:7: d: no MDL database has L3 values" predict -q -c bad.yaml -o d
[ "$(q "select count(*) from predictions")" = "$n1" ] || fail "an error added rows"
echo ok

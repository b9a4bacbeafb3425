# An asm: sweep under 'loopkit run -c': every variant of the selection
# built and measured (permutations of 3: 6 variants, asm.order as a
# parameter usable by only:, instructions/cycle from the kernel's declared
# work), a body the assembler rejects is a recorded
# build failure naming the assembler's message while the sweep goes on,
# a body of an ISA this CPU lacks a recorded SIGILL; %rsp is refused up
# front with file:line (or the argument, from loopkit asm), exit 2,
# nothing stored.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
cd "$TMPD"
absent=" $(env_key cpu.isa.absent)"
illegal=""
case " $absent " in
*" avx512f "*) illegal="vaddpd %zmm1, %zmm1, %zmm1" ;;
*" avx512_fp16 "*) illegal="vaddph %zmm1, %zmm1, %zmm1" ;;
esac
cat >sweep.yaml <<YAML
name: asm-sweep
asm:
  unroll: 10
  select: permutations
  bodies:
    mix: ["add \$1, %rax", "imul %rcx, %rcx", "vaddpd %ymm1, %ymm1, %ymm1"]
    rejected: ["vfmadd231pd %ymm1, %ymm2"]
${illegal:+    illegal: [\"$illegal\"]}
only:
  - {asm: mix}
  - {asm: rejected}
  - {asm: illegal}
method: {repetitions: 3, processes: 1}
YAML
"$LOOPKIT" run -q -c sweep.yaml --json >out.json && fail "run exited 0"
python3 - out.json "$illegal" <<'PY' || fail "see above"
import json, sys
rows = json.load(open(sys.argv[1]))
by = {}
for r in rows:
    by.setdefault(r["params"]["asm"], []).append(r)
mix = by["mix"]
assert len(mix) == 6, [r["params"] for r in mix]
orders = sorted(r["params"]["asm.order"] for r in mix)
assert orders == ["0-1-2", "0-2-1", "1-0-2", "1-2-0", "2-0-1", "2-1-0"], orders
for r in mix:
    assert r["status"] == "ok", r
    assert r["params"]["asm.insns"] == "3" and r["params"]["asm.unroll"] == "10"
    cyc = [x for x in r["results"] if x["metric"] == "cycles"][0]
    assert cyc["value"] > 0, cyc
    # The kernel declared its instructions: 3 x 10 a call.
    (ipc,) = [x for x in r["results"] if x["metric"] == "instructions/cycle"]
    assert ipc["source"] == "work/cycles:" + cyc["source"], ipc
    assert abs(ipc["value"] * cyc["value"] - 30) < 1e-6, (ipc, cyc)
    assert r["variant"].startswith("asm gcc default asm=mix "), r["variant"]
(bad,) = by["rejected"]
assert bad["status"] == "build-failed", bad
assert "Error: number of operands mismatch" in bad["reason"], bad["reason"]
if sys.argv[2]:
    (ill,) = by["illegal"]
    assert ill["status"] == "crashed" and "SIGILL" in ill["reason"], ill
    # The runtime's handler showed the runner the instruction.
    mnemonic = sys.argv[2].split()[0]
    assert "at %s, an instruction of AVX512" % mnemonic in ill["reason"] \
        and "(EVEX, AVX-512), which this CPU cannot run" in ill["reason"], ill
    print("illegal:", ill["reason"])
print("rejected:", bad["reason"])
PY
[ -n "$illegal" ] || echo "note: every AVX-512 extension tried is present: no SIGILL case"

# %rsp: file:line, exit 2, one line, nothing stored.
printf 'asm:\n  bodies:\n    a: ["add $1, %%rax",\n        "sub $8, %%rsp"]\n' \
	>rsp.yaml
"$LOOPKIT" run -q -c rsp.yaml -o rsp.d 2>err.txt && fail "rsp accepted"
[ $? -eq 2 ] || fail "rsp: exit not 2"
[ "$(wc -l <err.txt)" -eq 1 ] || fail "rsp: $(cat err.txt)"
grep -q '^loopkit: error: rsp.yaml:4: asm: .sub \$8, %rsp. names %rsp' err.txt ||
	fail "rsp: $(cat err.txt)"
[ ! -e rsp.d ] || fail "rsp: a store was created"
set +e
"$LOOPKIT" asm -o cli.d 'add $1, {r}' 'mov {r}, %rbp' 2>err.txt
rc=$?
set -e
[ $rc -eq 2 ] || fail "asm %rbp: exit $rc"
grep -q "^loopkit: error: 'mov {r}, %rbp' names %rbp" err.txt ||
	fail "asm %rbp: $(cat err.txt)"
[ ! -e cli.d ] || fail "asm %rbp: a store was created"
set +e
"$LOOPKIT" asm -o cli.d 'vmulpd %ymm1, %ymm2, %ymm{r}' 2>err.txt
rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'does not read {r}' err.txt ||
	fail "no chain: exit $rc, $(cat err.txt)"

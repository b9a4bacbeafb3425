# loopkit asm --chains 1..10 of FMAs: IPC rises with the chains (never
# falling by more than 3 %) and saturates (10 chains within 5 % of 8);
# on a Zen 3/4 the figures are min(N/4, 2) within 5 % for 256 bits and,
# with AVX-512, min(N/4, 1) on Zen 4 for 512 bits. Each chain count is a
# variant of the campaign 'asm' with asm.chains as its parameter.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
grep -qw fma /proc/cpuinfo || skip "this CPU has no FMA"
arch=$("$LOOPKIT" env 2>/dev/null | awk '$1 == "cpu.microarch" {
	$1 = ""; sub(/^ /, ""); print }')
cd "$TMPD"
M="-m repetitions=5 -m processes=1 --unroll 40 -q"
series() { # WIDTH-PREFIX PEAK-ON-ZEN
	"$LOOPKIT" asm $M --json --chains 1..10 --regs xmm0-xmm9 \
		"vfmadd213pd %${1}mm11, %${1}mm10, %${1}mm{r}" >"$1.json" ||
		fail "$1: exited $?"
	python3 - "$1.json" "$2" <<'PY' || fail "$1: see above"
import json, sys
rows = json.load(open(sys.argv[1]))
peak = float(sys.argv[2])
ipc = [r["instructions_per_cycle"] for r in rows]
print(sys.argv[1], ["%.3f" % x for x in ipc])
assert [r["chains"] for r in rows] == list(range(1, 11)), rows
assert all(r["instructions_per_iteration"] == r["chains"] for r in rows)
for a, b in zip(ipc, ipc[1:]):
    assert b >= a * 0.97, "IPC fell: %s" % ipc
assert abs(ipc[9] / ipc[7] - 1) <= 0.05, "not saturated: %s" % ipc
assert ipc[7] >= 4 * ipc[0], "no rise: %s" % ipc
if peak > 0:
    for n, x in enumerate(ipc, 1):
        want = min(n / 4, peak)
        assert abs(x / want - 1) <= 0.05, "N=%d: %.3f, want %g" % (n, x, want)
PY
}
case $arch in "Zen 3"|"Zen 4") series y 2 ;; *) series y 0 ;; esac
if grep -qw avx512f /proc/cpuinfo; then
	case $arch in "Zen 4") series z 1 ;; *) series z 0 ;; esac
fi
"$LOOPKIT" export --csv --campaign asm >all.csv || fail "export exited $?"
grep -q 'asm.chains' all.csv || fail "no asm.chains parameter in the export"

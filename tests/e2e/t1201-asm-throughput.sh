# loopkit asm --chains 1..10 of FMAs: IPC rises with the chains and
# saturates. The expected figures follow the micro-architecture
# 'loopkit env' names: on Zen 3 and Zen 4, two 256-bit FMA pipes of
# latency 4 give min(N/4, 2) (AnandTech's Zen 3 deep dive, 2020-11: "a
# single FMA takes 4 cycles with a throughput of 2/clock"; Zen 4 as
# measured in doc/loopkit-asm.md); 512-bit FMAs, on Zen 4 only (Zen 3
# has no AVX-512), run at half rate: min(N/4, 1). Each chain count is a
# variant of the campaign 'asm' with asm.chains as its parameter.
#
# Where the bound is exact the test holds it to 5 %: the latency-bound
# regime (N <= 4 chains: N/4), the plateau (the best of the last chain
# counts reaches the peak) and nowhere above the bound. Between the two
# bounds (5 to 9 chains) the hardware does not reach min(N/4, peak):
# the FP scheduler's choice of pipe leaves one idle now and then, in
# one of several states from one process to the next (Zen 3: 7 chains
# at 1.61 or 1.74, 8 chains at 1.82, 1.90 or 1.99; doc/loopkit-asm.md),
# and on a shared core lower ones the probes do not see (the Zen 3
# guest of 2026-12-07: 8 chains at 1.26 and 1.46 in three series of
# four, unflagged, uncontended, where 7 and 9 chains read 1.75 and
# 1.96). There the test asks that IPC be out of the latency regime:
# at least 1.1 x its figure at 4 chains (chains that were not
# independent would stay at 4 chains' 1.0).
#
# On a shared host a chain count can draw a bad spell: a co-tenant on
# the core's other hyperthread takes FP pipes (that only lowers IPC), or
# the clock moves under the reference chain (the runner flags the figure
# calibration-unreliable). So the series is measured up to four times,
# 2, 8 and 20 s apart, and each chain count's figure is its highest
# unflagged IPC over the series so far; the properties are checked on
# those figures after each series. A harness that is wrong is wrong
# every time (every figure of a chain count above its bound, or none
# near it); a spell is not. Until 2026-12-07 a whole series had to hold
# with no figure flagged: on the Zen 3 guest of that day every series
# drew one to three spells (flags at 1, 7, 8 or 10 chains; 8 chains at
# 1.26 and 1.46 IPC where the others read 1.92), four series out of
# four, while each chain count had a clean figure near its bound in at
# least one of them (a CI run of 2026-11-28 drew one spell through four
# series back to back: 8 chains at 1.664, 1.664 and 1.663).
#
# Intel cores lower their clock while 512-bit FP uops issue densely (the
# frequency licences of Intel's optimization manual): on the Emerald
# Rapids guest the reference chain's median went from 23.6k ticks at up
# to 8 chains to 24.4k-25.3k at 9 and 10, and every series of a CI run of
# 2026-12-01 drew calibration-unreliable figures at 7 to 10 chains, once
# with IPC 1.31 at 8 chains after 1.56 at 7. The clock the chain reads
# is then not the kernel's, and the runtime says so. So on a CPU that is
# not a Zen the 512-bit series is held to its latency-bound regime only
# (N <= 4: no flag, no fall) and to its rise (N = 8 at 4x N = 1 or
# more); above, its figures are printed with their flags.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
isa=" $(env_key cpu.isa) "
arch=$(env_key cpu.microarch)
case $isa in *" fma "*) ;; *) skip "this CPU has no FMA (cpu.isa:$isa)" ;; esac
cd "$TMPD"
M="-m repetitions=10 -m processes=3 -m reducer=p10 --unroll 40 -q"
series() { # WIDTH-PREFIX PEAK (0: no expectation for this machine) [LOOSE]
	jsons=
	for attempt in 1 2 3 4; do
		series_pause $attempt
		"$LOOPKIT" asm $M -o "$1.$attempt.d" --json --chains 1..10 \
			--regs xmm0-xmm9 \
			"vfmadd213pd %${1}mm11, %${1}mm10, %${1}mm{r}" \
			>"$1.$attempt.json" || fail "$1: exited $?"
		jsons="$jsons $1.$attempt.json"
		python3 - "$2" "${3:-}" $jsons <<'PY' && return 0
import json, sys
from fmachains import check_shape
peak, loose = float(sys.argv[1]), sys.argv[2]
# loose: the checks hold up to 4 chains only (the clock moves above)
top_n = 4 if loose else 10
best = {}
for f in sys.argv[3:]:
    rows = json.load(open(f))
    assert [r["chains"] for r in rows] == list(range(1, 11)), rows
    assert all(r["instructions_per_iteration"] == r["chains"] for r in rows)
    assert all(r["instructions_per_cycle_source"] == "work/cycles:" +
               r["source"] for r in rows), rows
    print(f, ["%.3f" % r["instructions_per_cycle"] for r in rows],
          [r["chains"] for r in rows if "unreliable" in r["flags"]])
    for r in rows:
        n, x = r["chains"], r["instructions_per_cycle"]
        if "unreliable" not in r["flags"] or n > top_n:
            best[n] = max(best.get(n, x), x)
missing = [n for n in range(1, top_n + 1) if n not in best]
assert not missing, "calibration unreliable in every series at N = %s" % missing
ipc = [best.get(n, float("nan")) for n in range(1, 11)]
print("best unflagged:", ["%.3f" % x for x in ipc])
for n in range(1, 5):
    assert ipc[n - 1] >= 0.90 * max(ipc[:n]), "IPC fell at N=%d: %s" % (n, ipc)
assert ipc[7] >= 4 * ipc[0], "no rise: %s" % ipc
check_shape(sys.argv[3].split(".")[0], ipc, peak, top_n)
if peak <= 0 and top_n == 10:
    assert ipc[9] >= 0.95 * max(ipc), "not saturated: %s" % ipc
PY
	done
	fail "$1: see above (four series)"
}
case $arch in "Zen 3"|"Zen 4") series y 2 ;; *) series y 0 ;; esac
case $isa in
*" avx512f "*) case $arch in
	"Zen 4") series z 1 ;;
	"Zen "*) series z 0 ;;
	*) series z 0 loose ;;
	esac ;;
*) echo "note: the 512-bit series is skipped: no avx512f on this $arch" ;;
esac
"$LOOPKIT" export --csv --campaign asm -o y.1.d >all.csv ||
	fail "export exited $?"
grep -q 'asm.chains' all.csv || fail "no asm.chains parameter in the export"

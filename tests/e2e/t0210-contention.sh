# Contended samples (doc/method.md): the runtime times an issue probe and
# a window probe beside every sample, the runner stores them and leaves
# out of every figure the samples they say ran on a shared core, when
# enough others remain; a launch with none is launched again, and a
# figure that rests on contended samples after all says so.
#
# First the runner's choices, exactly, on made-up samples from a program
# that writes the protocol itself; then a real kernel, whose stored
# samples and figures must agree with the rule however loaded the machine
# is (nothing here depends on how many samples were contended).
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
cd "$TMPD"
# The relaunch rule at its default budget (lib.sh lowers it for the suite).
unset LOOPKIT_RELAUNCHES

cat >fake.c <<'C'
/* Made-up samples: 1000 ticks uncontended, 1100 contended. MODE 1: one
 * in three uncontended; 2: all contended by the issue probe, but for the
 * first sample of the run's first launch (the file FAKE_MARK says which
 * launch comes first); 3: all contended but every sample 2 ms long; 4:
 * the window probe 1.5 times its best in every other sample; 5: a core
 * whose issue probe never reaches its floor (1.22 times it at best) and
 * one in three samples 1.1 times that best; 6: the run's first three
 * launches with three uncontended samples each, the rest none contended
 * (FAKE_MARK counts the launches). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	FILE *f = fdopen(3, "w");
	const char *r = getenv("LK_REPETITIONS"), *mark = getenv("FAKE_MARK");
	long reps = r ? atol(r) : 10, i;
	FILE *m = mark ? fopen(mark, "a") : NULL;
	long launch = 1;
	int first;

	if (!f)
		return 1;
	if (m) {
		fputc('x', m);
		launch = ftell(m);
		fclose(m);
	}
	first = launch == 1;
	fprintf(f, "lkrt version=1\ninfo tsc_hz=2000000000 pid=%d\n"
		   "info region=kernel steps=1 roi_addr=0x1000\n"
		   "overhead region=kernel tsc_min=0 tsc_median=0 ns_min=0 "
		   "ns_median=0\n", (int)getpid());
	for (i = 0; i < reps; i++) {
		int issue = MODE == 1 ? i % 3 != 0
			  : MODE == 2 ? !(first && i == 0)
			  : MODE == 6 ? launch <= 3 && i >= 3
				      : MODE == 3 || (MODE == 5 && i % 3 == 0);
		int window = MODE == 4 && i % 2;
		int issue_tsc = MODE == 5 ? (issue ? 27500 : 25000)
				: issue  ? 25000 : 20480;

		fprintf(f, "sample region=kernel idx=%ld steps=1 tsc=%d "
			   "ns=%d ref_tsc=30720 ref_cycles=30720 "
			   "issue_tsc=%d issue_cycles=20480 window_tsc=%d\n",
			i, issue || window ? 1100 : 1000,
			MODE == 3 ? 2000000 : 500, issue_tsc,
			window ? 9000 : 6000);
	}
	fprintf(f, "end samples=%ld\n", reps);
	return 0;
}
C

# mode, figure, samples it rests on, launches, flags. Mode 2: the first
# launch has one uncontended sample, so it stays; the second is
# launched again five times, the budget, and the third kept as it is.
# Mode 6: nine uncontended samples after three launches, too few; the
# last launch is launched again and its twelve make 18 with the others'.
while read -r mode value n launches flags; do
	FAKE_MARK=$TMPD/mark$mode "$LOOPKIT" run -q --json -o "s$mode" -p 3 \
		-r 12 -D MODE="$mode" -m tsc fake.c >"j$mode.json" ||
		fail "mode $mode exited $?"
	python3 - "j$mode.json" "$value" "$n" "$flags" <<'PY' ||
import json, sys
v = json.load(open(sys.argv[1]))
assert v[0]["status"] == "ok", v
r = v[0]["results"][0]
flags = "" if sys.argv[4] == "-" else sys.argv[4]
print(r["value"], r["samples"], repr(r["flags"]))
assert r["value"] == float(sys.argv[2]), r
assert r["samples"] == int(sys.argv[3]), r
assert r["flags"] == flags, r
PY
		fail "mode $mode: see above"
	got=$(sqlite3 "s$mode/store.db" "select attempts from runs")
	[ "$got" = "$launches" ] || fail "mode $mode: $got launches, want $launches"
done <<'EOF'
1 1000 12 3 -
2 1100 36 8 contended
3 1100 36 3 -
4 1000 18 3 -
5 1000 24 3 -
6 1000 18 4 -
EOF
# The budget: method.relaunches, else $LOOPKIT_RELAUNCHES. Mode 2's
# second launch is launched again once, or not at all.
FAKE_MARK=$TMPD/markb1 "$LOOPKIT" run -q -o b1 -p 3 -r 12 -D MODE=2 -m tsc \
	--method relaunches=1 fake.c >/dev/null || fail "relaunches=1: $?"
FAKE_MARK=$TMPD/markb0 LOOPKIT_RELAUNCHES=0 "$LOOPKIT" run -q -o b0 -p 3 \
	-r 12 -D MODE=2 -m tsc fake.c >/dev/null || fail "RELAUNCHES=0: $?"
[ "$(sqlite3 b1/store.db "select attempts from runs")" = 4 ] &&
	[ "$(sqlite3 b0/store.db "select attempts from runs")" = 3 ] ||
	fail "a budget of 1 and 0: 4 and 3 launches"
set +e
LOOPKIT_RELAUNCHES=many "$LOOPKIT" run -q -o b0 -D MODE=2 fake.c 2>err
rc=$?
"$LOOPKIT" run -q -o b0 --method relaunches=11 -D MODE=2 fake.c 2>err2
rc2=$?
set -e
[ $rc = 2 ] && [ "$(cat err)" = "loopkit: error: LOOPKIT_RELAUNCHES: \
'many' is not an integer from 0 to 10" ] || fail "bad LOOPKIT_RELAUNCHES: \
$rc $(cat err)"
[ $rc2 = 2 ] && grep -q "relaunches: expected an integer from 0 to 10" err2 ||
	fail "relaunches=11: $rc2 $(cat err2)"
# Every probe is stored per sample, the dropped launches' too.
[ "$(sqlite3 s2/store.db "select count(*) from samples
	where metric = 'contention' and value > 1.2")" = 95 ] ||
	fail "mode 2: 8 launches x 12 contention rows, one at the floor"
# The window probe: raw its core cycles, value its pace against the issue
# probe (9000 / 20480 ticks at one cycle per tick).
[ "$(sqlite3 s4/store.db "select count(*) from samples where metric =
	'window' and raw = 9000 and abs(value - 9000 / 20480.0) < 1e-9")" \
	= 18 ] || fail "mode 4: window rows"

# A real kernel: the probes beside every sample, and the figures resting
# on exactly the samples the rule keeps.
"$LOOPKIT" run -q --json -o real -p 2 -r 20 -D N=1000 -m tsc,cycles \
	"$SRC/examples/run/dot.c" >real.json || fail "dot.c exited $?"
sqlite3 -separator ' ' real/store.db "select process, attempt, idx, metric,
	raw, value from samples" >samples.txt
python3 - real.json samples.txt <<'PY' || fail "real kernel: see above"
import json, sys
v = json.load(open(sys.argv[1]))
assert v[0]["status"] == "ok", v
res = {r["metric"]: r for r in v[0]["results"]}
s = {}
for line in open(sys.argv[2]):
    p, a, i, metric, raw, value = line.split()
    s.setdefault((int(p), int(a), int(i)), {})[metric] = (float(raw), float(value))
for k, m in s.items():
    for need in ("issue_tsc", "window_tsc", "contention", "window"):
        assert need in m, (k, sorted(m))
    # Nothing issues more than four adds per cycle. One sample's clock is
    # the median of three to five reference timings, which a neighbour on
    # a shared host can slow together (CI saw 0.80 once, at a run's last
    # sample): each sample within a factor of two, their median at 0.9.
    assert m["contention"][1] > 0.5, (k, m["contention"])
c = sorted(m["contention"][1] for m in s.values())
assert c[len(c) // 2] > 0.9, c
# The floor: four adds per cycle, or the best the core reached.
floor = max(1, min(m["contention"][1] for m in s.values()))
best = min(m["window"][1] for m in s.values()
           if m["contention"][1] <= 1.01 * floor)
last = {}
for p, a, i in s:
    last[p] = max(last.get(p, 0), a)
kept = [m for (p, a, i), m in s.items() if a == last[p]]
def contended(m):
    return m["ns"][0] <= 1e6 and (m["contention"][1] > 1.01 * floor or
                                  m["window"][1] / best > 1.10)
clean = [m for m in kept if not contended(m)]
want = len(clean) if len(clean) >= 10 else len(kept)
print("floor", floor, "kept", len(kept), "uncontended", len(clean), "figures on", want)
for metric in ("tsc", "cycles"):
    assert res[metric]["samples"] == want, res[metric]
    assert ("contended" in res[metric]["flags"]) == (
        len(clean) < 10 and len(clean) < len(kept)), res[metric]
PY

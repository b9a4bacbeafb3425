# method.cpu as a CPU list: launches are pinned to the set (the run's
# infos and the environment snapshot record it), and a CPU that is not
# online, or outside the CPUs loopkit may run on, is a file:line error
# before anything is stored. The CPUs come from this machine's affinity,
# never from a fixed count.
. tests/e2e/lib.sh
cd "$TMPD"
cp "$SRC"/tests/data/kernels/sum.c .

# The CPUs this process may run on, as a list of numbers.
allowed=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
first=${allowed%% *}
set -- $allowed
n=$#
second=${2:-}

# One CPU, in the list form: the same key as the number would give.
cat >one.yaml <<Y
sources: [sum.c]
method: {cpu: [$first], repetitions: 3, processes: 1}
Y
"$LOOPKIT" run -q -c one.yaml >/dev/null
q() { sqlite3 loopkit.d/store.db "$1"; }
[ "$(q "select distinct value from run_info where key = 'cpu'")" = "$first" ] ||
	fail "run info cpu is not $first"
[ "$(q "select distinct value from run_info where key = 'cpus_allowed'")" = "$first" ] ||
	fail "the benchmark could run outside CPU $first"
q "select method from runs" | grep -q ";cpu=$first;" ||
	fail "the run key does not name CPU $first"
q "select snapshot from environments" | grep -q "\"measure.cpu\": *\"$first\"" ||
	fail "the snapshot does not record the set"

# Two CPUs: the process may use both, and the run says so.
if [ "$n" -ge 2 ]; then
	cat >two.yaml <<Y
name: two
sources: [sum.c]
method: {cpu: [$second, $first], repetitions: 3, processes: 1}
Y
	"$LOOPKIT" run -q -c two.yaml >/dev/null
	want=$first,$second
	[ "$second" -eq $((first + 1)) ] && want=$first-$second
	got=$(q "select distinct i.value from run_info i join runs r on
		i.run_id = r.id join variants v on r.variant_id = v.id join
		campaigns c on v.campaign_id = c.id where c.name = 'two' and
		i.key = 'cpus_allowed'")
	[ "$got" = "$want" ] || fail "pinned to $want, the run says '$got'"
	# --cpu takes the same list.
	"$LOOPKIT" run -q --name cli -r 3 -p 1 --cpu "$want" sum.c >/dev/null
fi

before=$(q "select count(*) from runs")
# refuse FILE LINE PATTERN [taskset list]: exit 2, one line, nothing run.
refuse() {
	rc=0
	if [ $# -gt 3 ]; then
		taskset -c "$4" "$LOOPKIT" run -q -c "$1" >out 2>err || rc=$?
	else
		"$LOOPKIT" run -q -c "$1" >out 2>err || rc=$?
	fi
	cat err
	[ $rc -eq 2 ] || fail "$1: exit $rc, not 2"
	[ "$(wc -l <err)" -eq 1 ] || fail "$1: not one line"
	grep -q "^loopkit: error: $1:$2: .*$3" err ||
		fail "$1: no '$1:$2: ...$3'"
}

# A CPU above every online one (the kernel's online list, not a count).
online=$(cat /sys/devices/system/cpu/online 2>/dev/null || echo "0-$(($(nproc --all) - 1))")
top=$(echo "$online" | tr ',-' '\n\n' | sort -n | tail -1)
absent=$((top + 1))
[ $absent -le 1023 ] || skip "no CPU number above the online ones"
printf 'name: bad\nsources: [sum.c]\nmethod:\n  repetitions: 3\n  cpu: "0-%d"\n' \
	$absent >absent.yaml
refuse absent.yaml 5 "method.cpu: CPU $absent is not online here (online: "
printf 'name: bad\nsources: [sum.c]\nmethod:\n  cpu: 4-2\n' >down.yaml
refuse down.yaml 4 "bad value '4-2' for method.cpu: a range goes down"

# Outside loopkit's own affinity (taskset), though online.
if [ "$n" -ge 2 ]; then
	printf 'name: bad\nsources: [sum.c]\nmethod: {cpu: [%s, %s]}\n' \
		"$first" "$second" >outside.yaml
	refuse outside.yaml 3 "CPU $second is outside the CPUs loopkit may run on ($first; " "$first"
fi

after=$(q "select count(*) from runs")
[ "$before" = "$after" ] || fail "a refused set ran something"
[ "$(q "select count(*) from campaigns where name = 'bad'")" = 0 ] ||
	fail "a refused set stored a campaign"

# By hand, LK_CPU takes the list too, and a bad one is fatal.
lib=$(dirname "$LOOPKIT")/lib/liblkrt.a
gcc -std=gnu11 -O2 -I"$SRC/rt" -o sum sum.c "$lib" -lm
LK_CPU="$first-$first" LK_REPETITIONS=3 ./sum >summary
grep -q "^lkrt: tsc .* cpu $first," summary || fail "by hand: not pinned"
rc=0
LK_CPU="$first," LK_REPETITIONS=3 ./sum >/dev/null 2>bad.err || rc=$?
[ $rc -eq 3 ] && grep -q "bad LK_CPU=$first,: want a CPU list" bad.err ||
	fail "by hand: a bad LK_CPU was not fatal"
exit 0

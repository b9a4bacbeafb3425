# llvm-mca's prediction of an asm body is stored as the variant's: every
# installed llvm-mca (-mcpu the host's) predicts one copy of each body
# into the predictions table under its key, the variant is linked to it
# times its unroll, and 'loopkit report' compares it with the measured
# cycles per call as it does a kernel's lifted prediction, for loopkit
# asm, for run -c of an asm: sweep and for loopkit campaign. On Zen 3
# and Zen 4, llvm-mca-19's model of 256-bit FMA chains is within 5 %
# (MAPE) of the measurement. A figure the runner flags
# calibration-unreliable (a busy host) is not compared, as for kernels.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
"$LOOPKIT" check 2>/dev/null | grep -q '^llvm-mca .*yes' ||
	skip "no llvm-mca installed"
arch=$(env_key cpu.microarch)
cd "$TMPD"
# llvm-mca-19's MAPE is a property of the measurement too: Zen 3's FP
# scheduler settles, per process, into states below the pipes' bound
# (8 chains at 1.82, 1.90 or 1.99 FMAs a cycle, doc/loopkit-asm.md; 1.66
# in a CI run of 2026-11-28, where this MAPE came to 5.3 %). So a series that misses only that bound is measured again,
# up to four times, 2, 8 and 20 s apart, as t1201's; everything else is
# held on every series.
for attempt in 1 2 3 4; do
	series_pause $attempt
	d=a.$attempt.d
	"$LOOPKIT" asm -q -o $d --json --chains 1,2,4,8,10 --unroll 100 \
		-m repetitions=10 -m processes=3 -m reducer=p10 \
		'vfmadd213pd %ymm11, %ymm10, %ymm{r}' >asm.json ||
		fail "asm exited $?"
	tools=$(sqlite3 $d/store.db "select count(distinct tool) from predictions")
	[ "$tools" -ge 1 ] || fail "no prediction stored"
	links=$(sqlite3 $d/store.db "select count(*) from variant_predictions")
	[ "$links" -eq $((5 * tools)) ] ||
		fail "$links variant links for $tools tools, want $((5 * tools))"
	[ "$(sqlite3 $d/store.db "select count(distinct copies) || ' ' ||
		min(copies) from variant_predictions")" = "1 100.0" ] ||
		fail "links not times the unroll"
	rm -rf rep
	"$LOOPKIT" report -o $d --campaign asm --report-dir rep >rep.txt 2>&1 ||
		fail "report: $(cat rep.txt)"
	cat rep.txt
	set +e
	python3 - asm.json rep/report.csv rep/variants.csv "$arch" <<'PY'
import csv, json, sys
rows = json.load(open(sys.argv[1]))
stats = [r for r in csv.DictReader(open(sys.argv[2])) if not r["group_by"]]
per = list(csv.DictReader(open(sys.argv[3])))
tool = rows[0]["mca_tool"]
assert tool and all(r["mca_tool"] == tool for r in rows), rows
for s in stats:
    assert int(s["compared"]) + int(s["no_cycles"]) == 5, s
    assert int(s["compared"]) >= 3, s
    assert s["params"].endswith(" body") and s["unit"] == "cycles/call", s
# The printed figure is the stored one: its row times the unroll.
for r in rows:
    (v,) = [p for p in per if p["analyzer"].startswith(tool + " ")
            and p["asm.chains"] == str(r["chains"])]
    assert abs(float(v["predicted"]) - 100 * r["mca_cycles_per_iteration"]) < 1e-6, v
    assert v["outcome"] in ("compared", "no-cycles"), v
if sys.argv[4] in ("Zen 3", "Zen 4"):
    (s,) = [s for s in stats if s["tool"] == "llvm-mca-19"] or [None]
    if s:
        print("llvm-mca-19 MAPE %.2f %%" % float(s["mape_pct"]))
        if float(s["mape_pct"]) > 5:
            print("IPC measured: %s" % [round(r["instructions_per_cycle"], 3)
                                        for r in rows])
            sys.exit(3)
PY
	rc=$?
	set -e
	[ $rc = 0 ] && break
	[ $rc = 3 ] || fail "see above"
	[ $attempt -lt 4 ] || fail "llvm-mca-19's MAPE above 5 % in four series"
done

# run -c of an asm: sweep stores the same, and a rerun predicts nothing
# again (the stored predictions are kept).
cat >sweep.yaml <<'YAML'
name: preds
asm:
  unroll: 20
  select: prefix
  bodies:
    mix: ["add $1, %rax", "imul %rcx, %rcx"]
method: {repetitions: 3, processes: 1}
YAML
"$LOOPKIT" run -q -c sweep.yaml -o s.d >/dev/null || fail "run -c"
n=$(sqlite3 s.d/store.db "select count(*) from variant_predictions")
[ "$n" -eq $((2 * tools)) ] || fail "run -c: $n links, want $((2 * tools))"
before=$(sqlite3 s.d/store.db "select group_concat(created) from predictions")
"$LOOPKIT" run -q -c sweep.yaml -o s.d >/dev/null || fail "rerun"
[ "$(sqlite3 s.d/store.db "select group_concat(created) from predictions")" \
	= "$before" ] || fail "the rerun predicted again"
"$LOOPKIT" report -q -o s.d --campaign preds --report-dir srep ||
	fail "report of the run -c campaign"
grep -q '^llvm-mca' srep/report.csv || fail "no analyzer in the report"

# loopkit campaign: gen writes the variants, the asm stage predicts.
"$LOOPKIT" campaign -q -c sweep.yaml -o c.d --to asm >camp.txt 2>&1 ||
	fail "campaign: $(cat camp.txt)"
n=$(sqlite3 c.d/store.db "select count(*) from variant_predictions")
[ "$n" -eq $((2 * tools)) ] || fail "campaign: $n links, want $((2 * tools))"
# The kernel-path stages find the generated kernel (asm_kernel, not
# main: a function named lk_* is the runtime's and was skipped) and
# lift every analyzer's prediction of it.
"$LOOPKIT" campaign -q -c sweep.yaml -o c.d --from blocks --to lift \
	>lift.txt 2>&1 || fail "campaign to lift: $(cat lift.txt)"
fns=$(sqlite3 c.d/store.db "select group_concat(distinct function)
	from bb_functions")
[ "$fns" = asm_kernel ] || fail "blocks of $fns, want asm_kernel"
[ "$(sqlite3 c.d/store.db "select count(*) from lifted where status != 'ok'
	and tool like 'llvm-mca%'")" -eq 0 ] ||
	fail "lift excluded an asm variant: $(cat lift.txt)"

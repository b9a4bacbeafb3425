#!/bin/sh
# The GCC plugin (lkmemprof.so): static load/store counts of hand-counted
# programs (tests/data/memprof/*.c, expected readable form in *.expect) at
# -O0 and -O2, the machine-readable file's structure and its agreement with
# the readable one, argument errors, and entry/exit instrumentation that
# nests like the calls.
# e2e: shares the machine
. tests/e2e/lib.sh
plugin=$(dirname "$LOOPKIT")/plugin/lkmemprof.so
[ -r "$plugin" ] || skip "GCC plugin not built (make $plugin)"
command -v gcc >/dev/null || skip "no gcc"
data=tests/data/memprof
lkrt=$(dirname "$LOOPKIT")/lib/liblkrt.a

# compile OUT CFLAGS...: the source's static counts into OUT(.txt).
compile() {
	out=$1
	shift
	gcc -fplugin="$plugin" -fplugin-arg-lkmemprof-out="$out" \
		-o "$TMPD/obj.o" "$@"
}

# Machine form: lkmem 1, function lines of 4 fields, block lines of 5
# with positive integer or sym: factors, end. Prints its readable form.
machine_to_readable() {
	awk -F '\t' '
	function bad(why) { print FILENAME ":" NR ": " why > "/dev/stderr"
			    err = 1; exit 1 }
	NR == 1 { if ($0 != "lkmem 1") bad("first line"); next }
	ended { bad("text after end") }
	$0 == "end" { ended = 1; next }
	$1 == "function" {
		if (NF != 4 || $2 == "" || $4 !~ /^[0-9]+$/)
			bad("function line")
		print "function '\''" $2 "'\''"; infunc = 1; next }
	$1 == "block" {
		if (!infunc || NF != 5 || $2 !~ /^[0-9]+$/ ||
		    $3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/ || $3 + $4 == 0)
			bad("block line")
		f = ""
		n = $5 == "" ? 0 : split($5, fs, ";")
		for (i = 1; i <= n; i++) {
			if (fs[i] ~ /^[1-9][0-9]*$/) f = f " * " fs[i]
			else if (fs[i] ~ /^sym:./)
				f = f " * (" substr(fs[i], 5) ")"
			else bad("factor " fs[i])
		}
		if ($3 > 0) print $3 f " load"
		if ($4 > 0) print $4 f " store"
		next }
	{ bad("unknown line") }
	END { if (!err && !ended) bad("no end line") }' "$1"
}

# 1. Counts: exact at -O0 and -O2, the same with instrumentation on.
n=0
for src in "$data"/*.c; do
	name=$(basename "$src" .c)
	for opt in -O0 -O2 "-O2 -fplugin-arg-lkmemprof-instrument=all"; do
		out=$TMPD/$name.lkmem
		rm -f "$out" "$out.txt"
		# shellcheck disable=SC2086
		compile "$out" $opt -c "$src" || fail "$name $opt: gcc failed"
		diff -u "$data/$name.expect" "$out.txt" ||
			fail "$name $opt: readable counts differ from .expect"
		machine_to_readable "$out" >"$TMPD/derived" ||
			fail "$name $opt: malformed $out"
		diff -u "$out.txt" "$TMPD/derived" ||
			fail "$name $opt: machine and readable forms disagree"
	done
	n=$((n + 1))
done
[ $n -ge 8 ] || fail "only $n test programs in $data"

# 2. File and line of each function; TUs concatenate.
grep -q "^function	gemm	$data/nested.c	[0-9][0-9]*$" "$TMPD/nested.lkmem" ||
	fail "function line of gemm"
cat "$TMPD/nested.lkmem" "$TMPD/loops.lkmem" >"$TMPD/both.lkmem"
[ "$(grep -c '^lkmem 1$' "$TMPD/both.lkmem")" -eq 2 ] || fail "concatenation"

# 3. Default output: beside the object, named after it.
mkdir "$TMPD/objdir"
gcc -fplugin="$plugin" -c "$data/loops.c" -o "$TMPD/objdir/x.o" ||
	fail "default out: gcc failed"
cmp -s "$TMPD/objdir/x.lkmem.txt" "$data/loops.expect" ||
	fail "default out: no $TMPD/objdir/x.lkmem.txt with the counts"

# 4. Unknown and empty arguments: an error naming them, no output.
if gcc -fplugin="$plugin" -fplugin-arg-lkmemprof-bogus=1 \
	-c "$data/loops.c" -o "$TMPD/obj.o" 2>"$TMPD/err"; then
	fail "unknown argument accepted"
fi
grep -q "unknown argument .bogus." "$TMPD/err" ||
	fail "error names the argument: $(cat "$TMPD/err")"
if gcc -fplugin="$plugin" -fplugin-arg-lkmemprof-instrument= \
	-c "$data/loops.c" -o "$TMPD/obj.o" 2>"$TMPD/err"; then
	fail "empty instrument= accepted"
fi
grep -q "instrument. needs a value" "$TMPD/err" || fail "empty instrument="

# 5. Instrumentation, checked with a stub runtime that prints each call:
# exits match the innermost open call, every call closes, 23 traced calls
# (counted by hand in calltree.c), none of lk_internal; -O0 = -O2.
cat >"$TMPD/stub.c" <<'EOF'
#include <stdio.h>
void lk_prof_enter(const char *name) { printf("enter %s\n", name); }
void lk_prof_exit(const char *name) { printf("exit %s\n", name); }
EOF
gcc -c -o "$TMPD/stub.o" "$TMPD/stub.c" || fail "stub runtime"
for opt in -O0 -O2; do
	compile "$TMPD/ct.lkmem" $opt -fplugin-arg-lkmemprof-instrument=all \
		-c "$data/calltree.c" || fail "calltree $opt: gcc failed"
	gcc -o "$TMPD/ct$opt" "$TMPD/obj.o" "$TMPD/stub.o" || fail "link"
	"$TMPD/ct$opt" >"$TMPD/calls$opt" || fail "calltree $opt exited $?"
done
cmp -s "$TMPD/calls-O0" "$TMPD/calls-O2" || fail "-O0 and -O2 traces differ"
awk '$1 == "enter" { stack[++top] = $2; calls[$2]++; next }
     $1 == "exit" { if (top == 0 || stack[top] != $2) {
			print "line " NR ": exit " $2 " while in " stack[top]
			exit 1 }
		    top--; next }
     { print "line " NR ": " $0; exit 1 }
     END { if (top) { print top " calls never closed"; exit 1 }
	   s = calls["main"] " " calls["countdown"] " " calls["fib"] " " \
	       calls["twice"] " " calls["classify"] " " calls["lk_internal"]
	   if (s != "1 1 15 2 4 ") { print "calls per function: " s; exit 1 }
	   if (NR != 46) { print NR " lines, not 46"; exit 1 } }' \
	"$TMPD/calls-O0" || fail "enter/exit pairs"
[ "$(head -n 1 "$TMPD/calls-O0")" = "enter main" ] || fail "main first"

# A list of names instruments those only.
compile "$TMPD/ct.lkmem" -O2 -fplugin-arg-lkmemprof-instrument=fib:twice \
	-c "$data/calltree.c" || fail "instrument=fib:twice: gcc failed"
gcc -o "$TMPD/ct-list" "$TMPD/obj.o" "$TMPD/stub.o" || fail "link"
"$TMPD/ct-list" >"$TMPD/calls-list" || fail "instrument=list run"
[ "$(sort -u "$TMPD/calls-list" | tr '\n' ' ')" = \
  "enter fib enter twice exit fib exit twice " ] ||
	fail "instrument=fib:twice traced: $(sort -u "$TMPD/calls-list")"

# 6. With the real runtime, when it is built: a trace file in LKTRACE1.
if nm "$lkrt" 2>/dev/null | grep -q ' T lk_prof_enter$'; then
	compile "$TMPD/ct.lkmem" -O2 -fplugin-arg-lkmemprof-instrument=all \
		-c "$data/calltree.c" || fail "calltree: gcc failed"
	gcc -o "$TMPD/ct-rt" "$TMPD/obj.o" "$lkrt" -lpthread ||
		fail "link with $lkrt"
	LK_PROF_OUT=$TMPD/ct.trace "$TMPD/ct-rt" || fail "ct-rt exited $?"
	[ "$(head -c 8 "$TMPD/ct.trace")" = LKTRACE1 ] ||
		fail "no LKTRACE1 trace from liblkrt"
	# The same 23 calls as the stub saw, when loopkit can read traces.
	if "$LOOPKIT" memprof trace --text "$TMPD/ct.trace" \
		>"$TMPD/ct.txt" 2>/dev/null; then
		[ "$(grep -c '^Call [0-9]* to function ' "$TMPD/ct.txt")" \
			-eq 23 ] || fail "liblkrt trace: not 23 calls"
	fi
else
	echo "note: $lkrt lacks lk_prof_enter; stub runtime only"
fi
echo "t0500: $n programs at -O0/-O2, instrumentation nested"

# What loopkit asm says before and after measuring: a kernel of more
# instructions than any decoded-op cache holds (20,000 adds a call) gets
# a warning that the figure measures the legacy decoders, 100 adds none;
# a register both named by a template and rotated by {r} is refused
# (exit 2, one line naming it, nothing stored), as is an empty asm:
# section (file:line).
. tests/e2e/lib.sh
cd "$TMPD"
M="-q --no-mca -m repetitions=2 -m processes=1"
"$LOOPKIT" asm $M -o big.d --unroll 20000 'add $1, {r}' >out.txt \
	2>err.txt || fail "unroll 20000: $(cat err.txt)"
grep -q "^loopkit: warning: asm gcc default asm=add .*20000 .*legacy decoders" \
	err.txt || fail "no op-cache warning: $(cat err.txt)"
"$LOOPKIT" asm $M -o small.d --unroll 100 'add $1, {r}' >out.txt \
	2>err.txt || fail "unroll 100: $(cat err.txt)"
grep -q "warning" err.txt && fail "warning at unroll 100: $(cat err.txt)"

set +e
"$LOOPKIT" asm -o shared.d --chains 1..12 --regs xmm0-xmm11 \
	'vfmadd213pd %ymm11, %ymm10, %ymm{r}' >out.txt 2>err.txt
rc=$?
set -e
[ $rc -eq 2 ] || fail "shared register: exit $rc"
grep -q "^loopkit: error: 'vfmadd213pd %ymm11, %ymm10, %ymm{r}' names xmm10 (in some width), which the register list also makes {r} of chain 11" \
	err.txt || fail "shared register: $(cat err.txt)"
[ ! -e shared.d ] || fail "shared register: a store was created"

printf 'name: empty\nasm:\nmethod: {repetitions: 1}\n' >empty.yaml
set +e
"$LOOPKIT" run -q -c empty.yaml -o empty.d 2>err.txt
rc=$?
set -e
[ $rc -eq 2 ] || fail "empty asm: exit $rc"
[ "$(cat err.txt)" = "loopkit: error: empty.yaml:2: asm: empty section (give its bodies:)" ] ||
	fail "empty asm: $(cat err.txt)"
[ ! -e empty.d ] || fail "empty asm: a store was created"

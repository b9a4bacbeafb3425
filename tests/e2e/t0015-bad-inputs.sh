# Inputs that are not regular files (a device, a directory, a fifo): every
# command refuses them at once with one line naming the file, exit 2, and
# stores nothing. Before, /dev/zero grew memory until killed and a
# directory .lkmem crashed memprof.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
mkdir dir.lkmem dir.yaml
mkfifo fifo

# bad_input WHAT PATH COMMAND...: exit 2 within 20 s, one line
# "loopkit: error: PATH: not a regular file (WHAT)", nothing stored.
bad_input() {
	what=$1 path=$2
	shift 2
	set +e
	timeout 20 "$LOOPKIT" "$@" >out 2>err
	rc=$?
	set -e
	[ $rc -ne 124 ] || fail "$*: still running after 20 s"
	[ $rc -eq 2 ] || { cat err; fail "$*: exit 2, got $rc"; }
	[ "$(wc -l <err)" -eq 1 ] || { cat err; fail "$*: one line"; }
	grep -qxF "loopkit: error: $path: not a regular file ($what)" err ||
		{ cat err; fail "$*: the file named, 'not a regular file'"; }
	[ ! -e loopkit.d ] || fail "$*: nothing stored"
}

dev="a character device"
bad_input "$dev" /dev/zero run -c /dev/zero
bad_input "$dev" /dev/zero run /dev/zero
bad_input "$dev" /dev/zero gen /dev/zero -t original
bad_input "$dev" /dev/zero gen -c /dev/zero
bad_input "$dev" /dev/zero memprof profile /dev/zero
bad_input "$dev" /dev/zero memprof trace --text /dev/zero
bad_input "$dev" /dev/zero memprof static /dev/zero
bad_input "$dev" /dev/zero memprof run /dev/zero
bad_input "$dev" /dev/zero campaign -c /dev/zero
bad_input "$dev" /dev/zero blocks /dev/zero

bad_input "a directory" dir.lkmem memprof static dir.lkmem
bad_input "a directory" dir.lkmem memprof profile dir.lkmem
bad_input "a directory" dir.yaml run -c dir.yaml
bad_input "a directory" dir.yaml report -c dir.yaml
bad_input "a directory" dir.lkmem count dir.lkmem

bad_input "a fifo" fifo memprof profile fifo
bad_input "a fifo" fifo run -c fifo
bad_input "a fifo" fifo blocks fifo

# A trace whose calls overlap without nesting: the file and the line of
# the offending call (text) or its record index (binary), exit 2.
cat >overlap.trace <<'TRACE'
# call 2 enters inside call 1 and exits after it
Call 0 to function main enter cycle 0 exit cycle 1000
Call 1 to function f enter cycle 100 exit cycle 500
Call 2 to function g enter cycle 400 exit cycle 600
TRACE
python3 - overlap.bin <<'PY'
import struct, sys
names = [b"main", b"f", b"g"]
calls = [(0, 0, 0, 0, 1000), (1, 1, 1, 100, 500), (2, 2, 1, 400, 600)]
out = b"LKTRACE1" + struct.pack("<IIQQ", 1, len(names), len(calls), 0)
for n in names:
    out += struct.pack("<I", len(n)) + n
for c in calls:
    out += struct.pack("<QIIQQ", *c)
open(sys.argv[1], "wb").write(out)
PY
for form in trace bin; do
	set +e
	timeout 20 "$LOOPKIT" memprof profile "overlap.$form" >out 2>err
	rc=$?
	set -e
	[ $rc -eq 2 ] || { cat err; fail "overlap.$form: exit 2, got $rc"; }
	[ "$(wc -l <err)" -eq 1 ] || { cat err; fail "overlap.$form: one line"; }
	case $form in
	trace) want="overlap.trace:4: call 2 [400, 600] overlaps call 1 (line 3)" ;;
	bin) want="overlap.bin: record 2: call 2 [400, 600] overlaps call 1 (record 1)" ;;
	esac
	grep -qF "loopkit: error: $want [100, 500] without nesting in it" err ||
		{ cat err; fail "overlap.$form: file and where named"; }
done

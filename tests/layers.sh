#!/bin/sh
# The layer check (part of 'make check'): every #include "..." of the
# library, the CLI and the public headers must point to the same module
# or to a module on a lower layer. The layers and the header-to-module
# names are read from doc/design.md, between the lines
# '<!-- layers -->' and '<!-- /layers -->', so the design description
# and the code cannot drift apart.
#
#   layers.sh [ROOT]        check the tree at ROOT (default: this one)
#   layers.sh --self-test   check that the check fails on a violation
#                           added to a copy of this tree, and passes on
#                           the copy without it
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)

# Every '#include "x"' as FILE<tab>LINE<tab>x, for the files a module owns.
includes() {
	(cd "$1" && grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
		src/*/*.c src/*/*.h src/*/*.l src/*/*.y include/loopkit/*.h \
		rt/*.c rt/*.h 2>/dev/null) |
	sed 's/^\([^:]*\):\([0-9]*\):[^"]*"\([^"]*\)".*/\1	\2	\3/'
}

check() {
	root=$1
	design=$root/doc/design.md
	if [ ! -f "$design" ]; then
		echo "layers: $design: missing (it holds the layer table)" >&2
		return 2
	fi
	{
		sed -n '/^<!-- layers -->$/,/^<!-- \/layers -->$/p' "$design" |
			sed -n 's/^ *\(layer\|header\) /@\1 /p'
		ls -d "$root"/src/*/ | sed 's|.*/src/\([^/]*\)/$|@dir \1|'
		includes "$root"
	} | awk -F'\t' -v design="doc/design.md" '
	function fail(msg) { print "layers: " msg > "/dev/stderr"; bad++ }
	/^@layer / {
		# "@layer N NAME: mod mod ..."
		n = split(substr($0, 8), w, /[ :]+/)
		for (i = 3; i <= n; i++) if (w[i] != "") {
			layer[w[i]] = w[1] + 0; lname[w[i]] = w[2]
		}
		next
	}
	/^@header / {
		# "@header NAME.h: module"
		n = split(substr($0, 9), w, /[ :]+/)
		owner[w[1]] = w[2]
		next
	}
	/^@dir / {
		d = substr($0, 6)
		if (!(d in layer))
			fail("src/" d "/: module on no layer (add it to the " \
			     "table in " design ")")
		dirs[d] = 1
		next
	}
	{
		file = $1; line = $2; inc = $3
		split(file, p, "/")
		if (p[1] == "rt") {
			if (inc ~ /\// || inc ~ /^loopkit/)
				fail(file ":" line ": rt/ includes " inc \
				     ": the runtime depends on nothing")
			next
		}
		if (p[1] == "include") {
			h = p[3]
			from = (h in owner) ? owner[h] : substr(h, 1, length(h) - 2)
		} else {
			from = p[2]
		}
		if (inc == "lkrt.h")
			next                    # rt: below every layer
		if (inc ~ /^loopkit\//) {
			h = substr(inc, 9)
			to = (h in owner) ? owner[h] : substr(h, 1, length(h) - 2)
		} else if (inc !~ /\//) {
			if (p[1] == "include") { to = from }
			else {
				to = from               # a private header
				if (priv[from, inc] == "" && inc ~ /\.h$/)
					priv[from, inc] = file
			}
		} else {
			fail(file ":" line ": includes " inc ": name a public " \
			     "header (loopkit/NAME.h) or a private one of " \
			     "the same module")
			next
		}
		if (!(from in layer) || !(to in layer)) {
			fail(file ":" line ": " inc ": module " \
			     (!(from in layer) ? from : to) " is on no layer " \
			     "in " design)
			next
		}
		if (from == to)
			next
		if (layer[to] >= layer[from])
			fail(file ":" line ": " from " (" lname[from] ") " \
			     "includes " inc " of " to " (" lname[to] "): " \
			     "a module includes only lower layers")
	}
	END {
		for (k in priv) {
			split(k, q, SUBSEP)
			h = q[2]
			if (system("test -f \"" ENVIRON["LK_ROOT"] \
				   "/include/loopkit/" h "\"") == 0)
				fail(priv[k] ": private header " h " shares " \
				     "the name of include/loopkit/" h)
		}
		exit bad > 0
	}'
}

self_test() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/doc"
	cp -R "$here/src" "$here/include" "$here/rt" "$tmp/"
	cp "$here/doc/design.md" "$tmp/doc/"
	if ! LK_ROOT=$tmp check "$tmp"; then
		echo "layers: self-test: the copy of the tree fails" >&2
		return 1
	fi
	# A stage including another stage's header.
	printf '#include "loopkit/report.h"\n' >>"$tmp/src/gen/model.c"
	if LK_ROOT=$tmp check "$tmp" 2>"$tmp/err"; then
		echo "layers: self-test: gen including report.h passed" >&2
		return 1
	fi
	if ! grep -q 'src/gen/model.c:[0-9]*: gen (stages) includes loopkit/report.h of report (stages)' "$tmp/err"; then
		echo "layers: self-test: unexpected message:" >&2
		cat "$tmp/err" >&2
		return 1
	fi
	cp "$here/src/gen/model.c" "$tmp/src/gen/model.c"
	# A lower layer including a higher one.
	printf '#include "loopkit/predict.h"\n' >>"$tmp/src/store/name.c"
	if LK_ROOT=$tmp check "$tmp" 2>/dev/null; then
		echo "layers: self-test: store including predict.h passed" >&2
		return 1
	fi
	echo "layers: self-test: both violations caught"
}

if [ "${1:-}" = --self-test ]; then
	self_test
else
	root=$(cd "${1:-$here}" && pwd)
	LK_ROOT=$root check "$root"
	echo "layers: every include points to its own module or a lower layer"
fi

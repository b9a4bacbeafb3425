#!/bin/sh
# Install the Debian packages loopkit needs, when missing. As root it runs
# apt-get; otherwise it prints the exact command to run.
set -eu

PACKAGES="build-essential pkg-config libyaml-dev libsqlite3-dev sqlite3
libxxhash-dev libcriterion-dev clang python3 valgrind
flex bison gcc-12-plugin-dev g++ libzydis-dev libelf-dev
libisl-dev libgmp-dev libclang-19-dev llvm-19 gnuplot-nox chromium procps
libcsv-dev python3-sklearn graphviz"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "deps: all Debian packages present"
	exit 0
fi

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing:$missing"
	echo "deps: run as root:  apt-get update && $cmd"
	exit 1
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "deps: done"

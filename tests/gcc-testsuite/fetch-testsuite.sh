#!/bin/bash
# fetch-testsuite.sh: puts GCC 12's libgomp testsuite where run-testsuite.py reads it.
#
# The tests come from Debian's gcc-12 source package, fetched with apt (tests/deb-src.sh adds a
# deb-src entry that reuses the URIs and suites of the machine's Debian apt source). Only what the
# tests need is kept: libgomp/testsuite/, libgomp/libgomp_g.h (included by tests that call GOMP_*
# directly) and include/gomp-constants.h. The result is cached, so later runs skip the 87 MB
# download.
#
# usage: fetch-testsuite.sh [CACHE_DIR]     prints the testsuite's root directory
# Environment: OMPLITE_GCC_TESTSUITE  use this libgomp/testsuite checkout instead (nothing fetched)
#              OMPLITE_CACHE_DIR      cache directory (default ${XDG_CACHE_HOME:-~/.cache}/libomp-lite)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# ensure_deb_src: apt-get source needs a deb-src entry (shared with the LLVM testsuite's fetch).
. "$here/../deb-src.sh"

if [ -n "${OMPLITE_GCC_TESTSUITE:-}" ]; then
    [ -d "$OMPLITE_GCC_TESTSUITE/libgomp.c" ] || {
        echo "fetch-testsuite.sh: OMPLITE_GCC_TESTSUITE=$OMPLITE_GCC_TESTSUITE has no libgomp.c/" >&2
        exit 1
    }
    echo "$OMPLITE_GCC_TESTSUITE"
    exit 0
fi

cache=${1:-${OMPLITE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/libomp-lite}}
# The version of the installed compiler, whose testsuite is the one that matches it.
version=$(dpkg-query -W -f '${Source:Version}' gcc-12 2>/dev/null || true)
[ -n "$version" ] || version=$(dpkg-query -W -f '${Version}' gcc-12)
dest=$cache/gcc-12_$version
if [ -f "$dest/.complete" ]; then
    echo "$dest/libgomp/testsuite"
    exit 0
fi

say() { echo "fetch-testsuite.sh: $*" >&2; }

ensure_deb_src || exit 1
mkdir -p "$cache"
work=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
say "downloading the gcc-12 $version source package (about 90 MB)"
(cd "$work" && apt-get source --download-only "gcc-12=$version" >&2) || {
    say "apt-get source failed"; exit 1; }
orig=$(ls "$work"/gcc-12_*.orig.tar.* | head -n 1)
# The orig tarball wraps GCC's own tarball (gcc-12-12.2.0/gcc-12.2.0-dfsg.tar.xz).
inner=$(tar -tf "$orig" | awk '/\/gcc-[0-9.]+-dfsg\.tar\.(xz|gz|bz2)$/ {print; exit}')
say "extracting libgomp's testsuite from $(basename "$orig")"
tar -xf "$orig" -C "$work" "$inner"
top=$(basename "$inner" | sed 's/-dfsg\.tar\..*//')
tar -xf "$work/$inner" -C "$work" "$top/libgomp/testsuite" "$top/libgomp/libgomp_g.h" \
    "$top/include/gomp-constants.h"
rm -rf "$dest"
mkdir -p "$dest"
mv "$work/$top/libgomp" "$work/$top/include" "$dest/"
touch "$dest/.complete"
echo "$dest/libgomp/testsuite"

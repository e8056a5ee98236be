#!/bin/bash
# fetch-testsuite.sh: puts LLVM 14's OpenMP runtime testsuite where run-testsuite.py reads it.
#
# The tests come from Debian's llvm-toolchain-14 source package, fetched with apt (tests/deb-src.sh
# adds a deb-src entry if there is none), at the version of the installed llvm-14-tools, whose
# FileCheck the tests use. Only openmp/runtime/test (about 2 MB) is kept from the 130 MB orig
# tarball; Debian's patches are not needed (none of them touches that folder in 1:14.0.6-12). The
# result is cached, so later runs skip the download.
#
# usage: fetch-testsuite.sh [CACHE_DIR]     prints the testsuite's directory
# Environment: OMPLITE_LLVM_TESTSUITE  use this openmp/runtime/test checkout (nothing fetched)
#              OMPLITE_CACHE_DIR       cache directory
#                                      (default ${XDG_CACHE_HOME:-~/.cache}/libomp-lite)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# ensure_deb_src: apt-get source needs a deb-src entry (shared with the GCC testsuite's fetch).
. "$here/../deb-src.sh"

say() { echo "fetch-testsuite.sh: $*" >&2; }

if [ -n "${OMPLITE_LLVM_TESTSUITE:-}" ]; then
    suite=$OMPLITE_LLVM_TESTSUITE
    [ -f "$suite/lit.cfg" ] && [ -f "$suite/omp_testsuite.h" ] || {
        say "OMPLITE_LLVM_TESTSUITE=$suite is not openmp/runtime/test (no lit.cfg, omp_testsuite.h)"
        exit 1
    }
    echo "$suite"
    exit 0
fi

cache=${1:-${OMPLITE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/libomp-lite}}
# The source version of the installed tools (1:14.0.6-12); the folder is named without the
# epoch, as Debian names its files.
version=$(dpkg-query -W -f '${Source:Version}' llvm-14-tools 2>/dev/null || true)
[ -n "$version" ] || {
    say "llvm-14-tools is not installed (apt-get install llvm-14-tools: FileCheck)"; exit 1; }
dest=$cache/llvm-toolchain-14_${version#*:}
if [ -f "$dest/.complete" ]; then
    echo "$dest/openmp/runtime/test"
    exit 0
fi

ensure_deb_src || exit 1
mkdir -p "$cache"
work=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
say "downloading the llvm-toolchain-14 $version source package (about 130 MB)"
(cd "$work" && apt-get source --download-only "llvm-toolchain-14=$version" >&2) || {
    say "apt-get source failed"; exit 1; }
orig=$(ls "$work"/llvm-toolchain-14_*.orig.tar.* | head -n 1)
say "extracting openmp/runtime/test from $(basename "$orig")"
# The tarball's top folder (llvm-toolchain-14_14.0.6/) is matched, not assumed.
tar -xf "$orig" -C "$work" --wildcards --no-wildcards-match-slash '*/openmp/runtime/test'
top=$(cd "$work" && ls -d */openmp/runtime/test | head -n 1)
[ -n "$top" ] && [ -f "$work/$top/lit.cfg" ] || {
    say "no openmp/runtime/test in $(basename "$orig")"; exit 1; }
rm -rf "$dest"
mkdir -p "$dest/openmp/runtime"
mv "$work/$top" "$dest/openmp/runtime/test"
touch "$dest/.complete"
echo "$dest/openmp/runtime/test"

#!/bin/bash
# check-symbols.sh: compares the dynamic symbols of the built libomp-lite.so with the host symbols
# of GNU libgomp 12 (libgomp12-host-symbols.txt, name@version, a copy of the project's
# shared/abi list, kept here so that distcheck finds it).
#   - prints "N of M libgomp 12 symbols present", how many of those are implemented and how many
#     only stop the program with a message (libomp-lite/unsupported.c), and the missing ones;
#   - fails if any is missing: under LD_PRELOAD a missing entry point silently binds to the stock
#     libgomp, which runs the construct without knowing libomp-lite's teams;
#   - fails if a symbol that is present has a version libgomp 12 does not give it, or is not the
#     default version where libgomp's is (and the reverse: the OMP_1.0 lock entry points are
#     hidden versions, name@OMP_1.0, beside name@@OMP_3.0);
#   - fails if a version node of the list is not defined (the dynamic linker refuses binaries
#     that need it);
#   - fails if a lock entry point has only one of its two versions;
#   - fails if the library exports anything beyond the list and lite-own-symbols.txt (libomp-lite's
#     own, documented exports);
#   - fails if the repository copy of the list differs from ../shared/abi/ when that exists;
#   - LLVM's ABI (kmpc/, for clang-built programs), at version VERSION, apart: fails if an entry
#     point clang 14 emits for host code (clang14-host-entry-points.txt) is missing there, or if
#     something is exported at VERSION that LLVM 14's libomp.so.5 does not export (checked when
#     that library is installed: LLVM_LIBOMP_SO, else /usr/lib/llvm-14/lib/libomp.so.5).
#
# usage: check-symbols.sh [--srcdir TOP_SRCDIR] [--lib PATH]   (run by make check)
set -u

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
lib=
while [ $# -gt 0 ]; do
    case $1 in
        --srcdir) srcdir=$2; shift 2 ;;
        --lib) lib=$2; shift 2 ;;
        *) echo "check-symbols.sh: unknown argument $1" >&2; exit 99 ;;
    esac
done
[ -n "$lib" ] || lib=$(pwd)/.libs/libomp-lite.so.0
list=$srcdir/tests/abi/libgomp12-host-symbols.txt
own=$srcdir/tests/abi/lite-own-symbols.txt
shared_list=$srcdir/../shared/abi/libgomp12-host-symbols.txt

for f in "$list" "$lib"; do
    [ -e "$f" ] || { echo "check-symbols.sh: $f not found" >&2; exit 99; }
done
command -v objdump > /dev/null || { echo "check-symbols.sh: objdump not found" >&2; exit 77; }

fail=0
if [ -f "$shared_list" ] && ! cmp -s "$list" "$shared_list"; then
    echo "FAIL: tests/abi/libgomp12-host-symbols.txt differs from ../shared/abi/ (copy it again)"
    fail=1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lite-abi.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# Defined dynamic symbols: "name version hidden" (hidden 1 for a non-default version, shown by
# objdump in parentheses). Version-node symbols (*ABS*, named after the node) are left out.
objdump -T "$lib" | awk '
    /\*UND\*/ { next }
    NF >= 6 && $1 ~ /^[0-9a-f]+$/ {
        name = $NF; ver = $(NF-1); hidden = 0
        if (ver ~ /^\(.*\)$/) { hidden = 1; ver = substr(ver, 2, length(ver) - 2) }
        if (ver ~ /^[0-9a-f]+$/ && length(ver) >= 8) ver = "(none)"
        if (/\*ABS\*/ && name == ver) next
        print name, ver, hidden
    }' | sort -u > "$tmp/all_exported"
# LLVM's ABI lives at version VERSION and is checked on its own below.
awk '$2 != "VERSION"' "$tmp/all_exported" > "$tmp/exported"
awk '$2 == "VERSION" { print $1 }' "$tmp/all_exported" | sort -u > "$tmp/llvm_exported"
objdump -p "$lib" | awk '
    /^Version definitions:/ { on = 1; next }
    /^Version References:/ { on = 0 }
    on && $1 ~ /^[0-9]+$/ && $2 == "0x00" { print $4 }' | sort -u > "$tmp/nodes"
grep -v '^[[:space:]]*#' "$list" | grep -v '^[[:space:]]*$' | tr '@' ' ' | sort -u > "$tmp/expected"
# Entry points that only stop the program with a message (not implemented yet).
sed -n 's/^UNSUPPORTED(\([A-Za-z0-9_]*\),.*/\1/p' "$srcdir/libomp-lite/unsupported.c" 2> /dev/null |
    sort -u > "$tmp/stubs"
: > "$tmp/own"
if [ -f "$own" ]; then
    grep -v '^[[:space:]]*#' "$own" | grep -v '^[[:space:]]*$' | tr '@' ' ' | sort -u > "$tmp/own"
fi

awk -v tmp="$tmp" '
    FILENAME == tmp "/expected" { want[$1 " " $2] = 1; names[$1] = names[$1] " " $2; nver[$1]++
                                  node_needed[$2] = 1; order[++m] = $1 " " $2; next }
    FILENAME == tmp "/own"      { own[$1 " " $2] = 1; next }
    FILENAME == tmp "/stubs"    { stub[$1] = 1; next }
    FILENAME == tmp "/nodes"    { node[$1] = 1; next }
    FILENAME == tmp "/exported" { have[$1 " " $2] = 1; hid[$1 " " $2] = $3; exp_order[++e] = $0; next }
    END {
        bad = 0
        for (v in node_needed)
            if (!(v in node)) { printf "FAIL: version node %s is not defined\n", v; bad = 1 }
        present = 0; stubbed = 0
        for (i = 1; i <= m; i++) if (order[i] in have) {
            present++; split(order[i], p, " "); if (p[1] in stub) stubbed++ }
        printf "%d of %d libgomp 12 symbols present: %d implemented, %d stop with a message " \
               "(libomp-lite/unsupported.c)\n", present, m, present - stubbed, stubbed
        if (present < m) { printf "FAIL: %d symbols missing\n", m - present; bad = 1 }
        # the missing ones, one line per version node
        for (i = 1; i <= m; i++) {
            split(order[i], p, " ")
            if (!(p[2] in seen_ver)) { seen_ver[p[2]] = 1; vorder[++nv] = p[2] }
            if (!(order[i] in have)) { miss[p[2]] = miss[p[2]] " " p[1]; nmiss[p[2]]++ }
        }
        for (j = 1; j <= nv; j++)
            if (vorder[j] in miss)
                printf "  missing %d at %s:%s\n", nmiss[vorder[j]], vorder[j], miss[vorder[j]]
        for (i = 1; i <= e; i++) {
            split(exp_order[i], p, " "); key = p[1] " " p[2]
            if (key in own) continue
            if (!(p[1] in names)) {
                printf "FAIL: %s@%s is exported but is not a libgomp 12 symbol (nor listed in " \
                       "tests/abi/lite-own-symbols.txt)\n", p[1], p[2]; bad = 1; continue }
            if (!(key in want)) {
                printf "FAIL: %s has version %s; libgomp 12 has it at%s\n", p[1], p[2], names[p[1]]
                bad = 1; continue }
            # libgomp 12: the OMP_1.0 entry of a name that also has another version is the hidden
            # (compatibility) one; every other symbol is a default version.
            should_hide = (nver[p[1]] > 1 && p[2] == "OMP_1.0")
            if (p[3] != should_hide) {
                printf "FAIL: %s is exported as %s%s, libgomp 12 has %s%s\n", p[1], p[1],
                       p[3] ? "@" p[2] : "@@" p[2], p[1], should_hide ? "@" p[2] : "@@" p[2]
                bad = 1 }
        }
        # the lock entry points: both versions or neither
        for (n in nver) if (nver[n] > 1) {
            k = split(substr(names[n], 2), vs, " "); h = 0
            for (j = 1; j <= k; j++) if ((n " " vs[j]) in have) h++
            if (h > 0 && h < k) {
                printf "FAIL: %s is exported at", n
                for (j = 1; j <= k; j++) if ((n " " vs[j]) in have) printf " %s", vs[j]
                printf " only; libgomp 12 has it at%s\n", names[n]; bad = 1 }
        }
        exit bad
    }' "$tmp/expected" "$tmp/own" "$tmp/stubs" "$tmp/nodes" "$tmp/exported" || fail=1

# LLVM's ABI: every host entry point clang 14 emits, and nothing LLVM's libomp lacks.
clang_list=$srcdir/tests/abi/clang14-host-entry-points.txt
grep -v '^[[:space:]]*#' "$clang_list" | grep -v '^[[:space:]]*$' | sort -u > "$tmp/clang_needed"
missing=$(comm -23 "$tmp/clang_needed" "$tmp/llvm_exported")
echo "$(comm -12 "$tmp/clang_needed" "$tmp/llvm_exported" | wc -l) of $(wc -l < "$tmp/clang_needed")" \
     "clang 14 host entry points present at VERSION;" \
     "$(wc -l < "$tmp/llvm_exported") symbols exported at VERSION"
if [ -n "$missing" ]; then
    echo "FAIL: missing at VERSION:" $missing
    fail=1
fi
llvm_lib=${LLVM_LIBOMP_SO:-/usr/lib/llvm-14/lib/libomp.so.5}
if [ -e "$llvm_lib" ]; then
    objdump -T "$llvm_lib" | awk '/\*UND\*/ { next } NF >= 6 && $(NF-1) ~ /^\(?VERSION\)?$/ { print $NF }' |
        sort -u > "$tmp/llvm_has"
    extra=$(comm -23 "$tmp/llvm_exported" "$tmp/llvm_has")
    if [ -n "$extra" ]; then
        echo "FAIL: exported at VERSION but not by $llvm_lib:" $extra
        fail=1
    fi
else
    echo "(LLVM's libomp.so.5 not installed: the VERSION exports are not compared with it)"
fi

if [ "$fail" -eq 0 ]; then
    echo "PASS: ABI check of $lib"
else
    echo "FAIL: ABI check of $lib"
fi
exit $fail

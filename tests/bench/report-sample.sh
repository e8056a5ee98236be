#!/usr/bin/env bash
# report-sample: bench/report.py on a small checked-in raw file (tests/bench/sample-raw.txt, from
# a --quick run of bench/run-bench: its numbers mean nothing): it must write the results section
# between the markers of a page, leave the rest of the page alone, and draw every chart as SVG.
# No timing, nothing run: the generator alone (`make bench-report` itself is too long for make
# check). Exit 77 (skipped) without a python3 that has matplotlib.
#
# usage: report-sample.sh --srcdir DIR [--builddir DIR]
set -u
srcdir= builddir=
while [ $# -gt 0 ]; do
    case $1 in
        --srcdir) srcdir=$2; shift 2 ;;
        --builddir) builddir=$2; shift 2 ;;
        *) echo "report-sample: unknown option '$1'"; exit 99 ;;
    esac
done
[ -n "$srcdir" ] || srcdir=$(cd "$(dirname "$0")/../.." && pwd)
report=$srcdir/bench/report.py
sample=$srcdir/tests/bench/sample-raw.txt

python=
for p in python3 /usr/bin/python3; do
    if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import matplotlib' 2> /dev/null; then
        python=$p; break
    fi
done
if [ -z "$python" ]; then
    echo "SKIP: no python3 with matplotlib (apt-get install python3-matplotlib; .ci/install-deps does)"
    exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/report-sample.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$work/page.md" <<'EOF'
# A page

Before the results.

<!-- results: begin -->
Placeholder: run make bench-report.
<!-- results: end -->

After the results.
EOF

"$python" "$report" --raw "$sample" --doc "$work/page.md" --charts "$work/charts" \
    > "$work/out.log" 2>&1 || { cat "$work/out.log"; fail "report.py exited with status $?"; }
cat "$work/out.log"

page=$work/page.md
grep -q '^Before the results\.$' "$page" && grep -q '^After the results\.$' "$page" ||
    fail "the text outside the markers changed"
grep -q 'Placeholder' "$page" && fail "the placeholder is still there"
[ "$(grep -c '<!-- results: begin -->' "$page")" = 1 ] &&
    [ "$(grep -c '<!-- results: end -->' "$page")" = 1 ] || fail "the markers are not kept once each"
for want in '^## Results$' '^### 2 threads (2 CPUs): constructs and the stencil$' \
    '^### 4 threads (2 CPUs): loops$' '^### 2 threads (2 CPUs): tasks$' \
    '^### 4 threads (2 CPUs): binding' 'Hardware floor' 'Intel(R) Xeon(R)' \
    'CPU/wall libgomp / LLVM / lite' '^| `parallel` (us) | ' '^| `fib` (us/fib) | ' \
    'Stencil checksums agree'; do
    grep -q -e "$want" "$page" || fail "the section has no line matching '$want'"
done
# every row of every table has a CPU/wall cell with a number for each runtime
grep '^| `' "$page" | grep -v -E '[0-9.]+ / [0-9.]+ / [0-9.]+' &&
    fail "rows above have no CPU/wall figures"

# the page opens with the charts: the first thing after the heading is the headline chart
first=$(sed -n '/<!-- results: begin -->/,$p' "$page" | grep -m1 -v -e '^<!--' -e '^## ' -e '^\*' -e '^$')
case $first in
    '![Median time relative to GNU libgomp'*'](charts/headline.svg)') ;;
    *) fail "the section does not start with the headline chart: '$first'" ;;
esac
# every chart the page embeds exists and is an SVG with bars and text
n=0
for svg in $(grep -o '](charts/[^)]*\.svg)' "$page" | sed 's/^](charts\///; s/)$//'); do
    f=$work/charts/$svg
    [ -s "$f" ] || fail "the page embeds charts/$svg, which was not written"
    head -c 400 "$f" | grep -q '<svg' || grep -q '<svg' "$f" || fail "$svg is not an SVG"
    n=$((n + 1))
done
# the sample has 2 configurations x 4 tables, and the headline
[ "$n" = 9 ] || fail "$n charts embedded, 9 expected"

# a second run replaces the section rather than adding one
"$python" "$report" --raw "$sample" --doc "$page" --charts "$work/charts" > /dev/null 2>&1 ||
    fail "the second run failed"
[ "$(grep -c '^## Results$' "$page")" = 1 ] || fail "the second run added a second section"

# a page without the markers is refused, and left as it was
printf '# No markers\n' > "$work/bare.md"
"$python" "$report" --raw "$sample" --doc "$work/bare.md" --charts "$work/charts" > /dev/null 2>&1 &&
    fail "a page without markers was accepted"
[ "$(cat "$work/bare.md")" = "# No markers" ] || fail "a page without markers was changed"
echo "PASS: the section and $n charts from $(basename "$sample")"

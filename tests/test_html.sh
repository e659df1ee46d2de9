#!/usr/bin/env bash
# The HTML report in a real browser (Debian's chromium, headless): the RFC example's page (a section per
# collective call, against the JSON lines of the same run) and a 262,144-chunk 3-D call planned with
# multi-chunk and with aggregation (tests/html_large.c), whose counts the test computes itself, and a
# multi-dataset call's page (examples/timestep.c: a grid per chunked dataset). For
# each page: the DOM after the script ran (chunk counts, rank rows), no JavaScript error on the
# console, a screenshot that is not blank and shows the expected colours. Skipped, with a message,
# where chromium is not installed.
#   tests/test_html.sh BUILD_DIR "LAUNCHER" [SCREENSHOT_COPY.png]
set -u
B=$1 RUN=$2 KEEP=${3:-}
if ! command -v chromium >/dev/null 2>&1; then echo "SKIP: chromium is not installed (apt-get install chromium)"; exit 0; fi
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_html.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
case "$RUN" in *openmpi*) PASS="-x COLLDIAG_REPORT" ;; *) PASS="" ;; esac
chrome() { # page, then flags: the DOM on stdout, the console on $T/console
    local page=$1; shift
    timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 "$@" "file://$page" 2>"$T/console"
}
no_js_errors() { # name
    if grep -q 'CONSOLE.*\(Uncaught\|Error\)' "$T/console"; then echo "FAIL $1: JavaScript error"; grep CONSOLE "$T/console" | head -5; fail=1; fi
}
attr() { grep -o "data-$1=\"[0-9]*\"" | grep -o '[0-9]*' | tr '\n' ' ' | sed 's/ $//'; }

# the detector itself must see an error
echo '<html><body><script>undefinedThing.call();</script></body></html>' >"$T/bad.html"
chrome "$T/bad.html" --dump-dom >/dev/null
grep -q 'CONSOLE.*Uncaught' "$T/console" || { echo "FAIL: a broken page's JavaScript error was not detected"; fail=1; }

# 1. the RFC example: one section per collective call, 3 rank rows each, every chunk drawn
COLLDIAG_REPORT=html:$T/rfc.html $RUN -n 3 $PASS "$B/rfc_modes" >/dev/null 2>&1 || { echo "FAIL rfc_modes (html)"; fail=1; }
COLLDIAG_REPORT=json:$T/rfc.jsonl $RUN -n 3 $PASS "$B/rfc_modes" >/dev/null 2>&1 || { echo "FAIL rfc_modes (json)"; fail=1; }
calls=$(wc -l <"$T/rfc.jsonl")
chrome "$T/rfc.html" --dump-dom >"$T/rfc.dom"
no_js_errors rfc
sections=$(grep -c '<section' "$T/rfc.dom"); rows=$(grep -c '<tr class="rank">' "$T/rfc.dom")
touched=$(attr touched <"$T/rfc.dom"); drawn=$(attr drawn <"$T/rfc.dom")
echo "rfc: $calls collective calls, $sections sections, $rows rank rows, touched per section [$touched], drawn [$drawn]"
[ "$calls" -ge 2 ] && [ "$sections" = "$calls" ] && [ "$rows" = $((3 * calls)) ] && [ -n "$touched" ] && [ "$touched" = "$drawn" ] \
    || { echo "FAIL rfc page"; fail=1; }
# what a hover shows (the page's #probe=INDEX does what a click on that chunk does), against the RFC
# example's own definition: 30 ints in chunks of 10; rank 0 [1,6), rank 1 [6,14), rank 2 [22,28)
probe() { # page, chunk index, expected lines (regexps, one per line of the details panel)
    local page=$1 idx=$2; shift 2
    timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --dump-dom "file://$page#probe=$idx" \
        2>"$T/console" | tr '\n' '\001' | grep -o '<div class="info">[^<]*' | head -1 | tr '\001' '\n' >"$T/info"
    no_js_errors "probe $idx"
    for want in "$@"; do grep -q "$want" "$T/info" || { echo "FAIL $(basename "$page") chunk $idx: no line '$want' in:"; cat "$T/info"; fail=1; }; done
}
probe "$T/rfc.html" 0 '^<div class="info">chunk 0 (0)' '^address   0$' '^elements  9$' '^ranks     0,1 (2)$' '^mode      collective$' \
    '^why       collective: 2 of 3 ranks &gt; threshold 1$'
probe "$T/rfc.html" 2 '^address   80$' '^elements  6$' '^ranks     2 (1)$' '^mode      independent$'
echo "rfc: hover details of chunks 0 and 2 checked"
chrome "$T/rfc.html" --screenshot="$T/rfc.png" --window-size=1200,900 >/dev/null
no_js_errors "rfc screenshot"
python3 tests/png_check.py "$T/rfc.png" 500 230,120,40 || { echo "FAIL rfc screenshot"; fail=1; }
if [ -n "$KEEP" ]; then cp "$T/rfc.png" "$KEEP"; fi

# 2. 512^3 in 8^3 chunks, 3 ranks, slabs of planes: the test's own counts. A chunk layer is shared (and,
# under multi-chunk with the default ratio, collective: 2 ranks > 1) where a slab boundary falls
# inside it; slice 0 (the first 64 x 64 chunks) is drawn first.
n=512 c=8 P=3 g=64
shared=0
for r in $(seq 1 $((P - 1))); do lo=$((n * r / P)); [ $((lo % c)) -ne 0 ] && shared=$((shared + 1)); done
# (aggregation's owner colouring on a 64^3 dataset, 512 chunks: the same page code, a quicker load)
for opt in multi aggregate; do
    edge=$n; [ $opt = aggregate ] && edge=64
    g=$((edge / c))
    $RUN -n 3 "$B/html_large" "$T/large.dat" $opt "$T/large_$opt.html" $edge || { echo "FAIL html_large $opt"; fail=1; continue; }
    bytes=$(stat -c %s "$T/large_$opt.html")
    t0=$(date +%s.%N)
    chrome "$T/large_$opt.html" --dump-dom >"$T/large.dom"
    t1=$(date +%s.%N)
    no_js_errors "large $opt"
    coll=$(attr collective <"$T/large.dom"); ind=$(attr independent <"$T/large.dom")
    want_coll=$((shared * g * g)); [ $opt = aggregate ] && want_coll=$((g * g * g))
    echo "large $opt: page $bytes bytes, loaded in chromium in $(echo "$t1 - $t0" | bc) s; touched $(attr touched <"$T/large.dom"), collective $coll (expected $want_coll), independent $ind, drawn $(attr drawn <"$T/large.dom")"
    [ "$(attr touched <"$T/large.dom")" = $((g * g * g)) ] && [ "$coll" = "$want_coll" ] && [ "$ind" = $((g * g * g - want_coll)) ] \
        && [ "$(attr drawn <"$T/large.dom")" = $((g * g)) ] && [ "$(grep -c '<tr class="rank">' "$T/large.dom")" = 3 ] \
        && [ "$bytes" -lt 8000000 ] || { echo "FAIL large $opt page"; fail=1; }
done
g=$((n / c))
# a chunk of the layer where rank 0's slab ends (plane 170 = 512/3 lies in layer 21: planes 168-175):
# ranks 0 (planes 168-169) and 1 (170-175), 8 planes x 64 elements, collective, drawn on slice 21
cz=$(( (n / P) / c )); idx=$(( cz * g * g + 5 )); e0=$(( (n / P) - cz * c )); 
probe "$T/large_multi.html" $idx "^<div class=\"info\">chunk $idx ($cz,0,5)" "^ranks     0,1 (2)\$" "^elements  $(( c * c * c ))\$" '^mode      collective$' \
    "^address   $(( idx * c * c * c * 4 ))\$"
echo "large: hover details of chunk $idx (rank 0 has $e0 of its planes) checked"
chrome "$T/large_multi.html" --screenshot="$T/large.png" --window-size=1200,1000 >/dev/null
python3 tests/png_check.py "$T/large.png" 10000 230,120,40 || { echo "FAIL large screenshot"; fail=1; }

# 3. many datasets in one call (examples/timestep.c, 3 ranks): its 12 variables are 8 2-D chunked
# (3*48 x 40 in 16 x 20 chunks: 9 x 2 = 18 chunks, every one drawn), 3 3-D chunked (3*48 x 40 x 6 in
# 16 x 20 x 6: 18 chunks in 9 slices of 2) and 1 contiguous. Its write_multi and read_multi sections
# each list 12 datasets (the same on every rank) and draw 11 grids; its 12 single calls draw 11 more.
COLLDIAG_REPORT=html:$T/ts.html $RUN -n 3 $PASS "$B/timestep" "$T/ts.bin" >/dev/null 2>&1 || { echo "FAIL timestep (html)"; fail=1; }
chrome "$T/ts.html" --dump-dom >"$T/ts.dom"
no_js_errors timestep
grids=$(grep -o '<div id="cd[0-9]*_ds[0-9]*"' "$T/ts.dom" | wc -l)
rows=$(grep -c '<tr class="dataset"><td>[0-9]*</td><td>every' "$T/ts.dom")
t18=$(grep -o 'data-touched="18"' "$T/ts.dom" | wc -l); touched=$(grep -o 'data-touched=' "$T/ts.dom" | wc -l)
d18=$(grep -o 'data-drawn="18"' "$T/ts.dom" | wc -l); d2=$(grep -o 'data-drawn="2"' "$T/ts.dom" | wc -l)
echo "timestep: $grids dataset grids (expected 22), $rows dataset rows (24), grids touching 18 chunks $t18 of $touched (33), drawn 18: $d18 (24), drawn 2: $d2 (9)"
[ "$grids" = 22 ] && [ "$rows" = 24 ] && [ "$t18" = 33 ] && [ "$touched" = 33 ] && [ "$d18" = 24 ] && [ "$d2" = 9 ] \
    || { echo "FAIL timestep page"; fail=1; }

# 4. a run's page under the preload (COLLDIAG_REPORT=html:PATH): it opens with the run's summary, and a
# run of many calls stays usable: the first 100 calls drawn, the later ones' sections collapsed (each
# drawn when opened). bench/patterns.c's IOR pattern with 64 KiB chunks, 8 iterations of 16 writes and 16
# reads a rank: 256 collective calls.
if [ -x "$B/patterns" ] && [ -f "$B/libcolldiag_preload.so" ]; then
    case "$RUN" in *openmpi*) PX="-x LD_PRELOAD -x COLLDIAG_REPORT" ;; *) PX="" ;; esac
    COLLDIAG_REPORT=html:$T/run.html LD_PRELOAD=$PWD/$B/libcolldiag_preload.so $RUN -n 3 $PX "$B/patterns" "$T" ior-seg-64k-chunk 1 8 >/dev/null 2>&1 \
        || { echo "FAIL patterns under the preload (html)"; fail=1; }
    chrome "$T/run.html" --dump-dom >"$T/run.dom"
    no_js_errors "run page"
    first=$(grep -o '<section id="[^"]*"' "$T/run.dom" | head -1)
    sections=$(grep -c '<section id="cd[0-9]' "$T/run.dom"); collapsed=$(grep -c '<details>' "$T/run.dom")
    drawn=$(grep -o 'data-drawn=' "$T/run.dom" | wc -l)
    echo "run page: first section [$first], $sections call sections, $collapsed collapsed, $drawn grids drawn at load, $(stat -c %s "$T/run.html") bytes"
    [ "$first" = '<section id="cd-summary"' ] && grep -q 'colldiag run summary: 3 ranks, 256 calls' "$T/run.dom" && [ "$sections" = 256 ] \
        && [ "$collapsed" = $((sections - 100)) ] && [ "$drawn" = 100 ] || { echo "FAIL the run's page"; grep -A3 'cd-summary' "$T/run.dom" | head; fail=1; }
    chrome "$T/run.html" --screenshot="$T/run.png" --window-size=1200,900 >/dev/null
    [ -n "$KEEP" ] && cp "$T/run.png" "${KEEP%.png}-run.png"
    python3 tests/png_check.py "$T/run.png" 500 34,34,34 || { echo "FAIL the run page's screenshot"; fail=1; }
fi
exit $fail

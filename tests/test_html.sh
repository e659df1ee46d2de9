#!/usr/bin/env bash
# The HTML report in a real browser (Debian's chromium, headless): the RFC example's page (a section per
# collective call, against the JSON lines of the same run) and a 262,144-chunk 3-D call planned with
# multi-chunk and with aggregation (tests/html_large.c), whose counts the test computes itself. For
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
for opt in multi aggregate; do
    $RUN -n 3 "$B/html_large" "$T/large.dat" $opt "$T/large_$opt.html" || { echo "FAIL html_large $opt"; fail=1; continue; }
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
chrome "$T/large_multi.html" --screenshot="$T/large.png" --window-size=1200,1000 >/dev/null
python3 tests/png_check.py "$T/large.png" 10000 230,120,40 || { echo "FAIL large screenshot"; fail=1; }
exit $fail

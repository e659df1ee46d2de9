#!/usr/bin/env bash
# The JSON report parses (jq) and carries the getters' numbers; COLLDIAG_REPORT=1 prints on rank 0 with
# no code change. Usage: tests/test_report.sh BUILD_DIR "LAUNCHER"
set -eu
b=$1; launch=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$launch -n 3 "$b/test_report" "$tmp/r.json"
jq -e . "$tmp/r.json" >/dev/null || { echo "the JSON report does not parse"; exit 1; }
i=0
while read -r mode nchunks bc bi; do
    got=$(jq -r ".ranks[$i] | \"\(.io_mode) \(.chunks|length) \(.bytes_collective) \(.bytes_independent)\"" "$tmp/r.json")
    names=(NO_COLLECTIVE CHUNK_INDEPENDENT CHUNK_COLLECTIVE CHUNK_MIXED CONTIGUOUS_COLLECTIVE)
    want="${names[$mode]} $nchunks $bc $bi"
    [ "$got" = "$want" ] || { echo "rank $i: JSON says '$got', getters say '$want'"; exit 1; }
    i=$((i + 1))
done < "$tmp/r.json.getters"
[ "$(jq -r .scheme.chunk_opt "$tmp/r.json")" = MULTI_CHUNK ] || { echo "scheme is not MULTI_CHUNK"; exit 1; }
[ "$(jq -r '.ranks[1].chunks[1].collective' "$tmp/r.json")" = false ] || { echo "rank 1 chunk 1 should be independent"; exit 1; }
[ "$(jq -r '[.ranks[].chunks[].owner] | unique | join(",")' "$tmp/r.json")" = "-1" ] || { echo "multi-chunk reported chunk owners"; exit 1; }
# no code change: the environment alone prints the report on rank 0 only
out=$(cd "$tmp" && COLLDIAG_REPORT=1 $launch -n 3 "$OLDPWD/$b/rfc_modes" "$tmp/x.bin")
n=$(grep -c '== colldiag' <<<"$out")
[ "$n" -ge 4 ] || { echo "COLLDIAG_REPORT=1 printed $n reports (2 explicit + 2 from the environment expected)"; exit 1; }
COLLDIAG_REPORT="json:$tmp/lines.json" $launch -n 3 "$b/rfc_modes" "$tmp/y.bin" >/dev/null
[ "$(jq -s length "$tmp/lines.json")" -ge 2 ] || { echo "COLLDIAG_REPORT=json: wrote no JSON lines"; exit 1; }
echo "test_report.sh: 1 passed, 0 failed"

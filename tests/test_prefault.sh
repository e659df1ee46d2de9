#!/usr/bin/env bash
# Reads into memory the program never touched, under the preload (tools/colldiag-preload.c,
# prefault_dest): tests/h5_prefault.c checks every value it reads and every guard byte around the
# destination, and that pages a gapped memory selection skips stay untouched (mincore); this script
# checks what the run's summary says was populated against the whole pages the program computed:
#  1. plain HDF5 (no preload): the program's own checks hold (they are the reference);
#  2. COLLDIAG_PREFAULT=1: the same checks; one populated read a rank (the first: the second finds the
#     memory resident, the gapped one is not one run; with HDF5 1.14 also H5Dread_multi's, into a
#     destination of its own), their whole pages' bytes; the text summary says so;
#  3. COLLDIAG_PREFAULT=0: nothing populated;
#  4. the probe decides (test build, COLLDIAG_INJECT=prefault:RATIO): 1.2 (under 1.25) nothing, 1.3 every
#     rank's first read; and the real probe of this machine: either, said with its ratio;
#  5. without COLLDIAG_ACCELERATE (the report alone) nothing is populated or decided.
# Usage: tests/test_prefault.sh BUILD_DIR "LAUNCHER" RANKS
set -u
B=$1 RUN=$2 NP=$3
LIB=$PWD/$B/libcolldiag_preload.so TLIB=$PWD/$B/libcolldiag_preload_test.so PROG=$PWD/$B/h5_prefault
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_prefault.XXXXXX")
trap 'rm -rf "$T"' EXIT
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_REPORT -x COLLDIAG_ACCELERATE -x COLLDIAG_PREFAULT -x COLLDIAG_INJECT" ;; *) X="" ;; esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail=0

run() { # name, preload library ("" none), then VAR=VALUE settings: the program, its checks on every rank
    local name=$1 lib=$2; shift 2
    if env COLLDIAG_REPORT= COLLDIAG_ACCELERATE= COLLDIAG_PREFAULT= COLLDIAG_INJECT= "$@" LD_PRELOAD="$lib" timeout 120 $RUN -n "$NP" $X \
        "$PROG" "$T/$name.h5" >"$T/$name.out" 2>&1 &&
        [ "$(grep -c ': ok read' "$T/$name.out")" = "$(awk '/: reads [0-9]+$/ {n += $NF} END {print n + 0}' "$T/$name.out")" ] &&
        [ "$(grep -c ': reads [0-9]*$' "$T/$name.out")" = "$NP" ]; then
        echo "$name: every rank's values and guard bytes right, the gaps' pages untouched"
    else
        echo "FAIL $name: the program's checks"; grep -v ': ok ' "$T/$name.out" | head -8; fail=1
    fi
}

# the summary's "prefault" against what the program printed: want "none" (no such key), or CALLS (0, or
# every rank's one read) with the bytes of that many ranks' whole pages, and WHY's beginning
summary_is() { # name, want, why
    python3 - "$T/$1.json" "$T/$1.out" "$2" "$3" "$1" "$NP" <<'PY'
import json, re, sys
path, out, want, why, name, np = sys.argv[1:7]
summary = [json.loads(l) for l in open(path) if l.strip()][-1]
pf = summary.get("prefault")
pages = [int(m.group(1)) for m in re.finditer(r"^rank \d+: pages (\d+)$", open(out).read(), re.M)]
if want == "none":
    ok, said = pf is None, "no prefault in the summary"
else:
    calls = len(pages) if want == "all" else int(want)
    exp_bytes = sum(pages) if want == "all" else 0
    ok = pf is not None and len(pages) >= int(np) and pf["calls"] == calls and pf["bytes"] == exp_bytes and pf.get("why", "").startswith(why)
    said = "%d populated reads, %d bytes (the program's pages: %d), %r" % (pf["calls"], pf["bytes"], exp_bytes, pf.get("why")) if pf else "none"
print(("%s: %s" if ok else "FAIL %s: %s") % (name, said))
sys.exit(0 if ok else 1)
PY
    [ $? = 0 ] || fail=1
}

run plain ""
run forced "$LIB" COLLDIAG_ACCELERATE=1 COLLDIAG_PREFAULT=1 COLLDIAG_REPORT="summary:$T/forced.json"
summary_is forced all "COLLDIAG_PREFAULT=1"
run text "$LIB" COLLDIAG_ACCELERATE=1 COLLDIAG_PREFAULT=1 COLLDIAG_REPORT=summary
npop=$(grep -c ': pages [0-9]*$' "$T/text.out") # a populated read a rank and fresh destination (HDF5 1.14: H5Dread_multi's too)
if grep -q "memory:   $npop reads\? into memory never touched" "$T/text.out"; then echo "text: the summary's screen says $npop reads were populated"
else echo "FAIL text: no such line in the summary's screen"; grep -A2 'run summary' "$T/text.out"; fail=1; fi
run off "$LIB" COLLDIAG_ACCELERATE=1 COLLDIAG_PREFAULT=0 COLLDIAG_REPORT="summary:$T/off.json"
summary_is off 0 "COLLDIAG_PREFAULT=0"
run probe_low "$TLIB" COLLDIAG_ACCELERATE=1 COLLDIAG_INJECT=prefault:1.2 COLLDIAG_REPORT="summary:$T/probe_low.json"
summary_is probe_low 0 "not prefaulted: faulting took 1.20x"
run probe_high "$TLIB" COLLDIAG_ACCELERATE=1 COLLDIAG_INJECT=prefault:1.3 COLLDIAG_REPORT="summary:$T/probe_high.json"
summary_is probe_high all "prefaulted: faulting took 1.30x"
run probe_real "$LIB" COLLDIAG_ACCELERATE=1 COLLDIAG_REPORT="summary:$T/probe_real.json"
if python3 -c 'import json,sys; p=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["prefault"]; sys.exit(0 if "faulting took" in p["why"] else 1)' "$T/probe_real.json"; then
    echo "probe_real: $(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["prefault"])' "$T/probe_real.json")"
else echo "FAIL probe_real: the summary does not say what the probe measured"; tail -c 600 "$T/probe_real.json"; fail=1; fi
run report_only "$LIB" COLLDIAG_REPORT="summary:$T/report_only.json"
summary_is report_only none ""
exit $fail

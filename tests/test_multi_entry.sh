#!/usr/bin/env bash
# HDF5 1.14's multi-dataset and asynchronous raw-data calls under the preload: never missed, explained
# as HDF5 decides them, and the multi-dataset calls accelerated. The client (tests/h5_multi_client.c)
# runs plain, then under the preload explaining only, and with COLLDIAG_ACCELERATE=1 and =all, each
# with a JSON report; every run must check every value; each run's file must equal the plain one
# (h5dump, every dataset).
# Explaining: the client writes down HDF5's own answer after each multi-dataset call (the DXPL's
# modes and causes, every rank); each call must be in the report as one entry per dataset (collective
# calls once, independent ones once per rank), planned, colldiag's plan of the call equal to the
# client's reading of HDF5 on every rank (and the report's HDF5 values too), and each dataset's own
# planned modes what HDF5's call-wide answer means for it (LINK_CHUNK: CHUNK_COLLECTIVE for a chunked
# dataset, CONTIGUOUS_COLLECTIVE for a contiguous one; MULTI_CHUNK: HDF5's mode; no collective I/O:
# NO_COLLECTIVE).
# Accelerating, the report must name every dataset of every such call with the engine that ran it:
#   H5Dwrite_multi /a + /b (contiguous), /b alone: HDF5 under =1 (its path is as fast), colldiag under =all;
#   H5Dwrite_multi /a + /d (chunked; also independent, and without selection I/O): colldiag under both;
#   H5Dread_multi /a + /b + /d: HDF5 under =1, colldiag under =all;
#   H5Dwrite_async, H5Dread_async /c: HDF5 with an event set, colldiag without (H5ES_NONE: HDF5 runs
#   them as H5Dwrite / H5Dread, and so does the preload).
# Usage: tests/test_multi_entry.sh BUILD_DIR "LAUNCHER"
set -u
B=$1 RUN=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_multi.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload.so
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_ACCELERATE -x COLLDIAG_REPORT" ;; *) X="" ;; esac
fail=0
$RUN -n 3 "$B/h5_multi_client" "$T/plain.h5" || { echo "FAIL plain run"; fail=1; }
COLLDIAG_ACCELERATE=0 COLLDIAG_REPORT=json:$T/explain.jsonl LD_PRELOAD=$LIB $RUN -n 3 $X "$B/h5_multi_client" "$T/explain.h5" "$T/own.jsonl" ||
    { echo "FAIL run under the preload, explaining"; fail=1; }
for d in a b c d; do
    cmp -s <(h5dump -d /$d "$T/plain.h5" | tail -n +2) <(h5dump -d /$d "$T/explain.h5" | tail -n +2) ||
        { echo "FAIL explaining: dataset /$d differs from plain HDF5's"; fail=1; }
done
python3 - "$T/explain.jsonl" "$T/own.jsonl" 3 <<'PY' || fail=1
import json, sys
CHUNK_OPT = ["NO_CHUNK_OPTIMIZATION", "LINK_CHUNK", "MULTI_CHUNK"]
IO_MODE = {0: "NO_COLLECTIVE", 1: "CHUNK_INDEPENDENT", 2: "CHUNK_COLLECTIVE", 3: "CHUNK_MIXED", 4: "CONTIGUOUS_COLLECTIVE",
           6: "CHUNK_CONTIGUOUS_COLLECTIVE"}  # HDF5 1.14 reports 2|4 for a call moving both kinds
CHUNKED = {"/a": True, "/c": True, "/d": True, "/b": False}
P = int(sys.argv[3])
own = {}
for l in open(sys.argv[2]):
    j = json.loads(l)
    own.setdefault(j["call"], {})[j["rank"]] = j
entries = [j for j in (json.loads(l) for l in open(sys.argv[1])) if j.get("summary") is not True]  # not the run's summary line
entries = [e for e in entries if e["op"].endswith("_multi")]
bad = []
def vals(r):
    return (r["chunk_opt"], r["io_mode"], r["local_cause"], r["global_cause"])
def hdf5(o):
    return (CHUNK_OPT[o["chunk_opt"]], IO_MODE[o["io_mode"]], o["local_cause"], o["global_cause"])
# rank 0 writes a collective call's entries, each rank its own of an independent call: each stream is
# in call order, the streams interleave as the ranks run (past a gather, the others run ahead)
streams = {}
for e in entries:
    key = "coll" if e.get("collective") else e["hdf5"]["ranks"][0]["rank"] if e["hdf5"]["ranks"] else "?"
    streams.setdefault(key, []).append(e)
k = 0
for call in sorted(own):
    ranks = own[call]
    o0 = ranks[0]
    names = o0["datasets"].split()
    coll = not (o0["global_cause"] & 1)  # SET_INDEPENDENT: the client's independent call
    where = "call %d (%s %s)" % (call, o0["op"], o0["datasets"])
    group = []
    for key in (["coll"] if coll else range(P)):
        got = streams.get(key, [])[:len(names)]
        streams[key] = streams.get(key, [])[len(names):]
        if len(got) != len(names):
            bad.append("%s: %d report entries from %s, expected %d" % (where, len(got), key, len(names)))
        group += got
    k += len(group)
    for e in group:
        w = "%s dataset %s" % (where, e.get("dataset"))
        if e["op"] != o0["op"] or e.get("collective") != coll or e.get("engine") != "hdf5":
            bad.append("%s: op %s collective %s engine %s" % (w, e["op"], e.get("collective"), e.get("engine"))); continue
        if e.get("planned") is not True or e.get("agree") is not True:
            bad.append("%s: planned %s agree %s: %s" % (w, e.get("planned"), e.get("agree"), e.get("why", ""))); continue
        if e["dataset"] != names[e["dataset_index"]] or e["datasets"] != len(names):
            bad.append("%s: dataset %s index %s of %s" % (w, e["dataset"], e["dataset_index"], e["datasets"]))
        # HDF5's answer as the preload read it, and colldiag's plan, against the client's own reading
        for r in e["hdf5"]["ranks"]:
            if vals(r) != hdf5(ranks[r["rank"]]):
                bad.append("%s rank %d: report's HDF5 values %s, the client read %s" % (w, r["rank"], vals(r), hdf5(ranks[r["rank"]])))
        plan = e.get("ranks", [])
        if coll and e["dataset_index"] == 0 and len(plan) != P:
            bad.append("%s: the call's plan has %d ranks" % (w, len(plan)))
        for r in plan:
            if vals(r) != hdf5(ranks[r["rank"]]):
                bad.append("%s rank %d: colldiag planned %s, HDF5 did %s" % (w, r["rank"], vals(r), hdf5(ranks[r["rank"]])))
        co, io = hdf5(o0)[:2]
        want = ("NO_CHUNK_OPTIMIZATION", "NO_COLLECTIVE") if io == "NO_COLLECTIVE" else \
               ("LINK_CHUNK", "CHUNK_COLLECTIVE" if CHUNKED[e["dataset"]] else "CONTIGUOUS_COLLECTIVE") if co == "LINK_CHUNK" else (co, io)
        dm = e.get("dataset_mpio", {})
        if (dm.get("chunk_opt"), dm.get("io_mode")) != want:
            bad.append("%s: its planned modes %s, expected %s from HDF5's %s/%s" % (w, dm, want, co, io))
if k != len(entries):
    bad.append("%d multi-dataset report entries more than the client's calls" % (len(entries) - k))
for b in bad:
    print("FAIL explaining:", b)
print("explaining: %d multi-dataset calls, %d report entries checked against HDF5's answers" % (len(own), k))
sys.exit(1 if bad else 0)
PY
for acc in 1 all; do
    COLLDIAG_ACCELERATE=$acc COLLDIAG_REPORT=json:$T/calls-$acc.jsonl LD_PRELOAD=$LIB $RUN -n 3 $X "$B/h5_multi_client" "$T/acc-$acc.h5" ||
        { echo "FAIL run under the preload, COLLDIAG_ACCELERATE=$acc"; fail=1; }
    for d in a b c d; do
        cmp -s <(h5dump -d /$d "$T/plain.h5" | tail -n +2) <(h5dump -d /$d "$T/acc-$acc.h5" | tail -n +2) ||
            { echo "FAIL COLLDIAG_ACCELERATE=$acc: dataset /$d differs from plain HDF5's"; fail=1; }
    done
    python3 - "$T/calls-$acc.jsonl" "$acc" <<'PY' || fail=1
import json, sys
acc = sys.argv[2]
got = {}
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("summary") is True: continue  # the run's summary line, at its end
    got.setdefault(j["op"], []).append((j["dataset"], j.get("engine")))
cd_all = "colldiag" if acc == "all" else "hdf5"
want = {"H5Dwrite_multi": sorted([("/a", cd_all), ("/b", cd_all), ("/a", "colldiag"), ("/d", "colldiag"), ("/b", cd_all),
                                  ("/a", "colldiag"), ("/d", "colldiag"), ("/a", cd_all), ("/b", cd_all), ("/a", "colldiag"), ("/d", "colldiag")]),
        "H5Dread_multi": sorted([("/a", cd_all), ("/b", cd_all), ("/d", cd_all)]),
        # with an event set HDF5's; without (H5ES_NONE) run as H5Dwrite / H5Dread: colldiag's (a small chunked dataset)
        "H5Dwrite_async": [("/c", "colldiag"), ("/c", "hdf5")], "H5Dread_async": [("/c", "colldiag"), ("/c", "hdf5")]}
bad = 0
for op, entries in want.items():
    seen = sorted(got.get(op, []))
    if seen != entries:
        print("FAIL COLLDIAG_ACCELERATE=%s %s: report entries %s, expected %s" % (acc, op, seen, entries)); bad = 1
print("COLLDIAG_ACCELERATE=%s report: %s" % (acc, ", ".join("%s %d" % (op, len(v)) for op, v in sorted(got.items()))))
sys.exit(bad)
PY
done
[ $fail = 0 ] && echo "test_multi_entry.sh: 1 passed, 0 failed"
exit $fail

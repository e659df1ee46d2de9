#!/usr/bin/env bash
# The preload's measured engine under COLLDIAG_ACCELERATE=1 (src/measure.c, "the preload's engine"),
# proven with an injected clock, never with a timing: the test build of the preload takes each
# engine's time of a call from COLLDIAG_INJECT=engine:H,C[,H2,C2,N] (HDF5's path H seconds, colldiag's
# C; from the N-th measured call on, H2 and C2). tests/h5_engine.c, a plain HDF5 time-step loop, writes
# a row a call (every rank one whole chunk of its own) and checks every value read back (exit 1 on any
# difference: the bytes each engine wrote are checked). Each call's engine comes from the per-call JSON
# report ("engine"). The test applies the rule itself to the times it injected and expects, call by
# call: the engines in turn for the first eight calls after two of the rule's (R R O R O R O O;
# WHOLE_CHUNKS: HDF5's path, from 256 KiB a rank; FASTER: colldiag's), four calls each, then the one whose warm median (each
# engine's first call left out) is lower; when the chosen engine's median (its last 8 calls) exceeds
# the other's by 1.25x, or falls under half of what it was when chosen after a close choice (the
# other's median within 1.25x: the engines were compared in a slower phase), the other is measured afresh (its old times dropped, four calls) and the lower
# median runs (at most 4 times). A time is agreed one call later, in the next call's reduction. The
# cold-start case injects each engine's first call 12 times slower than its others (as colldiag's first
# IOR call ran): a rule comparing fastest calls or counting that call picks the wrong engine there.
# Also: COLLDIAG_AUTO_MODE=estimate keeps the rule on every call.
# Usage: tests/test_engine.sh BUILD_DIR "LAUNCHER" RANKS
set -u
B=$1 RUN=$2 NP=${3:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_engine.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload_test.so
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_ACCELERATE -x COLLDIAG_REPORT -x COLLDIAG_INJECT -x COLLDIAG_AUTO_MODE ${OMPI_MCA_io:+-x OMPI_MCA_io}" ;; *) X="" ;; esac
fail=0
# case: name, doubles a rank a call (32768: 256 KiB, WHOLE_CHUNKS; 512: FASTER), calls, injection, mode
run_case() {
    local name=$1 elems=$2 calls=$3 inject=$4 mode=$5
    rm -f "$T/r.jsonl" "$T/e.h5"
    if ! COLLDIAG_ACCELERATE=1 COLLDIAG_REPORT=json:$T/r.jsonl COLLDIAG_INJECT=$inject COLLDIAG_AUTO_MODE=$mode LD_PRELOAD=$LIB \
        $RUN -n "$NP" $X "$B/h5_engine" "$T/e.h5" "$calls" "$elems" >"$T/out" 2>&1; then
        echo "FAIL $name: h5_engine exit $? (a wrong value read back, or a failed call)"; head -20 "$T/out"; fail=1; return
    fi
    python3 - "$T/r.jsonl" "$name" "$elems" "$calls" "$inject" "$mode" <<'PY' || fail=1
import json, sys
path, name, elems, calls, inject, mode = sys.argv[1:]
elems, calls = int(elems), int(calls)
rule = 0 if elems * 8 >= 256 << 10 else 1          # 0 HDF5's path (WHOLE_CHUNKS), 1 colldiag's (FASTER)
v = [float(x) for x in inject.split(":")[1].split(",")]
H, C = v[0], v[1]
H2, C2, N = (v[2], v[3], int(v[4])) if len(v) >= 5 else (H, C, 1 << 30)
COLD = (v[5], v[6]) if len(v) == 7 else (1.0, 1.0)
# the rule, applied by the test
W, SWITCH, FASTER = 4, 1.25, 0.5
kept, cur, fresh, relooks, pending, count, ran, want, base, why = [[], []], None, None, 0, None, 0, [0, 0], [], 0.0, []
def med(e):
    k = kept[e]
    r = k[1:] if 2 <= len(k) <= 8 else k[-8:]
    r = sorted(r); n = len(r)
    return r[n // 2] if n % 2 else (r[n // 2 - 1] + r[n // 2]) / 2
for c in range(calls):
    if pending is not None:
        e, t = pending
        kept[e].append(t)
    if mode == "estimate":
        ch = rule
    elif cur is None:
        a, b = len(kept[rule]), len(kept[1 - rule])
        if a < W and (a <= b + 1 or b >= W): ch = rule
        elif b < W: ch = 1 - rule
        else: ch = cur = 0 if med(0) <= med(1) else 1; base = med(cur)
    elif fresh is not None:
        if len(kept[fresh]) < W: ch = fresh
        else: ch = cur = 0 if med(0) <= med(1) else 1; fresh = None; base = med(cur)
    else:
        ch = cur
        if (med(cur) > SWITCH * med(1 - cur) or (med(cur) < FASTER * base and med(1 - cur) < SWITCH * base)) and relooks < 4:
            relooks += 1; kept[1 - cur] = []; fresh = ch = 1 - cur
    # why HDF5's path runs a measured call: faster by the medians, or kept within SWITCH of colldiag's
    # and its why names both medians as this script computes them, each with its count of calls, as a reason
    # (not an error: no "function: rank R:", no "(not supported by colldiag)")
    why.append(None if mode == "estimate" or ch != 0 or cur is None or fresh is not None else
               ("kept" if med(0) > med(1) else "faster",
                "its median call %.3g s (%d call%s), colldiag's median call %.3g s (%d call%s)"
                % (med(0), len(kept[0]), "" if len(kept[0]) == 1 else "s", med(1), len(kept[1]), "" if len(kept[1]) == 1 else "s")))
    want.append(ch)
    # what the run's summary says the last call's choice saw: each engine's median and calls, and the engine
    last = (ch, [(med(e), len(kept[e])) if kept[e] else None for e in (0, 1)])
    t = (H2, C2)[ch] if count >= N else (H, C)[ch]
    if ch == 1 and ran[ch] < 2: t *= COLD[ran[ch]]
    ran[ch] += 1
    count += 1
    pending = (ch, t) if mode != "estimate" else None
got, summ = [], None
for line in open(path):
    j = json.loads(line)
    if j.get("summary") is True: summ = j
    if j.get("summary") is True or j.get("op") != "H5Dwrite": continue
    got.append(1 if j.get("engine") == "colldiag" else 0)
    w = why[len(got) - 1] if len(got) <= len(why) else None
    text = j.get("why", "")
    if w and not (("kept while within" in text) == (w[0] == "kept") and text.startswith("HDF5's path, measured faster")
                  and text.endswith(w[1])):
        print("FAIL %s: call %d ran HDF5's path, %s by the medians (%s); its why: %s" % (name, len(got), "kept within 1.25x" if w[0] == "kept" else "faster", w[1], text)); sys.exit(1)
names = "HC"
w, g = "".join(names[x] for x in want), "".join(names[x] for x in got)
if w != g:
    print("FAIL %s: engines call by call %s, the rule says %s (H HDF5's path, C colldiag's)" % (name, g, w)); sys.exit(1)
# the run's summary (json:PATH's last line): the write dataset's row shows what the last call's choice saw
row = [d for d in (summ or {}).get("datasets", []) if d.get("op") == "H5Dwrite"]
m = row[0].get("measured") if row else None
if mode == "estimate":
    if m: print("FAIL %s: the summary shows engines measured under COLLDIAG_AUTO_MODE=estimate: %s" % (name, m)); sys.exit(1)
else:
    ch, meds = last
    def same_as_rule(m):  # a "measured" object: the engine the rule ran at the last call, each engine's median and calls
        ok = m is not None and m.get("of") == "engines" and m.get("ran") == ("hdf5", "colldiag")[ch]
        for e, key in ((0, "hdf5"), (1, "colldiag")):
            v = m.get(key) if m else None
            if meds[e] is None: ok = ok and v is None
            else: ok = ok and v is not None and abs(v["seconds"] - meds[e][0]) <= 1e-9 + 1e-6 * meds[e][0] and v["calls"] == meds[e][1]
        return ok
    if not same_as_rule(m):
        print("FAIL %s: the summary's measured engines %s; the rule's at the last call: ran %s, medians (seconds, calls) %s" % (name, m, "HC"[ch], meds)); sys.exit(1)
    # tools/colldiag-summary, reading the same lines after the fact, shows the same (from the run's summary line)
    import subprocess
    tool = json.loads(subprocess.run([sys.executable, "tools/colldiag-summary", "--json", path], capture_output=True, text=True, check=True).stdout)
    trow = [d for d in tool.get("datasets", []) if d.get("op") == "H5Dwrite"]
    tm = trow[0].get("measured") if trow else None
    if not same_as_rule(tm):
        print("FAIL %s: tools/colldiag-summary's measured engines %s; the rule's at the last call: ran %s, medians %s" % (name, tm, "HC"[ch], meds)); sys.exit(1)
    text = subprocess.run([sys.executable, "tools/colldiag-summary", path], capture_output=True, text=True, check=True).stdout
    if "measured (the engines, at its last measured call, from the run's summary)" not in text:
        print("FAIL %s: tools/colldiag-summary's page does not show the measured engines:\n%s" % (name, text)); sys.exit(1)
print("%s: engines call by call %s, as the rule says (and the summary's last measurement)" % (name, g))
PY
}
# WHOLE_CHUNKS (HDF5's by rule): colldiag measured faster, then slower
run_case "whole chunks, colldiag faster" 32768 12 engine:0.01,0.001 measure
run_case "whole chunks, HDF5 faster" 32768 12 engine:0.001,0.01 measure
# FASTER (colldiag's by rule): HDF5 measured faster, then slower
run_case "small parts, HDF5 faster" 512 12 engine:0.001,0.01 measure
run_case "small parts, colldiag faster" 512 12 engine:0.01,0.001 measure
# IOR's 64 KiB writes: colldiag 2x faster warm, its first calls 12x and 3.5x its warm ones (HDF5's path
# 0.25 ms, colldiag's 0.13 ms warm, 1.6 and 0.45 ms cold): a rule of fastest calls or of cold calls keeps
# HDF5's path
run_case "small parts, colldiag faster warm, cold first calls" 512 14 engine:0.00025,0.00013,0.00025,0.00013,0,12,3.5 measure
# HDF5's path, chosen, then runs a little slower than colldiag's did (11 ms against 10, within 1.25x):
# kept, and its calls' why says so (not "measured faster" alone)
run_case "HDF5's path kept a little slower" 32768 20 engine:0.001,0.01,0.011,0.01,12 measure
# the file system changes pace: HDF5's path, chosen, gets 20 times slower from the 12th call
run_case "HDF5's path slows down" 32768 24 engine:0.001,0.01,0.02,0.01,12 measure
# a slow first phase (h5bench's first time step: 7-10 ms a read on either engine, later 0.35 ms): the
# engines compared while both were slow (HDF5's path a little faster); from the 8th call HDF5's path
# runs 0.35 ms and colldiag's 0.2 ms: once the chosen engine runs at under half its pace when chosen,
# the other is measured again, and runs
run_case "a slow first phase" 32768 26 engine:0.007,0.0075,0.00035,0.0002,8 measure
# ... and where HDF5's path stays the faster (0.25 ms against 0.4): after the relook HDF5's path runs
# again (its median, by then of more fast calls than slow ones, against colldiag's fresh one)
run_case "a slow first phase, HDF5's path faster after" 32768 24 engine:0.007,0.0075,0.00025,0.0004,8 measure
# a clear choice (colldiag's path 5x faster while learning) whose engine then runs faster still (2.5x):
# no relook (as IOR's 1 MiB-chunk reads, whose colldiag path kept warming: HDF5's slow path measured
# again four calls at a time)
run_case "a clear choice, then faster still" 512 24 engine:0.01,0.002,0.01,0.0008,8 measure
# the rules alone
run_case "COLLDIAG_AUTO_MODE=estimate" 32768 6 engine:0.01,0.001 estimate
# AUTO tries no scheme while the engines are compared (src/measure.c, meas_choose): every colldiag call
# of the comparison (engine_measured kind "rule" or "trying") runs the scheme of colldiag's first call.
# The injected 1 ms a call is far over every scheme's estimate for these small rows, so AUTO would try
# another scheme at colldiag's second call (it did: IOR's 1 MiB-chunk writes on ROMIO paid link-chunk's
# set-up inside the comparison); once the engine is chosen, it may.
rm -f "$T/r.jsonl" "$T/e.h5"
if ! COLLDIAG_ACCELERATE=1 COLLDIAG_REPORT=json:$T/r.jsonl COLLDIAG_INJECT=engine:0.01,0.001 COLLDIAG_AUTO_MODE=measure LD_PRELOAD=$LIB \
    $RUN -n "$NP" $X "$B/h5_engine" "$T/e.h5" 12 512 >"$T/out" 2>&1; then
    echo "FAIL no AUTO try while the engines are compared: h5_engine exit $?"; head -20 "$T/out"; fail=1
else
    python3 - "$T/r.jsonl" <<'PY' || fail=1
import json, sys
schemes = []
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j.get("op") != "H5Dwrite" or j.get("engine") != "colldiag": continue
    if j.get("engine_measured", {}).get("kind") in ("rule", "trying"): schemes.append(j["scheme"]["chunk_opt"])
if len(schemes) < 3 or len(set(schemes)) != 1:
    print("FAIL no AUTO try while the engines are compared: colldiag's calls of the comparison ran %s" % schemes); sys.exit(1)
print("no AUTO try while the engines are compared: colldiag's %d calls of the comparison ran %s" % (len(schemes), schemes[0]))
PY
fi
# Leases (tools/colldiag-preload.c, lease_take): once the agreement chose HDF5's path by measurement for
# a collective read, the next reads of datasets of that class in the file skip the agreement: 4 calls,
# renewed by the next agreed call twice as long while the measurement holds (up to 64), ended by any
# other outcome. Leased reads are still measured: their mean time joins the engines' table at the next
# agreed call as that many calls, so a change of pace ends the lease there. h5_engine's read loop
# (READS reads of one row each, every value checked) under the run summary, which counts the reads by
# engine and those leased; the test replays the rule itself (the engines' learning above, with leases),
# from the 12 writes and the whole-dataset read that come first (measured calls: the injected pace
# change counts them), and compares the three counts. With colldiag's path faster, and under a per-call
# report (which plans every call), none is leased.
lease_case() {
    local name=$1 inject=$2 report=$3 reads=$4
    rm -f "$T/e.h5" "$T/r.jsonl"
    if ! COLLDIAG_ACCELERATE=1 COLLDIAG_REPORT=$report COLLDIAG_INJECT=$inject COLLDIAG_AUTO_MODE=measure LD_PRELOAD=$LIB \
        $RUN -n "$NP" $X "$B/h5_engine" "$T/e.h5" 12 512 "$reads" >"$T/out" 2>&1; then
        echo "FAIL lease $name: h5_engine exit $? (a wrong value read back, or a failed call)"; head -20 "$T/out"; fail=1; return
    fi
    python3 - "$T/out" "$name" "$inject" "$report" "$reads" <<'PY' || fail=1
import re, sys
out, name, inject, report, reads = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
v = [float(x) for x in inject.split(":")[1].split(",")]
H, C = v[0], v[1]
H2, C2, N = (v[2], v[3], int(v[4])) if len(v) >= 5 else (H, C, 1 << 30)
W, SWITCH, FASTER, SAMPLES, FIRST, MAX = 4, 1.25, 0.5, 8, 4, 64
rule, count = 1, 13                    # 512 doubles a rank: FASTER, colldiag's; 12 writes + 1 read measured before
kept, cur, fresh, relooks, base = [[], []], None, None, 0, 0.0
pending = None                         # [engine, seconds, calls, of a lease]
left, nxt, slot = 0, FIRST, False
ran, leased = [0, 0], 0
def med(e):
    k = kept[e]
    r = k[1:] if 2 <= len(k) <= SAMPLES else k[-SAMPLES:]
    r = sorted(r); n = len(r)
    return r[n // 2] if n % 2 else (r[n // 2 - 1] + r[n // 2]) / 2
def pace(e):
    return (H2, C2)[e] if count >= N else (H, C)[e]
for i in range(reads):
    if report == "summary" and left > 0:   # leased: HDF5's path, no agreement, its time joins the lease's
        left -= 1; leased += 1; ran[0] += 1
        t = pace(0); count += 1
        if pending and pending[0] == 0:
            if not pending[3]: pending = [0, 0.0, 0, True]
            pending[1] = (pending[1] * pending[2] + t) / (pending[2] + 1); pending[2] += 1
        continue
    if pending:
        kept[pending[0]] += [pending[1]] * min(pending[2], SAMPLES)
    if cur is None:
        a, b = len(kept[rule]), len(kept[1 - rule])
        if a < W and (a <= b + 1 or b >= W): ch, kind = rule, 1
        elif b < W: ch, kind = 1 - rule, 3
        else: ch = cur = 0 if med(0) <= med(1) else 1; base = med(cur); kind = 2
    elif fresh is not None:
        if len(kept[fresh]) < W: ch, kind = fresh, 3
        else: ch = cur = 0 if med(0) <= med(1) else 1; fresh = None; base = med(cur); kind = 2
    else:
        ch, kind = cur, 2
        if (med(cur) > SWITCH * med(1 - cur) or (med(cur) < FASTER * base and med(1 - cur) < SWITCH * base)) and relooks < 4:
            relooks += 1; kept[1 - cur] = []; fresh = ch = 1 - cur; kind = 3
    if report == "summary":
        if kind == 2 and ch == 0:
            if not slot: slot, nxt = True, FIRST
            left, nxt = nxt, min(2 * nxt, MAX)
        elif slot: left, nxt = 0, FIRST
    ran[ch] += 1
    t = pace(ch); count += 1
    pending = [ch, t, 1, False]
text = open(out).read()
m = re.search(r"HDF5 \d+ calls, [^;\n]*? s \((\d+) of them reads leased", text)
got = int(m.group(1)) if m else 0
r = re.search(r"e\.h5:/steps\s+read\s+\d+\s.*colldiag (\d+), HDF5 (\d+)", text)
if report != "summary":
    if "leased" in text: print("FAIL lease %s: a per-call report yet a lease" % name); sys.exit(1)
    print("lease %s: none leased" % name); sys.exit(0)
gc, gh = (int(r.group(1)), int(r.group(2))) if r else (-1, -1)
if (got, gc, gh) != (leased, ran[1] + 1, ran[0]):
    print("FAIL lease %s: reads colldiag %d, HDF5 %d, %d of them leased; the rule gives colldiag %d, HDF5 %d, %d leased" %
          (name, gc, gh, got, ran[1] + 1, ran[0], leased)); print(text[-1500:]); sys.exit(1)
print("lease %s: reads colldiag %d, HDF5 %d, %d of them leased, as the rule gives" % (name, gc, gh, got))
PY
}
lease_case "HDF5's path faster" engine:0.001,0.01 summary 60
# HDF5's path, leased, runs 20 times slower from the process's 30th measured call (the loop's 17th
# read, inside a lease): the lease's reads carry it to the next agreed call, which measures
# colldiag's path afresh and ends the leases
lease_case "HDF5's path slows down while leased" engine:0.001,0.01,0.02,0.01,30 summary 60
lease_case "colldiag's path faster" engine:0.01,0.001 summary 30
lease_case "a per-call report" engine:0.001,0.01 json:$T/r.jsonl 30
exit $fail

#!/usr/bin/python3
"""Checks the preload library's JSON lines against what the client program itself read from HDF5.

    h5_explain_check.py PRELOAD.jsonl OWN.jsonl|- NPROCS [ALLOWED_DISAGREEMENTS]

OWN.jsonl: one line per call per rank, written by the client (tests/h5_client.c, tests/h5py_client.py):
{"call","rank","op","dataset","collective","known", "chunk_opt","io_mode","local_cause","global_cause"}
(modes as HDF5's numbers; "known": false when the client could not read them back, e.g. H5P_DEFAULT).

For every call, in order: a collective call must be exactly one preload line (collective, every rank),
an independent call one line per calling rank. Each line must have the documented fields; the HDF5
values it reports must equal the client's own reading; colldiag's plan must equal HDF5's answer (the
reference is the client's reading, not the preload's "agree" flag, which must also say so). Lines
allowed to disagree are named by ALLOWED_DISAGREEMENTS (a comma list of "op:dataset"), none by default.
OWN "-": the client could not record HDF5's answer (netCDF-4); each line is then checked on its own.
Exit status 0 only if everything matches; every problem is printed.
"""
import json
import sys

CHUNK_OPT = ["NO_CHUNK_OPTIMIZATION", "LINK_CHUNK", "MULTI_CHUNK"]
IO_MODE = ["NO_COLLECTIVE", "CHUNK_INDEPENDENT", "CHUNK_COLLECTIVE", "CHUNK_MIXED", "CONTIGUOUS_COLLECTIVE"]
FIELDS = ("chunk_opt", "io_mode", "local_cause", "global_cause")


def named(rec):
    """The client's numbers as the names the preload writes."""
    return (CHUNK_OPT[rec["chunk_opt"]], IO_MODE[rec["io_mode"]], rec["local_cause"], rec["global_cause"])


def values(r):
    return tuple(r[k] for k in FIELDS)


SCHEMES = ["link-chunk", "multi-chunk", "aggregation", "all-independent"]


def advice_problems(line, where):
    """The advice and planned counters of a planned line, recomputed from its own estimates and HDF5's
    answer (the best scheme is the smallest estimate; HDF5's path is what HDF5 reported; the change is
    advised only when HDF5's estimate exceeds the best by more than 10%)."""
    out = []
    h5 = line["hdf5"]["ranks"]
    mine = line.get("ranks", [])
    if line.get("counters") != "planned":
        out.append("%s: counters %r, expected \"planned\"" % (where, line.get("counters")))
    for r in mine:
        if "bytes_collective" not in r:
            out.append("%s rank %s: no planned counters" % (where, r.get("rank")))
            continue
        h = next((x for x in h5 if x["rank"] == r["rank"]), None)
        if h and h["io_mode"] == "NO_COLLECTIVE" and (r["bytes_collective"] or r["calls_collective"]):
            out.append("%s rank %s: HDF5 went independent but the plan counts %d collective bytes" % (where, r["rank"], r["bytes_collective"]))
        # (link-chunk with H5FD_MPIO_INDIVIDUAL_IO moves independently: no rule on the split there)
        if (r["bytes_collective"] and not r["calls_collective"]) or (r["bytes_independent"] and not r["calls_independent"]):
            out.append("%s rank %s: planned bytes without calls %s" % (where, r["rank"], r))
    adv = line.get("advice")
    if not adv:
        out.append("%s: no advice" % where)
        return out
    est = line.get("estimates")
    if not line["collective"] or est is None:
        return out
    e = [est["link"], est["multi"], est["aggregation"], est["independent"]]
    best = min(range(4), key=lambda i: e[i])
    hp = {"LINK_CHUNK": 0, "MULTI_CHUNK": 1}.get(h5[0]["chunk_opt"])
    if any(x["global_cause"] for x in h5):
        if "breaks collective" not in adv and not (adv.startswith("compact storage") and all(x["global_cause"] == 0x20 for x in h5)):
            out.append("%s: causes %s but advice %r" % (where, [x["global_cause"] for x in h5], adv))
        return out
    if hp is None:
        out.append("%s: estimates for a call HDF5 ran as %s" % (where, h5[0]["chunk_opt"]))
        return out
    if not adv.startswith("HDF5: %s, est. " % SCHEMES[hp]):
        out.append("%s: advice %r does not start with HDF5's path %s" % (where, adv, SCHEMES[hp]))
    if best == hp or e[hp] <= 1.1 * e[best]:
        if "nothing to change" not in adv:
            out.append("%s: HDF5's path is within 10%% of the best (%s), advice %r" % (where, e, adv))
    else:
        want = "ACCELERATE" if best >= 2 else ("CHUNK_ONE_IO" if best == 0 else "CHUNK_MULTI_IO")
        if ("; %s est." % SCHEMES[best]) not in adv or want not in adv:
            out.append("%s: best %s by the estimates %s, advice %r" % (where, SCHEMES[best], e, adv))
    return out


def unrecorded(pre, nprocs, allowed):
    """A client that cannot read HDF5's answer itself (netCDF-4): every line must be complete and
    planned, and colldiag's plan must equal the HDF5 answer the preload read, rank by rank."""
    problems = []
    checked = agreed = 0
    for i, line in enumerate(pre):
        where = "line %d (%s %s)" % (i + 1, line.get("op"), line.get("dataset"))
        for key in ("nprocs", "op", "file", "dataset", "collective", "hdf5", "agree", "ranks", "planned"):
            if key not in line:
                problems.append("%s: field %s missing" % (where, key))
        if any(key not in line for key in ("hdf5", "ranks", "planned")) or not line.get("planned"):
            problems.append("%s: not planned: %s" % (where, line.get("why")))
            continue
        if line["nprocs"] != nprocs:
            problems.append("%s: nprocs %s" % (where, line["nprocs"]))
        h5 = {r["rank"]: r for r in line["hdf5"]["ranks"]}
        mine = {r["rank"]: r for r in line["ranks"]}
        if sorted(h5) != sorted(mine) or (line["collective"] and len(h5) != nprocs) or (not line["collective"] and len(h5) != 1):
            problems.append("%s: ranks %s / %s" % (where, sorted(mine), sorted(h5)))
            continue
        same = all(values(mine[r]) == values(h5[r]) for r in h5)
        problems += advice_problems(line, where)
        checked += len(h5)
        agreed += sum(values(mine[r]) == values(h5[r]) for r in h5)
        if line["agree"] != same:
            problems.append("%s: \"agree\" is %s, which the values contradict" % (where, line["agree"]))
        if not same and "%s:%s" % (line["op"], line["dataset"]) not in allowed:
            problems.append("%s: colldiag %s, HDF5 %s" % (where, [values(mine[r]) for r in sorted(h5)], [values(h5[r]) for r in sorted(h5)]))
    for p in problems:
        print("FAIL", p)
    print("h5_explain_check: %d preload lines, %d rank plans checked, %d equal to HDF5's answer, %d problem(s)"
          % (len(pre), checked, agreed, len(problems)))
    return 1 if problems or checked == 0 else 0


def main():
    pre_path, own_path, nprocs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    allowed = set(sys.argv[4].split(",")) if len(sys.argv) > 4 and sys.argv[4] else set()
    problems = []
    pre = [json.loads(l) for l in open(pre_path) if l.strip()]
    pre = [j for j in pre if j.get("summary") is not True]  # the run's summary, written at its end (tools/colldiag-summary reads it)
    if own_path == "-":
        return unrecorded(pre, nprocs, allowed)
    calls = {}
    for l in open(own_path):
        if l.strip():
            rec = json.loads(l)
            calls.setdefault(rec["call"], {})[rec["rank"]] = rec
    # Collective lines are written by one rank, in call order; an independent line by its own rank, in
    # that rank's order. Ranks are not synchronised between the two (a rank leaves a collective call
    # before rank 0 writes its line), so the lines are matched per stream, not by file position.
    order = sorted(calls)
    coll_lines = [l for l in pre if l.get("collective")]
    ind_lines = {}
    for l in pre:
        if not l.get("collective"):
            rs = [x.get("rank") for x in l.get("hdf5", {}).get("ranks", [])]
            ind_lines.setdefault(rs[0] if len(rs) == 1 else None, []).append(l)
    assigned, ci, ri = {}, 0, {}
    for k in order:
        recs = calls[k]
        if next(iter(recs.values()))["collective"]:
            assigned[k] = coll_lines[ci:ci + 1]
            ci += 1
        else:
            assigned[k] = []
            for r in sorted(recs):
                i = ri.get(r, 0)
                if i < len(ind_lines.get(r, [])):
                    assigned[k].append(ind_lines[r][i])
                ri[r] = i + 1
    pos = ci + sum(ri.values())
    checked = agreed = 0
    for k in order:
        recs = calls[k]
        first = next(iter(recs.values()))
        coll = first["collective"]
        want = 1 if coll else len(recs)
        lines = assigned.get(k, [])
        if len(lines) < want:
            problems.append("call %d (%s %s): %d preload line(s) missing" % (k, first["op"], first["dataset"], want - len(lines)))
            continue
        for line in lines:
            where = "call %d (%s %s)" % (k, first["op"], first["dataset"])
            for key in ("nprocs", "op", "file", "dataset", "collective", "hdf5", "agree"):
                if key not in line:
                    problems.append("%s: field %s missing" % (where, key))
            if line.get("op") != first["op"] or line.get("dataset") != first["dataset"] or line.get("collective") != coll:
                problems.append("%s: line is %s %s collective=%s" % (where, line.get("op"), line.get("dataset"), line.get("collective")))
                continue
            if line.get("nprocs") != nprocs and first.get("plannable", True):
                problems.append("%s: nprocs %s, expected %d" % (where, line.get("nprocs"), nprocs))
            h5 = {r["rank"]: r for r in line["hdf5"]["ranks"]}
            mine = {r["rank"]: r for r in line.get("ranks", [])}
            ranks = sorted(recs) if coll else [r for r in h5]
            if coll and sorted(h5) != sorted(recs):
                problems.append("%s: hdf5 ranks %s, expected %s" % (where, sorted(h5), sorted(recs)))
            if not coll and (len(h5) != 1 or ranks[0] not in recs):
                problems.append("%s: an independent line must hold one calling rank, has %s" % (where, sorted(h5)))
                continue
            if not first.get("plannable", True):  # the client made a call colldiag must refuse, with a reason
                if line.get("planned", True) or not line.get("why") or line.get("agree"):
                    problems.append("%s: expected planned false with a why, got planned %s why %r" % (where, line.get("planned"), line.get("why")))
                continue
            if not line.get("planned", False):
                problems.append("%s: not planned: %s" % (where, line.get("why")))
                continue
            for r in ranks:
                rec = recs[r]
                if rec["known"] and values(h5[r]) != named(rec):
                    problems.append("%s rank %d: the preload read HDF5 %s, the client read %s" % (where, r, values(h5[r]), named(rec)))
                ref = named(rec) if rec["known"] else values(h5[r])
                for key in ("chunks",) + FIELDS:
                    if r not in mine or key not in mine[r]:
                        problems.append("%s rank %d: colldiag field %s missing" % (where, r, key))
                        break
                else:
                    checked += 1
                    if values(mine[r]) == ref:
                        agreed += 1
                    elif "%s:%s" % (first["op"], first["dataset"]) not in allowed:
                        problems.append("%s rank %d: colldiag planned %s, HDF5 did %s" % (where, r, values(mine[r]), ref))
            problems += advice_problems(line, where)
            if line["agree"] != all(r in mine and values(mine[r]) == values(h5[r]) for r in ranks):
                problems.append("%s: \"agree\" is %s, which the values contradict" % (where, line["agree"]))
    if pos < len(pre):
        problems.append("%d preload line(s) beyond the client's calls" % (len(pre) - pos))
    for p in problems:
        print("FAIL", p)
    print("h5_explain_check: %d calls, %d preload lines, %d rank plans checked, %d equal to HDF5's answer, %d problem(s)"
          % (len(calls), len(pre), checked, agreed, len(problems)))
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())

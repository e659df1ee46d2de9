#!/usr/bin/python3
"""An h5py + mpi4py program (no colldiag in it) that uses h5py as its users do, for the preload's
COLLDIAG_ACCELERATE=1 test: plain and accelerated runs must print the same, exit alike and leave the
same file. It checks its own data: every rank keeps a numpy model of every dataset (each write of
every rank applied in rank order, the fill value elsewhere), computed from the decomposition alone,
and compares every read with it byte for byte.

    mpirun -n 3 [-x LD_PRELOAD=... -x COLLDIAG_ACCELERATE] /usr/bin/python3 h5py_suite.py FILE.h5 [ignored]

What it covers: numeric types of 1 to 8 bytes, big-endian storage written from native arrays (HDF5
converts), complex, bool (an HDF5 enum), fixed-length strings, a compound and a subarray type, each 1-D
with edge chunks, written collectively (`with dset.collective`); contiguous rows; uneven blocks
overwritten by another rank; strided columns (`d[:, r::P]`); fancy row lists (hyperslab unions);
boolean masks (point selections); a dataset resized between collective writes, shrunk to a chunk
boundary and grown back; one shrunk across a chunk, grown back and written (HDF5 1.10 loses that write:
the accelerated run must leave the file as HDF5 does);
ranks that select nothing in a collective low-level write; independent writes; a scalar dataset; a
custom fill value; gzip (HDF5 writes it); an anonymous dataset written and dropped, then a dataset at
its address; read_direct; reads of another rank's part in both modes; and every dataset read whole by
every rank after reopening the file read-only.
"""
import sys

import h5py
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
me, P = comm.Get_rank(), comm.Get_size()
path = sys.argv[1]
bad = 0
checks = 0
model = {}


def values(k, seq, who, shape, dtype):
    """What rank `who` writes in write `seq` of dataset k: distinct per dataset, write and rank."""
    n = int(np.prod(shape)) if shape else 1
    base = (np.arange(n, dtype=np.int64) * 31 + k * 977 + seq * 131 + who * 7) % 20011 - 10005
    dt = np.dtype(dtype)
    if dt.names:  # compound: every field from the same numbers
        out = np.zeros(n, dtype=dt)
        for f in dt.names:
            out[f] = values(k, seq + 1 + dt.names.index(f), who, (n,), dt.fields[f][0])
        return out.reshape(shape)
    if dt.subdtype:  # subarray: (n,) elements of (3,) each
        sub, sshape = dt.subdtype
        return values(k, seq, who, tuple(shape) + sshape, sub)
    if dt.kind == "b":
        return (base % 3 == 0).reshape(shape)
    if dt.kind == "S":
        return np.array([("v%d" % v).encode()[: dt.itemsize] for v in base], dtype=dt).reshape(shape)
    if dt.kind == "c":
        return (base * 0.5 + 1j * base).astype(dt).reshape(shape)
    if dt.kind == "f":
        return (base * 0.25).astype(dt).reshape(shape)
    return base.astype(dt).reshape(shape)


def split(n, r):
    return n * r // P, n * (r + 1) // P


def check(name, got, want):
    global bad, checks
    checks += 1
    if got.shape != want.shape or got.tobytes() != want.tobytes():
        diff = np.count_nonzero(got != want) if got.shape == want.shape else -1
        print("rank %d: %s: read differs from what was written (%d elements)" % (me, name, diff))
        bad += 1


f = h5py.File(path, "w", driver="mpio", comm=comm)
types = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8", ">i4", ">f8", "c8", "?", "S7",
         np.dtype([("a", "<i4"), ("b", "<f8"), ("c", "S3")]), np.dtype(("<i2", (3,)))]
# 1. every type, 1-D with edge chunks, collective slabs
for k, t in enumerate(types):
    name = "t%02d" % k
    dt = np.dtype(t)
    n = 37 * P
    d = f.create_dataset(name, (n,), dtype=dt, chunks=(16,))
    model[name] = np.zeros((n,), dtype=dt)
    lo, hi = split(n, me)
    src = dt.base if dt.byteorder == ">" else dt  # big-endian storage written from native arrays
    with d.collective:
        d[lo:hi] = values(k, 1, me, (hi - lo,), src)
    for r in range(P):
        a, b = split(n, r)
        model[name][a:b] = values(k, 1, r, (b - a,), src)

# 2. contiguous rows; 3. uneven blocks overwritten by the next rank
K = 100
d = f.create_dataset("contig", (5 * P, 7), dtype="f8")
model["contig"] = np.zeros((5 * P, 7))
with d.collective:
    a, b = split(5 * P, me)
    d[a:b, :] = values(K, 1, me, (b - a, 7), "f8")
for r in range(P):
    a, b = split(5 * P, r)
    model["contig"][a:b, :] = values(K, 1, r, (b - a, 7), "f8")


def block(r, shape):
    """Ranks 0 .. P-2 split the left half's rows, the last rank the right half (one rank: all)."""
    rows, cols = shape
    if P == 1:
        return slice(0, rows), slice(0, cols)
    half = cols // 2
    if r < P - 1:
        return slice(rows * r // (P - 1), rows * (r + 1) // (P - 1)), slice(0, half)
    return slice(0, rows), slice(half, cols)


d = f.create_dataset("hyper", (9, 25), dtype="i4", chunks=(4, 6))
model["hyper"] = np.zeros((9, 25), dtype="i4")
for seq, shift in ((1, 0), (2, 1)):
    with d.collective:
        s = block((me + shift) % P, (9, 25))
        d[s] = values(K + 1, seq, me, (s[0].stop - s[0].start, s[1].stop - s[1].start), "i4")
    for r in range(P):
        s = block((r + shift) % P, (9, 25))
        model["hyper"][s] = values(K + 1, seq, r, (s[0].stop - s[0].start, s[1].stop - s[1].start), "i4")

# 4. strided columns
d = f.create_dataset("strided", (16, 30), dtype="i2", chunks=(5, 7))
model["strided"] = np.zeros((16, 30), dtype="i2")
with d.collective:
    d[:, me::P] = values(K + 2, 1, me, model["strided"][:, me::P].shape, "i2")
for r in range(P):
    model["strided"][:, r::P] = values(K + 2, 1, r, model["strided"][:, r::P].shape, "i2")

# 5. fancy row lists (increasing, as h5py requires): rows r, r+P, ... of a 2-D dataset
d = f.create_dataset("fancy", (4 * P + 1, 6), dtype="f4", chunks=(3, 4))
model["fancy"] = np.zeros((4 * P + 1, 6), dtype="f4")
with d.collective:
    rows = list(range(me, 4 * P + 1, P))
    d[rows, :] = values(K + 3, 1, me, (len(rows), 6), "f4")
for r in range(P):
    rows = list(range(r, 4 * P + 1, P))
    model["fancy"][rows, :] = values(K + 3, 1, r, (len(rows), 6), "f4")

# 6. boolean masks: point selections, elements i with i % P == rank
d = f.create_dataset("masked", (50,), dtype="i8", chunks=(8,))
model["masked"] = np.zeros((50,), dtype="i8")
with d.collective:
    m = np.arange(50) % P == me
    d[m] = values(K + 4, 1, me, (int(m.sum()),), "i8")
for r in range(P):
    m = np.arange(50) % P == r
    model["masked"][m] = values(K + 4, 1, r, (int(m.sum()),), "i8")

# 7. resized between collective writes: grown, written, shrunk to a chunk boundary, grown back, written
d = f.create_dataset("grown", (2 * P, 8), maxshape=(None, 8), dtype="i4", chunks=(4, 8), fillvalue=-1)
model["grown"] = np.full((2 * P, 8), -1, dtype="i4")
for seq, rows in ((1, 2 * P), (2, 5 * P), (3, 4 * max(1, 3 * P // 4)), (4, 7 * P)):
    d.resize((rows, 8))
    old = model["grown"]
    model["grown"] = np.full((rows, 8), -1, dtype="i4")
    keep = min(rows, old.shape[0])
    model["grown"][:keep] = old[:keep]
    if seq == 3:
        continue  # shrunk: nothing written
    with d.collective:
        a, b = split(rows, me)
        d[a:b, :] = values(K + 5, seq, me, (b - a, 8), "i4")
    for r in range(P):
        a, b = split(rows, r)
        model["grown"][a:b, :] = values(K + 5, seq, r, (b - a, 8), "i4")

# 8. a collective low-level write in which odd ranks select nothing (h5py's high level skips empty
#    selections, which would leave a collective call short of ranks)
d = f.create_dataset("sparse", (P, 40), dtype="f8", chunks=(1, 16))
model["sparse"] = np.zeros((P, 40))
dx = h5py.h5p.create(h5py.h5p.DATASET_XFER)
dx.set_dxpl_mpio(h5py.h5fd.MPIO_COLLECTIVE)
fs = d.id.get_space()
if me % 2:
    fs.select_none()
    ms = h5py.h5s.create_simple((1,))
    ms.select_none()
    buf = np.zeros((1,))
else:
    fs.select_hyperslab((me, 0), (1, 40))
    ms = h5py.h5s.create_simple((40,))
    buf = values(K + 6, 1, me, (40,), "f8")
d.id.write(ms, fs, buf, dxpl=dx)
for r in range(0, P, 2):
    model["sparse"][r, :] = values(K + 6, 1, r, (40,), "f8")

# 9. independent slabs (h5py's default transfer), 10. a scalar written by rank 0 alone
d = f.create_dataset("indep", (3 * P, 11), dtype="u2", chunks=(2, 5))
model["indep"] = np.zeros((3 * P, 11), dtype="u2")
a, b = split(3 * P, me)
d[a:b, :] = values(K + 7, 1, me, (b - a, 11), "u2")
for r in range(P):
    a, b = split(3 * P, r)
    model["indep"][a:b, :] = values(K + 7, 1, r, (b - a, 11), "u2")
d = f.create_dataset("scalar", (), dtype="f8")
model["scalar"] = np.array(0.0)
if me == 0:
    d[()] = 42.5
model["scalar"] = np.array(42.5)

# 11. a custom fill value, partly written; 12. gzip (filtered: HDF5 writes it, collectively)
d = f.create_dataset("filled", (6, 8 * P), dtype="i4", chunks=(4, 5), fillvalue=-4242)
model["filled"] = np.full((6, 8 * P), -4242, dtype="i4")
with d.collective:
    s = block(me, (6, 8 * P))
    if P > 1 and me == P - 1:
        s = (slice(0, 3), s[1])  # the last rank leaves rows 3..5 of its half to the fill value
    d[s] = values(K + 8, 1, me, (s[0].stop - s[0].start, s[1].stop - s[1].start), "i4")
for r in range(P):
    s = block(r, (6, 8 * P))
    if P > 1 and r == P - 1:
        s = (slice(0, 3), s[1])
    model["filled"][s] = values(K + 8, 1, r, (s[0].stop - s[0].start, s[1].stop - s[1].start), "i4")
def rows_collectively(d, name, k):
    """Every rank its band of rows of 2-D dataset d, collectively, values(k, 1, ...); and into the model
    (name None: a dataset the model does not keep)."""
    n, width = d.shape
    with d.collective:
        a, b = split(n, me)
        d[a:b, :] = values(k, 1, me, (b - a, width), d.dtype.str)
    for r in range(P if name else 0):
        a, b = split(n, r)
        model[name][a:b, :] = values(k, 1, r, (b - a, width), d.dtype.str)


d = f.create_dataset("zipped", (4 * P, 8), dtype="i4", chunks=(4, 8), compression="gzip")
model["zipped"] = np.zeros((4 * P, 8), dtype="i4")
rows_collectively(d, "zipped", K + 9)

# 13. a 4-D dataset with edge chunks, split along its second dimension
d = f.create_dataset("four", (3, 2 * P + 1, 5, 6), dtype="f4", chunks=(2, 2, 3, 4))
model["four"] = np.zeros((3, 2 * P + 1, 5, 6), dtype="f4")
with d.collective:
    a, b = split(2 * P + 1, me)
    d[:, a:b] = values(K + 10, 1, me, (3, b - a, 5, 6), "f4")
for r in range(P):
    a, b = split(2 * P + 1, r)
    model["four"][:, a:b] = values(K + 10, 1, r, (3, b - a, 5, 6), "f4")

# 15. an anonymous dataset (create_dataset(None, ...)), written and dropped: closed with no link, HDF5
#     deletes it and gives its address to the next dataset, here with other chunks (under the preload the
#     bridge must not take the new dataset for the old one)
d = f.create_dataset(None, (4 * P, 10), dtype="i4", chunks=(3, 5))
rows_collectively(d, None, K + 12)
del d  # h5py closes the id: the dataset is gone
d = f.create_dataset("after_anon", (4 * P, 10), dtype="i4", chunks=(4, 2))
model["after_anon"] = np.zeros((4 * P, 10), dtype="i4")
rows_collectively(d, "after_anon", K + 13)

# reads while the file is open for writing: the next rank's rows, collectively and independently
for collective in (True, False):
    for name in sorted(model):
        d = f[name]
        if d.shape == ():
            check(name, np.array(d[()]), model[name])
            continue
        if not collective and d.compression:
            continue  # HDF5 reads filtered data in parallel collectively only
        a, b = split(d.shape[0], (me + 1) % P)
        if collective:
            with d.collective:
                got = d[a:b]
        else:
            got = d[a:b]
        check(name, got, model[name][a:b])
# read_direct into part of a larger array, and a strided read
d = f["hyper"]
out = np.full((12, 30), 7, dtype="i4")
with d.collective:
    d.read_direct(out, np.s_[1:8, 2:20], np.s_[3:10, 5:23])
want = np.full((12, 30), 7, dtype="i4")
want[3:10, 5:23] = model["hyper"][1:8, 2:20]
check("hyper read_direct", out, want)
with f["strided"].collective:
    got = f["strided"][me % 2::2, ::3]
check("strided read", got, model["strided"][me % 2::2, ::3])
# 14. shrunk across a chunk, grown back and written: HDF5 1.10 writes the chunk it pruned back from its
#     chunk cache at close, over this write (it loses it). Not in the model: what is checked is that the
#     accelerated run leaves the file exactly as HDF5 does (test_preload.sh compares them). Last before
#     closing: from the shrink on, HDF5 runs every call on the file until it is flushed or closed.
d = f.create_dataset("pruned", (6, 8), maxshape=(None, 8), dtype="i4", chunks=(4, 8), fillvalue=-1)
with d.collective:
    a, b = split(6, me)
    d[a:b, :] = values(K + 11, 1, me, (b - a, 8), "i4")
d.resize((5, 8))
d.resize((8, 8))
with d.collective:
    a, b = split(8, me)
    d[a:b, :] = values(K + 11, 2, me, (b - a, 8), "i4")
with d.collective:
    pruned_read = d[...]  # whatever HDF5 reads, alike in both runs (compared by test_preload.sh's output)
pruned_sum = comm.allreduce(int(pruned_read.sum()))
if me == 0:
    print("h5py_suite: the pruned dataset reads %d (summed over ranks)" % pruned_sum)
f.close()

# every dataset whole, on every rank, the file reopened read-only
f = h5py.File(path, "r", driver="mpio", comm=comm)
for name in sorted(model):
    d = f[name]
    if d.shape == ():
        check(name, np.array(d[()]), model[name])
        continue
    with d.collective:
        got = d[...]
    check(name, got, model[name])
f.close()

all_bad = comm.allreduce(bad)
all_checks = comm.allreduce(checks)
if me == 0:
    print("h5py_suite: %d datasets, %d reads checked against the model on %d ranks: %s"
          % (len(model), all_checks, P, "FAILED" if all_bad else "every element as written"))
sys.exit(1 if all_bad else 0)

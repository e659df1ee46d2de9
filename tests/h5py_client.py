#!/usr/bin/python3
"""A plain h5py + mpi4py program (no colldiag in it) for the preload library's test.

    mpirun -n 3 [-x LD_PRELOAD=...] /usr/bin/python3 h5py_client.py FILE.h5 OWN.jsonl

Collective and independent writes and reads, chunked and contiguous, through h5py's high-level API
(its own DXPLs: HDF5's answer is not visible to the program, "known": false) and its low-level API
with a DXPL the program reads HDF5's actual modes back from (through ctypes: h5py has no binding
for H5Pget_mpio_actual_*), including multi-chunk on column bands that leave some chunks to one rank
(independent) and share others (collective). Every read is checked against what was written.
Writes OWN.jsonl in the format tests/h5_explain_check.py reads.
"""
import ctypes
import re
import json
import sys

import h5py
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
me, P = comm.Get_rank(), comm.Get_size()
N = 12
lib = ctypes.CDLL(None)  # the HDF5 h5py loaded, already in the process
for name in ("H5Pget_mpio_actual_chunk_opt_mode", "H5Pget_mpio_actual_io_mode", "H5Pset_dxpl_mpio_chunk_opt"):
    try:
        getattr(lib, name)
    except AttributeError:
        # h5py loads its HDF5 privately: open the same file (Debian 12's is .so.103, Debian 13's .so.310)
        path = None
        for line in open("/proc/self/maps"):
            m = re.search(r"(/\S*/libhdf5(_openmpi|_mpich)?\.so[.0-9]*)$", line.strip())
            if m:
                path = m.group(1)
                break
        lib = ctypes.CDLL(path or "libhdf5_openmpi.so.103")
        break
hid_t = ctypes.c_int64
lib.H5Pget_mpio_no_collective_cause.argtypes = [hid_t, ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32)]
lib.H5Pget_mpio_actual_chunk_opt_mode.argtypes = [hid_t, ctypes.POINTER(ctypes.c_int)]
lib.H5Pget_mpio_actual_io_mode.argtypes = [hid_t, ctypes.POINTER(ctypes.c_int)]
lib.H5Pset_dxpl_mpio_chunk_opt.argtypes = [hid_t, ctypes.c_int]

own = open(sys.argv[2], "a")
ncall = 0
bad = 0


def record(op, dset, dxpl, coll):
    """HDF5's answer on this rank, read from the DXPL it filled in (None: not visible to the program)."""
    global ncall
    co, io, lo, gl = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_uint32(0), ctypes.c_uint32(0)
    if dxpl is not None:
        lib.H5Pget_mpio_actual_chunk_opt_mode(dxpl.id, ctypes.byref(co))
        lib.H5Pget_mpio_actual_io_mode(dxpl.id, ctypes.byref(io))
        lib.H5Pget_mpio_no_collective_cause(dxpl.id, ctypes.byref(lo), ctypes.byref(gl))
    own.write(json.dumps({"call": ncall, "rank": me, "op": op, "dataset": dset, "collective": coll, "known": dxpl is not None,
                          "chunk_opt": co.value, "io_mode": io.value, "local_cause": lo.value, "global_cause": gl.value}) + "\n")
    own.flush()
    ncall += 1


def lowlevel(ds, name, start, count, coll, chunk_opt=None):
    """Writes then reads a block through h5py's low-level API with a DXPL of our own."""
    global bad
    fs = ds.id.get_space()
    fs.select_hyperslab(start, count)
    ms = h5py.h5s.create_simple(count)
    w = (np.arange(count[0] * count[1], dtype=np.int32) + 1000 * me).reshape(count)
    for op in ("H5Dwrite", "H5Dread"):
        dxpl = h5py.h5p.create(h5py.h5p.DATASET_XFER)
        dxpl.set_dxpl_mpio(h5py.h5fd.MPIO_COLLECTIVE if coll else h5py.h5fd.MPIO_INDEPENDENT)
        if chunk_opt is not None:
            lib.H5Pset_dxpl_mpio_chunk_opt(dxpl.id, chunk_opt)
        if op == "H5Dwrite":
            ds.id.write(ms, fs, w, dxpl=dxpl)
        else:
            r = np.zeros(count, dtype=np.int32)
            ds.id.read(ms, fs, r, dxpl=dxpl)
            if not np.array_equal(r, w):
                bad += 1
                print("rank %d: %s read back wrong" % (me, name))
        record(op, "/" + name, dxpl, coll)


lo, hi = N * me // P, N * (me + 1) // P
with h5py.File(sys.argv[1], "w", driver="mpio", comm=comm) as f:
    ch = f.create_dataset("chunked", (N, N), dtype="i4", chunks=(4, 4))
    ct = f.create_dataset("contig", (N, N), dtype="i4")
    # low level: row blocks (link), column bands under multi-chunk (some chunks one rank's: mixed)
    lowlevel(ch, "chunked", (lo, 0), (hi - lo, N), True)
    lowlevel(ch, "chunked", (0, 2 + 3 * me), (N, 3), True, chunk_opt=2)
    lowlevel(ch, "chunked", (lo, 0), (hi - lo, N), False)
    lowlevel(ct, "contig", (lo, 0), (hi - lo, N), True)
    lowlevel(ct, "contig", (lo, 0), (hi - lo, N), False)
    # high level, as most h5py programs write: h5py's own DXPLs
    block = np.full((hi - lo, N), me, dtype=np.int32)
    with ch.collective:
        ch[lo:hi, :] = block
    record("H5Dwrite", "/chunked", None, True)
    with ch.collective:
        back = ch[lo:hi, :]
    # h5py 3.7 reads slices through its fast path with its default DXPL, even inside `collective`: the
    # read is independent (found with this preload library), so that is what the test expects
    record("H5Dread", "/chunked", None, False)
    if not np.array_equal(back, block):
        bad += 1
        print("rank %d: high-level collective read back wrong" % me)
    ct[lo:hi, :] = block
    record("H5Dwrite", "/contig", None, False)
    back = ct[lo:hi, :]
    record("H5Dread", "/contig", None, False)
    if not np.array_equal(back, block):
        bad += 1
        print("rank %d: high-level independent read back wrong" % me)
own.close()
total = comm.allreduce(bad)
if me == 0:
    print("h5py_client: %d calls per rank, %d failures" % (ncall, total))
sys.exit(1 if total else 0)

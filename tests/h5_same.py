#!/usr/bin/python3
"""Whether two HDF5 files hold the same things: the same groups, datasets and attributes by name,
every attribute's value and every dataset's type, shape and bytes equal. Except in the storage that
HDF5 itself leaves undefined: a dataset whose fill time is NEVER, or IF_SET without a fill value of
the program's (netCDF-4's NC_NOFILL variables and its dimension scales): elements no one wrote hold
whatever the file held there (two plain HDF5 runs differ in them), so such a dataset may differ; it is
named, not failed (the programs check the elements they wrote).
    h5_same.py A B      exit 0 (same), 1 (different: each difference printed)"""
import sys

import h5py
import numpy as np


def undefined_storage(d):
    p = d.id.get_create_plist()
    t = p.get_fill_time()
    return t == h5py.h5d.FILL_TIME_NEVER or (t == h5py.h5d.FILL_TIME_IFSET and p.fill_value_defined() != h5py.h5d.FILL_VALUE_USER_DEFINED)


def norm(v, f):
    """A value in a form that compares: raw bytes for plain arrays, references as the names of what
    they point to (netCDF's DIMENSION_LIST and REFERENCE_LIST), records and objects member by member."""
    if isinstance(v, h5py.Reference):
        return f[v].name if v else None
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "OV":
            return (v.shape, [norm(x, f) for x in v.flat])
        return (v.shape, str(v.dtype), v.tobytes())
    if isinstance(v, np.void):
        return tuple(norm(x, f) for x in v) if v.dtype.names else v.tobytes()
    return repr(v)


def raw(d):
    """A dataset's values (variable-length ones as what they decode to)."""
    if d.shape is None or d.size == 0:
        return None
    return norm(d[()], d.file)


def attrs(o):
    out = {}
    for k in o.attrs:
        try:
            out[k] = norm(o.attrs[k], o.file)
        except (OSError, TypeError, ValueError):  # an attribute h5py cannot read: its type and shape
            a = o.attrs.get_id(k)
            out[k] = "unreadable %s %s" % (a.dtype, a.shape)
    return out


def objects(f):
    seen = {"/": f}
    f.visititems(lambda n, o: seen.__setitem__("/" + n, o))
    return seen


def main(a, b):
    fa, fb = h5py.File(a, "r"), h5py.File(b, "r")
    oa, ob = objects(fa), objects(fb)
    bad, loose = [], []
    for n in sorted(set(oa) | set(ob)):
        if n not in oa or n not in ob:
            bad.append("%s only in %s" % (n, a if n in oa else b))
            continue
        x, y = oa[n], ob[n]
        if type(x) is not type(y):
            bad.append("%s: a %s and a %s" % (n, type(x).__name__, type(y).__name__))
            continue
        if attrs(x) != attrs(y):
            bad.append("%s: attributes differ" % n)
        if isinstance(x, h5py.Dataset):
            if x.dtype != y.dtype or x.shape != y.shape:
                bad.append("%s: type or shape differ (%s %s, %s %s)" % (n, x.dtype, x.shape, y.dtype, y.shape))
            elif raw(x) != raw(y):
                (loose if undefined_storage(x) and undefined_storage(y) else bad).append(n)
    for m in bad:
        print("differs: %s" % m)
    if loose:
        print("differ where HDF5 leaves unwritten storage undefined (fill time NEVER, or IF_SET without a fill value): %s"
              % " ".join(loose))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

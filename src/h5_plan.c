#ifdef COLLDIAG_WITH_HDF5

/* ---- planning what H5Dwrite / H5Dread will do ----
   The plan needs the dataset's shape, chunking, filters and storage class; HDF5 1.10's decisions never
   depend on chunk addresses, and reading them costs a walk of the whole chunk index per chunk
   (H5Dget_chunk_info_by_coord). So a chunked dataset is planned on dense addresses (chunk k at k x
   chunk bytes), and the plan's chunk list shows those, not HDF5's, except where the bytes at risk need
   the real ones: a collective write into chunks whose fill value HDF5 did not write (H5D_FILL_TIME_NEVER,
   an undefined fill value: netCDF's NC_NOFILL), where a chunk past the end of the file gets MPI-IO's
   buffer in its holes. Those plans ask HDF5 where the touched chunks are (h5_plan_chunk_addrs), or,
   where they cannot, count the chunks as past the end (COLLDIAG_RISK_MAYBE): never a silent 0. */
static int h5_plan_layout_learned(hid_t dset, int collective, colldiag_layout **out, const char *fn); /* h5_bridge.c */
static void h5_plan_chunk_addrs(hid_t dset, colldiag_layout *l, const colldiag_file *f, hid_t fsp);     /* h5_lookup.c */
static int h5_alloc_md_local(hid_t obj);                                                                    /* h5_bridge.c */
static int h5_bridge_comm(hid_t dset, MPI_Comm *comm, MPI_Op *op, int *md_local, const char *fn);           /* h5_bridge.c */
/* Set by a caller whose plan files never outlive the HDF5 call they plan (the preload: planned,
   reported and closed inside the wrapper, before the program can close the file): its collective plans
   then use the bridge's communicator for the file, kept from call to call, instead of duplicating the
   file's own twice a call (H5Fget_access_plist, then H5Pget_fapl_mpio: two collective MPI_Comm_dup,
   ~0.5 ms a call on 3 ranks of 2 cores, with every call explained). A plan file of the public
   colldiag_h5_plan may outlive the file's entry in the bridge: it keeps its own communicator. */
static int h5_plan_lends;
static int h5_plan_layout(hid_t dset, colldiag_layout **out, const char *fn)
{
    *out = NULL;
    int rc = 0;
    hid_t space = H5Dget_space(dset), type = H5Dget_type(dset), dcpl = H5Dget_create_plist(dset);
    int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    hsize_t hd[COLLDIAG_MAX_RANK], hc[COLLDIAG_MAX_RANK];
    uint64_t dims[COLLDIAG_MAX_RANK], cdims[COLLDIAG_MAX_RANK];
    if (space < 0 || type < 0 || dcpl < 0) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
    else if (H5Sget_simple_extent_type(space) == H5S_NULL) rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset has a null dataspace");
    else if (rank < 0 || rank > COLLDIAG_MAX_RANK || H5Sget_simple_extent_dims(space, hd, NULL) < 0)
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset's dataspace cannot be read");
    if (!rc) {
        for (int d = 0; d < rank; d++) dims[d] = hd[d];
        if (rank == 0) { rank = 1; dims[0] = 1; }
        size_t esize = H5Tget_size(type);
        H5D_layout_t lay = H5Pget_layout(dcpl);
        if (lay == H5D_CONTIGUOUS && H5Pget_external_count(dcpl) > 0) {
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset is stored in external files (H5Pset_external): colldiag plans "
                                                       "only storage inside the HDF5 file");
        } else if (lay == H5D_CONTIGUOUS) {
            haddr_t a = H5Dget_offset(dset);
            rc = colldiag_layout_contiguous(rank, dims, esize, a == HADDR_UNDEF ? 0 : (MPI_Offset)a, out);
            if (!rc) colldiag_layout_set_fill_written(*out, !h5_fill_unwritten(dcpl, lay));
        } else if (lay == H5D_COMPACT) {
            rc = colldiag_layout_compact(rank, dims, esize, 0, out);
        } else if (lay == H5D_CHUNKED) {
            if (H5Pget_chunk(dcpl, rank, hc) != rank) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the chunk dims");
            for (int d = 0; d < rank; d++) cdims[d] = hc[d];
            rc = colldiag_layout_chunked(rank, dims, cdims, esize, 0, out);
            if (!rc && H5Pget_nfilters(dcpl) > 0) colldiag_layout_set_filtered(*out, 1);
            if (!rc) colldiag_layout_set_fill_written(*out, !h5_fill_unwritten(dcpl, lay));
        } else {
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset is virtual (or of an unknown layout): colldiag plans only "
                                                       "contiguous, chunked and compact datasets");
        }
    }
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

/* HDF5 never calls a conversion or transform during a plan: these only mark the xfer. */
static int h5_never_convert(const void *src, void *dst, size_t n, colldiag_direction_t d, void *ctx)
{
    (void)src; (void)dst; (void)n; (void)d; (void)ctx;
    return -1;
}
static int h5_never_transform(void *e, size_t n, colldiag_direction_t d, void *ctx)
{
    (void)e; (void)n; (void)d; (void)ctx;
    return -1;
}

/* Reading a DXPL's settings costs ~8 us a call (five H5Pget through HDF5's skip lists, and the absence
   of a data transform is an HDF5 error, pushed and cleared): a quarter of what a warm small call adds
   to colldiag's own. A caller that sees every change a program can make to them sets h5_plist_watched
   and counts each change in h5_plist_gen: the preload, which wraps H5Pset_dxpl_mpio and its four
   siblings, H5Pset_data_transform, H5Pset, H5Premove, H5Pcopy_prop and H5close. The last DXPL's
   settings are then remembered until the count moves (HDF5 1.10 never gives a closed list's id to
   another while the library is open; H5close moves the count). Without the watch, every call reads
   them. */
static int h5_plist_watched;
static unsigned long h5_plist_gen;
/* Calls HDF5 ran itself, counted by the same watcher: each sets the DXPL's actual-mode properties
   (what h5_set_actual remembers having set), never its settings (what h5_dxpl_seen remembers), so it
   is counted apart: a program whose calls HDF5 runs (one-rank files, the rules' "as fast" cases) had
   its DXPL read again at every call, ~1 us of the preload's 3 us a call (IOR -F). */
static unsigned long h5_hdf5_ran;
static struct {
    int valid, rest; /* rest: the settings after the mode are read too */
    hid_t id;
    unsigned long gen;
    H5FD_mpio_xfer_t mode;
    H5FD_mpio_chunk_opt_t hard;
    H5FD_mpio_collective_opt_t copt;
    unsigned num, ratio;
    int xform;
} h5_dxpl_seen;

static int h5_dxpl_remembered(hid_t p)
{
    return h5_plist_watched && h5_dxpl_seen.valid && h5_dxpl_seen.id == p && h5_dxpl_seen.gen == h5_plist_gen;
}

/* The DXPL p's transfer mode, just read from HDF5: remembered (its other settings not yet). */
static void h5_dxpl_remember(hid_t p, H5FD_mpio_xfer_t mode)
{
    h5_dxpl_seen.valid = 1;
    h5_dxpl_seen.rest = 0;
    h5_dxpl_seen.id = p;
    h5_dxpl_seen.gen = h5_plist_gen;
    h5_dxpl_seen.mode = mode;
}

/* The DXPL's transfer mode (what a call needs to know before h5_small_first_call). */
static int h5_dxpl_mode(hid_t dxpl, H5FD_mpio_xfer_t *mode, const char *fn)
{
    const hid_t p = dxpl == H5P_DEFAULT ? H5P_DATASET_XFER_DEFAULT : dxpl;
    if (h5_dxpl_remembered(p)) {
        *mode = h5_dxpl_seen.mode;
        return 0;
    }
    *mode = H5FD_MPIO_INDEPENDENT;
    if (H5Pget_dxpl_mpio(p, mode) < 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "dxpl is not a dataset transfer property list");
    h5_dxpl_remember(p, *mode);
    return 0;
}

/* Whether the DXPL asks for collective transfers, for a caller that must not add an HDF5 error stack
   of its own (the preload's record of a call, before HDF5 sees it): H5P_DEFAULT is independent; a
   list that is not a DXPL answers 0 and is left for HDF5's own call to refuse. Remembered as
   h5_dxpl_mode does: a call then costs no H5Pget (nor H5E_BEGIN_TRY's two H5Eset_auto2, ~1 us here). */
CD_MAYBE_UNUSED static int h5_dxpl_collective_quiet(hid_t dxpl) /* the preload's */
{
    if (dxpl == H5P_DEFAULT) return 0;
    if (h5_dxpl_remembered(dxpl)) return h5_dxpl_seen.mode == H5FD_MPIO_COLLECTIVE;
    H5FD_mpio_xfer_t mode = H5FD_MPIO_INDEPENDENT;
    herr_t got = -1;
    H5E_BEGIN_TRY { got = H5Pget_dxpl_mpio(dxpl, &mode); } H5E_END_TRY;
    if (got < 0) return 0;
    h5_dxpl_remember(dxpl, mode);
    return mode == H5FD_MPIO_COLLECTIVE;
}

/* The mode (set in x first: a call that fails to read the rest still knows whether it is collective)
   and the rest of the DXPL's settings, into x. The four without public getters in 1.10 are read by
   their property names (H5Dprivate.h: H5D_XFER_MPIO_CHUNK_OPT_HARD_NAME, ...). */
static int h5_dxpl_rest(hid_t dxpl, H5FD_mpio_xfer_t mode, colldiag_xfer *x, const char *fn)
{
    H5FD_mpio_chunk_opt_t hard = H5FD_MPIO_CHUNK_DEFAULT;
    H5FD_mpio_collective_opt_t copt = H5FD_MPIO_COLLECTIVE_IO;
    unsigned num = 0, ratio = 60;
    hid_t p = dxpl == H5P_DEFAULT ? H5P_DATASET_XFER_DEFAULT : dxpl;
    int rc = colldiag_set_dxpl_mpio(x, mode == H5FD_MPIO_COLLECTIVE ? COLLDIAG_MPIO_COLLECTIVE : COLLDIAG_MPIO_INDEPENDENT);
    if (rc) return rc;
    int xform;
    if (h5_dxpl_remembered(p) && h5_dxpl_seen.rest) {
        hard = h5_dxpl_seen.hard;
        num = h5_dxpl_seen.num;
        ratio = h5_dxpl_seen.ratio;
        copt = h5_dxpl_seen.copt;
        xform = h5_dxpl_seen.xform;
    } else {
        herr_t e = 0;
        e |= H5Pget(p, "mpio_chunk_opt_hard", &hard);
        e |= H5Pget(p, "mpio_chunk_opt_num", &num);
        e |= H5Pget(p, "mpio_chunk_opt_ratio", &ratio);
        e |= H5Pget(p, "mpio_collective_opt", &copt);
        if (e < 0) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the DXPL's mpio_chunk_opt_* properties (not HDF5 1.10?)");
        /* "not set" is an HDF5 error (the caller's H5E_BEGIN_TRY keeps it off stderr) */
        xform = H5Pget_data_transform(p, NULL, 0) > 0;
        if (h5_dxpl_remembered(p)) { /* the mode was read by this call (h5_dxpl_mode): the rest joins it */
            h5_dxpl_seen.rest = 1;
            h5_dxpl_seen.hard = hard;
            h5_dxpl_seen.num = num;
            h5_dxpl_seen.ratio = ratio;
            h5_dxpl_seen.copt = copt;
            h5_dxpl_seen.xform = xform;
        }
    }
    rc = colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)hard);
    if (!rc) rc = colldiag_set_dxpl_mpio_chunk_opt_num(x, num);
    if (!rc) rc = colldiag_set_dxpl_mpio_chunk_opt_ratio(x, ratio);
    if (!rc) rc = colldiag_set_dxpl_mpio_collective_opt(x, (colldiag_collective_opt_t)copt);
    if (!rc) rc = colldiag_set_data_transform(x, xform ? h5_never_transform : NULL, NULL); /* a reused x forgets the last */
    return rc;
}

/* Every DXPL setting HDF5 1.10 reads for a parallel transfer, into x. */
static int h5_dxpl_settings(hid_t dxpl, colldiag_xfer *x, const char *fn)
{
    H5FD_mpio_xfer_t mode;
    const int rc = h5_dxpl_mode(dxpl, &mode, fn);
    return rc ? rc : h5_dxpl_rest(dxpl, mode, x, fn);
}

/* The file's MPI-IO handle and this rank's place in its communicator, all local calls: an independent
   H5Dwrite runs on some ranks only, so finding the file must not communicate. (H5Fget_access_plist
   would: copying an MPI-IO access list duplicates its communicator. H5Fget_mpi_atomicity answers only
   for the MPI-IO driver and asks MPI_File_get_atomicity, which is local.) */
static int h5_mpi_file(hid_t dset, MPI_File *fh, int *rank, int *size, const char *fn)
{
    hid_t file = H5Iget_file_id(dset);
    int rc = 0;
    hbool_t atomic = 0;
    herr_t mpio = -1;
    if (file >= 0) H5E_BEGIN_TRY { mpio = H5Fget_mpi_atomicity(file, &atomic); } H5E_END_TRY;
    if (file < 0) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "cannot find the dataset's file");
    else if (mpio < 0)
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the file is not opened with the MPI-IO driver (H5Pset_fapl_mpio): HDF5 does no "
                                                   "parallel I/O on it");
    void *vh = NULL;
    if (!rc && (H5Fget_vfd_handle(file, H5P_DEFAULT, &vh) < 0 || !vh)) rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot get the file's MPI_File");
    if (!rc) {
        MPI_Group g;
        *fh = *(MPI_File *)vh;
        MPI_File_get_group(*fh, &g);
        MPI_Group_rank(g, rank);
        MPI_Group_size(g, size);
        MPI_Group_free(&g);
    }
    if (file >= 0) H5Fclose(file);
    return rc;
}

/* A plan-only colldiag_file. Collective transfers get the file's communicator from HDF5 (a duplicate:
   collective, like the H5Dwrite it plans); independent ones get none, since they never communicate. */
static int h5_plan_file(hid_t dset, int collective, colldiag_file **out, const char *fn)
{
    *out = NULL;
    MPI_File fh;
    int rank, size, rc = h5_mpi_file(dset, &fh, &rank, &size, fn);
    if (rc) return rc;
    colldiag_file *f = cd_calloc(1, sizeof *f);
    if (!f) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the file");
    f->comm = MPI_COMM_NULL;
    f->op = MPI_OP_NULL;
    f->rank = rank;
    f->size = size;
    f->driver = COLLDIAG_DRIVER_MPIO; /* plan_only: no view is checked, nothing is extended or moved */
    f->fh = MPI_FILE_NULL;
    f->size_fh = fh; /* HDF5's, valid while the dataset's file is open: asked only for the file's size */
    f->fd = -1;
    f->ds_write = -1;
    f->plan_only = 1;
    {
        hid_t file = H5Iget_file_id(dset);
        unsigned intent = H5F_ACC_RDWR;
        if (file >= 0 && H5Fget_intent(file, &intent) < 0) intent = H5F_ACC_RDWR;
        if (file >= 0) H5Fclose(file);
        f->read_only = !(intent & H5F_ACC_RDWR); /* HDF5 1.14 caches a read-only file's small chunks */
    }
    if (collective && h5_plan_lends) {
        const int rc = h5_bridge_comm(dset, &f->comm, &f->op, &f->md_local, fn);
        if (rc) { cd_free(f); return rc; }
        f->comm_lent = 1;
    } else if (collective) {
        hid_t file = H5Iget_file_id(dset), fapl = H5Fget_access_plist(file);
        MPI_Info info = MPI_INFO_NULL;
        hbool_t coll_md = 1;
        f->md_local = H5Pget_all_coll_metadata_ops(fapl, &coll_md) >= 0 && !coll_md;
        if (H5Pget_fapl_mpio(fapl, &f->comm, &info) < 0) f->comm = MPI_COMM_NULL;
        if (info != MPI_INFO_NULL) MPI_Info_free(&info);
        H5Pclose(fapl);
        H5Fclose(file);
        if (f->comm == MPI_COMM_NULL) { cd_free(f); return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot get the file's communicator"); }
        MPI_Op_create(cd_agree_fn, 1, &f->op);
    }
    *out = f;
    return 0;
}

/* A planned read of filtered chunks as HDF5 runs it (colldiag_get_filtered_read): every rank reads each
   allocated chunk it selects from whole and inflates it. This rank's chunks come from the plan; their
   stored sizes from HDF5's lookup, one a chunk (a plan's cost: O(chunks this rank touches)), never on
   a file whose metadata reads are collective, where one rank's lookups would wait for the others. */
static void h5_filtered_facts(hid_t dset, const colldiag_layout *l, colldiag_xfer *x)
{
    uint64_t n = 0, chunks = 0, stored = 0, shared = 0;
    const colldiag_chunk_info *ci = NULL;
    if (h5_reads_need_all_ranks(dset) || colldiag_get_chunk_info(x, &n, &ci)) return;
    for (uint64_t i = 0; i < n; i++) {
        hsize_t off[COLLDIAG_MAX_RANK];
        for (int d = 0; d < l->rank; d++) off[d] = (hsize_t)(ci[i].coords[d] * l->cdims[d]);
        unsigned fm = 0;
        haddr_t a = HADDR_UNDEF;
        hsize_t sz = 0;
        if (H5Dget_chunk_info_by_coord(dset, off, &fm, &a, &sz) < 0) return;
        if (a == HADDR_UNDEF) continue; /* never written: HDF5 gives the fill value, reads nothing */
        chunks++;
        stored += sz;
        shared += ci[i].nproc > 1;
    }
    x->filt_chunks = chunks;
    x->filt_stored = stored;
    x->filt_raw = chunks * l->chunk_bytes;
    x->filt_shared = shared;
    x->filt_known = 1;
}

static int h5_plan(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, colldiag_direction_t dir,
                   colldiag_xfer *x, colldiag_file **file_out)
{
    static const char fn[] = "colldiag_h5_plan";
    if (file_out) *file_out = NULL;
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL (this rank cannot take part: its results have nowhere to go)");
    colldiag_layout *l = NULL;
    colldiag_sel *fs = NULL, *ms = NULL;
    colldiag_file *f = NULL;
    /* a bad argument found here still takes part in the plan's agreement below (a collective plan would
       otherwise leave the other ranks waiting): it only decides how this rank fails */
    int bad = !file_out ? cd_fail(COLLDIAG_ERR_ARG, fn, "file_out is NULL")
            : dir != COLLDIAG_TO_FILE && dir != COLLDIAG_TO_MEMORY ? cd_fail(COLLDIAG_ERR_ARG, fn, "dir = %d is not TO_FILE or TO_MEMORY", (int)dir)
                                                                     : 0;
    char badmsg[sizeof cd_errbuf];
    snprintf(badmsg, sizeof badmsg, "%s", bad ? cd_errbuf : "");
    int rc = h5_dxpl_settings(dxpl, x, fn);
    /* the transfer mode decides whether this call may communicate: read it before anything that might */
    if (!rc) rc = h5_plan_file(dset, x->set.mode == COLLDIAG_MPIO_COLLECTIVE, &f, fn);
    /* a file whose metadata reads need every rank: never H5Dget_create_plist in an independent call */
    if (!rc) rc = h5_reads_need_all_ranks(dset) ? h5_plan_layout_learned(dset, x->set.mode == COLLDIAG_MPIO_COLLECTIVE, &l, fn)
                                                : h5_plan_layout(dset, &l, fn);
    if (!rc) h5_selection_facts(dset, dxpl, x, f);
    if (!rc) {
        hid_t dtype = H5Dget_type(dset);
        htri_t same = -1;
        size_t msize = 0;
        H5E_BEGIN_TRY { /* a bad mem_type is the caller's error, reported as ours: no HDF5 stack on stderr */
            same = dtype >= 0 ? H5Tequal(mem_type, dtype) : -1;
            msize = H5Tget_size(mem_type);
        } H5E_END_TRY;
        if (dtype >= 0) H5Tclose(dtype);
        if (same < 0 || msize == 0) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "mem_type is not a datatype");
        else if (!same) rc = colldiag_set_type_conversion(x, msize, h5_never_convert, NULL);
        else rc = colldiag_set_type_conversion(x, 0, NULL, NULL);
    }
    /* H5S_ALL: the file selection is the whole dataset, the memory space is the file space */
    hid_t fsp = file_space == H5S_ALL ? H5Dget_space(dset) : file_space;
    if (!rc) rc = colldiag_h5_sel(fsp, &fs);
    if (!rc) rc = colldiag_h5_sel(mem_space == H5S_ALL ? fsp : mem_space, &ms);
    if (file_space == H5S_ALL && fsp >= 0) H5Sclose(fsp);
    /* a collective write into chunks without a written fill: the real addresses, for the bytes at risk */
    if (!rc && dir == COLLDIAG_TO_FILE && f->comm != MPI_COMM_NULL && l->storage == STORE_CHUNKED && l->fill_unwritten) {
        hid_t sp = file_space == H5S_ALL ? H5Dget_space(dset) : file_space;
        h5_plan_chunk_addrs(dset, l, f, sp);
        if (file_space == H5S_ALL && sp >= 0) H5Sclose(sp);
    }
    if (!rc && bad) {
        rc = bad;
        snprintf(cd_errbuf, sizeof cd_errbuf, "%s", badmsg);
    }
    if (rc) {
        /* a collective plan that failed here must still meet the other ranks in colldiag_plan's agreement,
           or they would wait for this rank forever: plan with what we have, which fails everywhere */
        if (f && f->comm != MPI_COMM_NULL) {
            char keep[sizeof cd_errbuf];
            snprintf(keep, sizeof keep, "%s", cd_errbuf);
            cd_transfer(f, NULL, NULL, NULL, NULL, NULL, x, DIR_PLAN, fn);
            snprintf(cd_errbuf, sizeof cd_errbuf, "%s", keep);
            snprintf(x->errmsg, sizeof x->errmsg, "%s", keep);
        }
    } else {
        f->plan_read = dir == COLLDIAG_TO_MEMORY; /* HDF5 1.10 decides alike but for filtered chunks */
        rc = cd_transfer(f, l, fs, ms, NULL, NULL, x, DIR_PLAN, fn);
        if (!rc && l->filtered && dir == COLLDIAG_TO_MEMORY) h5_filtered_facts(dset, l, x);
    }
    colldiag_sel_free(fs);
    colldiag_sel_free(ms);
    colldiag_layout_free(l);
    if (file_out) *file_out = f;
    else colldiag_file_close(f);
    return rc;
}

/* This rank's words of a collective H5Dwrite's (or, read, H5Dread's) bytes at risk, without the plan's agreement (decision.c,
   cd_risk_local): the layout, selections and chunk addresses as h5_plan finds them, on a plan file with
   no communicator. For the run's summary alone (COLLDIAG_REPORT=summary), which merges the words at its
   end: the same count as a plan's, no collective per call. The caller makes it only in a collective call
   (every rank is there: a dataset learned here on a file whose metadata reads are collective is learned
   by every rank alike). v: AG_N words; *cap: the dataset's bytes. 0, or an error (nothing to record). */
static int h5_risk_words_of(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf, int read,
                            uint64_t v[AG_N], uint64_t *cap)
{
    static const char fn[] = "colldiag summary";
    colldiag_xfer x;
    xfer_init(&x);
    colldiag_layout *l = NULL;
    colldiag_sel *fs = NULL, *ms = NULL;
    colldiag_file *f = NULL;
    int rc = h5_dxpl_settings(dxpl, &x, fn);
    if (!rc && x.set.mode != COLLDIAG_MPIO_COLLECTIVE) rc = COLLDIAG_ERR_ARG;
    if (!rc) rc = h5_plan_file(dset, 0, &f, fn);
    if (!rc) {
        f->md_local = h5_alloc_md_local(dset);
        f->plan_read = read; /* a read's words are its extent's (risk_read_local) */
        rc = h5_reads_need_all_ranks(dset) ? h5_plan_layout_learned(dset, 1, &l, fn) : h5_plan_layout(dset, &l, fn);
    }
    if (!rc) {
        hid_t dtype = H5Dget_type(dset);
        const htri_t same = dtype >= 0 ? H5Tequal(mem_type, dtype) : -1;
        const size_t msize = H5Tget_size(mem_type);
        if (dtype >= 0) H5Tclose(dtype);
        if (same < 0 || msize == 0) rc = COLLDIAG_ERR_ARG;
        else if (!same) rc = colldiag_set_type_conversion(&x, msize, h5_never_convert, NULL);
    }
    hid_t fsp = file_space == H5S_ALL ? H5Dget_space(dset) : file_space;
    if (!rc) rc = colldiag_h5_sel(fsp, &fs);
    if (!rc) rc = colldiag_h5_sel(mem_space == H5S_ALL ? fsp : mem_space, &ms);
    if (!rc && !read && l->storage == STORE_CHUNKED && l->fill_unwritten) h5_plan_chunk_addrs(dset, l, f, fsp);
    if (file_space == H5S_ALL && fsp >= 0) H5Sclose(fsp);
    if (!rc) {
        rc = cd_risk_local(f, l, fs, ms, buf, &x, v);
        *cap = l->nelem * l->esize;
    }
    colldiag_sel_free(fs);
    colldiag_sel_free(ms);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    xfer_release(&x);
    return rc;
}

/* ... under one H5E_BEGIN_TRY, as the bridge's entry points are: what HDF5 reports as an error on the
   way (a DXPL's data transform "not set" is one) never reaches the program's stderr, which must read as
   without the library (the summary alone printed 88 HDF5 error stacks for tests/h5_client.c's run). */
CD_MAYBE_UNUSED static int h5_risk_words(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf, int read,
                                         uint64_t v[AG_N], uint64_t *cap)
{
    int rc = 0;
    H5E_BEGIN_TRY { rc = h5_risk_words_of(dset, mem_type, mem_space, file_space, dxpl, buf, read, v, cap); } H5E_END_TRY;
    return rc;
}

int colldiag_h5_plan(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, colldiag_direction_t dir,
                     colldiag_xfer *x, colldiag_file **file_out)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY { rc = h5_plan(dset, mem_type, mem_space, file_space, dxpl, dir, x, file_out); } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

/* H5Dwrite_multi / H5Dread_multi planned (colldiag_h5_plan_multi): every dataset's layout and
   selections as h5_plan finds them, then one colldiag multi-dataset plan under the linked HDF5's rules.
   Nothing is read from the file (dense chunk addresses, as h5_plan). A dataset the plan cannot carry
   on some rank (another file, a memory type that differs: colldiag's multi-dataset plans do not
   convert; a bad argument; on a file with collective metadata reads, a dataset not learned before)
   fails the plan on every rank, naming it: dsets[0] and the DXPL name the
   communicator, so a rank with a bad one returns at once (as colldiag_h5_write_multi). The selection
   facts (chunk cache, conversion buffer) are dataset 0's. */
static int h5_plan_multi(size_t count, const hid_t dsets[], const hid_t mem_types[], const hid_t mem_spaces[], const hid_t file_spaces[],
                         hid_t dxpl, colldiag_direction_t dir, colldiag_xfer *x, colldiag_file **file_out)
{
    static const char fn[] = "colldiag_h5_plan_multi";
    if (file_out) *file_out = NULL;
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL (this rank cannot take part: its results have nowhere to go)");
    if (!file_out) return cd_fail(COLLDIAG_ERR_ARG, fn, "file_out is NULL");
    if (count == 0 || !dsets) return cd_fail(COLLDIAG_ERR_ARG, fn, count ? "dset_ids is NULL" : "count is 0: nothing names the file");
    colldiag_file *f = NULL;
    int rc = h5_dxpl_settings(dxpl, x, fn);
    const int collective = x->set.mode == COLLDIAG_MPIO_COLLECTIVE;
    h5_oid oi0 = {0, 0};
    if (!rc && h5_object_id(dsets[0], &oi0) < 0) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset_ids[0] is not an open dataset");
    if (!rc) rc = h5_plan_file(dsets[0], collective, &f, fn);
    if (rc) {
        snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
        return rc;
    }
    /* from here on a collective plan reaches colldiag's agreement on every rank, whatever it finds */
    colldiag_layout **ls = cd_calloc(count, sizeof *ls);
    colldiag_sel **fs = cd_calloc(count, sizeof *fs), **ms = cd_calloc(count, sizeof *ms);
    char why[512] = "";
    int code = COLLDIAG_ERR_UNSUPPORTED;
    if (!ls || !fs || !ms) snprintf(why, sizeof why, "no memory for %zu datasets' plans", count);
    else if (dir != COLLDIAG_TO_FILE && dir != COLLDIAG_TO_MEMORY) {
        code = COLLDIAG_ERR_ARG;
        snprintf(why, sizeof why, "dir = %d is not TO_FILE or TO_MEMORY", (int)dir);
    } else if (!mem_types || !mem_spaces || !file_spaces) {
        code = COLLDIAG_ERR_ARG;
        snprintf(why, sizeof why, "%s is NULL with count = %zu", !mem_types ? "mem_type_ids" : !mem_spaces ? "mem_space_ids" : "file_space_ids", count);
    }
    for (size_t i = 0; !why[0] && i < count; i++) {
        h5_oid oi;
        if (h5_object_id(dsets[i], &oi) < 0) {
            code = COLLDIAG_ERR_ARG;
            snprintf(why, sizeof why, "dataset %zu: not an open dataset", i);
            break;
        }
        if (oi.fileno != oi0.fileno) {
            snprintf(why, sizeof why, "dataset %zu: in another file than dataset 0 (one call moves one file's datasets)", i);
            break;
        }
        /* on a file whose metadata reads need every rank, never learn a dataset here, even in a collective
           plan: a rank whose earlier dataset failed on its own stops this loop, and a lone collective read
           would hang the others. What was learned (at H5Dopen2 / H5Dcreate, alike on every rank) serves. */
        const int all_ranks = h5_reads_need_all_ranks(dsets[i]);
        int r = all_ranks ? h5_plan_layout_learned(dsets[i], -1, &ls[i], fn) : h5_plan_layout(dsets[i], &ls[i], fn);
        if (!r) {
            hid_t dtype = H5Dget_type(dsets[i]);
            const htri_t same = dtype >= 0 ? H5Tequal(mem_types[i], dtype) : -1;
            if (dtype >= 0) H5Tclose(dtype);
            if (same < 0) r = cd_fail(COLLDIAG_ERR_ARG, fn, "mem_type is not a datatype");
            else if (!same) r = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the memory type differs from the dataset's (HDF5 converts; colldiag's multi-dataset plans do not)");
        }
        hid_t fsp = file_spaces[i] == H5S_ALL ? H5Dget_space(dsets[i]) : file_spaces[i];
        if (!r) r = colldiag_h5_sel(fsp, &fs[i]);
        if (!r) r = colldiag_h5_sel(mem_spaces[i] == H5S_ALL ? fsp : mem_spaces[i], &ms[i]);
        if (file_spaces[i] == H5S_ALL && fsp >= 0) H5Sclose(fsp);
        if (r) {
            code = r;
            snprintf(why, sizeof why, "dataset %zu: %.480s", i, cd_errbuf);
        }
    }
    if (why[0]) {
        x->pre_code = code;
        snprintf(x->pre_msg, sizeof x->pre_msg, "%s", why);
    } else {
        h5_selection_facts(dsets[0], dxpl, x, f);
    }
    f->plan_read = dir == COLLDIAG_TO_MEMORY;
    rc = cd_transfer_multi(f, why[0] ? 0 : count, (const colldiag_layout *const *)ls, (const colldiag_sel *const *)fs,
                           (const colldiag_sel *const *)ms, NULL, NULL, x, DIR_PLAN, fn);
    if (rc == COLLDIAG_ERR_PEER && x->peer_code == COLLDIAG_ERR_UNSUPPORTED) rc = COLLDIAG_ERR_UNSUPPORTED;
    for (size_t i = 0; i < count; i++) {
        if (ls) colldiag_layout_free(ls[i]);
        if (fs) colldiag_sel_free(fs[i]);
        if (ms) colldiag_sel_free(ms[i]);
    }
    cd_free(ls);
    cd_free(fs);
    cd_free(ms);
    *file_out = f;
    return rc;
}

int colldiag_h5_plan_multi(size_t count, const hid_t dset_ids[], const hid_t mem_type_ids[], const hid_t mem_space_ids[],
                           const hid_t file_space_ids[], hid_t dxpl, colldiag_direction_t dir, colldiag_xfer *x, colldiag_file **file_out)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY { rc = h5_plan_multi(count, dset_ids, mem_type_ids, mem_space_ids, file_space_ids, dxpl, dir, x, file_out); } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

/* Whether the selection is shifted by an offset (H5Soffset_simple), which HDF5 1.10 cannot be asked for:
   H5Sget_select_bounds includes it, the block and point lists do not. */
static int h5_sel_offset(hid_t space, int rank, const hsize_t *const reg[4], const hsize_t *dims, int *inside)
{
    hsize_t lo[COLLDIAG_MAX_RANK], hi[COLLDIAG_MAX_RANK], mlo[COLLDIAG_MAX_RANK], mhi[COLLDIAG_MAX_RANK];
    *inside = 0;
    if (rank < 1 || rank > COLLDIAG_MAX_RANK || H5Sget_select_bounds(space, lo, hi) < 0) return 0; /* nothing selected */
    for (int d = 0; d < rank; d++) { mlo[d] = HSIZE_UNDEF; mhi[d] = 0; }
    if (reg) { /* a regular hyperslab, as colldiag_h5_sel read it: O(1) */
        const hsize_t *a = reg[0], *b = reg[1], *c = reg[2], *z = reg[3];
        for (int d = 0; d < rank; d++)
            if (c[d] && z[d] && (a[d] != lo[d] || a[d] + (c[d] - 1) * b[d] + z[d] - 1 != hi[d])) return 1;
        /* no offset, so the bounds are the blocks' own, which is what HDF5's H5Sselect_valid checks for a
           regular hyperslab (start >= 0, last element < extent, per dimension) */
        *inside = 1;
        for (int d = 0; d < rank; d++) *inside &= hi[d] < dims[d];
        return 0;
    }
    const int pts = H5Sget_select_type(space) == H5S_SEL_POINTS;
    hssize_t n = pts ? H5Sget_select_elem_npoints(space) : H5Sget_select_hyper_nblocks(space);
    const size_t per = (size_t)rank * (pts ? 1 : 2);
    hsize_t buf[2 * COLLDIAG_MAX_RANK * 64];
    for (hssize_t k = 0; k < n;) {
        const hsize_t m = (hsize_t)(n - k) < 64 ? (hsize_t)(n - k) : 64;
        herr_t e = pts ? H5Sget_select_elem_pointlist(space, (hsize_t)k, m, buf) : H5Sget_select_hyper_blocklist(space, (hsize_t)k, m, buf);
        if (e < 0) return 0;
        for (hsize_t i = 0; i < m; i++)
            for (int d = 0; d < rank; d++) {
                const hsize_t a = buf[i * per + (size_t)d], z = buf[i * per + (pts ? 0 : (size_t)rank) + (size_t)d];
                if (a < mlo[d]) mlo[d] = a;
                if (z > mhi[d]) mhi[d] = z;
            }
        k += (hssize_t)m;
    }
    for (int d = 0; d < rank; d++)
        if (n > 0 && (mlo[d] != lo[d] || mhi[d] != hi[d])) return 1;
    return 0;
}

/* What h5_sel_read proves about a selection without asking HDF5 again (each query costs 0.1-0.3 us in
   place, and a small call makes a dozen): */
enum {
    H5SEL_INSIDE = 1, /* within the extent (H5Sselect_valid would say so): all or none selected, or a
                         regular hyperslab, without offset, whose bounds are inside */
    H5SEL_COUNTED = 2 /* HDF5 counts what its block list holds: all or none selected (a hyperslab, even a
                         regular one, can be miscounted by 1.10.8: h5_sel_inconsistent) */
};

/* colldiag_h5_sel, and (known != NULL) the H5SEL_* facts proven about it. */
static int h5_sel_read(hid_t space, colldiag_sel **out, int *known)
{
    static const char fn[] = "colldiag_h5_sel";
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    *out = NULL;
    if (known) *known = 0;
    hsize_t hd[H5S_MAX_RANK];
    const int rank = H5Sget_simple_extent_dims(space, hd, NULL); /* the rank of a simple dataspace, 0 for scalar and null ones */
    const H5S_class_t cls = rank > 0 ? H5S_SIMPLE : H5Sget_simple_extent_type(space);
    if (cls == H5S_NO_CLASS) return cd_fail(COLLDIAG_ERR_ARG, fn, "space is not a dataspace");
    if (cls == H5S_NULL) return colldiag_sel_create_null(out);
    int rc, is_regular = 0, inside = 0;
    colldiag_sel *s = NULL;
    const H5S_sel_type st = H5Sget_select_type(space);
    if (known && (st == H5S_SEL_ALL || st == H5S_SEL_NONE)) *known = H5SEL_INSIDE | H5SEL_COUNTED;
    hsize_t a[COLLDIAG_MAX_RANK], b[COLLDIAG_MAX_RANK], c[COLLDIAG_MAX_RANK], e[COLLDIAG_MAX_RANK];
    const hsize_t *const regular[4] = {a, b, c, e};
    if (cls == H5S_SCALAR) {
        rc = colldiag_sel_create_scalar(&s);
        if (!rc && st == H5S_SEL_NONE) rc = colldiag_sel_select_none(s);
        goto out;
    }
    uint64_t dims[COLLDIAG_MAX_RANK];
    if (rank < 1 || rank > COLLDIAG_MAX_RANK) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the dataspace's dims");
    for (int d = 0; d < rank; d++) dims[d] = hd[d];
    rc = colldiag_sel_create(rank, dims, &s);
    if (rc) return rc;
    switch (st) {
    case H5S_SEL_ALL: break;
    case H5S_SEL_NONE: rc = colldiag_sel_select_none(s); break;
    case H5S_SEL_POINTS: {
        hssize_t n = H5Sget_select_elem_npoints(space);
        hsize_t *p = n > 0 ? cd_malloc((size_t)n * (size_t)rank * sizeof *p) : NULL;
        if (n > 0 && !p) { rc = cd_fail(COLLDIAG_ERR_NOMEM, fn, "%lld points", (long long)n); break; }
        if (n > 0 && H5Sget_select_elem_pointlist(space, 0, (hsize_t)n, p) < 0) {
            cd_free(p);
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the point list");
            break;
        }
        /* hsize_t and uint64_t are both 64-bit unsigned here */
        _Static_assert(sizeof(hsize_t) == sizeof(uint64_t), "hsize_t is not 64-bit");
        rc = n > 0 ? colldiag_sel_select_elements(s, COLLDIAG_SELECT_SET, (uint64_t)n, (const uint64_t *)p) : colldiag_sel_select_none(s);
        cd_free(p);
        break;
    }
    case H5S_SEL_HYPERSLABS: {
        if (H5Sis_regular_hyperslab(space) > 0 && H5Sget_regular_hyperslab(space, a, b, c, e) >= 0) {
            is_regular = 1;
            rc = colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, (const uint64_t *)a, (const uint64_t *)b, (const uint64_t *)c,
                                               (const uint64_t *)e);
            break;
        }
        /* irregular: the union of HDF5's disjoint blocks, which iterates in the same row-major order */
        hssize_t nb = H5Sget_select_hyper_nblocks(space);
        rc = colldiag_sel_select_none(s);
        hsize_t *bl = nb > 0 ? cd_malloc((size_t)nb * 2 * (size_t)rank * sizeof *bl) : NULL;
        if (nb > 0 && (!bl || H5Sget_select_hyper_blocklist(space, 0, (hsize_t)nb, bl) < 0)) {
            cd_free(bl);
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the hyperslab block list");
            break;
        }
        for (hssize_t i = 0; i < nb && !rc; i++) {
            uint64_t st0[COLLDIAG_MAX_RANK], cnt[COLLDIAG_MAX_RANK], one[COLLDIAG_MAX_RANK];
            for (int d = 0; d < rank; d++) {
                st0[d] = bl[(size_t)i * 2 * (size_t)rank + (size_t)d];
                cnt[d] = bl[(size_t)i * 2 * (size_t)rank + (size_t)rank + (size_t)d] - st0[d] + 1;
                one[d] = 1;
            }
            rc = colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_OR, st0, NULL, one, cnt);
        }
        cd_free(bl);
        break;
    }
    default: rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "unknown selection type %d", (int)st); break;
    }
out:
    if (!rc && cls == H5S_SIMPLE && (st == H5S_SEL_POINTS || st == H5S_SEL_HYPERSLABS) &&
        h5_sel_offset(space, rank, is_regular ? regular : NULL, hd, &inside)) {
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataspace has an offset (H5Soffset_simple): colldiag does not shift selections");
    }
    if (rc) { colldiag_sel_free(s); return rc; }
    if (known && inside) *known |= H5SEL_INSIDE;
    *out = s;
    return 0;
}

int colldiag_h5_sel(hid_t space, colldiag_sel **out)
{
    return h5_sel_read(space, out, NULL);
}

#endif /* COLLDIAG_WITH_HDF5 */

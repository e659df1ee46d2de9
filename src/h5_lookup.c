#ifdef COLLDIAG_WITH_HDF5

/* ---- chunk addresses through HDF5's own lookup ----
   A dataset's first call that reads the chunk index from the file must flush the file first (collective,
   and it writes out every dirty metadata entry: ~1.5 ms a dataset here; a program that writes each of a
   thousand small variables once paid it a thousand times, 3x HDF5's own time). HDF5's
   H5Dget_chunk_info_by_coord needs no flush (it reads through HDF5's metadata cache) and is local, but
   walks the whole index for every chunk it is asked (6.5 ns a chunk of the index per lookup with the
   default format, 50 ns with the latest). So a dataset whose call can be answered within a budget of
   index visits (chunks of the dataset x chunks the selection's bounding box spans <= COLLDIAG_H5_LOOKUP_BUDGET,
   default 65,536: under 0.5 ms with the default format) uses it, also in an independent call; beyond
   the budget the collective path (flush, then colldiag's own walk of the index) takes over. Not when the
   file's metadata reads are collective (H5Pset_all_coll_metadata_ops: a lookup on one rank would wait
   for the others) or unknown (no collective call on the file yet), and not for a dataset with one
   unlimited dimension that is not the first: 1.10.8's lookup then gets extensible-array indexes wrong
   (test_h5accel part A shows it). */
typedef struct {
    hid_t dset;                          /* the current call's id of the dataset (set by every call) */
    int rank;
    uint64_t cdims[COLLDIAG_MAX_RANK], grid[COLLDIAG_MAX_RANK];
    uint64_t ub;                         /* added to HDF5's addresses: the userblock before 1.14.4 (h5_chunk_info_base) */
} h5_coord_ctx;

/* HDF5's lookup for each chunk (cd_resolve_rec_fn): addresses, and where stored is not NULL (a filtered
   dataset's reads) stored sizes and filter masks. */
static int h5_coord_resolve_rec(void *ctx, uint64_t n, const uint64_t *idx, MPI_Offset *addr, uint64_t *stored, uint32_t *mask, char *why,
                                size_t wl)
{
    const h5_coord_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        hsize_t off[COLLDIAG_MAX_RANK];
        uint64_t k = idx[i];
        for (int d = c->rank - 1; d >= 0; d--) { off[d] = (k % c->grid[d]) * c->cdims[d]; k /= c->grid[d]; }
        unsigned fm = 0;
        haddr_t a = HADDR_UNDEF;
        hsize_t sz = 0;
        if (H5Dget_chunk_info_by_coord(c->dset, off, &fm, &a, &sz) < 0) {
            snprintf(why, wl, "H5Dget_chunk_info_by_coord failed for chunk %" PRIu64, idx[i]);
            return -1;
        }
        addr[i] = a == HADDR_UNDEF ? -1 : (MPI_Offset)(a + c->ub);
        if (stored) {
            stored[i] = a == HADDR_UNDEF ? 0 : (uint64_t)sz;
            mask[i] = a == HADDR_UNDEF ? 0 : fm;
        }
    }
    return 0;
}

/* Addresses only (cd_resolve_fn). */
static int h5_coord_resolve(void *ctx, uint64_t n, const uint64_t *idx, MPI_Offset *addr, char *why, size_t wl)
{
    return h5_coord_resolve_rec(ctx, n, idx, addr, NULL, NULL, why, wl);
}

/* 1 if this call finds its chunk addresses with HDF5's lookup (see above). fsp: the file selection. */
static int h5_lookup_affordable(const hsize_t *cdims, int rank, const hsize_t *dims, const hsize_t *maxd, hid_t fsp, int md_local)
{
    if (md_local != 1) return 0;
    int unlim = 0, first = 0;
    for (int d = 0; d < rank; d++)
        if (maxd[d] == H5S_UNLIMITED) { unlim++; first = d == 0; }
    if (unlim == 1 && !first) return 0;
    const char *b = cd_getenv("COLLDIAG_H5_LOOKUP_BUDGET");
    const double budget = b && *b ? strtod(b, NULL) : 65536.0;
    double n = 1, k = 1;
    hsize_t lo[COLLDIAG_MAX_RANK], hi[COLLDIAG_MAX_RANK];
    const hssize_t np = H5Sget_select_npoints(fsp);
    if (np == 0) return budget > 0;
    if (np < 0 || H5Sget_select_bounds(fsp, lo, hi) < 0) return 0;
    for (int d = 0; d < rank; d++) {
        n *= (double)(dims[d] / cdims[d] + (dims[d] % cdims[d] != 0));
        k *= (double)(hi[d] / cdims[d] - lo[d] / cdims[d] + 1);
    }
    return n * k <= budget;
}

/* A plan's placeholder addresses (h5_plan_chunk_addrs): dense, as the plan's layout had them. */
static int h5_dense_resolve(void *ctx, uint64_t n, const uint64_t *idx, MPI_Offset *addr, char *why, size_t wl)
{
    (void)why; (void)wl;
    const h5_coord_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) addr[i] = (MPI_Offset)(idx[i] * c->ub);
    return 0;
}

/* The chunk addresses of a plan whose bytes at risk need them (a collective write into chunks without a
   written fill: h5_plan.c): HDF5's own lookup on this rank, for the chunks the call touches, where the
   file's metadata reads are local (f->md_local: the lookup then never waits for another rank) and the
   call is within COLLDIAG_H5_LOOKUP_BUDGET, as for an accelerated call (h5_lookup_affordable). Anywhere
   else the layout's dense addresses stay, marked as placeholders (addr_unknown: risk_local then counts
   this rank's touched chunks as past the end, COLLDIAG_RISK_MAYBE), unless the dataset's storage is
   known to lie inside the file (h5_alloc_inside: nothing then at risk). Both give the layout the same
   identity on every rank (its digest is agreed in the plan), from the object's address and the grid.
   Local. */
static void h5_plan_chunk_addrs(hid_t dset, colldiag_layout *l, const colldiag_file *f, hid_t fsp)
{
    hsize_t dims[H5S_MAX_RANK], maxd[H5S_MAX_RANK], ub = 0;
    h5_oid oi;
    hid_t space = H5Dget_space(dset);
    const int rank = space >= 0 ? H5Sget_simple_extent_dims(space, dims, maxd) : -1;
    if (space >= 0) H5Sclose(space);
    hid_t file = H5Iget_file_id(dset), fcpl = file >= 0 ? H5Fget_create_plist(file) : -1;
    if (fcpl < 0 || H5Pget_userblock(fcpl, &ub) < 0) ub = 0;
    if (fcpl >= 0) H5Pclose(fcpl);
    if (file >= 0) H5Fclose(file);
    h5_coord_ctx *c = cd_calloc(1, sizeof *c);
    l->addr_unknown = 1;
    if (!c || rank != l->rank || h5_object_id(dset, &oi) < 0) { cd_free(c); return; }
    hsize_t cd[H5S_MAX_RANK] = {0};
    for (int d = 0; d < rank; d++) cd[d] = l->cdims[d];
    const int exact = h5_lookup_affordable(cd, rank, dims, maxd, fsp, f->md_local);
    c->dset = dset;
    c->rank = rank;
    for (int d = 0; d < rank; d++) { c->cdims[d] = l->cdims[d]; c->grid[d] = l->grid[d]; }
    c->ub = exact ? h5_chunk_info_base(ub) : l->chunk_bytes; /* the placeholders' stride */
    if (layout_set_resolver(l, exact ? h5_coord_resolve : h5_dense_resolve, c, cd_free, h5_chunks_ident(oi.addr, ub, l))) {
        cd_free(c);
        return;
    }
    /* not asked, but the dataset was neither created nor grown since the file's last flush: inside it */
    if (!exact && h5_alloc_inside(dset)) l->fill_unwritten = 0;
    else l->addr_unknown = !exact;
}

/* A lazy layout for the current extent answered by HDF5's lookup. 0, or -1 with e->why. */
static int h5_build_coord_layout(hid_t dset, const h5_oid *oi, h5_dentry *e, int rank, const hsize_t *dims)
{
    uint64_t d64[COLLDIAG_MAX_RANK], c64[COLLDIAG_MAX_RANK];
    for (int d = 0; d < rank; d++) { d64[d] = dims[d]; c64[d] = e->cdims[d]; }
    h5_coord_ctx *c = cd_calloc(1, sizeof *c);
    hsize_t ub = 0;
    hid_t file = H5Iget_file_id(dset), fcpl = file >= 0 ? H5Fget_create_plist(file) : -1;
    int rc = !c || fcpl < 0 || H5Pget_userblock(fcpl, &ub) < 0 ? -1 : 0;
    if (fcpl >= 0) H5Pclose(fcpl);
    if (file >= 0) H5Fclose(file);
    if (!rc) rc = colldiag_layout_chunked(rank, d64, c64, H5Tget_size(e->type), 0, &e->l);
    if (!rc) colldiag_layout_set_fill_written(e->l, !e->fill_unwritten); /* the bytes at risk of HDF5's path need it */
    if (!rc) {
        c->dset = dset;
        c->rank = rank;
        c->ub = h5_chunk_info_base(ub);
        for (int d = 0; d < rank; d++) { c->cdims[d] = e->l->cdims[d]; c->grid[d] = e->l->grid[d]; }
        rc = layout_set_resolver(e->l, h5_coord_resolve, c, cd_free, h5_chunks_ident(oi->addr, ub, e->l));
        if (!rc && e->pipe) h5_layout_filters(e->l, e, h5_coord_resolve_rec);
    }
    if (rc) {
        cd_free(c);
        colldiag_layout_free(e->l);
        e->l = NULL;
        h5_text_set(&e->why, "cannot describe the dataset's chunks for HDF5's lookup");
        return -1;
    }
    e->by_hdf5 = 1;
    return 0;
}

/* One dataset's part of a bridge call, local: its cache entry, extent, selections, and either why
   colldiag cannot move it (why[0] set: HDF5 runs the call) or need = 1 when its chunk index must be
   read from the file first (in a collective call). fe: the file's entry. */
/* Why HDF5 runs a call whose chunk index colldiag may not flush to read (h5_flush_unsafe). */
static const char h5_coll_md_why[] = "reading the chunk index needs a file flush, and in a writable file whose metadata reads are collective "
                                     "(H5Pset_all_coll_metadata_ops) a flush could leave HDF5 1.12+'s own later independent calls waiting for "
                                     "ranks that never come: HDF5 runs it";
/* Why HDF5 runs a small call whose chunk index would have to be read first (h5_defer_fetch). */
static const char h5_small_call_why[] = "reading the chunk index needs a file flush, which a call this small does not pay for: HDF5 runs "
                                        "it (see COLLDIAG_H5_FETCH_BYTES and COLLDIAG_H5_FETCH_CALLS)";
/* The same, for a dataset whose storage colldiag has not read yet (h5_small_first_call decides without it). */
static const char h5_unlearned_why[] = "a small call, which HDF5 runs before colldiag reads more of the dataset: its storage is not contiguous at a "
                                       "known address, and if it is chunked, reading the chunk index needs a file flush, which a call this "
                                       "small does not pay for (see COLLDIAG_H5_FETCH_BYTES and COLLDIAG_H5_FETCH_CALLS)";

/* Whether a collective call is one h5_defer_fetch would leave to HDF5, decided on every rank alone:
   the agreement it saves is most of what such a call costs colldiag (netCDF-4 writing each of many
   small variables once: every call is one). Only where every input is the same on every rank, so
   that every rank decides alike: the environment is rank 0's on every rank (h5_env_uniform: the
   preload), the file's metadata reads are collective (then HDF5's own lookup is never used and a
   dataset's index is only ever read in collective calls, by every rank together; HDF5 itself needs
   every rank to set H5Pset_all_coll_metadata_ops alike), the dataset's storage, type and extent are
   the dataset's, and its bytes stay below COLLDIAG_H5_FETCH_BYTES (no rank's call can then move that
   much) while, at this extent, the index has not been read and HDF5 has run fewer than
   COLLDIAG_H5_FETCH_CALLS of the collective calls (e->u_*: counted by the collective calls alone, so
   alike on every rank). Not on a file read-only on every rank (agreed in h5_bridge_file): reading its
   index needs no flush, so colldiag runs the call (netCDF-4 reading an existing file's small
   variables: ~0.3 ms a call where HDF5 takes ~1 ms). 1: HDF5 runs the call. */
/* This rank's COLLDIAG_H5_FETCH_BYTES (default 1 MiB) and COLLDIAG_H5_FETCH_CALLS (default 2). */
static void h5_fetch_env(uint64_t *bytes, uint64_t *calls)
{
    const char *b = cd_getenv("COLLDIAG_H5_FETCH_BYTES"), *c = cd_getenv("COLLDIAG_H5_FETCH_CALLS");
    *bytes = b && *b ? strtoull(b, NULL, 10) : (uint64_t)1 << 20;
    *calls = c && *c ? strtoull(c, NULL, 10) : 2;
}

static int h5_small_first_call(hid_t dset, const h5_oid *oi, int dir, h5_dentry *e, const h5_fentry *fe, int rank, const hsize_t *dims)
{
    if (!h5_env_uniform || !e || rank < 1 || fe->f->comm == MPI_COMM_NULL || fe->md_local || fe->read_only_all) return 0;
    /* a write into chunks without a written fill that may lie past the end of the file goes to the
       agreement, whose bytes at risk decide it (h5_defer_fetch): HDF5's own write could fill their holes
       with MPI-IO's buffer (a dataset not learned yet is left as it was: its facts may differ by rank) */
    if (dir == DIR_WRITE && e->learned && e->chunked && e->fill_unwritten && !h5_alloc_inside_oi(oi)) return 0;
    /* contiguous storage colldiag finds without an index: it runs the call. Any other (chunks; or
       storage colldiag never moves, whose calls HDF5 runs anyway) may be left to HDF5 here: decided
       without learning the dataset (h5_learn), whose facts one rank may know and another not yet */
    if (H5Dget_offset(dset) != HADDR_UNDEF) return 0;
    h5_collective_extent(e, rank, dims);
    if (e->u_fetched) return 0; /* the index was read at this extent: the addresses are known, or known not to be readable */
    uint64_t min_bytes, max_defers;
    h5_fetch_env(&min_bytes, &max_defers);
    double bytes = (double)H5Tget_size(e->type);
    for (int d = 0; d < rank; d++) bytes *= (double)dims[d];
    if (!(bytes < (double)min_bytes) || e->u_defers >= max_defers) return 0;
    if (!h5_extent_is(e, rank, dims)) h5_drop_layout(e, rank, dims); /* as h5_prepare would: defers start again */
    e->u_defers++;
    e->defers++; /* for the agreement of a later call at this extent (h5_defer_fetch) */
    return 1;
}

/* Why HDF5 runs every call on dset, when that is a fact of the dataset and so alike on every rank (its
   storage, filters or type: h5_facts_of), or NULL. A collective call is then refused on every rank
   without the agreement, whose collective cost as much as a small call (under the preload, a deflated
   dataset's reads ran at 0.92x HDF5's rate with it). Learns the dataset if it must, as the call would. Local. */
static const char *h5_never_fact(hid_t dset)
{
    h5_oid oi;
    if (h5_identify(dset, &oi)) return NULL;
    h5_dentry *e = h5_dataset(dset, &oi);
    if (!e) return NULL;
    if (!e->learned) h5_learn(dset, e);
    return e->learned && e->never_fact && h5_has_text(e->never) ? e->never : NULL;
}

/* The dataset's entry (NULL: no memory) and current extent (rank < 1: unreadable), for h5_prepare;
   notes a shrink across a chunk in the file's entry (h5_shrunk_why). Local. */
typedef struct {
    h5_dentry *e;
    int rank;
    hsize_t dims[COLLDIAG_MAX_RANK], maxd[COLLDIAG_MAX_RANK];
} h5_located;

static void h5_locate(hid_t dset, const h5_oid *oi, h5_fentry *fe, h5_located *lo)
{
    h5_dentry *e = lo->e = h5_dataset(dset, oi);
    const int rank = lo->rank = h5_extent(dset, lo->dims, lo->maxd);
    int smaller = 0;
    for (int d = 0; e && rank > 0 && e->rank == rank && d < rank; d++) smaller |= lo->dims[d] < e->dims[d];
    if (smaller) h5_learn(dset, e); /* rare: the chunk dims tell a shrink across a chunk (h5_shrunk_why) */
    for (int d = 0; smaller && e->chunked && d < rank; d++)
        if (lo->dims[d] < e->dims[d] && lo->dims[d] % e->cdims[d]) fe->shrunk = 1;
}

/* The call's selections read from HDF5 (*fs_out, *ms_out; NULL with why set when HDF5 would reject
   them or they cannot be read). fsp: the file selection's dataspace. Local. */
static void h5_read_sels(hid_t fsp, hid_t mem_space, colldiag_sel **fs_out, colldiag_sel **ms_out, char *why, size_t wl)
{
    colldiag_sel *fs = NULL, *ms = NULL;
    /* what HDF5 need not be asked about the selections (H5SEL_*); H5S_ALL: the file selection again, checked once */
    int fk = 0, mk = H5SEL_INSIDE | H5SEL_COUNTED;
    int unread = h5_sel_read(fsp, &fs, &fk) || (mem_space != H5S_ALL && h5_sel_read(mem_space, &ms, &mk));
    char unread_why[sizeof cd_errbuf];
    if (unread) snprintf(unread_why, sizeof unread_why, "%s", cd_errbuf);
    if (!unread && mem_space == H5S_ALL && sel_clone(fs, &ms)) {
        unread = 1;
        snprintf(unread_why, sizeof unread_why, "no memory for the memory selection");
    }
    const htri_t vf = fk & H5SEL_INSIDE ? 1 : H5Sselect_valid(fsp), vm = mk & H5SEL_INSIDE ? 1 : H5Sselect_valid(mem_space);
    /* HDF5 refuses these (a union of overlapping boxes can come out of H5Sselect_hyperslab with
       blocks past the extent in 1.10.8): HDF5 runs the call and returns its own error */
    if (vf <= 0 || vm <= 0)
        snprintf(why, wl, "HDF5 rejects the %s selection (not within its extent, or not a dataspace)", vf <= 0 ? "file" : "memory");
    else if (unread)
        h5_copy(why, wl, unread_why);
    else {
        const int file_bad = !(fk & H5SEL_COUNTED) && h5_sel_inconsistent(fsp, fs);
        if (file_bad || (!(mk & H5SEL_COUNTED) && h5_sel_inconsistent(mem_space, ms)))
            snprintf(why, wl, "HDF5's %s selection is inconsistent: its blocks cover %llu elements, it counts %lld (HDF5 runs the call)",
                     file_bad ? "file" : "memory", (unsigned long long)colldiag_sel_npoints(file_bad ? fs : ms),
                     (long long)H5Sget_select_npoints(file_bad ? fsp : mem_space));
    }
    *fs_out = fs;
    *ms_out = ms;
}

/* The same for a call prepared without them (h5_prepare's may_skip): after its chunk index was read. */
static void h5_read_call_sels(hid_t dset, hid_t mem_space, hid_t file_space, colldiag_sel **fs_out, colldiag_sel **ms_out, char *why, size_t wl)
{
    const hid_t fsp = file_space == H5S_ALL ? H5Dget_space(dset) : file_space;
    h5_read_sels(fsp, mem_space, fs_out, ms_out, why, wl);
    if (file_space == H5S_ALL && fsp >= 0) H5Sclose(fsp);
}

/* may_skip: a collective call whose chunk index must come from the file (need) is not read further:
   what the agreement needs is the bytes it moves (*need_bytes, from HDF5's count), and most such
   calls are small ones HDF5 then runs (h5_defer_fetch): reading the selections cost a quarter of the
   bridge's part of such a call (perf, one rank). When the index is read after all, the caller reads
   them (h5_read_call_sels); a selection HDF5 rejects is then found there, or by HDF5 itself. */
static void h5_prepare(hid_t dset, const h5_oid *oi, hid_t mem_type, hid_t mem_space, hid_t file_space, const colldiag_xfer *x,
                       int dir, int collective, h5_fentry *fe, const h5_located *lo, colldiag_sel **fsp_out, colldiag_sel **msp_out,
                       hsize_t *dims, int *needp, char *why, size_t wl, int may_skip, uint64_t *need_bytes)
{
    colldiag_sel *fs = NULL, *ms = NULL;
    h5_dentry *e = lo->e;
    const int rank = lo->rank;
    const hsize_t *maxd = lo->maxd;
    memcpy(dims, lo->dims, sizeof lo->dims);
    int need = 0, lookup = 0;
    *fsp_out = *msp_out = NULL;
    *needp = 0;
    if (why[0]) return; /* the caller's reason already (the DXPL's settings unreadable) */
    if (e) h5_learn(dset, e);
    if (!e) snprintf(why, wl, "no memory for the dataset's cache entry");
    else if (rank < 1) snprintf(why, wl, "cannot read the dataset's extent");
    else if (!h5_ineligible(dset, e, fe, mem_type, dir == DIR_WRITE, x, why, wl)) {
        const int stale = !h5_extent_is(e, rank, dims) || (!e->l && !h5_has_text(e->why));
        if (stale && !e->chunked) h5_build_layout(dset, e, rank, dims, NULL);
        else if (stale) h5_drop_layout(e, rank, dims);
        lookup = e->chunked && (stale || e->by_hdf5); /* how this call finds its chunk addresses: decided below */
        if (!lookup && !e->l) snprintf(why, wl, "%s", h5_text(e->why));
    }
    if (!why[0]) {
        hid_t fsp = file_space == H5S_ALL ? H5Dget_space(dset) : file_space;
        const int affordable = lookup && h5_lookup_affordable(e->cdims, rank, dims, maxd, fsp, fe->md_local);
        const hssize_t np = may_skip && lookup && !affordable && collective ? H5Sget_select_npoints(fsp) : -1;
        if (np >= 0) { /* waits for the index: the selections are read if it is read (may_skip above) */
            need = 1;
            *need_bytes = (uint64_t)np * (uint64_t)H5Tget_size(e->type);
            lookup = 0;
        } else {
            h5_read_sels(fsp, mem_space, &fs, &ms, why, wl);
        }
        if (!why[0] && lookup) {
            if (affordable) {
                if (!e->l && h5_build_coord_layout(dset, oi, e, rank, dims)) snprintf(why, wl, "%s", h5_text(e->why));
                else ((h5_coord_ctx *)e->l->rctx)->dset = dset;
            } else if (!collective && h5_file_writable(dset, fe) == 0) {
                if (h5_fetch_index_alone(dset, e, fe, rank, dims)) snprintf(why, wl, "%s", h5_text(e->why));
            } else if (e->l && e->by_hdf5 && !collective) {
                snprintf(why, wl, "the call spans more chunks than HDF5's lookup can find cheaply, and an independent call cannot flush the "
                                  "file to read the chunk index");
            } else if (collective) {
                need = 1;
            } else {
                snprintf(why, wl, "the chunk addresses are not known yet (they are read in a collective call; an independent call cannot flush "
                                  "the file)");
            }
        }
        if (file_space == H5S_ALL && fsp >= 0) H5Sclose(fsp);
    }
    *fsp_out = fs;
    *msp_out = ms;
    *needp = need;
}

/* When the chunk index must come from the file, the flush before it costs what HDF5 holds dirty:
   ~1.5 ms for a small file here, far more just after creating a dataset of a million chunks (its whole
   index). That pays for a call that moves much, or for a dataset written again and again; for a small
   call on a dataset written once or twice it is pure loss (netCDF-4 files, whose metadata reads are
   collective so HDF5's lookup cannot be used, writing each of many variables once: 2.7x HDF5's time).
   So HDF5 runs such a call unless the largest rank moves COLLDIAG_H5_FETCH_BYTES (default 1 MiB) or
   more, or COLLDIAG_H5_FETCH_CALLS (default 2) calls at this extent already ran in HDF5; then the
   index is read. Decided on the values of the transfer's own reduction (the largest rank's bytes, the
   waiting ranks' counts), the same on every rank: all fetch or none, at no extra communication.
   A file open read-only on every waiting rank has nothing to flush (H5Fflush returns at once: 0.2 us
   against ~0.1 ms for a clean writable file here, 1.5 ms for a dirty one), so its index is read at
   once: a small first read of an existing file (an analysis job's) then runs through colldiag
   (bench-bridge's call: 0.44 ms, HDF5's 1.5 ms). A writable file with collective metadata reads under
   HDF5 1.12+ is never flushed (h5_flush_unsafe), whatever the call moves. Nor is a write deferred whose
   chunks have no written fill and may lie past the end of the file (created or extended since the
   file's last flush, or not known: h5_alloc_inside): HDF5's own collective write could fill their holes
   with MPI-IO's buffer, and the flush both finds the addresses and extends the file to cover them
   (tests/h5_defects.c, holes-chunked-fill-never-collmd). The dataset's facts and its creations are alike
   on every rank. The reason HDF5 runs the call, or NULL: read the index. */
static const char *h5_defer_fetch(h5_dentry *e, const h5_oid *oi, int dir, const colldiag_xfer *x)
{
    if (x->bridge_global >> 9 & 1) return h5_coll_md_why; /* some waiting rank's flush is h5_flush_unsafe */
    if (!(x->bridge_global >> 8 & 1)) return NULL;        /* no waiting rank's flush writes anything */
    if (dir == DIR_WRITE && e->learned && e->chunked && e->fill_unwritten && !h5_alloc_inside_oi(oi)) return NULL;
    /* rank 0's thresholds (agree_env): a rank that flushes while another lets HDF5 run the call would hang */
    const uint64_t defers = x->bridge_global >> 4 & 15; /* waiting ranks' counts, ORed: never below any of them */
    if (x->bridge_max_bytes >= x->fetch_bytes || defers >= x->fetch_calls) return NULL;
    e->defers = defers + 1;
    return h5_small_call_why;
}

static int h5_transfer(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *wbuf, void *rbuf,
                       colldiag_xfer *x, int dir, const char *fn)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    const colldiag_chunk_opt_t asked = x->set.chunk_opt;
    H5FD_mpio_xfer_t mode = H5FD_MPIO_INDEPENDENT;
    int rc = h5_dxpl_mode(dxpl, &mode, fn);
    if (rc) { snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf); return rc; }
    const int collective = mode == H5FD_MPIO_COLLECTIVE;
    h5_oid oi;
    h5_fentry *fe = NULL;
    if (h5_identify(dset, &oi)) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
    if (!rc) rc = h5_bridge_entry(dset, oi.fileno, &fe, fn);
    if (!rc && h5_one_rank_as_fast(fe, x, dir, collective, &dset, 1)) rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", h5_one_rank_why);
    if (!rc) rc = h5_bridge_file(dset, oi.fileno, collective, &fe, fn); /* collective calls meet here first */
    colldiag_file *f = fe ? fe->f : NULL;
    h5_located lo;
    if (!rc) h5_locate(dset, &oi, fe, &lo);
    const char *never = !rc && collective ? h5_never_fact(dset) : NULL;
    if (never) rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", never); /* alike on every rank: no agreement needed */
    else if (!rc && collective && h5_small_first_call(dset, &oi, dir, lo.e, fe, lo.rank, lo.dims)) {
        /* HDF5 runs it, decided alike on every rank without an agreement, before the rest of the DXPL is
           read (its data transform costs an HDF5 error pushed and cleared: ~3.6 us, a tenth of such a
           call). The reason as far as this rank knows the dataset (the decision is alike everywhere, the
           words need not be). */
        const h5_dentry *e = lo.e;
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", !e->learned ? h5_unlearned_why : h5_has_text(e->never) ? e->never : h5_small_call_why);
    }
    if (rc) {
        x->set.chunk_opt = asked;
        snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
        return rc;
    }
    /* from here on a collective call reaches colldiag's agreement on every rank, whatever it finds (a
       DXPL whose settings cannot be read included: every rank then leaves the call to HDF5) */
    char why[512] = "";
    const int rest = h5_dxpl_rest(dxpl, mode, x, fn);
    if (rest) {
        if (!collective) {
            x->set.chunk_opt = asked;
            snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
            return rest;
        }
        h5_copy(why, sizeof why, cd_errbuf);
    }
    x->h5_opt = x->set.chunk_opt; /* the DXPL's: HDF5's own path for the summary's time saved */
    x->h5_opt_set = 1;
    x->set.chunk_opt = asked == COLLDIAG_MPIO_CHUNK_DEFAULT ? COLLDIAG_MPIO_CHUNK_AUTO : asked; /* the scheme is colldiag's */
    if (f) {
        f->read_only = fe->writable == 0; /* known once a call has asked (h5_file_writable); else as writable */
        h5_selection_facts(dset, dxpl, x, f); /* the causes and modes the HDF5 in use would report */
    }
    colldiag_sel *fs = NULL, *ms = NULL;
    hsize_t dims[COLLDIAG_MAX_RANK];
    h5_dentry *e = lo.e;
    const int rank = lo.rank;
    int need = 0;
    uint64_t need_bytes = 0;
    h5_prepare(dset, &oi, mem_type, mem_space, file_space, x, dir, collective, fe, &lo, &fs, &ms, dims, &need, why, sizeof why, 1, &need_bytes);
    h5_fetch_env(&x->env_fetch_bytes, &x->env_fetch_calls); /* for the agreement: rank 0's decide (h5_defer_fetch) */
    for (int attempt = 0;; attempt++) {
        if (why[0] || need) {
            x->pre_code = COLLDIAG_ERR_UNSUPPORTED;
            x->pre_need_index = !why[0];
            x->pre_bytes = need ? need_bytes : 0;
            x->pre_defers = need ? e->defers : 0;
            const int w = h5_file_writable(dset, fe); /* unknown: as if writable */
            x->pre_flush_writes = need ? (w != 0) | h5_flush_unsafe(fe->md_local, w) << 1 : 0;
            snprintf(x->pre_msg, sizeof x->pre_msg, "%s", why[0] ? why : "waiting for the dataset's chunk index");
        }
        x->strict_alloc = 1;
        rc = cd_transfer(f, e && !need ? e->l : NULL, fs, ms, wbuf, rbuf, x, dir, fn);
        x->strict_alloc = 0;
        x->pre_code = x->pre_need_index = 0;
        x->pre_bytes = x->pre_defers = 0;
        x->pre_flush_writes = 0;
        if (!rc || !collective || (x->bridge_global & 3) != 1 || attempt > 0) break;
        /* every rank is healthy but some wait for the chunk index: fetch it together, then once more (or
           let HDF5 run a small call rather than flush) */
        const char *defer = h5_defer_fetch(e, &oi, dir, x);
        if (defer) {
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", defer);
            snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
            break;
        }
        h5_fetch_index(dset, e, fe, rank, dims);
        need = 0;
        if (!e->l) snprintf(why, sizeof why, "%s", h5_text(e->why));
        else if (!fs) h5_read_call_sels(dset, mem_space, file_space, &fs, &ms, why, sizeof why); /* skipped while it waited */
    }
    x->set.chunk_opt = asked;
    x->env_fetch_bytes = x->env_fetch_calls = 0; /* a core call with this x has none */
    if (!rc) h5_set_actual(dxpl, x);
    if (collective && !h5_bridge_quiet) {
        char keep[sizeof cd_errbuf];
        snprintf(keep, sizeof keep, "%s", cd_errbuf);
        env_report(f, x);
        snprintf(cd_errbuf, sizeof cd_errbuf, "%s", keep);
    }
    colldiag_sel_free(fs);
    colldiag_sel_free(ms);
    return rc;
}

/* The bridge's entry points run every HDF5 call of theirs under one H5E_BEGIN_TRY: what fails there
   is an answer (HDF5 runs the call, or colldiag's error names it), never an HDF5 stack on stderr. One
   scope rather than one per query: each costs four API calls (H5Eauto_is_v2, H5Eget_auto2, two
   H5Eset_auto2), 24 of them a call when each query had its own. */
int colldiag_h5_write(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf, colldiag_xfer *x)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY { rc = h5_transfer(dset, mem_type, mem_space, file_space, dxpl, buf, NULL, x, DIR_WRITE, "colldiag_h5_write"); } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

int colldiag_h5_read(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, void *buf, colldiag_xfer *x)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY { rc = h5_transfer(dset, mem_type, mem_space, file_space, dxpl, NULL, buf, x, DIR_READ, "colldiag_h5_read"); } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

/* H5Dwrite_multi / H5Dread_multi (HDF5 1.14) on 1.10: every dataset prepared as by h5_transfer, the
   chunk indexes the call lacks read together, then one colldiag multi-dataset call. All or nothing:
   a dataset colldiag cannot move on any rank makes every rank return COLLDIAG_ERR_UNSUPPORTED before
   a byte moves, and the caller runs HDF5's own calls. */
static int h5_transfer_multi(size_t count, const hid_t dsets[], const hid_t mem_types[], const hid_t mem_spaces[], const hid_t file_spaces[],
                             hid_t dxpl, const void *const wbufs[], void *const rbufs[], colldiag_xfer *x, int dir, const char *fn)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    /* dset_ids[0] names the file and its communicator, the DXPL whether the call is collective: a rank
       without them cannot take part (as f and x in colldiag_write_multi). Every other bad argument is
       found below and fails the call on every rank. */
    if (count > 0 && !dsets) return cd_fail(COLLDIAG_ERR_ARG, fn, "dset_ids is NULL with count = %zu", count);
    const colldiag_chunk_opt_t asked = x->set.chunk_opt;
    int rc = h5_dxpl_settings(dxpl, x, fn);
    if (rc) { snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf); return rc; }
    x->set.chunk_opt = asked == COLLDIAG_MPIO_CHUNK_DEFAULT ? COLLDIAG_MPIO_CHUNK_AUTO : asked;
    const int collective = x->set.mode == COLLDIAG_MPIO_COLLECTIVE;
    h5_oid oi0;
    h5_fentry *fe = NULL;
    if (count == 0 || h5_identify(dsets[0], &oi0))
        rc = cd_fail(COLLDIAG_ERR_ARG, fn, count ? "dset_ids[0] is not an open dataset" : "count is 0: nothing names the file");
    if (!rc) rc = h5_bridge_entry(dsets[0], oi0.fileno, &fe, fn);
    if (!rc && h5_one_rank_as_fast(fe, x, dir, collective, dsets, count)) rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", h5_one_rank_why);
    if (!rc) rc = h5_bridge_file(dsets[0], oi0.fileno, collective, &fe, fn);
    colldiag_file *f = fe ? fe->f : NULL;
    if (rc) {
        x->set.chunk_opt = asked;
        snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
        return rc;
    }
    /* from here on a collective call reaches colldiag's agreement on every rank, whatever it finds */
    h5_dentry **e = cd_calloc(count, sizeof *e);
    colldiag_sel **fs = cd_calloc(count, sizeof *fs), **ms = cd_calloc(count, sizeof *ms);
    const colldiag_layout **ls = cd_calloc(count, sizeof *ls);
    int *rk = cd_calloc(count, sizeof *rk), *need = cd_calloc(count + 1, sizeof *need);
    hsize_t(*dims)[COLLDIAG_MAX_RANK] = cd_calloc(count, sizeof *dims);
    char why[512] = "";
    int argcode = 0; /* a bad argument of this rank's (COLLDIAG_ERR_ARG), rather than a call colldiag cannot move */
    if (!mem_types || !mem_spaces || !file_spaces) {
        argcode = COLLDIAG_ERR_ARG;
        snprintf(why, sizeof why, "%s is NULL with count = %zu", !mem_types ? "mem_type_ids" : !mem_spaces ? "mem_space_ids" : "file_space_ids", count);
    }
    if (!why[0] && (!e || !fs || !ms || !ls || !rk || !need || !dims)) snprintf(why, sizeof why, "no memory for %zu datasets' entries", count);
    /* every dataset prepared (and learned) on every rank, even after one this rank cannot move: ranks
       that stopped at different datasets would learn different ones, and on a file whose metadata reads
       are collective a dataset learned on some ranks only is a collective read the others never join */
    const int prepare = !why[0];
    for (size_t i = 0; prepare && i < count; i++) {
        h5_oid oi;
        const int ie = h5_identify(dsets[i], &oi);
        char w[448] = "";
        if (ie < 0) snprintf(w, sizeof w, "not an open dataset");
        else if (oi.fileno != oi0.fileno) snprintf(w, sizeof w, "in another file than dataset 0 (one call moves one file's datasets)");
        else {
            h5_located lo;
            h5_locate(dsets[i], &oi, fe, &lo);
            e[i] = lo.e;
            rk[i] = lo.rank;
            h5_prepare(dsets[i], &oi, mem_types[i], mem_spaces[i], file_spaces[i], x, dir, collective, fe, &lo, &fs[i], &ms[i], dims[i],
                       &need[i + 1], w, sizeof w, 0, NULL);
        }
        if (w[0] && !why[0]) snprintf(why, sizeof why, "dataset %zu: %s", i, w);
    }
    /* the chunk indexes some rank lacks, read together (collective: flush and read), unless a dataset
       is ineligible somewhere and HDF5 runs the call anyway */
    if (collective && count) {
        int *g = cd_calloc(count + 1, sizeof *g);
        /* first whether every rank has memory and passes the same count (the second reduction's length;
           different lengths would be an MPI error, fatal by default): MIN of (memory, count, -count) */
        uint64_t mine[3] = {g != NULL && need, count, UINT64_MAX - count}, agreed[3];
        MPI_Allreduce(mine, agreed, 3, MPI_UINT64_T, MPI_MIN, f->comm);
        const int same_count = agreed[1] == UINT64_MAX - agreed[2], all = agreed[0] && same_count;
        if (!same_count && !why[0]) {
            argcode = COLLDIAG_ERR_ARG;
            snprintf(why, sizeof why, "the ranks pass different counts (%" PRIu64 " to %" PRIu64 " datasets)", agreed[1], UINT64_MAX - agreed[2]);
        }
        if (need) { /* 1: ineligible here; 2: an index to read, in a file this rank must not flush (h5_flush_unsafe) */
            int want = 0;
            for (size_t i = 0; i < count; i++) want |= need[i + 1];
            need[0] = why[0] ? 1 : want && h5_flush_unsafe(fe->md_local, h5_file_writable(dsets[0], fe)) ? 2 : 0;
        }
        if (all) MPI_Allreduce(need, g, (int)count + 1, MPI_INT, MPI_MAX, f->comm);
        if (all && g[0] == 2 && !why[0]) snprintf(why, sizeof why, "%s", h5_coll_md_why);
        for (size_t i = 0; all && !g[0] && i < count; i++)
            if (g[i + 1]) {
                h5_fetch_index(dsets[i], e[i], fe, rk[i], dims[i]);
                need[i + 1] = 0;
                if (!e[i]->l && !why[0]) snprintf(why, sizeof why, "dataset %zu: %s", i, h5_text(e[i]->why));
            }
        if (!all && !why[0]) snprintf(why, sizeof why, "no memory on some rank for the call's agreement");
        cd_free(g);
    }
    for (size_t i = 0; !why[0] && i < count; i++) {
        if (need[i + 1]) snprintf(why, sizeof why, "dataset %zu: the chunk addresses are not known yet", i);
        ls[i] = e[i]->l;
    }
    if (why[0]) {
        x->pre_code = argcode ? argcode : COLLDIAG_ERR_UNSUPPORTED;
        snprintf(x->pre_msg, sizeof x->pre_msg, "%s", why);
    }
    x->strict_alloc = 1;
    rc = cd_transfer_multi(f, why[0] ? 0 : count, ls, (const colldiag_sel *const *)fs, (const colldiag_sel *const *)ms, wbufs, rbufs, x, dir, fn);
    x->strict_alloc = 0;
    x->pre_code = x->pre_need_index = 0;
    if (rc == COLLDIAG_ERR_PEER && x->peer_code == COLLDIAG_ERR_UNSUPPORTED) rc = COLLDIAG_ERR_UNSUPPORTED; /* another rank's dataset: HDF5 runs it */
    x->set.chunk_opt = asked;
    if (!rc) h5_set_actual(dxpl, x);
    if (collective && !h5_bridge_quiet) multi_env_report(f, x);
    for (size_t i = 0; i < count; i++) {
        if (fs) colldiag_sel_free(fs[i]);
        if (ms) colldiag_sel_free(ms[i]);
    }
    cd_free(e);
    cd_free(fs);
    cd_free(ms);
    cd_free(ls);
    cd_free(rk);
    cd_free(need);
    cd_free(dims);
    return rc;
}

int colldiag_h5_write_multi(size_t count, const hid_t dset_ids[], const hid_t mem_type_ids[], const hid_t mem_space_ids[],
                            const hid_t file_space_ids[], hid_t dxpl, const void *const bufs[], colldiag_xfer *x)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY {
        rc = h5_transfer_multi(count, dset_ids, mem_type_ids, mem_space_ids, file_space_ids, dxpl, bufs, NULL, x, DIR_WRITE,
                               "colldiag_h5_write_multi");
    } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

int colldiag_h5_read_multi(size_t count, const hid_t dset_ids[], const hid_t mem_type_ids[], const hid_t mem_space_ids[],
                           const hid_t file_space_ids[], hid_t dxpl, void *const bufs[], colldiag_xfer *x)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY {
        rc = h5_transfer_multi(count, dset_ids, mem_type_ids, mem_space_ids, file_space_ids, dxpl, NULL, bufs, x, DIR_READ,
                               "colldiag_h5_read_multi");
    } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

/* Drops the cache entries of the datasets of file *fileno (every file: NULL): the one at object
   address *addr, or all (addr NULL). Local. */
/* Drops one entry from the list and the index. */
static void h5_drop_dentry(h5_dentry *e)
{
    if (e->prev) e->prev->next = e->next;
    else h5_dsets = e->next;
    if (e->next) e->next->prev = e->prev;
    if (h5_memo.e == e) h5_memo.e = NULL;
    h5_unlink(e);
    h5_ndsets--;
    h5_dentry_free(e);
}

static void h5_forget_dsets(const unsigned long *fileno, const haddr_t *addr)
{
    if (fileno && addr) { /* one dataset (a creation at its address): its hash chain, not every entry (a
                             program creating its n-th dataset walked n-1 of them: 35 us a creation at 3,000) */
        h5_dentry *e = h5_hash_cap ? h5_hash_addr[h5_slot_addr(*fileno, *addr)] : NULL;
        while (e && !(e->fileno == *fileno && e->addr == *addr)) e = e->next_addr;
        if (e) h5_drop_dentry(e); /* at most one: h5_dataset makes one entry per (file, address) */
    } else {
        for (h5_dentry *e = h5_dsets, *next; e; e = next) {
            next = e->next;
            if ((!fileno || e->fileno == *fileno) && (!addr || e->addr == *addr)) h5_drop_dentry(e);
        }
    }
    if (!h5_ndsets) { /* nothing cached: the index goes too */
        cd_free(h5_hash_addr);
        cd_free(h5_hash_id);
        h5_hash_addr = h5_hash_id = NULL;
        h5_hash_cap = 0;
    }
}

void colldiag_h5_forget_datasets(hid_t obj)
{
    h5_oid oi;
    herr_t oe;
    H5E_BEGIN_TRY { oe = h5_object_id(obj, &oi); } H5E_END_TRY;
    if (oe >= 0) h5_forget_dsets(&oi.fileno, NULL);
}

/* Drops the bridge's files (*fileno, or every one: NULL) with their communicators (collective over
   each, as closing the file is), and their datasets. */
static void h5_forget_files(const unsigned long *fileno)
{
    h5_forget_dsets(fileno, NULL);
    if (!fileno) h5_alloc_forget(NULL);
    int fin = 0;
    MPI_Finalized(&fin);
    for (h5_fentry **pp = &h5_files; *pp;) {
        h5_fentry *e = *pp;
        if (fileno && e->fileno != *fileno) { pp = &e->next; continue; }
        *pp = e->next;
        if (!fin) {
            if (e->f->op != MPI_OP_NULL) MPI_Op_free(&e->f->op);
            if (e->f->comm != MPI_COMM_NULL && !h5_kept_return(e->f)) MPI_Comm_free(&e->f->comm);
        }
        file_keep_free(e->f);
        cd_free(e->f->node_ranks);
        cd_free(e->f);
        cd_free(e);
    }
}

void colldiag_h5_file_opened(hid_t file, hid_t fapl)
{
    if (H5Iget_type(file) != H5I_FILE) return;
    h5_note_file(file, fapl);
    H5E_BEGIN_TRY { h5_alloc_watch(file, fapl); } H5E_END_TRY;
}

void colldiag_h5_extended(hid_t dset)
{
    if (h5_allocs) H5E_BEGIN_TRY { h5_alloc_fresh(dset); } H5E_END_TRY;
}

void colldiag_h5_flushed(hid_t obj)
{
    if (h5_allocs) H5E_BEGIN_TRY { h5_alloc_flushed(obj); } H5E_END_TRY;
}

void colldiag_h5_forget(hid_t obj)
{
    if (H5Iget_type(obj) == H5I_FILE) h5_forget_file_md(obj);
    h5_oid oi;
    herr_t oe;
    H5E_BEGIN_TRY { oe = h5_object_id(obj, &oi); } H5E_END_TRY;
    if (oe < 0) return;
    if (H5Iget_type(obj) == H5I_FILE) {
        h5_forget_files(&oi.fileno);
        h5_alloc_forget(&oi.fileno); /* identified once: H5Oget_info2 reads the root group's header */
    }
    else h5_forget_dsets(&oi.fileno, &oi.addr);
}

/* colldiag_h5_created, told the dataspace the program created the dataset with (space, or
   H5I_INVALID_HID: HDF5's copy is asked), which the preload has (h5_known_space says why). */
static int h5_created(hid_t dset, hid_t dcpl, hid_t space)
{
    static const char fn[] = "colldiag_h5_created";
    int rc = 0;
    cd_env_enter();
    h5_known_space = space >= 0 && H5Iget_type(space) == H5I_DATASPACE ? space : H5I_INVALID_HID;
    H5E_BEGIN_TRY {
        h5_oid oi;
        h5_fentry *fe = NULL;
        h5_dentry *e = NULL;
        if (H5Iget_type(dset) != H5I_DATASET || h5_object_id(dset, &oi) < 0) {
            rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
        } else {
            /* whatever was cached at this address belonged to an object since deleted (an anonymous
               dataset closed, say): a new dataset starts afresh */
            h5_forget_dsets(&oi.fileno, &oi.addr);
            h5_alloc_fresh_at(&oi); /* its storage lies past the end of the file until the next flush */
            /* only where the bridge can ever move bytes: an MPI-IO file (found without communicating) */
            rc = h5_bridge_file(dset, oi.fileno, 0, &fe, fn);
        }
        if (!rc && !(e = h5_dataset(dset, &oi))) rc = cd_fail(COLLDIAG_ERR_NOMEM, fn, "no memory for the dataset's cache entry");
        if (!rc) {
            const hid_t p = dcpl == H5P_DEFAULT ? H5P_DATASET_CREATE_DEFAULT : dcpl;
            if (H5Pisa_class(p, H5P_DATASET_CREATE) <= 0)
                rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dcpl is not a dataset creation property list");
            else
                h5_facts_of(dset, p, e);
        }
    } H5E_END_TRY;
    h5_known_space = H5I_INVALID_HID;
    cd_env_leave();
    return rc;
}

int colldiag_h5_created(hid_t dset, hid_t dcpl) { return h5_created(dset, dcpl, H5I_INVALID_HID); }

int colldiag_h5_opened(hid_t dset)
{
    static const char fn[] = "colldiag_h5_opened";
    int rc = 0;
    cd_env_enter();
    H5E_BEGIN_TRY {
        h5_oid oi;
        h5_dentry *e = NULL;
        if (H5Iget_type(dset) != H5I_DATASET) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
        else if (!h5_reads_need_all_ranks(dset)) rc = 0; /* learned at its first call, as ever */
        else if (h5_identify(dset, &oi) < 0) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
        else if (!(e = h5_dataset(dset, &oi))) rc = cd_fail(COLLDIAG_ERR_NOMEM, fn, "no memory for the dataset's cache entry");
        else h5_learn(dset, e);
    } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

/* ---- compact storage written collectively: every rank's bytes kept (colldiag_h5_write_compact) ----
   A compact dataset lives in the object header, of which every rank changes its own copy, and HDF5 writes
   one rank's copy: a collective write of different pieces on different ranks keeps one rank's
   (tests/h5_defects.c, compact-*). colldiag cannot move compact data (it is not raw storage), but in a
   collective call every rank can learn every other's pieces: at most the dataset, which HDF5 caps at
   64 KiB. So every rank lays its own pieces into an image of the dataset with a byte of mask an
   element, the ranks merge the images in one reduction (ascending rank order: where two ranks write the
   same element the highest rank's bytes win, as the last writer would), each lays the merged pieces
   over its own copy of the dataset, and HDF5 writes that whole image on every rank: whichever rank's
   header copy HDF5 keeps then holds every rank's bytes. Memory and the reduction: the dataset's bytes
   and one byte an element, whatever the rank count. HDF5's write is its own: h5_compact_write is the
   real H5Dwrite (the preload sets it past its own wrapper). */
static herr_t (*h5_compact_write)(hid_t, hid_t, hid_t, hid_t, hid_t, const void *) = H5Dwrite;
static herr_t (*h5_compact_read)(hid_t, hid_t, hid_t, hid_t, hid_t, void *) = H5Dread;

typedef struct { const void *p; size_t n; } h5_scatter_src;

static herr_t h5_scatter_all(const void **buf, size_t *used, void *ctx)
{
    h5_scatter_src *s = ctx;
    *buf = s->p;
    *used = s->n;
    return 0;
}

/* MPI_Allreduce's operator on records of a mask byte and an element: in ascending rank order, a rank's
   element replaces what lower ranks wrote (not commutative: MPI applies it in rank order). */
static void h5_compact_merge_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int sz = 0;
    MPI_Type_size(*dt, &sz);
    const unsigned char *a = in;
    unsigned char *b = inout;
    for (int i = 0; i < *len; i++, a += sz, b += sz)
        if (a[0] && !b[0]) memcpy(b, a, (size_t)sz);
}

/* This rank's records (rec: nelem of 1 + esize bytes) from its call, or why not (local). */
static int h5_compact_records(hid_t dtype, hid_t mem_type, hid_t ms, hid_t fs, hid_t dxpl, const void *buf, size_t esize,
                              uint64_t nelem, unsigned char *rec, char *why, size_t wl)
{
    const hssize_t n = H5Sget_select_npoints(fs);
    const size_t msize = H5Tget_size(mem_type);
    const hid_t p = dxpl == H5P_DEFAULT ? H5P_DATASET_XFER_DEFAULT : dxpl;
    if (n < 0 || msize == 0) return snprintf(why, wl, "cannot read the call's selection or memory type");
    if (H5Sget_select_npoints(ms) != n) return snprintf(why, wl, "the memory and file selections differ in size (HDF5 refuses the call)");
    if (H5Pget_data_transform(p, NULL, 0) > 0) return snprintf(why, wl, "a data transform (HDF5 applies it)");
    if (h5_type_variable(dtype) || h5_type_variable(mem_type)) return snprintf(why, wl, "a variable-length type");
    if (n == 0) return 0;
    const size_t big = msize > esize ? msize : esize;
    unsigned char *pk = cd_malloc((size_t)n * big), *img = cd_calloc((size_t)nelem, esize), *mask = cd_calloc((size_t)nelem, 1),
                  *ones = cd_malloc((size_t)n);
    int rc = 0;
    if (!pk || !img || !mask || !ones) rc = snprintf(why, wl, "no memory for the dataset's image");
    else if (H5Dgather(ms, buf, mem_type, (size_t)n * msize, pk, NULL, NULL) < 0) rc = snprintf(why, wl, "HDF5 cannot gather the memory selection");
    else if (H5Tequal(mem_type, dtype) <= 0 && H5Tconvert(mem_type, dtype, (size_t)n, pk, NULL, p) < 0)
        rc = snprintf(why, wl, "HDF5 cannot convert the memory type to the dataset's");
    if (!rc) {
        h5_scatter_src v = {pk, (size_t)n * esize}, m = {ones, (size_t)n};
        memset(ones, 1, (size_t)n);
        if (H5Dscatter(h5_scatter_all, &v, dtype, fs, img) < 0 || H5Dscatter(h5_scatter_all, &m, H5T_NATIVE_UCHAR, fs, mask) < 0)
            rc = snprintf(why, wl, "HDF5 cannot scatter into the dataset's selection");
    }
    for (uint64_t i = 0; !rc && i < nelem; i++) {
        rec[i * (esize + 1)] = mask[i];
        if (mask[i]) memcpy(rec + i * (esize + 1) + 1, img + i * esize, esize);
    }
    cd_free(pk);
    cd_free(img);
    cd_free(mask);
    cd_free(ones);
    return rc;
}

/* The merge, up to the image every rank hands HDF5 (*img_out, *type_out: the dataset's type, which the
   caller closes), or a COLLDIAG_ERR_* alike on every rank. */
static int h5_write_compact(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf, colldiag_xfer *x,
                            unsigned char **img_out, hid_t *type_out, const char *fn)
{
    h5_oid oi;
    h5_fentry *fe = NULL;
    H5FD_mpio_xfer_t mode = H5FD_MPIO_INDEPENDENT;
    int rc = h5_dxpl_mode(dxpl, &mode, fn);
    if (!rc && mode != H5FD_MPIO_COLLECTIVE)
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "an independent call: the other ranks' pieces cannot be known");
    if (!rc && h5_identify(dset, &oi)) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
    if (!rc) rc = h5_bridge_entry(dset, oi.fileno, &fe, fn);
    if (!rc) rc = h5_bridge_file(dset, oi.fileno, 1, &fe, fn); /* the file's communicator: every rank of the call is here */
    if (rc) return rc;
    colldiag_file *f = fe->f;
    /* from here every rank reaches the two reductions, whatever it finds */
    char why[256] = "";
    hid_t dtype = H5Dget_type(dset), dcpl = H5Dget_create_plist(dset), dsp = H5Dget_space(dset);
    const hid_t fs = file_space == H5S_ALL ? dsp : file_space, ms = mem_space == H5S_ALL ? fs : mem_space;
    const size_t esize = dtype >= 0 ? H5Tget_size(dtype) : 0;
    const hssize_t ne = dsp >= 0 ? H5Sget_simple_extent_npoints(dsp) : -1;
    const uint64_t nelem = ne > 0 ? (uint64_t)ne : 0;
    unsigned char *rec = NULL;
    if (dtype < 0 || dcpl < 0 || dsp < 0 || esize == 0) snprintf(why, sizeof why, "dset is not an open dataset");
    else if (H5Pget_layout(dcpl) != H5D_COMPACT) snprintf(why, sizeof why, "the dataset is not compact");
    else if (!nelem || esize > (size_t)INT_MAX - 1) snprintf(why, sizeof why, "the dataset has no elements");
    else if (!(rec = cd_calloc((size_t)nelem, esize + 1))) snprintf(why, sizeof why, "no memory for the dataset's image");
    else h5_compact_records(dtype, mem_type, ms, fs, dxpl, buf, esize, nelem, rec, why, sizeof why);
    /* every rank can, or none merges: MIN of the rank (or P) of the first that cannot */
    int me = why[0] ? f->rank : f->size, first = f->size;
    int mrc = MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, f->comm);
    if (mrc == MPI_SUCCESS && first == f->size) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        MPI_Op op = MPI_OP_NULL;
        MPI_Type_contiguous((int)esize + 1, MPI_BYTE, &t);
        MPI_Type_commit(&t);
        MPI_Op_create(h5_compact_merge_op, 0, &op);
        /* an element count beyond int is impossible: compact data is at most 64 KiB */
        mrc = MPI_Allreduce(MPI_IN_PLACE, rec, (int)nelem, t, op, f->comm);
        MPI_Op_free(&op);
        MPI_Type_free(&t);
    }
    if (mrc != MPI_SUCCESS) {
        rc = cd_fail(COLLDIAG_ERR_MPI, fn, "MPI_Allreduce of the compact dataset's pieces failed");
    } else if (first < f->size) {
        rc = why[0] ? cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", why)
                    : cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "rank %d cannot merge its pieces (see its message)", first);
    } else {
        /* the merged pieces over this rank's copy, written whole: every rank's copy ends the same */
        unsigned char *img = cd_malloc((size_t)nelem * esize);
        uint64_t kept = 0;
        if (!img || h5_compact_read(dset, dtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, img) < 0) {
            /* a rank without its copy writes the merged pieces over zeros: the pieces are what count */
            if (img) memset(img, 0, (size_t)nelem * esize);
        }
        for (uint64_t i = 0; img && i < nelem; i++)
            if (rec[i * (esize + 1)]) { memcpy(img + i * esize, rec + i * (esize + 1) + 1, esize); kept += esize; }
        if (x) {
            x->compact_kept = kept;
            x->compact_file_bytes = (uint64_t)nelem * esize;
        }
        *img_out = img;
        if (img) *type_out = H5Tcopy(dtype);
    }
    cd_free(rec);
    if (dsp >= 0) H5Sclose(dsp);
    if (dtype >= 0) H5Tclose(dtype);
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

int colldiag_h5_write_compact(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf, colldiag_xfer *x,
                              int *h5_ret)
{
    static const char fn[] = "colldiag_h5_write_compact";
    int rc;
    unsigned char *img = NULL;
    hid_t t = -1;
    if (x) x->compact_kept = x->compact_file_bytes = 0;
    cd_env_enter();
    H5E_BEGIN_TRY { rc = h5_write_compact(dset, mem_type, mem_space, file_space, dxpl, buf, x, &img, &t, fn); } H5E_END_TRY;
    cd_env_leave();
    if (rc && x) snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
    /* HDF5's own write, outside colldiag's error silence: its errors are the program's to see */
    if (!rc) {
        const herr_t ret = img && t >= 0 ? h5_compact_write(dset, t, H5S_ALL, H5S_ALL, dxpl, img) : -1;
        if (h5_ret) *h5_ret = ret;
    }
    if (t >= 0) H5Tclose(t);
    cd_free(img);
    return rc;
}

#endif /* COLLDIAG_WITH_HDF5 */

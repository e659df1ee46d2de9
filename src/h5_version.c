#ifdef COLLDIAG_WITH_HDF5

/* ====================================================================================================
 * What differs between HDF5 versions (1.10.8 and 1.14 are tested; 1.12 follows 1.14's API).
 *
 * The one place that knows: every other HDF5 part asks these functions. Two kinds of difference:
 * - the API, decided when colldiag.c is compiled (the headers say which functions exist):
 *   an object's identity. 1.10 names an object by its header's address (H5Oget_info2, H5O_info_t.addr);
 *   1.12 and later by a token (H5Oget_info3, H5O_info2_t.token), which the native VOL connector turns
 *   into the same address (H5VLnative_token_to_addr). Only the current API is used on 1.12+, so a
 *   HDF5 built without deprecated symbols works.
 * - behaviour, decided by the library the program runs with (H5get_libversion), since the preload
 *   meets whatever HDF5 the program loads:
 *   - H5Dget_chunk_info and H5Dget_chunk_info_by_coord give chunk addresses relative to the userblock
 *     up to 1.14.3 and absolute from 1.14.4 on (HDF5 pull request 4236, for its issue 3003);
 *     H5Dget_offset and the chunk index in the file itself are the same in every version. The tests
 *     check the addresses against the bytes in the file, with and without a userblock.
 *   - the rules HDF5's collective I/O follows (h5_rules_of_lib): see src/decision.c's HDF5 rules.
 * ==================================================================================================== */

/* An object's identity: its file (unique per open file for the library's lifetime) and the address of
   its object header (relative to the file's base address, as the file format writes addresses). */
typedef struct {
    unsigned long fileno;
    haddr_t addr;
} h5_oid;

/* 0, or -1 if obj is not an open object. Local. */
static int h5_object_id(hid_t obj, h5_oid *id)
{
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t oi;
    if (H5Oget_info3(obj, &oi, H5O_INFO_BASIC) < 0) return -1;
    id->fileno = oi.fileno;
    return H5VLnative_token_to_addr(obj, oi.token, &id->addr) < 0 ? -1 : 0;
#else
    H5O_info_t oi;
    if (H5Oget_info2(obj, &oi, H5O_INFO_BASIC) < 0) return -1;
    id->fileno = oi.fileno;
    id->addr = oi.addr;
    return 0;
#endif
}

/* 1 if the HDF5 library in use (not the headers colldiag.c was compiled with) is at least maj.min.rel. */
static int h5_lib_at_least(unsigned maj, unsigned min, unsigned rel)
{
    static unsigned v[3], known;
    if (!known) {
        if (H5get_libversion(&v[0], &v[1], &v[2]) < 0) v[0] = v[1] = v[2] = 0;
        known = 1;
    }
    return v[0] != maj ? v[0] > maj : v[1] != min ? v[1] > min : v[2] >= rel;
}

/* 1 if flushing a writable file whose metadata reads are collective (H5Pset_all_coll_metadata_ops,
   netCDF-4's files) may leave it where a later H5Dwrite/H5Dread of HDF5's own on fewer than all ranks
   hangs. From HDF5 1.12 (1.14.5 read: H5D__chunk_io_init), every H5Dwrite/H5Dread on such a file
   protects the dataset's chunk index metadata (a fixed array's data block) with a collective read,
   even in an independent call; an entry the cache holds dirty passes without communication, but a
   flush is a sync point that makes the entries it writes clean and no longer "collectively read"
   (H5C_apply_candidate_list), and protecting such an entry collectively makes rank 0 broadcast it
   (H5C_protect): the one rank of an independent call then waits in MPI_Bcast for ranks that never
   come. A program that never flushes between its collective and its independent calls runs in HDF5;
   the same program with colldiag's index flush in between hung (fuzz_h5 seed 20261127 case 3023:
   rank 2's converting independent write after colldiag's collective one). HDF5 1.10's chunk lookup
   reads independently (campaigns with such files ran clean), so only 1.12 and later. */
static int h5_flush_unsafe(int md_local, int writable)
{
    return h5_lib_at_least(1, 12, 0) && md_local != 1 && writable != 0;
}

/* Files whose metadata reads are collective (H5Pset_all_coll_metadata_ops, netCDF-4's files), by HDF5's
   file number, as told where the program's access list is at hand (h5_note_file: the preload's
   H5Fcreate/H5Fopen; the bridge's first collective call on a file). Asking HDF5 later would not do:
   H5Fget_access_plist copies an MPI-IO list, which duplicates its communicator (collective). Grows with
   the files open (an entry goes at H5Fclose, h5_forget_file_md). */
static struct h5_md_file { unsigned long fileno; int coll; } *h5_md_files;
static size_t h5_n_md_files;
static uint64_t h5_cap_md_files;

static unsigned long h5_fileno_of(hid_t obj)
{
    unsigned long n = 0;
#if H5_VERSION_GE(1, 12, 0)
    hid_t file = H5Iget_file_id(obj);
    if (file >= 0 && H5Fget_fileno(file, &n) < 0) n = 0;
    if (file >= 0) H5Fclose(file);
#else
    (void)obj;
#endif
    return n;
}

static void h5_note_file_md(unsigned long fileno, int coll)
{
    if (!fileno) return;
    for (size_t i = 0; i < h5_n_md_files; i++)
        if (h5_md_files[i].fileno == fileno) { h5_md_files[i].coll = coll; return; }
    if (cd_grow((void **)&h5_md_files, &h5_cap_md_files, h5_n_md_files + 1, sizeof *h5_md_files)) return;
    h5_md_files[h5_n_md_files].fileno = fileno;
    h5_md_files[h5_n_md_files++].coll = coll;
}

/* The program's access list fapl opened file (a local question of the program's own list). */
static void h5_note_file(hid_t file, hid_t fapl)
{
    hbool_t coll = 0;
    if (file < 0 || !h5_lib_at_least(1, 12, 0)) return;
    if (fapl == H5P_DEFAULT || H5Pget_all_coll_metadata_ops(fapl, &coll) < 0) coll = 0;
    h5_note_file_md(h5_fileno_of(file), coll != 0);
}

static void h5_forget_file_md(hid_t file)
{
    const unsigned long n = h5_n_md_files ? h5_fileno_of(file) : 0;
    for (size_t i = 0; n && i < h5_n_md_files; i++)
        if (h5_md_files[i].fileno == n) { h5_md_files[i] = h5_md_files[--h5_n_md_files]; return; }
}

/* 1 if HDF5 1.12 or later reads obj's file's metadata collectively, as far as colldiag was told
   (h5_note_file). Then H5Dget_create_plist and H5Oget_info3 read the object header through a
   collective protect (H5O_get_create_plist in 1.14), and one made by one rank alone (an independent
   call's) is matched by the others' next collective metadata read, elsewhere: the file's metadata goes
   wrong or the job hangs (netCDF-C's tst_parallel5 under the preload's explain mode: nc_close failed
   on two ranks, then hung). On such a file colldiag learns a dataset only where every rank does
   (colldiag_h5_opened, colldiag_h5_created, a collective call) and an independent call uses what was
   learned. HDF5 1.10's H5Dget_create_plist copies the dataset's list without reading the header.
   Local: asks HDF5 nothing that reads the file or communicates. */
static int h5_reads_need_all_ranks(hid_t obj)
{
    if (!h5_n_md_files || !h5_lib_at_least(1, 12, 0)) return 0;
    const unsigned long n = h5_fileno_of(obj);
    for (size_t i = 0; n && i < h5_n_md_files; i++)
        if (h5_md_files[i].fileno == n) return h5_md_files[i].coll;
    return 0;
}

/* What to add to an address from H5Dget_chunk_info / H5Dget_chunk_info_by_coord to get the byte offset
   in the file, given the file's userblock size. */
static hsize_t h5_chunk_info_base(hsize_t userblock)
{
    return h5_lib_at_least(1, 14, 4) ? 0 : userblock;
}

/* The facts of HDF5 1.14's selection-I/O decision (src/decision.c) that only HDF5 knows, into x: the
   rules of the HDF5 in use, the DXPL's selection I/O mode (H5Pset_selection_io), and, in a file not open
   for writing (f->read_only), the dataset's chunk cache size (H5Pset_chunk_cache), which chunks that fit
   it go through. Local. */
static void h5_selection_facts(hid_t dset, hid_t dxpl, colldiag_xfer *x, const colldiag_file *f)
{
    x->set.rules = h5_lib_at_least(1, 14, 0) ? COLLDIAG_HDF5_RULES_1_14 : COLLDIAG_HDF5_RULES_1_10;
    x->set.sel_io = COLLDIAG_SELECTION_IO_DEFAULT;
    x->chunk_cache = -1;
    if (x->set.rules != COLLDIAG_HDF5_RULES_1_14) return;
#if H5_VERSION_GE(1, 14, 0)
    H5D_selection_io_mode_t m = H5D_SELECTION_IO_MODE_DEFAULT;
    if (dxpl != H5P_DEFAULT && H5Pget_selection_io(dxpl, &m) >= 0) x->set.sel_io = (int)m;
#else
    (void)dxpl;
#endif
    if (f && f->read_only) {
        hid_t dapl = H5Dget_access_plist(dset);
        size_t slots = 0, nbytes = 0;
        double w0 = 0;
        if (dapl >= 0 && H5Pget_chunk_cache(dapl, &slots, &nbytes, &w0) >= 0) x->chunk_cache = (int64_t)nbytes;
        if (dapl >= 0) H5Pclose(dapl);
    }
}

/* Whether HDF5 left the storage's fill unwritten when it allocated it (parallel HDF5 allocates at
   creation): contiguous storage gets its fill only with H5D_FILL_TIME_ALLOC, or H5D_FILL_TIME_IFSET and
   a fill value set; chunks get theirs unless H5D_FILL_TIME_NEVER or the fill value is undefined
   (tests/h5_defects.c checks both with HDF5 alone: holes-*, control-fill-*). A list that cannot be read:
   as HDF5's default for the class. */
static int h5_fill_unwritten(hid_t dcpl, H5D_layout_t lay)
{
    H5D_fill_time_t ft = H5D_FILL_TIME_IFSET;
    H5D_fill_value_t st = H5D_FILL_VALUE_DEFAULT;
    if (dcpl < 0 || H5Pget_fill_time(dcpl, &ft) < 0 || H5Pfill_value_defined(dcpl, &st) < 0) return lay != H5D_CHUNKED;
    if (lay == H5D_CHUNKED) return ft == H5D_FILL_TIME_NEVER || st == H5D_FILL_VALUE_UNDEFINED;
    return !(ft == H5D_FILL_TIME_ALLOC || (ft == H5D_FILL_TIME_IFSET && st == H5D_FILL_VALUE_USER_DEFINED));
}

#endif /* COLLDIAG_WITH_HDF5 */

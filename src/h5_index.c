/* ====================================================================================================
 * 11. HDF5 bridge (only with -DCOLLDIAG_WITH_HDF5; needs parallel HDF5 1.10.8 or later)
 *
 * A layout from an open dataset and a selection from a dataspace. Whatever colldiag cannot represent
 * exactly fails with a message: no silent approximation.
 * ==================================================================================================== */
#ifdef COLLDIAG_WITH_HDF5

/* ---- reading a dataset's chunk index from the file ----
   HDF5 1.10 has no call that lists a dataset's chunk addresses in one pass (H5Dget_chunk_info walks the
   whole index for every chunk: 5.8 ms a chunk at 262,144 chunks), so colldiag reads the index as the
   HDF5 file format specification (version 3.0) defines it: the object header's layout message, then
   whichever index it names -- a version 1 B-tree (every file written with the default format), or,
   with the 1.10 format, a single chunk, the implicit index, a fixed array, an extensible array or a
   version 2 B-tree. Indexes of filtered chunks hold each chunk's stored (compressed) size and filter
   mask too: read only where the caller asks for them (ix_rd.stored, colldiag_h5_chunk_records), so that a
   plan of filtered chunks keeps refusing them (colldiag moves no filtered chunk yet).
   The file must be flushed first (H5Fflush): the reader sees the disk, not HDF5's metadata cache.
   Every structure with a checksum is verified; anything unexpected stops the reader with a reason,
   and the caller lets HDF5 do the work instead. Addresses in the file are relative to its base (the
   userblock's size); the table holds absolute file offsets. */

/* Jenkins' lookup3 hashlittle() with initial value 0, which HDF5 uses for its metadata checksums. */
static uint32_t ix_lookup3(const unsigned char *k, size_t length)
{
#define IX_ROT(x, s) (((x) << (s)) | ((x) >> (32 - (s))))
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)length;
    while (length > 12) {
        a += k[0] + ((uint32_t)k[1] << 8) + ((uint32_t)k[2] << 16) + ((uint32_t)k[3] << 24);
        b += k[4] + ((uint32_t)k[5] << 8) + ((uint32_t)k[6] << 16) + ((uint32_t)k[7] << 24);
        c += k[8] + ((uint32_t)k[9] << 8) + ((uint32_t)k[10] << 16) + ((uint32_t)k[11] << 24);
        a -= c; a ^= IX_ROT(c, 4); c += b;
        b -= a; b ^= IX_ROT(a, 6); a += c;
        c -= b; c ^= IX_ROT(b, 8); b += a;
        a -= c; a ^= IX_ROT(c, 16); c += b;
        b -= a; b ^= IX_ROT(a, 19); a += c;
        c -= b; c ^= IX_ROT(b, 4); b += a;
        length -= 12;
        k += 12;
    }
    switch (length) { /* the last bytes, each case falling through */
    case 12: c += (uint32_t)k[11] << 24; /* fall through */
    case 11: c += (uint32_t)k[10] << 16; /* fall through */
    case 10: c += (uint32_t)k[9] << 8; /* fall through */
    case 9: c += k[8]; /* fall through */
    case 8: b += (uint32_t)k[7] << 24; /* fall through */
    case 7: b += (uint32_t)k[6] << 16; /* fall through */
    case 6: b += (uint32_t)k[5] << 8; /* fall through */
    case 5: b += k[4]; /* fall through */
    case 4: a += (uint32_t)k[3] << 24; /* fall through */
    case 3: a += (uint32_t)k[2] << 16; /* fall through */
    case 2: a += (uint32_t)k[1] << 8; /* fall through */
    case 1: a += k[0]; break;
    case 0: return c;
    }
    c ^= b; c -= IX_ROT(b, 14);
    a ^= c; a -= IX_ROT(c, 11);
    b ^= a; b -= IX_ROT(a, 25);
    c ^= b; c -= IX_ROT(b, 16);
    a ^= c; a -= IX_ROT(c, 4);
    b ^= a; b -= IX_ROT(a, 14);
    c ^= b; c -= IX_ROT(b, 24);
    return c;
#undef IX_ROT
}

/* Unsigned little-endian integer of n bytes. */
static uint64_t ix_u(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;) v = v << 8 | p[i];
    return v;
}

/* An address of n bytes that is all ones: undefined (not allocated). */
static int ix_undef(const unsigned char *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (p[i] != 0xff) return 0;
    return 1;
}

static unsigned ix_log2(uint64_t x)
{
    unsigned r = 0;
    while (x > 1) { x >>= 1; r++; }
    return r;
}

/* Index types of the layout message (version 4; version 3 is always the v1 B-tree). */
enum { IX_BTREE1 = 0, IX_SINGLE = 1, IX_IMPLICIT = 2, IX_FARRAY = 3, IX_EARRAY = 4, IX_BTREE2 = 5 };
static const char *const ix_names[] = {"version 1 B-tree", "single chunk", "implicit", "fixed array", "extensible array",
                                        "version 2 B-tree"};

typedef struct {
    MPI_File fh;
    uint64_t base;                       /* file offset of address 0 (the userblock) */
    unsigned sa, ss;                     /* bytes of an address, of a length */
    int rank;                            /* the dataset's */
    uint64_t cdims[COLLDIAG_MAX_RANK];   /* chunk dims */
    uint64_t grid[COLLDIAG_MAX_RANK];    /* chunks per dimension over the current extent */
    uint64_t down[COLLDIAG_MAX_RANK];    /* linear index strides of the array indexes (max dims, maybe swizzled) */
    int order[COLLDIAG_MAX_RANK];        /* dimension at each linear position (the swizzle) */
    MPI_Offset *tab;                     /* out (whole-table mode): absolute address per chunk of the current
                                            grid, -1 none */
    uint64_t ntab;
    /* targeted mode (want != NULL): only these chunks (current-grid indices, ascending), into got; the
       walks descend only into the blocks that can hold one of them */
    const uint64_t *want;
    MPI_Offset *got;
    uint64_t nwant;
    /* filtered chunk records (NULL: not asked for, and an index of filtered chunks is refused): each
       chunk's stored size and filter mask, beside tab (whole-table mode) or got (targeted); an
       unfiltered index gives chunk_bytes and mask 0 */
    uint64_t *stored;
    uint32_t *mask;
    uint64_t chunk_bytes;
    unsigned es;                         /* bytes of an array index's element (sa, or sa + size + 4 filtered) */
    unsigned zs;                         /* bytes of a filtered record's stored size (0: unfiltered records) */
    struct ix_ew *ew;                    /* array indexes: (element index, position in want), by element */
    uint64_t nodes;                      /* index blocks read: a bound against cycles in a damaged file */
    char why[256];                       /* the first problem */
} ix_rd;

typedef struct ix_ew { uint64_t e, pos; } ix_ew;
static int ix_cmp_ew(const void *a, const void *b)
{
    const ix_ew *x = a, *y = b;
    return x->e < y->e ? -1 : x->e > y->e;
}

static int ix_fail(ix_rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ix_fail(ix_rd *r, const char *fmt, ...)
{
    if (!r->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->why, sizeof r->why, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Up to n bytes at relative address addr (fewer only at the end of the file): *got of them. */
static int ix_read_upto(ix_rd *r, uint64_t addr, void *buf, size_t n, size_t *got)
{
    if (++r->nodes > (r->want ? r->nwant * 8 : r->ntab * 4) + 4096)
        return ix_fail(r, "more index blocks than chunks: the index looks damaged");
    MPI_Status st;
    int k = -1;
    if (n > (size_t)INT_MAX || addr > (uint64_t)CD_MAX_OFFSET - r->base ||
        MPI_File_read_at(r->fh, (MPI_Offset)(r->base + addr), buf, (int)n, MPI_BYTE, &st) != MPI_SUCCESS ||
        MPI_Get_count(&st, MPI_BYTE, &k) != MPI_SUCCESS || k < 0)
        return ix_fail(r, "cannot read %zu bytes at address %" PRIu64 " (is the file flushed?)", n, addr);
    *got = (size_t)k;
    return 0;
}

/* n bytes at relative address addr, all of them. */
static int ix_read(ix_rd *r, uint64_t addr, void *buf, size_t n)
{
    size_t got = 0;
    if (ix_read_upto(r, addr, buf, n, &got)) return -1;
    return got == n ? 0 : ix_fail(r, "cannot read %zu bytes at address %" PRIu64 " (is the file flushed?)", n, addr);
}

/* A block read whole, its 4-letter signature checked, and (sum != 0) its checksum: the last 4 bytes of
   the first sum bytes hold lookup3 of what precedes them. Returns the buffer (caller frees) or NULL. */
static unsigned char *ix_block(ix_rd *r, uint64_t addr, size_t n, const char *sig, size_t sum)
{
    unsigned char *b = cd_malloc(n);
    if (!b) { ix_fail(r, "no memory for a %zu-byte index block", n); return NULL; }
    if (ix_read(r, addr, b, n)) { cd_free(b); return NULL; }
    if (sig && memcmp(b, sig, 4)) {
        ix_fail(r, "no %s signature at address %" PRIu64 " (the file is not flushed, or not what colldiag expects)", sig, addr);
        cd_free(b);
        return NULL;
    }
    if (sum && (sum < 4 || sum > n || ix_lookup3(b, sum - 4) != (uint32_t)ix_u(b + sum - 4, 4))) {
        ix_fail(r, "the %s at address %" PRIu64 " fails its checksum (the file is not flushed?)", sig ? sig : "block", addr);
        cd_free(b);
        return NULL;
    }
    return b;
}

/* Position of chunk idx in want, or nwant. */
static uint64_t ix_want_pos(const ix_rd *r, uint64_t idx)
{
    uint64_t lo = 0, hi = r->nwant;
    while (lo < hi) {
        const uint64_t m = lo + (hi - lo) / 2;
        if (r->want[m] < idx) lo = m + 1;
        else hi = m;
    }
    return lo < r->nwant && r->want[lo] == idx ? lo : r->nwant;
}

/* A chunk given by its scaled coordinates (chunk units) lies at relative address a. Chunks past the
   current extent (left behind by a smaller H5Dset_extent) are not the dataset's. */
static void ix_put_scaled_rec(ix_rd *r, const uint64_t *s, uint64_t a, uint64_t size, uint32_t mask)
{
    uint64_t idx = 0;
    for (int d = 0; d < r->rank; d++) {
        if (s[d] >= r->grid[d]) return;
        idx = idx * r->grid[d] + s[d];
    }
    const uint64_t k = r->want ? ix_want_pos(r, idx) : idx;
    if (r->want && k >= r->nwant) return;
    (r->want ? r->got : r->tab)[k] = (MPI_Offset)(r->base + a);
    if (r->stored) {
        r->stored[k] = size;
        r->mask[k] = mask;
    }
}

/* Lexicographic order of scaled coordinates: the order of both B-trees' keys, and (for chunks inside
   the current grid) the order of their linear indices, so want is sorted in it too. */
static int ix_cmp_scaled(const ix_rd *r, const uint64_t *a, const uint64_t *b)
{
    for (int d = 0; d < r->rank; d++)
        if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
    return 0;
}

/* 1 if a wanted chunk lies after lo (from lo on when lo_in; NULL: from the start) and before hi
   (NULL: to the end). The B-tree walks descend only where this holds. Whole-table mode: always 1. */
static int ix_want_between(const ix_rd *r, const uint64_t *lo, int lo_in, const uint64_t *hi)
{
    if (!r->want) return 1;
    uint64_t a = 0, b = r->nwant, c[COLLDIAG_MAX_RANK];
    while (lo && a < b) { /* the first wanted chunk not before lo */
        const uint64_t m = a + (b - a) / 2;
        uint64_t idx = r->want[m];
        for (int d = r->rank - 1; d >= 0; d--) { c[d] = idx % r->grid[d]; idx /= r->grid[d]; }
        const int k = ix_cmp_scaled(r, c, lo);
        if (k < 0 || (k == 0 && !lo_in)) a = m + 1;
        else b = m;
    }
    if (a >= r->nwant) return 0;
    if (!hi) return 1;
    uint64_t idx = r->want[a];
    for (int d = r->rank - 1; d >= 0; d--) { c[d] = idx % r->grid[d]; idx /= r->grid[d]; }
    return ix_cmp_scaled(r, c, hi) < 0;
}

/* First entry of ew with an element index >= e. */
static uint64_t ix_ew_from(const ix_rd *r, uint64_t e)
{
    uint64_t a = 0, b = r->nwant;
    while (a < b) {
        const uint64_t m = a + (b - a) / 2;
        if (r->ew[m].e < e) a = m + 1;
        else b = m;
    }
    return a;
}

/* 1 if a wanted chunk is element e0 .. e0 + n - 1 of an array index (whole-table mode: always 1). */
static int ix_want_elems(const ix_rd *r, uint64_t e0, uint64_t n)
{
    if (!r->want) return 1;
    const uint64_t a = ix_ew_from(r, e0);
    return a < r->nwant && r->ew[a].e - e0 < n;
}

/* A chunk given by its linear index over the (maybe swizzled) maximum chunk grid of the array indexes. */
static void ix_put_linear(ix_rd *r, uint64_t lin, uint64_t a, uint64_t size, uint32_t mask)
{
    uint64_t s[COLLDIAG_MAX_RANK];
    for (int k = 0; k < r->rank; k++) {
        s[r->order[k]] = lin / r->down[k];
        lin %= r->down[k];
    }
    ix_put_scaled_rec(r, s, a, size, mask);
}

/* The layout message: version, class and, for chunked storage, the index. */
typedef struct {
    int version, cls;            /* class 0 compact, 1 contiguous, 2 chunked, 3 virtual */
    int type;                    /* H5I_* */
    unsigned flags;              /* version 4: bit 1 = a filtered single chunk */
    uint64_t single_size;        /* a filtered single chunk's stored size and filter mask */
    uint32_t single_mask;
    uint64_t iaddr;              /* index address (contiguous: data address) */
    unsigned ndims;              /* chunk dims + 1 (the last is the element size) */
    uint64_t dim[COLLDIAG_MAX_RANK + 1];
    unsigned p[5];               /* fixed array: page bits; extensible array: max bits, index block
                                    elements, minimum data pointers, minimum elements, page bits */
} ix_layout;

static int ix_parse_layout(ix_rd *r, const unsigned char *p, size_t n, ix_layout *L)
{
    memset(L, 0, sizeof *L);
    if (n < 2) return ix_fail(r, "a truncated layout message");
    L->version = p[0];
    L->cls = p[1];
    if (L->version < 3 || L->version > 4)
        return ix_fail(r, "layout message version %d (files of HDF5 1.6 or older, or newer than 1.10)", L->version);
    if (L->cls == 1) {
        if (n < 2 + r->sa) return ix_fail(r, "a truncated layout message");
        L->iaddr = ix_u(p + 2, r->sa);
        return 0;
    }
    if (L->cls != 2) return 0; /* compact or virtual: nothing to read */
    size_t q = 2;
    if (L->version == 3) {
        if (n < q + 1 + r->sa) return ix_fail(r, "a truncated layout message");
        L->ndims = p[q++];
        L->type = IX_BTREE1;
        L->iaddr = ix_u(p + q, r->sa);
        q += r->sa;
        if (L->ndims < 2 || L->ndims > COLLDIAG_MAX_RANK + 1 || n < q + 4 * L->ndims) return ix_fail(r, "a malformed layout message");
        for (unsigned d = 0; d < L->ndims; d++) L->dim[d] = ix_u(p + q + 4 * d, 4);
        return 0;
    }
    if (n < q + 3) return ix_fail(r, "a truncated layout message");
    L->flags = p[q++];
    L->ndims = p[q++];
    unsigned enc = p[q++];
    if (L->ndims < 2 || L->ndims > COLLDIAG_MAX_RANK + 1 || enc < 1 || enc > 8 || n < q + enc * L->ndims + 1)
        return ix_fail(r, "a malformed layout message");
    for (unsigned d = 0; d < L->ndims; d++) L->dim[d] = ix_u(p + q + enc * d, enc);
    q += enc * L->ndims;
    L->type = p[q++];
    static const unsigned nparam[6] = {0, 0, 0, 1, 5, 6};
    size_t extra = L->type == IX_SINGLE && (L->flags & 2) ? r->ss + 4 : L->type <= IX_BTREE2 ? nparam[L->type] : 0;
    if (L->type < IX_SINGLE || L->type > IX_BTREE2) return ix_fail(r, "chunk index type %d", L->type);
    if (n < q + extra + r->sa) return ix_fail(r, "a truncated layout message");
    for (unsigned i = 0; i < 5 && i < extra && L->type != IX_SINGLE; i++) L->p[i] = p[q + i];
    if (L->type == IX_SINGLE && (L->flags & 2)) {
        L->single_size = ix_u(p + q, r->ss);
        L->single_mask = (uint32_t)ix_u(p + q + r->ss, 4);
    }
    q += extra;
    L->iaddr = ix_u(p + q, r->sa);
    return 0;
}

/* Finds the layout message in the object header at relative address oh (version 1 or 2 headers, with
   their continuation blocks). */
static int ix_find_layout(ix_rd *r, uint64_t oh, ix_layout *L)
{
    unsigned char pre[64];
    if (ix_read(r, oh, pre, 16)) return -1;
    uint64_t caddr[64], clen[64];
    int nc = 0, v2 = !memcmp(pre, "OHDR", 4), oflags = 0;
    if (v2) {
        if (pre[4] != 2) return ix_fail(r, "object header version %d", pre[4]);
        oflags = pre[5];
        size_t q = 6 + ((oflags & 0x20) ? 16 : 0) + ((oflags & 0x10) ? 4 : 0);
        unsigned w = 1u << (oflags & 3);
        if (ix_read(r, oh, pre, q + w)) return -1;
        caddr[0] = oh; /* chunk 0 is read with its prefix, so the checksum covers the whole */
        clen[0] = q + w + ix_u(pre + q, w) + 4;
    } else if (pre[0] == 1) {
        caddr[0] = oh + 16;
        clen[0] = ix_u(pre + 8, 4);
    } else {
        return ix_fail(r, "no object header at address %" PRIu64, oh);
    }
    nc = 1;
    for (int c = 0; c < nc; c++) {
        if (clen[c] > ((size_t)1 << 24)) return ix_fail(r, "an object header chunk of %" PRIu64 " bytes", clen[c]);
        const char *sig = v2 ? (c ? "OCHK" : "OHDR") : NULL;
        unsigned char *b = ix_block(r, caddr[c], (size_t)clen[c], sig, v2 ? (size_t)clen[c] : 0);
        if (!b) return -1;
        /* messages: after chunk 0's prefix or a continuation's signature, before a version 2 checksum */
        size_t q = !v2 ? 0 : c ? 4 : 6 + ((oflags & 0x20) ? 16 : 0) + ((oflags & 0x10) ? 4 : 0) + (1u << (oflags & 3));
        const size_t end = (size_t)clen[c] - (v2 ? 4 : 0);
        const size_t mh = v2 ? 4 + ((oflags & 0x04) ? 2 : 0) : 8;
        int found = 0;
        while (q + mh <= end) {
            unsigned type = v2 ? b[q] : (unsigned)ix_u(b + q, 2);
            size_t sz = (size_t)ix_u(b + q + (v2 ? 1 : 2), 2);
            const unsigned char *d = b + q + mh;
            if (q + mh + sz > end) break;
            if (type == 0x08) {
                found = !ix_parse_layout(r, d, sz, L) ? 1 : -1;
                break;
            }
            if (type == 0x10 && sz >= r->sa + r->ss && nc < 64) {
                caddr[nc] = ix_u(d, r->sa);
                clen[nc] = ix_u(d + r->sa, r->ss);
                nc++;
            }
            q += mh + sz;
        }
        cd_free(b);
        if (found) return found > 0 ? 0 : -1;
    }
    return ix_fail(r, "the object header has no layout message");
}

/* --- the indexes --- */

/* Version 1 B-tree of raw data chunks: keys hold each chunk's offset in elements; level 0 points at chunks. */
static int ix_btree1(ix_rd *r, uint64_t addr, unsigned ndims, int depth)
{
    if (depth > 64) return ix_fail(r, "a v1 B-tree deeper than 64 levels");
    const size_t hdr = 8 + 2 * (size_t)r->sa, ks = 8 + 8 * (size_t)ndims;
    /* one read of a node of HDF5's default size (64 entries: istore_k 32) usually holds it all; a larger
       node is read again whole. Reads past the end of the file come back short, which is fine as long
       as they hold the node's entries. */
    const size_t guess = hdr + 65 * ks + 64 * (size_t)r->sa;
    unsigned char *b = cd_malloc(guess);
    size_t got = 0;
    if (!b) return ix_fail(r, "no memory for a %zu-byte index block", guess);
    if (ix_read_upto(r, addr, b, guess, &got) || got < hdr) { cd_free(b); return ix_fail(r, "cannot read a B-tree node at address %" PRIu64, addr); }
    if (memcmp(b, "TREE", 4) || b[4] != 1) {
        cd_free(b);
        return ix_fail(r, "no raw-data B-tree node at address %" PRIu64 " (the file is not flushed?)", addr);
    }
    const unsigned level = b[5], used = (unsigned)ix_u(b + 6, 2);
    const size_t n = hdr + (used + 1) * ks + used * (size_t)r->sa;
    if (n > got) {
        cd_free(b);
        b = ix_block(r, addr, n, "TREE", 0);
        if (!b) return -1;
    }
    int rc = 0;
    for (unsigned i = 0; i < used && !rc; i++) {
        const unsigned char *key = b + hdr + i * (ks + r->sa), *child = key + ks;
        const uint64_t ca = ix_u(child, r->sa);
        uint64_t s[COLLDIAG_MAX_RANK], t[COLLDIAG_MAX_RANK];
        for (int d = 0; d < r->rank; d++) s[d] = ix_u(key + 8 + 8 * (size_t)d, 8) / r->cdims[d];
        if (level > 0) {
            /* child i holds the chunks from key i up to (not including) key i + 1; past the last child
               nothing is trusted to bound it */
            for (int d = 0; d < r->rank && i + 1 < used; d++) t[d] = ix_u(key + ks + r->sa + 8 + 8 * (size_t)d, 8) / r->cdims[d];
            if (ix_want_between(r, s, 1, i + 1 < used ? t : NULL)) rc = ix_btree1(r, ca, ndims, depth + 1);
            continue;
        }
        /* every key holds the chunk's stored size and filter mask (unfiltered: the chunk's bytes, 0) */
        if (!ix_undef(child, r->sa)) ix_put_scaled_rec(r, s, ca, ix_u(key, 4), (uint32_t)ix_u(key + 4, 4));
    }
    cd_free(b);
    return rc;
}

/* Element index (linear over the maximum grid, maybe swizzled) of chunk idx of the current grid. */
static uint64_t ix_elem_of(const ix_rd *r, uint64_t idx)
{
    uint64_t s[COLLDIAG_MAX_RANK], lin = 0;
    for (int d = r->rank - 1; d >= 0; d--) { s[d] = idx % r->grid[d]; idx /= r->grid[d]; }
    for (int k = 0; k < r->rank; k++) lin += s[r->order[k]] * r->down[k];
    return lin;
}

/* The implicit index: chunk k (linear over the maximum grid) at index address + k x chunk bytes. */
static int ix_implicit(ix_rd *r, uint64_t iaddr, uint64_t chunk_bytes)
{
    const uint64_t n = r->want ? r->nwant : r->ntab;
    for (uint64_t i = 0; i < n; i++) {
        const MPI_Offset a = (MPI_Offset)(r->base + iaddr + ix_elem_of(r, r->want ? r->want[i] : i) * chunk_bytes);
        if (r->want) r->got[i] = a;
        else r->tab[i] = a;
        if (r->stored) { r->stored[i] = chunk_bytes; r->mask[i] = 0; }
    }
    return 0;
}

/* Elements (chunk addresses) of an array index: n of them from element index e0, in buf. */
/* One element: the address, then (filtered) the stored size in zs bytes and the filter mask. */
static void ix_element(const ix_rd *r, const unsigned char *p, uint64_t *size, uint32_t *mask)
{
    *size = r->zs ? ix_u(p + r->sa, r->zs) : r->chunk_bytes;
    *mask = r->zs ? (uint32_t)ix_u(p + r->sa + r->zs, 4) : 0;
}

static void ix_put_elements(ix_rd *r, const unsigned char *buf, uint64_t e0, uint64_t n, uint64_t limit)
{
    uint64_t size;
    uint32_t mask;
    if (r->want) { /* the wanted ones only */
        for (uint64_t k = ix_ew_from(r, e0); k < r->nwant && r->ew[k].e - e0 < n && r->ew[k].e < limit; k++) {
            const unsigned char *p = buf + (r->ew[k].e - e0) * r->es;
            if (ix_undef(p, r->sa)) continue;
            const uint64_t pos = r->ew[k].pos;
            r->got[pos] = (MPI_Offset)(r->base + ix_u(p, r->sa));
            if (r->stored) {
                ix_element(r, p, &size, &mask);
                r->stored[pos] = size;
                r->mask[pos] = mask;
            }
        }
        return;
    }
    for (uint64_t i = 0; i < n && e0 + i < limit; i++) {
        const unsigned char *p = buf + i * r->es;
        if (ix_undef(p, r->sa)) continue;
        ix_element(r, p, &size, &mask);
        ix_put_linear(r, e0 + i, ix_u(p, r->sa), size, mask);
    }
}

/* n elements starting at element e0, in pages of pn elements (paged blocks: bit k of init, MSB first,
   says page k exists) or in the block itself (init NULL); prefix: the block's bytes before its elements. */
static int ix_array_block(ix_rd *r, const char *sig, uint64_t addr, size_t prefix, uint64_t e0, uint64_t n, uint64_t pn,
                           const unsigned char *init, uint64_t ibit0, uint64_t limit)
{
    if (!ix_want_elems(r, e0, n)) return 0;
    if (!init) {
        unsigned char *b = ix_block(r, addr, prefix + n * r->es + 4, sig, prefix + n * r->es + 4);
        if (!b) return -1;
        ix_put_elements(r, b + prefix, e0, n, limit);
        cd_free(b);
        return 0;
    }
    const uint64_t np = (n + pn - 1) / pn;
    for (uint64_t k = 0; k < np; k++) {
        const uint64_t bit = ibit0 + k;
        const uint64_t m = k + 1 < np ? pn : n - k * pn;
        if (!(init[bit / 8] & (0x80u >> (bit % 8))) || !ix_want_elems(r, e0 + k * pn, m)) continue;
        const uint64_t at = addr + prefix + k * (pn * r->es + 4);
        unsigned char *b = ix_block(r, at, m * r->es + 4, NULL, m * r->es + 4);
        if (!b) return -1;
        ix_put_elements(r, b, e0 + k * pn, m, limit);
        cd_free(b);
    }
    return 0;
}

/* An array index's elements (client 0: addresses of unfiltered chunks; 1: filtered chunks' address,
   stored size, filter mask), refused where the caller did not ask for filtered records. */
static int ix_elements(ix_rd *r, unsigned client, unsigned es)
{
    if (client == 0 && es == r->sa) {
        r->es = es;
        r->zs = 0;
        return 0;
    }
    if (client != 1 || es < r->sa + 5 || es > r->sa + 12) return ix_fail(r, "an array index of client %u with %u-byte elements", client, es);
    if (!r->stored) return ix_fail(r, "an array index of filtered chunks");
    r->es = es;
    r->zs = es - r->sa - 4;
    return 0;
}

/* Fixed array: a header, one data block (its elements inline, or in pages). */
static int ix_farray(ix_rd *r, uint64_t addr, unsigned page_bits)
{
    const size_t hn = 4 + 4 + r->ss + r->sa + 4;
    unsigned char *h = ix_block(r, addr, hn, "FAHD", hn);
    if (!h) return -1;
    const unsigned client = h[5], es = h[6], pb = h[7];
    const uint64_t n = ix_u(h + 8, r->ss), db = ix_u(h + 8 + r->ss, r->sa);
    const int undef = ix_undef(h + 8 + r->ss, r->sa);
    cd_free(h);
    if (ix_elements(r, client, es)) return -1;
    (void)page_bits;
    if (undef || n == 0) return 0;
    const uint64_t pn = (uint64_t)1 << pb;
    if (n <= pn) return ix_array_block(r, "FADB", db, 4 + 2 + r->sa, 0, n, pn, NULL, 0, n);
    const uint64_t np = (n + pn - 1) / pn;
    const size_t bm = (size_t)((np + 7) / 8), pre = 4 + 2 + r->sa + bm + 4;
    unsigned char *d = ix_block(r, db, pre, "FADB", pre);
    if (!d) return -1;
    int rc = ix_array_block(r, "FADB", db, pre, 0, n, pn, d + 4 + 2 + r->sa, 0, n);
    cd_free(d);
    return rc;
}

/* Extensible array: the index block holds the first elements, the addresses of the first data blocks
   and of the super blocks, which hold the addresses of the rest. Super block s has 2^(s/2) data blocks
   of 2^((s+1)/2) x (minimum elements) elements each. */
static int ix_earray(ix_rd *r, uint64_t addr)
{
    const size_t hn = 4 + 2 + 6 + 6 * (size_t)r->ss + r->sa + 4;
    unsigned char *h = ix_block(r, addr, hn, "EAHD", hn);
    if (!h) return -1;
    const unsigned client = h[5], es = h[6], maxbits = h[7], ib_elmts = h[8], dmin = h[9], ptrmin = h[10], pbits = h[11];
    const uint64_t max_idx = ix_u(h + 12 + 4 * (size_t)r->ss, r->ss);
    const uint64_t ib = ix_u(h + 12 + 6 * (size_t)r->ss, r->sa);
    const int ib_undef = ix_undef(h + 12 + 6 * (size_t)r->ss, r->sa);
    cd_free(h);
    if (ix_elements(r, client, es)) return -1;
    if (!dmin || !ptrmin || (dmin & (dmin - 1)) || (ptrmin & (ptrmin - 1)) || maxbits > 64 || maxbits < ix_log2(dmin))
        return ix_fail(r, "an extensible array header with impossible parameters");
    if (ib_undef || max_idx == 0) return 0;
    const unsigned nsblks = 1 + maxbits - ix_log2(dmin), ib_nsblks = 2 * ix_log2(ptrmin);
    const size_t nd = 2 * ((size_t)ptrmin - 1), ns = nsblks > ib_nsblks ? nsblks - ib_nsblks : 0;
    const size_t aoff = (maxbits + 7) / 8, pre = 4 + 2 + r->sa;
    const uint64_t pn = (uint64_t)1 << pbits;
    const size_t ibn = pre + ib_elmts * (size_t)es + (nd + ns) * r->sa + 4;
    unsigned char *b = ix_block(r, ib, ibn, "EAIB", ibn);
    if (!b) return -1;
    ix_put_elements(r, b + pre, 0, ib_elmts, max_idx);
    const unsigned char *dad = b + pre + ib_elmts * (size_t)es, *sad = dad + nd * r->sa;
    int rc = 0;
    uint64_t start = 0, dblk = 0; /* first element (past the index block's own) and data block of super block s */
    for (unsigned s = 0; s < nsblks && !rc && ib_elmts + start < max_idx; s++) {
        const uint64_t ndb = (uint64_t)1 << (s / 2), dn = ((uint64_t)1 << ((s + 1) / 2)) * dmin;
        if (s < ib_nsblks) { /* data blocks whose addresses the index block holds */
            for (uint64_t j = 0; j < ndb && !rc; j++) {
                const unsigned char *a = dad + (dblk + j) * r->sa;
                if (dblk + j >= nd || ix_undef(a, r->sa)) continue;
                if (dn > pn) { rc = ix_fail(r, "a paged data block in an extensible array's index block"); break; }
                rc = ix_array_block(r, "EADB", ix_u(a, r->sa), pre + aoff, ib_elmts + start + j * dn, dn, pn, NULL, 0, max_idx);
            }
        } else if (!ix_undef(sad + (s - ib_nsblks) * r->sa, r->sa) && ix_want_elems(r, ib_elmts + start, ndb * dn)) {
            const uint64_t npages = dn > pn ? dn / pn : 0;
            const size_t bm = npages ? (size_t)(ndb * ((npages + 7) / 8)) : 0, sn = pre + aoff + bm + ndb * r->sa + 4;
            unsigned char *sb = ix_block(r, ix_u(sad + (s - ib_nsblks) * r->sa, r->sa), sn, "EASB", sn);
            if (!sb) { rc = -1; break; }
            for (uint64_t j = 0; j < ndb && !rc; j++) {
                const unsigned char *a = sb + pre + aoff + bm + j * r->sa;
                if (ix_undef(a, r->sa)) continue;
                /* a paged data block: its prefix (ending with its checksum), then pages */
                rc = ix_array_block(r, "EADB", ix_u(a, r->sa), npages ? pre + aoff + 4 : pre + aoff, ib_elmts + start + j * dn, dn, pn,
                                     npages ? sb + pre + aoff : NULL, j * npages, max_idx);
            }
            cd_free(sb);
        }
        start += ndb * dn;
        dblk += ndb;
    }
    cd_free(b);
    return rc;
}

/* Version 2 B-tree of unfiltered chunk records (type 10: address, then scaled offsets); internal nodes
   hold records too. */
typedef struct { unsigned node, rec, depth, leaf_nrec_size, cum_size[64]; } ix_bt2;
static unsigned ix_enc_size(uint64_t x) { return ix_log2(x) / 8 + 1; }

/* A record's scaled offsets follow its address (type 10) or its address, stored size and filter mask
   (type 11: zs + 4 more bytes). */
static size_t ix_bt2_scaled(const ix_rd *r) { return r->sa + (r->zs ? r->zs + 4 : 0); }

static int ix_bt2_node(ix_rd *r, const ix_bt2 *t, uint64_t addr, uint64_t nrec, unsigned depth)
{
    if (depth > t->depth || depth >= 64) return ix_fail(r, "a v2 B-tree node deeper than its header says");
    const size_t ptr = depth ? r->sa + t->leaf_nrec_size + (depth > 1 ? t->cum_size[depth - 1] : 0) : 0;
    const size_t n = 6 + nrec * t->rec + (depth ? (nrec + 1) * ptr : 0) + 4;
    if (n > t->node) return ix_fail(r, "a v2 B-tree node larger than its node size");
    unsigned char *b = ix_block(r, addr, n, depth ? "BTIN" : "BTLF", n);
    if (!b) return -1;
    int rc = 0;
    const size_t so = ix_bt2_scaled(r);
    for (uint64_t i = 0; i < nrec; i++) {
        const unsigned char *q = b + 6 + i * t->rec;
        uint64_t s[COLLDIAG_MAX_RANK], size;
        uint32_t mask;
        for (int d = 0; d < r->rank; d++) s[d] = ix_u(q + so + 8 * (size_t)d, 8);
        ix_element(r, q, &size, &mask);
        if (!ix_undef(q, r->sa)) ix_put_scaled_rec(r, s, ix_u(q, r->sa), size, mask);
    }
    for (uint64_t i = 0; depth && i <= nrec && !rc; i++) {
        /* child i holds the records between record i - 1 and record i */
        uint64_t lo[COLLDIAG_MAX_RANK], hi[COLLDIAG_MAX_RANK];
        for (int d = 0; d < r->rank; d++) {
            if (i > 0) lo[d] = ix_u(b + 6 + (i - 1) * t->rec + so + 8 * (size_t)d, 8);
            if (i < nrec) hi[d] = ix_u(b + 6 + i * t->rec + so + 8 * (size_t)d, 8);
        }
        if (!ix_want_between(r, i > 0 ? lo : NULL, 0, i < nrec ? hi : NULL)) continue;
        const unsigned char *q = b + 6 + nrec * t->rec + i * ptr;
        rc = ix_bt2_node(r, t, ix_u(q, r->sa), ix_u(q + r->sa, t->leaf_nrec_size), depth - 1);
    }
    cd_free(b);
    return rc;
}

static int ix_btree2(ix_rd *r, uint64_t addr)
{
    const size_t hn = 4 + 2 + 4 + 2 + 2 + 2 + r->sa + 2 + r->ss + 4;
    unsigned char *h = ix_block(r, addr, hn, "BTHD", hn);
    if (!h) return -1;
    ix_bt2 t;
    memset(&t, 0, sizeof t);
    const unsigned type = h[5];
    t.node = (unsigned)ix_u(h + 6, 4);
    t.rec = (unsigned)ix_u(h + 10, 2);
    t.depth = (unsigned)ix_u(h + 12, 2);
    const uint64_t root = ix_u(h + 16, r->sa), rn = ix_u(h + 16 + r->sa, 2);
    const int undef = ix_undef(h + 16, r->sa);
    cd_free(h);
    if (type != 10 && type != 11) return ix_fail(r, "a v2 B-tree of type %u", type);
    if (type == 11 && !r->stored) return ix_fail(r, "a v2 B-tree of filtered chunks (type 11)");
    /* type 11: address, stored size (the rest of the record), filter mask, scaled offsets */
    const unsigned fixed = r->sa + 8 * (unsigned)r->rank + (type == 11 ? 4 : 0);
    r->zs = type == 11 && t.rec > fixed ? t.rec - fixed : 0;
    if ((type == 10 ? t.rec != fixed : (r->zs < 1 || r->zs > 8)) || t.node < 10 + t.rec || t.depth >= 64)
        return ix_fail(r, "a v2 B-tree header with impossible sizes");
    if (undef || rn == 0) return 0;
    uint64_t max = (t.node - 10) / t.rec, cum = max;
    t.leaf_nrec_size = ix_enc_size(max);
    for (unsigned u = 1; u <= t.depth; u++) {
        const size_t ptr = r->sa + t.leaf_nrec_size + (u > 1 ? t.cum_size[u - 1] : 0);
        const uint64_t m = (t.node - (10 + ptr)) / (t.rec + ptr);
        cum = (m + 1) * cum + m;
        t.cum_size[u] = ix_enc_size(cum);
    }
    return ix_bt2_node(r, &t, root, rn, t.depth);
}

/* A dataset's chunk index as its object header describes it, for its current extent: what a walk
   needs, read once per extent (the layout's resolver keeps it). Plain bytes but for r.fh, which is each
   rank's own, so one rank can read it and send it to the others. */
typedef struct {
    ix_rd r;            /* fh, base, sizes, rank, chunk dims, grid, array strides (no table, no want) */
    ix_layout L;
    uint64_t chunk_bytes;
} ix_index;

/* why = "<index type> index: msg" (type -1: msg alone). */
static void ix_reason(char *why, size_t wl, int type, const char *msg)
{
    if (!why || !wl) return;
    if (type >= IX_BTREE1 && type <= IX_BTREE2) snprintf(why, wl, "%s index: ", ix_names[type]);
    else why[0] = 0;
    const size_t k = strlen(why);
    snprintf(why + k, wl - k, "%s", msg);
}

/* What HDF5 says about a dataset that reading its index needs: the file's address and length sizes
   and userblock (its creation properties), the object header's address, the extent, chunk dims and
   element size. The bridge fills it from its caches (h5_ix_facts); ix_facts_read asks HDF5 for all. */
typedef struct {
    size_t sa, ss, esize;
    hsize_t ub;
    haddr_t oaddr;
    int rank;
    hsize_t dims[COLLDIAG_MAX_RANK], maxd[COLLDIAG_MAX_RANK], cd[COLLDIAG_MAX_RANK];
} ix_facts;

/* The file's part of ix_facts (sa, ss, ub). 0, or -1. */
static int ix_file_facts(hid_t obj, ix_facts *fx)
{
    hid_t file = H5Iget_file_id(obj), fcpl = file >= 0 ? H5Fget_create_plist(file) : -1;
    const int rc = fcpl < 0 || H5Pget_sizes(fcpl, &fx->sa, &fx->ss) < 0 || H5Pget_userblock(fcpl, &fx->ub) < 0 ? -1 : 0;
    if (fcpl >= 0) H5Pclose(fcpl);
    if (file >= 0) H5Fclose(file);
    return rc;
}

/* Every fact from HDF5. 0, or -1 (some query failed). */
static int ix_facts_read(hid_t dset, ix_facts *fx)
{
    memset(fx, 0, sizeof *fx);
    h5_oid oi;
    hid_t space = H5Dget_space(dset), dcpl = H5Dget_create_plist(dset), type = H5Dget_type(dset);
    fx->rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    int rc = ix_file_facts(dset, fx) || space < 0 || dcpl < 0 || type < 0 || h5_object_id(dset, &oi) < 0 || fx->rank < 1 ||
                     fx->rank > COLLDIAG_MAX_RANK || H5Sget_simple_extent_dims(space, fx->dims, fx->maxd) < 0 ||
                     H5Pget_chunk(dcpl, fx->rank, fx->cd) != fx->rank
                 ? -1
                 : 0;
    if (!rc) {
        fx->oaddr = oi.addr;
        fx->esize = H5Tget_size(type);
    }
    if (space >= 0) H5Sclose(space);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (type >= 0) H5Tclose(type);
    return rc;
}

/* Reads the dataset's layout message (at fx->oaddr's object header) and checks it against fx. Local.
   0, or -1 with the reason in why. fx NULL: HDF5 could not say (the reason is that). */
static int ix_open(const ix_facts *fx, MPI_File fh, uint64_t nchunks, ix_index *ix, char *why, size_t wl)
{
    ix_rd *r = &ix->r;
    ix_layout *L = &ix->L;
    memset(ix, 0, sizeof *ix);
    r->fh = fh;
    r->ntab = nchunks;
    if (!fx) {
        ix_reason(why, wl, -1, "cannot read the dataset's shape, chunking or file parameters");
        return -1;
    }
    int rc = -1;
    const size_t sa = fx->sa, ss = fx->ss, esize = fx->esize;
    const hsize_t ub = fx->ub, *dims = fx->dims, *maxd = fx->maxd, *cd = fx->cd;
    const int rank = fx->rank;
    if (sa < 2 || sa > 8 || ss < 2 || ss > 8) {
        ix_fail(r, "%zu-byte addresses or %zu-byte lengths", sa, ss);
        goto done;
    }
    r->sa = (unsigned)sa;
    r->ss = (unsigned)ss;
    r->base = ub;
    r->rank = rank;
    uint64_t n = 1;
    for (int d = 0; d < rank; d++) {
        r->cdims[d] = cd[d];
        r->grid[d] = dims[d] / cd[d] + (dims[d] % cd[d] != 0);
        n *= r->grid[d];
    }
    if (n != nchunks) {
        ix_fail(r, "the dataset has %" PRIu64 " chunks, not %" PRIu64, n, nchunks);
        goto done;
    }
    if (ix_find_layout(r, fx->oaddr, L)) goto done;
    if (L->cls != 2) {
        ix_fail(r, "the layout message says the dataset is not chunked");
        goto done;
    }
    int same = L->ndims == (unsigned)rank + 1 && L->dim[rank] == esize;
    for (int d = 0; d < rank && same; d++) same = L->dim[d] == cd[d];
    if (!same) {
        ix_fail(r, "the layout message's chunk dims differ from the dataset's");
        goto done;
    }
    /* (a filtered single chunk is read where the walk asks for stored sizes: ix_walk) */
    /* the array indexes number chunks over the grid of the maximum dims, the extensible array with its
       one unlimited dimension moved to the front */
    int unlim = -1, nunlim = 0;
    for (int d = 0; d < rank; d++)
        if (maxd[d] == H5S_UNLIMITED) { unlim = d; nunlim++; }
    for (int k = 0; k < rank; k++) r->order[k] = k;
    if (L->type == IX_EARRAY && nunlim == 1 && unlim > 0) {
        r->order[0] = unlim;
        for (int k = 1, d = 0; k < rank; d++)
            if (d != unlim) r->order[k++] = d;
    }
    for (int k = rank - 1; k >= 0; k--) { /* the first position's size never matters (it may be unlimited) */
        const uint64_t m = k == rank - 1 ? 0 : maxd[r->order[k + 1]], c = k == rank - 1 ? 1 : cd[r->order[k + 1]];
        r->down[k] = k == rank - 1 ? 1 : r->down[k + 1] * (m / c + (m % c != 0));
    }
    ix->chunk_bytes = esize;
    for (int d = 0; d < rank; d++) ix->chunk_bytes *= cd[d];
    r->chunk_bytes = ix->chunk_bytes;
    rc = 0;
done:
    if (rc) ix_reason(why, wl, L->cls == 2 && L->type >= IX_BTREE1 && L->type <= IX_BTREE2 ? L->type : -1, r->why);
    return rc;
}

/* Walks an opened index: every chunk into tab (ntab of them), or (want != NULL) the nwant chunks of
   want (ascending current-grid indices) into got. Reads only; local. 0, or -1 with the reason in why. */
static int ix_walk_records(const ix_index *ix, MPI_Offset *tab, const uint64_t *want, uint64_t nwant, MPI_Offset *got, uint64_t *stored,
                           uint32_t *mask, char *why, size_t wl)
{
    ix_rd r = ix->r;
    const ix_layout *L = &ix->L;
    r.tab = tab;
    r.want = want;
    r.got = got;
    r.nwant = nwant;
    r.stored = stored;
    r.mask = mask;
    r.es = r.sa;
    r.zs = 0;
    r.ew = NULL;
    r.nodes = 0;
    r.why[0] = 0;
    const uint64_t nout = want ? nwant : r.ntab;
    for (uint64_t i = 0; i < nout; i++) {
        (want ? got : tab)[i] = -1;
        if (stored) { stored[i] = 0; mask[i] = 0; }
    }
    int rc = 0;
    if (L->type == IX_SINGLE && (L->flags & 2) && !stored) rc = ix_fail(&r, "a filtered single chunk");
    if (want && (L->type == IX_FARRAY || L->type == IX_EARRAY)) { /* element indices, in element order */
        r.ew = cd_malloc((size_t)nwant * sizeof *r.ew);
        if (!r.ew) rc = ix_fail(&r, "no memory for %" PRIu64 " wanted chunks", nwant);
        for (uint64_t i = 0; !rc && i < nwant; i++) { r.ew[i].e = ix_elem_of(&r, want[i]); r.ew[i].pos = i; }
        if (!rc && r.order[0] != 0) qsort(r.ew, (size_t)nwant, sizeof *r.ew, ix_cmp_ew); /* swizzled: another order */
    }
    const uint64_t sa = r.sa, undef = sa == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * sa)) - 1;
    if (!rc && L->iaddr != undef) switch (L->type) {
    case IX_BTREE1: rc = ix_btree1(&r, L->iaddr, L->ndims, 0); break;
    case IX_SINGLE:
        if (!want || (nwant && want[0] == 0)) {
            (want ? got : tab)[0] = (MPI_Offset)(r.base + L->iaddr);
            if (stored) {
                stored[0] = (L->flags & 2) ? L->single_size : ix->chunk_bytes;
                mask[0] = (L->flags & 2) ? L->single_mask : 0;
            }
        }
        break;
    case IX_IMPLICIT: rc = ix_implicit(&r, L->iaddr, ix->chunk_bytes); break;
    case IX_FARRAY: rc = ix_farray(&r, L->iaddr, L->p[0]); break;
    case IX_EARRAY: rc = ix_earray(&r, L->iaddr); break;
    case IX_BTREE2: rc = ix_btree2(&r, L->iaddr); break;
    default: rc = ix_fail(&r, "chunk index type %d", L->type); break;
    }
    cd_free(r.ew);
    if (rc && !r.why[0]) ix_fail(&r, "cannot read the %s chunk index", ix_names[L->type]);
    if (rc) ix_reason(why, wl, L->type, r.why);
    return rc ? -1 : 0;
}

/* Addresses only: an index of filtered chunks is refused (no plan or transfer moves them yet). */
static int ix_walk(const ix_index *ix, MPI_Offset *tab, const uint64_t *want, uint64_t nwant, MPI_Offset *got, char *why, size_t wl)
{
    return ix_walk_records(ix, tab, want, nwant, got, NULL, NULL, why, wl);
}

/* The lazy layout's resolver (cd_resolve_fn) over an opened index. */
static int ix_resolve(void *ctx, uint64_t n, const uint64_t *idx, MPI_Offset *addr, char *why, size_t wl)
{
    return ix_walk(ctx, NULL, idx, n, addr, why, wl);
}

/* The same with each chunk's stored size and filter mask (cd_resolve_rec_fn): filtered reads. */
static int ix_resolve_rec(void *ctx, uint64_t n, const uint64_t *idx, MPI_Offset *addr, uint64_t *stored, uint32_t *mask, char *why, size_t wl)
{
    return ix_walk_records(ctx, NULL, idx, n, addr, stored, mask, why, wl);
}

/* The chunk addresses of dset for its current chunk grid (nchunks of them) into tab: absolute file
   offsets, -1 for chunks not allocated. Local: no communication. 0, or -1 with the reason in why. */
static int h5_read_chunk_index(hid_t dset, MPI_File fh, MPI_Offset *tab, uint64_t nchunks, char *why, size_t wl)
{
    ix_index ix;
    for (uint64_t i = 0; i < nchunks; i++) tab[i] = -1;
    ix_facts fx;
    const int known = !ix_facts_read(dset, &fx);
    return ix_open(known ? &fx : NULL, fh, nchunks, &ix, why, wl) ? -1 : ix_walk(&ix, tab, NULL, 0, NULL, why, wl);
}

static int h5_mpi_file(hid_t dset, MPI_File *fh, int *rank, int *size, const char *fn);

int colldiag_h5_chunk_records(hid_t dset, uint64_t nchunks, colldiag_chunk_record *out)
{
    static const char fn[] = "colldiag_h5_chunk_records";
    if (!out && nchunks) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    if (H5Iget_type(dset) != H5I_DATASET) return cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
    ix_facts fx;
    if (ix_facts_read(dset, &fx)) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset is not chunked, or HDF5 cannot say its shape");
    uint64_t n = 1;
    for (int d = 0; d < fx.rank; d++) n *= fx.dims[d] / fx.cd[d] + (fx.dims[d] % fx.cd[d] != 0);
    if (n != nchunks) return cd_fail(COLLDIAG_ERR_ARG, fn, "the dataset has %" PRIu64 " chunks at its extent, not %" PRIu64, n, nchunks);
    MPI_File fh;
    int me, np, rc = h5_mpi_file(dset, &fh, &me, &np, fn);
    if (rc) return rc;
    MPI_Offset *tab = cd_malloc((size_t)(n ? n : 1) * sizeof *tab);
    uint64_t *st = cd_malloc((size_t)(n ? n : 1) * sizeof *st);
    uint32_t *mk = cd_malloc((size_t)(n ? n : 1) * sizeof *mk);
    char why[256] = "";
    ix_index ix;
    if (!tab || !st || !mk) rc = cd_fail(COLLDIAG_ERR_NOMEM, fn, "the records of %" PRIu64 " chunks", n);
    else if (ix_open(&fx, fh, n, &ix, why, sizeof why) || ix_walk_records(&ix, tab, NULL, 0, NULL, st, mk, why, sizeof why))
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", why);
    for (uint64_t i = 0; !rc && i < n; i++) {
        out[i].addr = (int64_t)tab[i];
        out[i].stored = tab[i] < 0 ? 0 : st[i];
        out[i].filter_mask = tab[i] < 0 ? 0 : mk[i];
    }
    cd_free(tab);
    cd_free(st);
    cd_free(mk);
    return rc;
}

int colldiag_h5_layout(hid_t dset, colldiag_layout **out)
{
    static const char fn[] = "colldiag_h5_layout";
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    *out = NULL;
    int rc = 0;
    hid_t space = H5Dget_space(dset), type = H5Dget_type(dset), dcpl = H5Dget_create_plist(dset);
    if (space < 0 || type < 0 || dcpl < 0) {
        rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
        goto done;
    }
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t hd[COLLDIAG_MAX_RANK];
    uint64_t dims[COLLDIAG_MAX_RANK];
    if (rank < 0 || rank > COLLDIAG_MAX_RANK || H5Sget_simple_extent_dims(space, hd, NULL) < 0) {
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset's dataspace cannot be read");
        goto done;
    }
    for (int d = 0; d < rank; d++) dims[d] = hd[d];
    if (rank == 0) { rank = 1; dims[0] = 1; } /* a scalar dataset: one element */
    if (H5Sget_simple_extent_type(space) == H5S_NULL) {
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset has a null dataspace: it stores nothing");
        goto done;
    }
    size_t esize = H5Tget_size(type);
    switch (H5Pget_layout(dcpl)) {
    case H5D_CONTIGUOUS: {
        haddr_t a = H5Dget_offset(dset);
        if (a == HADDR_UNDEF) {
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the contiguous dataset has no storage yet (use H5D_ALLOC_TIME_EARLY, "
                                                       "the default of parallel HDF5)");
            goto done;
        }
        rc = colldiag_layout_contiguous(rank, dims, esize, (MPI_Offset)a, out);
        if (!rc) colldiag_layout_set_fill_written(*out, !h5_fill_unwritten(dcpl, H5D_CONTIGUOUS));
        break;
    }
    case H5D_COMPACT:
        /* compact data lives inside the object header, which HDF5 caches and rewrites */
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "compact datasets live in the object header; colldiag cannot address them");
        goto done;
    case H5D_CHUNKED: {
        hsize_t hc[COLLDIAG_MAX_RANK];
        uint64_t cdims[COLLDIAG_MAX_RANK];
        if (H5Pget_chunk(dcpl, rank, hc) != rank) {
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the chunk dims");
            goto done;
        }
        for (int d = 0; d < rank; d++) cdims[d] = hc[d];
        rc = colldiag_layout_chunked(rank, dims, cdims, esize, 0, out);
        if (rc) goto done;
        colldiag_layout *l = *out;
        l->fill_unwritten = h5_fill_unwritten(dcpl, H5D_CHUNKED);
        MPI_Offset *t = cd_malloc((size_t)l->nchunks * sizeof *t);
        if (!t) { rc = cd_fail(COLLDIAG_ERR_NOMEM, fn, "a table of %" PRIu64 " chunk addresses", l->nchunks); goto fail_layout; }
        for (uint64_t i = 0; i < l->nchunks; i++) t[i] = -1;
        hsize_t n = 0, ub = 0;
        MPI_File fh;
        int me, np;
        char why[256];
        if (H5Pget_nfilters(dcpl) == 0 && !h5_mpi_file(dset, &fh, &me, &np, fn) &&
            !h5_read_chunk_index(dset, fh, t, l->nchunks, why, sizeof why))
            goto addrs; /* one pass over the index on disk */
        for (uint64_t i = 0; i < l->nchunks; i++) t[i] = -1;
        {
            hid_t file = H5Iget_file_id(dset), fcpl = file >= 0 ? H5Fget_create_plist(file) : -1;
            if (fcpl < 0 || H5Pget_userblock(fcpl, &ub) < 0) ub = 0;
            ub = h5_chunk_info_base(ub); /* H5Dget_chunk_info's addresses are relative to the userblock before 1.14.4 */
            if (fcpl >= 0) H5Pclose(fcpl);
            if (file >= 0) H5Fclose(file);
        }
        if (H5Dget_num_chunks(dset, space, &n) < 0) n = 0; /* 1.10.8 rejects H5S_ALL here */
        /* HDF5 1.10 has no single-pass chunk iteration: H5Dget_chunk_info(i) walks the index up to i, so
           this is quadratic in the dataset's chunk count; it runs once per dataset, never per transfer. */
        for (hsize_t i = 0; i < n; i++) {
            hsize_t off[COLLDIAG_MAX_RANK];
            unsigned mask;
            haddr_t a;
            hsize_t sz;
            if (H5Dget_chunk_info(dset, space, i, off, &mask, &a, &sz) < 0) {
                cd_free(t);
                rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "H5Dget_chunk_info(%llu) failed", (unsigned long long)i);
                goto fail_layout;
            }
            uint64_t idx = 0;
            for (int d = 0; d < rank; d++) idx = idx * l->grid[d] + off[d] / cdims[d];
            if (idx < l->nchunks && a != HADDR_UNDEF) t[idx] = (MPI_Offset)(a + ub);
        }
    addrs:
        rc = colldiag_layout_set_chunk_addrs(l, l->nchunks, t);
        cd_free(t);
        if (rc) goto fail_layout;
        if (H5Pget_nfilters(dcpl) > 0) colldiag_layout_set_filtered(l, 1);
        break;
    fail_layout:
        colldiag_layout_free(*out);
        *out = NULL;
        goto done;
    }
    default:
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset's layout (virtual or unknown) is not supported");
        goto done;
    }
done:
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

#endif /* COLLDIAG_WITH_HDF5 */

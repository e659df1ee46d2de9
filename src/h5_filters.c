#ifdef COLLDIAG_WITH_HDF5
/* ---- a filtered chunk's stored bytes back to its values ----
   What HDF5's pipeline does to a chunk it reads, for the filters that carry nearly all filtered data
   (netCDF-4's deflate and shuffle, HDF5's checksum): the filters in reverse pipeline order, each one
   skipped whose bit is set in the chunk's filter mask (H5Dwrite_chunk may store a chunk unfiltered by
   some). Any other filter (szip, n-bit, scale-offset, a plugin) is UNSUPPORTED with its name: the caller
   lets HDF5 read those.
   zlib: the bridge finds inflate in the process (HDF5 links zlib for its deflate filter), so a program
   that links HDF5 needs nothing more, and the kit itself keeps needing only MPI and libc; built without
   zlib's header, or in a process without zlib, deflated chunks are UNSUPPORTED. */

#define H5F_MAX_FILTERS 32 /* HDF5's own limit on a pipeline (H5Z_MAX_NFILTERS) */

typedef struct {
    int n;
    H5Z_filter_t id[H5F_MAX_FILTERS];
    unsigned elem[H5F_MAX_FILTERS]; /* shuffle: the element size it shuffles by (its first parameter) */
    int fill_set;                   /* the bridge's: chunks never written read as fill[] (one element of the
                                       dataset's type), not zeros */
    unsigned char fill[];
} h5_pipeline;

/* The dataset's filter pipeline, or -1 with the reason when a filter is not one colldiag undoes. */
static int h5_pipeline_of(hid_t dcpl, h5_pipeline *p, char *why, size_t wl)
{
    int n = H5Pget_nfilters(dcpl);
    if (n < 0 || n > H5F_MAX_FILTERS) return snprintf(why, wl, "HDF5 cannot list the dataset's filters"), -1;
    p->n = n;
    for (int i = 0; i < n; i++) {
        unsigned flags = 0, cd[8] = {0}, conf = 0;
        size_t ncd = 8;
        char name[64] = "";
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name, name, &conf);
        if (id < 0) return snprintf(why, wl, "HDF5 cannot describe filter %d of the pipeline", i), -1;
        if (id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32)
            return snprintf(why, wl, "filter %d of the pipeline is %s (id %d): colldiag undoes deflate, shuffle and Fletcher-32 only",
                            i, name[0] ? name : "unnamed", (int)id), -1;
        if (id == H5Z_FILTER_SHUFFLE && (ncd < 1 || cd[0] == 0))
            return snprintf(why, wl, "the shuffle filter has no element size"), -1;
        p->id[i] = id;
        p->elem[i] = id == H5Z_FILTER_SHUFFLE ? cd[0] : 0;
    }
    return 0;
}

/* Fletcher's checksum as HDF5 computes it: 16-bit big-endian words, sums folded before they can
   overflow (360 words), an odd last byte as the high byte of a word. */
static uint32_t h5_fletcher32(const unsigned char *d, size_t len)
{
    uint32_t s1 = 0, s2 = 0;
    size_t words = len / 2;
    while (words) {
        size_t t = words > 360 ? 360 : words;
        words -= t;
        for (; t; t--, d += 2) {
            s1 += ((uint32_t)d[0] << 8) | d[1];
            s2 += s1;
        }
        s1 = (s1 & 0xffff) + (s1 >> 16);
        s2 = (s2 & 0xffff) + (s2 >> 16);
    }
    if (len % 2) {
        s1 += (uint32_t)d[0] << 8;
        s2 += s1;
        s1 = (s1 & 0xffff) + (s1 >> 16);
        s2 = (s2 & 0xffff) + (s2 >> 16);
    }
    s1 = (s1 & 0xffff) + (s1 >> 16);
    s2 = (s2 & 0xffff) + (s2 >> 16);
    return (s2 << 16) | s1;
}

/* Strips and checks the 4-byte checksum at the end (stored little-endian; files of HDF5 1.6.0-1.6.2
   stored it with each half's bytes swapped, which HDF5 still accepts, and so does this). */
static int h5_unfletcher(const unsigned char *d, size_t n, size_t *out_n, char *why, size_t wl)
{
    if (n < 4) return snprintf(why, wl, "a chunk of %zu bytes cannot hold its Fletcher-32 checksum", n), -1;
    const unsigned char *c = d + n - 4;
    uint32_t stored = c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
    uint32_t sum = h5_fletcher32(d, n - 4);
    uint32_t swapped = ((sum & 0x00ff00ffu) << 8) | ((sum >> 8) & 0x00ff00ffu);
    if (stored != sum && stored != swapped)
        return snprintf(why, wl, "the chunk's Fletcher-32 checksum does not match (stored 0x%08x, computed 0x%08x)", stored, sum), -1;
    *out_n = n - 4;
    return 0;
}

/* Bytes grouped by their position in the element back into elements (a tail shorter than one
   element is stored as it is, after the groups). */
static void h5_unshuffle(const unsigned char *s, size_t n, unsigned es, unsigned char *d)
{
    size_t nel = n / es;
    for (unsigned b = 0; b < es; b++, s += nel)
        for (size_t i = 0; i < nel; i++) d[i * es + b] = s[i];
    memcpy(d + nel * es, s, n - nel * es);
}

#if defined(__has_include)
#if __has_include(<zlib.h>)
#include <dlfcn.h>
#include <zlib.h>
#define H5F_HAVE_ZLIB 1
#endif
#endif

#ifdef H5F_HAVE_ZLIB
typedef int (*h5_inflate_init_fn)(z_streamp, const char *, int);
typedef int (*h5_inflate_fn)(z_streamp, int);
typedef int (*h5_inflate_end_fn)(z_streamp);
static h5_inflate_init_fn h5_z_init;
static h5_inflate_fn h5_z_inflate;
static h5_inflate_end_fn h5_z_end;
static int h5_z_looked;

/* zlib's inflate, found once in the process (HDF5's dependency) */
static int h5_zlib(void)
{
    if (!h5_z_looked) {
        h5_z_looked = 1;
        *(void **)&h5_z_init = dlsym(RTLD_DEFAULT, "inflateInit_");
        *(void **)&h5_z_inflate = dlsym(RTLD_DEFAULT, "inflate");
        *(void **)&h5_z_end = dlsym(RTLD_DEFAULT, "inflateEnd");
    }
    return h5_z_init && h5_z_inflate && h5_z_end;
}

/* libdeflate (a whole-buffer DEFLATE library; Debian's libdeflate0), when the process can load it: its
   zlib-stream inflate ran the chunks (128 x 128 float64, deflate 1 and 6, shuffle on and off)
   faster than zlib's (docs/benchmarks.md, bench-filtered), and a filtered read through the preload is
   mostly inflate on few cores. Found at run time by its stable soname, as zlib is found by dlsym: the
   bridge still builds with MPI, libc and HDF5 alone, and a process without libdeflate inflates with zlib
   as before. COLLDIAG_INFLATE=zlib keeps zlib (the tests run both). A decompressor a chunk (a few KiB,
   about a microsecond): no state kept across calls or threads. Its prototypes, as libdeflate.h gives
   them (the header is not needed): */
typedef void *(*h5_ld_alloc_fn)(void);
typedef int (*h5_ld_zlib_fn)(void *, const void *, size_t, void *, size_t, size_t *);
typedef void (*h5_ld_free_fn)(void *);
static h5_ld_alloc_fn h5_ld_alloc;
static h5_ld_zlib_fn h5_ld_zlib;
static h5_ld_free_fn h5_ld_free;
static int h5_ld_looked;
enum { H5_LD_SUCCESS = 0, H5_LD_INSUFFICIENT_SPACE = 3 }; /* libdeflate_result's values */

static int h5_libdeflate(void)
{
    if (!h5_ld_looked) {
        h5_ld_looked = 1;
        const char *e = cd_getenv("COLLDIAG_INFLATE");
        void *h = e && !strcmp(e, "zlib") ? NULL : dlopen("libdeflate.so.0", RTLD_NOW | RTLD_LOCAL);
        if (h) {
            *(void **)&h5_ld_alloc = dlsym(h, "libdeflate_alloc_decompressor");
            *(void **)&h5_ld_zlib = dlsym(h, "libdeflate_zlib_decompress");
            *(void **)&h5_ld_free = dlsym(h, "libdeflate_free_decompressor");
        }
    }
    return h5_ld_alloc && h5_ld_zlib && h5_ld_free;
}

static int h5_have_inflate(void) { return h5_libdeflate() || h5_zlib(); }

/* A zlib stream into exactly cap bytes at most, by libdeflate; *out_n what it held. 1: libdeflate
   could not make a decompressor (the caller tries zlib). */
static int h5_inflate_ld(const unsigned char *s, size_t n, unsigned char *d, size_t cap, size_t *out_n, char *why, size_t wl)
{
    void *dc = h5_ld_alloc();
    if (!dc) return 1;
    size_t got = 0;
    const int r = h5_ld_zlib(dc, s, n, d, cap, &got);
    h5_ld_free(dc);
    if (r == H5_LD_SUCCESS) {
        *out_n = got;
        cd_inflater = "libdeflate";
        return 0;
    }
    if (r == H5_LD_INSUFFICIENT_SPACE) return snprintf(why, wl, "the deflated chunk holds more than its %zu bytes", cap), -1;
    return snprintf(why, wl, "the deflated chunk does not inflate (libdeflate %d: bad data, or its checksum differs)", r), -1;
}

/* A zlib stream into exactly cap bytes at most; *out_n what it held. */
static int h5_inflate(const unsigned char *s, size_t n, unsigned char *d, size_t cap, size_t *out_n, char *why, size_t wl)
{
    if (h5_libdeflate()) {
        const int r = h5_inflate_ld(s, n, d, cap, out_n, why, wl);
        if (r <= 0) return r;
    }
    if (!h5_zlib()) return snprintf(why, wl, "zlib's inflate is not in this process"), -2;
    z_stream z;
    memset(&z, 0, sizeof z);
    z.next_in = (Bytef *)(uintptr_t)s;
    z.next_out = d;
    int rc = h5_z_init(&z, ZLIB_VERSION, (int)sizeof z);
    if (rc != Z_OK) return snprintf(why, wl, "zlib's inflateInit failed (%d)", rc), -1;
    /* zlib counts in uInt: feed both sides in pieces below 4 GiB */
    size_t in_left = n, out_left = cap;
    do {
        if (!z.avail_in && in_left) { z.avail_in = in_left > 0x40000000u ? 0x40000000u : (uInt)in_left; in_left -= z.avail_in; }
        if (!z.avail_out && out_left) { z.avail_out = out_left > 0x40000000u ? 0x40000000u : (uInt)out_left; out_left -= z.avail_out; }
        rc = h5_z_inflate(&z, Z_NO_FLUSH);
    } while (rc == Z_OK && (z.avail_in || in_left) && (z.avail_out || out_left));
    size_t got = cap - out_left - z.avail_out;
    h5_z_end(&z);
    if (rc != Z_STREAM_END) {
        if (rc == Z_OK || rc == Z_BUF_ERROR)
            return snprintf(why, wl, "the deflated chunk holds more than its %zu bytes, or ends early", cap), -1;
        return snprintf(why, wl, "the deflated chunk does not inflate (zlib %d%s%s)", rc, z.msg ? ": " : "", z.msg ? z.msg : ""), -1;
    }
    *out_n = got;
    cd_inflater = "zlib";
    return 0;
}
#else
static int h5_have_inflate(void) { return 0; }
static int h5_inflate(const unsigned char *s, size_t n, unsigned char *d, size_t cap, size_t *out_n, char *why, size_t wl)
{
    (void)s, (void)n, (void)d, (void)cap, (void)out_n;
    return snprintf(why, wl, "colldiag was built without zlib's header (zlib.h)"), -2;
}
#endif

/* The chunk's values (want bytes) into out from its n stored bytes (left as they are). tmp: want bytes of scratch (stages of shuffle and deflate alternate between out and tmp). 0; -1 the
   bytes do not decode (why); -2 colldiag cannot undo them here (no zlib). */
static int h5_unfilter(const h5_pipeline *p, uint32_t mask, const unsigned char *stored, size_t n, unsigned char *out,
                       unsigned char *tmp, size_t want, char *why, size_t wl)
{
    const unsigned char *cur = stored; /* the bytes as they are after the filters undone so far */
    size_t len = n;
    for (int i = p->n - 1; i >= 0; i--) {
        if (mask & (1u << i)) continue;
        unsigned char *dst = cur == out ? tmp : out;
        int rc = 0;
        switch (p->id[i]) {
        case H5Z_FILTER_FLETCHER32: rc = h5_unfletcher(cur, len, &len, why, wl); break;
        case H5Z_FILTER_DEFLATE:
            rc = h5_inflate(cur, len, dst, want, &len, why, wl);
            if (!rc) cur = dst;
            break;
        case H5Z_FILTER_SHUFFLE:
            if (len > want) return snprintf(why, wl, "a shuffled chunk of %zu bytes in a chunk of %zu", len, want), -1;
            if (p->elem[i] > 1) {
                h5_unshuffle(cur, len, p->elem[i], dst);
                cur = dst;
            }
            break;
        default: return snprintf(why, wl, "filter id %d", (int)p->id[i]), -2;
        }
        if (rc) return rc;
    }
    if (len != want)
        return snprintf(why, wl, "the chunk decodes to %zu bytes, not the chunk's %zu", len, want), -1;
    if (cur != out) memmove(out, cur, want);
    return 0;
}

int colldiag_h5_chunk_unfilter(hid_t dset, uint32_t filter_mask, const void *stored, uint64_t nstored, void *out, uint64_t nout)
{
    static const char fn[] = "colldiag_h5_chunk_unfilter";
    if ((!stored && nstored) || !out) return cd_fail(COLLDIAG_ERR_ARG, fn, "stored or out is NULL");
    if (H5Iget_type(dset) != H5I_DATASET) return cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
    ix_facts fx;
    if (ix_facts_read(dset, &fx)) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset is not chunked, or HDF5 cannot say its shape");
    uint64_t want = fx.esize;
    for (int d = 0; d < fx.rank; d++) want *= fx.cd[d];
    if (nout != want) return cd_fail(COLLDIAG_ERR_ARG, fn, "out holds %" PRIu64 " bytes; a chunk of this dataset is %" PRIu64, nout, want);
    if ((size_t)want != want || (size_t)nstored != nstored) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "a chunk larger than memory can address");
    hid_t dcpl = H5Dget_create_plist(dset);
    if (dcpl < 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "HDF5 gives no creation property list for dset");
    h5_pipeline p;
    char why[256] = "";
    int rc = h5_pipeline_of(dcpl, &p, why, sizeof why);
    H5Pclose(dcpl);
    if (rc) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", why);
    unsigned char *tmp = cd_malloc((size_t)(want ? want : 1));
    if (!tmp) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "%" PRIu64 " bytes of scratch", want);
    rc = h5_unfilter(&p, filter_mask, stored, (size_t)nstored, out, tmp, (size_t)want, why, sizeof why);
    cd_free(tmp);
    if (rc == -2) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", why);
    if (rc) return cd_fail(COLLDIAG_ERR_IO, fn, "%s", why);
    return 0;
}

#endif /* COLLDIAG_WITH_HDF5 */

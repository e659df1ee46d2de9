/* test_errors — bad input and failures on one rank never hang the others.
 *
 * For each case, exactly one rank (first, middle, last in turn) has the problem; every rank must
 * return an error: the bad rank its own code, the others COLLDIAG_ERR_PEER, with a message naming the
 * failing rank. Disagreement cases fail with COLLDIAG_ERR_ARG on every rank. The file must be
 * untouched after a failed write. Run under `timeout`: a hang fails the test instead of CI.
 * Every pointer argument of every collective entry point is also passed as NULL on one rank (run_null,
 * run_report_null); this file is built at -O0 so that no optimisation hides a read through one.
 *
 *   mpirun -n P tests/test_errors [quick]     (quick: the NULL matrix for link and aggregation only)
 */
#define _GNU_SOURCE
#include "colldiag.h"
#include "testutil.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


enum {
    C_OOB_POINT, C_NULL_FILESEL, C_NULL_BUF, C_COUNT_MISMATCH, C_DIMS_MISMATCH, C_BAD_ENV,
    C_LAYOUT_DISAGREE, C_SETTINGS_DISAGREE, C_IO_FAIL, C_FILTERED, C_BUFFER_DISAGREE, C_BAD_BUFFER_ENV,
    C_AUTO_DISAGREE, C_BAD_AUTO_ENV, C_N
};
static const char *const names[] = {"point out of bounds", "NULL file selection", "NULL buffer", "memory count mismatch",
                                    "selection dims differ from layout", "invalid COLLDIAG_CHUNK_OPT", "layout disagreement",
                                    "settings disagreement", "I/O failure on one rank", "filtered write",
                                    "collective buffer disagreement", "invalid COLLDIAG_COLL_BUFFER",
                                    "AUTO constant disagreement", "invalid COLLDIAG_AUTO_RUN"};

static void run(int c, int bad, const char *path, int opt)
{
    snprintf(g_case, sizeof g_case, "P=%d %s, bad rank %d, chunk_opt %d", P, names[c], bad, opt);
    const int isbad = me == bad;
    uint64_t dims[2] = {8, (uint64_t)P * 4}, cd[2] = {4, 4};
    colldiag_layout *l;
    if (c == C_LAYOUT_DISAGREE && isbad) cd[1] = 2;
    colldiag_layout_chunked(2, dims, cd, 4, 0, &l);
    if (c == C_IO_FAIL || c == C_FILTERED) {
        uint64_t nc = 2 * (uint64_t)P;
        MPI_Offset *t = malloc(nc * sizeof *t);
        /* the chunk of the bad rank lives beyond any file system's limit: only that rank's write fails */
        for (uint64_t i = 0; i < nc; i++) t[i] = (MPI_Offset)(i * 64);
        if (c == C_IO_FAIL) t[(uint64_t)bad] = (MPI_Offset)1 << 62;
        colldiag_layout_set_chunk_addrs(l, nc, t);
        free(t);
        if (c == C_FILTERED) colldiag_layout_set_filtered(l, 1);
    }
    colldiag_sel *fs;
    colldiag_sel_create(2, dims, &fs);
    uint64_t st[2] = {0, (uint64_t)me * 4}, cn[2] = {4, 4};
    colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    colldiag_sel *ms = NULL;
    if (c == C_OOB_POINT && isbad) {
        uint64_t pt[2] = {8, 0}; /* row 8 of 8 */
        int rc = colldiag_sel_select_elements(fs, COLLDIAG_SELECT_SET, 1, pt);
        CHECK(rc == COLLDIAG_ERR_ARG, "out-of-bounds point accepted (%d)", rc);
        CHECK(strstr(colldiag_last_errmsg(), "outside the extent") != NULL, "message: %s", colldiag_last_errmsg());
        colldiag_sel_free(fs);
        fs = NULL; /* as the scenario runner does: the failed selection never reaches the call */
    }
    if (c == C_COUNT_MISMATCH && isbad) {
        uint64_t md = 17;
        colldiag_sel_create(1, &md, &ms);
    }
    colldiag_sel *fs_dims = NULL;
    if (c == C_DIMS_MISMATCH && isbad) {
        uint64_t d2[2] = {8, (uint64_t)P * 4 + 1};
        colldiag_sel_create(2, d2, &fs_dims);
        colldiag_sel_select_hyperslab(fs_dims, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    }
    if (c == C_BAD_ENV && isbad) setenv("COLLDIAG_CHUNK_OPT", "sideways", 1);
    if (c == C_BAD_BUFFER_ENV && isbad) setenv("COLLDIAG_COLL_BUFFER", "16q", 1);
    /* AUTO's constants decide the scheme: a rank with its own value must not choose alone */
    if (c == C_AUTO_DISAGREE && isbad) setenv("COLLDIAG_AUTO_LAT", "1e-3", 1);
    if (c == C_BAD_AUTO_ENV && isbad) setenv("COLLDIAG_AUTO_RUN", "-4e-6", 1);
    int buf[16];
    for (int i = 0; i < 16; i++) buf[i] = me * 100 + i;
    /* canary file */
    if (me == 0) {
        FILE *fp = fopen(path, "wb");
        for (int i = 0; i < 1024; i++) fputc(0xA5, fp);
        fclose(fp);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    colldiag_file *f;
    int rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    CHECK(rc == 0, "open: %s", colldiag_last_errmsg());
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)opt);
    if (c == C_SETTINGS_DISAGREE && isbad) colldiag_set_dxpl_mpio_chunk_opt_ratio(x, 10);
    /* the collective buffer decides how many collective calls a call makes: ranks must agree on it */
    if (c == C_BUFFER_DISAGREE && isbad) colldiag_set_coll_buffer(x, 8);
    rc = colldiag_write(f, l, c == C_NULL_FILESEL && isbad ? NULL : fs_dims ? fs_dims : fs, ms, c == C_NULL_BUF && isbad ? NULL : buf, x);
    const char *msg = colldiag_xfer_errmsg(x);
    if (c == C_LAYOUT_DISAGREE || c == C_SETTINGS_DISAGREE || c == C_BUFFER_DISAGREE || c == C_AUTO_DISAGREE) {
        CHECK(rc == COLLDIAG_ERR_ARG, "rc %d (%s), expected ERR_ARG on every rank", rc, msg);
        char want[32];
        snprintf(want, sizeof want, bad == 0 ? "1" : "rank %d", bad); /* bad 0: "rank 1 differs" / "ranks 1, 2, ..." */
        if (P > 1) CHECK(strstr(msg, "disagree") && strstr(msg, want), "message does not name the rank: %s", msg);
    } else if (c == C_FILTERED) {
        CHECK(rc == COLLDIAG_ERR_UNSUPPORTED, "rc %d (%s), expected ERR_UNSUPPORTED", rc, msg);
        uint32_t lc, gc;
        colldiag_get_mpio_no_collective_cause(x, &lc, &gc);
        CHECK(lc == 0x40 && gc == 0x40, "causes 0x%x/0x%x, expected FILTERS", lc, gc);
    } else if (isbad) {
        int want = c == C_IO_FAIL ? COLLDIAG_ERR_MPI : COLLDIAG_ERR_ARG;
        if (c == C_IO_FAIL && rc == COLLDIAG_ERR_IO) want = rc; /* a short transfer MPI did not flag as an error */
        CHECK(rc == want, "bad rank: rc %d (%s), expected %d", rc, msg, want);
        char r[32];
        snprintf(r, sizeof r, "rank %d", me);
        CHECK(strstr(msg, r) != NULL, "message does not name this rank: %s", msg);
    } else {
        CHECK(rc == COLLDIAG_ERR_PEER, "healthy rank: rc %d (%s), expected ERR_PEER", rc, msg);
        char r[32];
        snprintf(r, sizeof r, "rank %d", bad);
        CHECK(strstr(msg, r) != NULL, "message does not name the failing rank %d: %s", bad, msg);
    }
    if (c != C_IO_FAIL && c != C_FILTERED) {
        /* the error was agreed before any data moved */
        colldiag_actual_io_mode_t im;
        colldiag_get_mpio_actual_io_mode(x, &im);
        CHECK(im == COLLDIAG_MPIO_NO_COLLECTIVE, "a failed call reports io mode %d", (int)im);
    }
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    if (c == C_BAD_ENV && isbad) unsetenv("COLLDIAG_CHUNK_OPT");
    if (c == C_BAD_BUFFER_ENV && isbad) unsetenv("COLLDIAG_COLL_BUFFER");
    if (c == C_AUTO_DISAGREE && isbad) unsetenv("COLLDIAG_AUTO_LAT");
    if (c == C_BAD_AUTO_ENV && isbad) unsetenv("COLLDIAG_AUTO_RUN");
    if (me == 0 && c != C_IO_FAIL) {
        FILE *fp = fopen(path, "rb");
        unsigned char b[1024];
        size_t n = fread(b, 1, sizeof b, fp);
        fclose(fp);
        int same = n == 1024;
        for (size_t i = 0; i < n; i++) same &= b[i] == 0xA5;
        CHECK(same, "the failed write changed the file");
    }
    colldiag_sel_free(fs);
    colldiag_sel_free(fs_dims);
    colldiag_sel_free(ms);
    colldiag_layout_free(l);
}

/* One rank passes NULL for one pointer argument of a collective entry point; every other rank passes a
   good call. The NULL rank gets ERR_ARG naming the argument and itself, every other rank ERR_PEER naming
   it, the file keeps its canary bytes and read buffers keep theirs, and nobody hangs or crashes (the
   suite runs under timeout). A NULL memory selection is not an error (the buffer is packed): that rank's
   call succeeds with the others', and the file holds every rank's values. */
enum { N_LAYOUT, N_FILESEL, N_BUF, N_MEMSEL, N_ARGS };
static const char *const nnames[N_ARGS] = {"layout", "file_sel", "buf", "mem_sel"};
enum { E_WRITE, E_READ, E_PLAN, E_N };
static const char *const enames[E_N] = {"colldiag_write", "colldiag_read", "colldiag_plan"};

static void run_null(colldiag_file *f, int e, int a, int bad, int chunked, int opt, int mode, const char *path)
{
    snprintf(g_case, sizeof g_case, "P=%d %s with %s NULL on rank %d, %s, chunk_opt %d, %s", P, enames[e], nnames[a], bad,
             chunked ? "chunked" : "contiguous", opt, mode == COLLDIAG_MPIO_COLLECTIVE ? "collective" : "independent");
    const int isbad = me == bad;
    /* rank r writes columns [4r, 4r + 4) of 8 rows: chunks of 4 x 2 are shared by no one, 4 x 8 by two */
    uint64_t dims[2] = {8, (uint64_t)P * 4}, cd[2] = {4, opt == COLLDIAG_MPIO_CHUNK_MULTI_IO ? 8u : 2u};
    colldiag_layout *l;
    if (chunked) colldiag_layout_chunked(2, dims, cd, 4, 0, &l);
    else colldiag_layout_contiguous(2, dims, 4, 0, &l);
    colldiag_sel *fs;
    colldiag_sel_create(2, dims, &fs);
    uint64_t st[2] = {0, (uint64_t)me * 4}, cn[2] = {8, 4};
    colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    /* the others use a memory selection with ghost cells around the 8 x 4 block */
    uint64_t md[2] = {10, 6}, mst[2] = {1, 1};
    colldiag_sel *ms;
    colldiag_sel_create(2, md, &ms);
    colldiag_sel_select_hyperslab(ms, COLLDIAG_SELECT_SET, mst, NULL, cn, NULL);
    int ghost[60], packed[32], rbuf[60];
    for (int i = 0; i < 60; i++) ghost[i] = rbuf[i] = -1;
    for (int i = 0; i < 32; i++) {
        int r = i / 4, c = i % 4;
        packed[i] = ghost[(r + 1) * 6 + c + 1] = me * 1000 + r * 10 + c;
    }
    const int nullms = a == N_MEMSEL && isbad;
    const uint64_t g0 = (dims[0] + cd[0] - 1) / cd[0], g1 = (dims[1] + cd[1] - 1) / cd[1]; /* edge chunks take full storage */
    const size_t fbytes = (size_t)(chunked ? g0 * g1 * cd[0] * cd[1] * 4 : dims[0] * dims[1] * 4);
    /* one file for the whole matrix (opening one per case made MPICH take minutes): rank 0 lays the canary
       down beside it; MPI-IO keeps no data between calls, so the ranks see it after the barrier */
    if (me == 0) {
        FILE *fp = fopen(path, "r+b");
        for (size_t i = 0; i < fbytes + 64; i++) fputc(0xA5, fp);
        fclose(fp);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int rc;
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, (colldiag_xfer_mode_t)mode);
    colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)opt);
    const colldiag_layout *la = a == N_LAYOUT && isbad ? NULL : l;
    const colldiag_sel *fa = a == N_FILESEL && isbad ? NULL : fs, *ma = nullms ? NULL : ms;
    const int nullbuf = a == N_BUF && isbad;
    if (e == E_WRITE) rc = colldiag_write(f, la, fa, ma, nullbuf ? NULL : nullms ? (const void *)packed : ghost, x);
    else if (e == E_READ) rc = colldiag_read(f, la, fa, ma, nullbuf ? NULL : rbuf, x);
    else rc = colldiag_plan(f, la, fa, ma, x);
    const char *msg = colldiag_xfer_errmsg(x);
    char r[32];
    snprintf(r, sizeof r, "rank %d", bad);
    if (a == N_MEMSEL) {
        CHECK(rc == 0, "rc %d (%s): a NULL memory selection means a packed buffer", rc, msg);
    } else if (isbad) {
        CHECK(rc == COLLDIAG_ERR_ARG, "bad rank: rc %d (%s), expected ERR_ARG", rc, msg);
        CHECK(strstr(msg, r) && strstr(msg, nnames[a]), "message does not name the rank and %s: %s", nnames[a], msg);
    } else if (mode == COLLDIAG_MPIO_INDEPENDENT) {
        CHECK(rc == 0, "independent call on a healthy rank: rc %d (%s): independent calls do not communicate", rc, msg);
    } else {
        CHECK(rc == COLLDIAG_ERR_PEER && strstr(msg, r), "healthy rank: rc %d (%s), expected ERR_PEER naming %s", rc, msg, r);
    }
    const int failed_here = rc != 0;
    colldiag_xfer_free(x);
    MPI_Barrier(MPI_COMM_WORLD);
    if (e == E_READ && failed_here) {
        int same = 1;
        for (int i = 0; i < 60; i++) same &= rbuf[i] == -1;
        CHECK(same, "a failed read changed the read buffer");
    }
    if (me == 0) {
        FILE *fp = fopen(path, "rb");
        unsigned char *b = malloc(fbytes + 64);
        size_t n = fread(b, 1, fbytes + 64, fp);
        fclose(fp);
        int ok = n == fbytes + 64;
        for (size_t i = fbytes; i < n; i++) ok &= b[i] == 0xA5; /* nothing past the dataset, ever */
        const int wrote = e == E_WRITE && (a == N_MEMSEL || mode == COLLDIAG_MPIO_INDEPENDENT);
        for (uint64_t row = 0; row < dims[0] && ok; row++)
            for (uint64_t col = 0; col < dims[1] && ok; col++) {
                /* the element's file offset: row-major, or inside its chunk (chunks in row-major grid order) */
                const uint64_t off = chunked ? (((row / cd[0]) * g1 + col / cd[1]) * cd[0] * cd[1] + (row % cd[0]) * cd[1] + col % cd[1]) * 4
                                             : (row * dims[1] + col) * 4;
                const int owner = (int)(col / 4), v = owner * 1000 + (int)(row * 10 + col % 4);
                /* the healthy ranks wrote their columns in independent mode; the bad rank's stay canary */
                const int has = wrote && !(a != N_MEMSEL && owner == bad);
                for (int k = 0; k < 4; k++) ok &= b[off + (uint64_t)k] == (has ? ((const unsigned char *)&v)[k] : 0xA5);
            }
        CHECK(ok, "the file holds other bytes than the ranks' agreed outcome");
        free(b);
    }
    colldiag_sel_free(fs);
    colldiag_sel_free(ms);
    colldiag_layout_free(l);
}

/* Reports: out may be NULL on any rank (rank 0 then prints nothing) and every rank returns 0; x NULL on
   one rank gives ERR_ARG there and ERR_PEER naming it elsewhere. Nobody hangs. */
static void run_report_null(int bad, const char *path)
{
    uint64_t dims[1] = {(uint64_t)P * 4}, cd[1] = {2};
    colldiag_layout *l;
    colldiag_layout_chunked(1, dims, cd, 4, 0, &l);
    colldiag_sel *fs;
    colldiag_sel_create(1, dims, &fs);
    uint64_t st = (uint64_t)me * 4, cn = 4;
    colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_SET, &st, NULL, &cn, NULL);
    colldiag_file *f;
    colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_plan(f, l, fs, NULL, x);
    for (int fn = 0; fn < 3; fn++) {
        static const char *const fnames[3] = {"colldiag_report_print", "colldiag_report_json", "colldiag_report_html"};
        int (*const rep[3])(colldiag_file *, const colldiag_xfer *, FILE *) = {colldiag_report_print, colldiag_report_json,
                                                                                colldiag_report_html};
        snprintf(g_case, sizeof g_case, "P=%d %s with out NULL on rank %d", P, fnames[fn], bad);
        char *text = NULL;
        size_t len = 0;
        FILE *o = me == bad ? NULL : open_memstream(&text, &len);
        int rc = rep[fn](f, x, o);
        if (o) fclose(o);
        CHECK(rc == 0, "rc %d (%s)", rc, colldiag_last_errmsg());
        if (me == 0 && bad != 0) CHECK(len > 0, "rank 0 printed nothing");
        if (me != 0) CHECK(len == 0, "rank %d printed %zu bytes", me, len);
        free(text);
        snprintf(g_case, sizeof g_case, "P=%d %s with x NULL on rank %d", P, fnames[fn], bad);
        rc = rep[fn](f, me == bad ? NULL : x, me == 0 ? stderr : NULL);
        char r[32];
        snprintf(r, sizeof r, "rank %d", bad);
        if (me == bad) CHECK(rc == COLLDIAG_ERR_ARG, "rc %d (%s)", rc, colldiag_last_errmsg());
        else CHECK(rc == COLLDIAG_ERR_PEER && strstr(colldiag_last_errmsg(), r), "rc %d (%s), expected ERR_PEER naming %s", rc,
                   colldiag_last_errmsg(), r);
    }
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    colldiag_sel_free(fs);
    colldiag_layout_free(l);
}

/* colldiag_file_open and colldiag_file_wrap with one rank's bad argument (a NULL path, an invalid
   driver, a NULL out, MPI_FILE_NULL): that rank ERR_ARG, every other ERR_PEER naming it, no file made
   on any rank, nobody hangs (a NULL out used to return before the communicator's duplication that
   the other ranks were in). */
static void run_file_args(int bad, const char *path)
{
    static const char *const what[5] = {"open with a NULL path", "open with an invalid driver", "open with a NULL out",
                                        "wrap with MPI_FILE_NULL", "wrap with a NULL out"};
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    for (int c = 0; c < 5; c++) {
        snprintf(g_case, sizeof g_case, "P=%d colldiag_file_%s on rank %d", P, what[c], bad);
        const int isbad = me == bad;
        colldiag_file *f = (colldiag_file *)&fh; /* not NULL: a failed call must set it to NULL */
        int rc;
        if (c < 3)
            rc = colldiag_file_open(MPI_COMM_WORLD, isbad && c == 0 ? NULL : path, MPI_MODE_RDWR,
                                    MPI_INFO_NULL, isbad && c == 1 ? (colldiag_driver_t)9 : COLLDIAG_DRIVER_MPIO, isbad && c == 2 ? NULL : &f);
        else
            rc = colldiag_file_wrap(MPI_COMM_WORLD, isbad && c == 3 ? MPI_FILE_NULL : fh, isbad && c == 4 ? NULL : &f);
        char who[32];
        snprintf(who, sizeof who, "rank %d", bad);
        if (isbad) CHECK(rc == COLLDIAG_ERR_ARG, "the bad rank: rc %d (%s)", rc, colldiag_last_errmsg());
        else CHECK(rc == COLLDIAG_ERR_PEER && strstr(colldiag_last_errmsg(), who), "rc %d (%s), expected ERR_PEER naming %s", rc,
                   colldiag_last_errmsg(), who);
        if (!(isbad && (c == 2 || c == 4))) CHECK(f == NULL, "a failed call left a file");
    }
    MPI_File_close(&fh);
}

/* COLLDIAG_REPORT seen by some ranks only (mpirun passes a shell's variables to the ranks on its own
   node unless told with -x): rank 0's value decides for every rank, the call succeeds everywhere with
   the right bytes, and the report is written iff rank 0 asks for it. Every collective entry point, the
   variable on the bad rank alone (invert 0) or on every rank but it (invert 1), json: and html:. A hang
   (some ranks gathering the report, the others gone on to the next call) fails under timeout. */
static void run_report_env(int bad, int invert, int html, const char *path)
{
    enum { W, R, PL, MW, MR, MP, NENTRY };
    static const char *const en[NENTRY] = {"colldiag_write", "colldiag_read", "colldiag_plan", "colldiag_write_multi",
                                           "colldiag_read_multi", "colldiag_plan_multi"};
    const int has = (me == bad) != invert, r0has = (bad == 0) != invert;
    char rep[300], var[310];
    snprintf(rep, sizeof rep, "%s.report.%s", path, html ? "html" : "jsonl");
    snprintf(var, sizeof var, "%s:%s", html ? "html" : "json", rep);
    uint64_t dims[1] = {(uint64_t)P * 4}, cd[1] = {2};
    colldiag_layout *l[2];
    colldiag_layout_chunked(1, dims, cd, 4, 0, &l[0]);
    colldiag_layout_chunked(1, dims, cd, 4, (MPI_Offset)(dims[0] * 4), &l[1]);
    colldiag_sel *fs;
    colldiag_sel_create(1, dims, &fs);
    uint64_t st = (uint64_t)me * 4, cn = 4;
    colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_SET, &st, NULL, &cn, NULL);
    if (me == 0) fclose(fopen(path, "wb"));
    MPI_Barrier(MPI_COMM_WORLD);
    colldiag_file *f;
    colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    int w[2][4], r[2][4];
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < 4; i++) w[d][i] = 10000 * d + 100 * me + i;
    const colldiag_layout *const ls[2] = {l[0], l[1]};
    const colldiag_sel *const fss[2] = {fs, fs}, *const mss[2] = {NULL, NULL};
    const void *const wb[2] = {w[0], w[1]};
    void *const rb[2] = {r[0], r[1]};
    for (int e = 0; e < NENTRY; e++) {
        snprintf(g_case, sizeof g_case, "P=%d %s with COLLDIAG_REPORT=%s on %s rank %d", P, en[e], html ? "html:" : "json:",
                 invert ? "every rank but" : "only", bad);
        if (me == 0) remove(rep);
        memset(r, 0xEE, sizeof r);
        MPI_Barrier(MPI_COMM_WORLD);
        if (has) setenv("COLLDIAG_REPORT", var, 1);
        else unsetenv("COLLDIAG_REPORT");
        int rc = e == W ? colldiag_write(f, l[0], fs, NULL, w[0], x) : e == R ? colldiag_read(f, l[0], fs, NULL, r[0], x)
               : e == PL ? colldiag_plan(f, l[0], fs, NULL, x) : e == MW ? colldiag_write_multi(f, 2, ls, fss, mss, wb, x)
               : e == MR ? colldiag_read_multi(f, 2, ls, fss, mss, rb, x) : colldiag_plan_multi(f, 2, ls, fss, mss, x);
        unsetenv("COLLDIAG_REPORT");
        CHECK(rc == 0, "rc %d (%s)", rc, colldiag_xfer_errmsg(x));
        if (e == R || e == MR)
            for (int d = 0; d < (e == MR ? 2 : 1); d++) CHECK(!memcmp(r[d], w[d], sizeof r[d]), "dataset %d read other values than written", d);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) { /* the report: there iff rank 0 asked (one JSON line; an HTML page with one section) */
            FILE *fp = fopen(rep, "r");
            int lines = 0, ch;
            if (fp) {
                while ((ch = fgetc(fp)) != EOF) lines += ch == '\n';
                fclose(fp);
            }
            if (html) CHECK(r0has ? fp != NULL && lines > 0 : fp == NULL, "rank 0 %s the variable: the HTML page %s", r0has ? "has" : "lacks",
                            fp ? "exists" : "is missing");
            else CHECK(r0has ? lines == 1 : fp == NULL, "rank 0 %s the variable: %d JSON lines%s", r0has ? "has" : "lacks", lines,
                       fp ? "" : " (no file)");
        }
    }
    if (me == 0) { /* both datasets' bytes, written twice (single and multi) */
        FILE *fp = fopen(path, "rb");
        int *got = malloc((size_t)(2 * P * 4) * sizeof *got);
        size_t n = fread(got, 4, (size_t)(2 * P * 4), fp);
        fclose(fp);
        int ok = n == (size_t)(2 * P * 4);
        for (int d = 0; d < 2 && ok; d++)
            for (int i = 0; i < P * 4; i++) ok &= got[d * P * 4 + i] == 10000 * d + 100 * (i / 4) + i % 4;
        CHECK(ok, "the file holds other bytes than the ranks wrote");
        free(got);
        remove(rep);
    }
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    colldiag_sel_free(fs);
    colldiag_layout_free(l[0]);
    colldiag_layout_free(l[1]);
}

/* One rank fails inside a phase of a collective call (fault injection, -DCOLLDIAG_TESTING): every rank
   returns an error, the healthy ones COLLDIAG_ERR_PEER naming the failing rank, and nobody hangs. */
static void run_inject(const char *phase, int opt, int bad, const char *path)
{
    snprintf(g_case, sizeof g_case, "P=%d injected %s failure, bad rank %d, chunk_opt %d", P, phase, bad, opt);
    /* each rank 4 columns straddling two 4x4 chunks: chunk c is shared by ranks c-1 and c */
    uint64_t dims[2] = {8, (uint64_t)P * 4 + 4}, cd[2] = {4, 4}, st[2] = {0, (uint64_t)me * 4 + 2}, cn[2] = {4, 4};
    colldiag_layout *l;
    colldiag_layout_chunked(2, dims, cd, 4, 0, &l);
    colldiag_sel *fs;
    colldiag_sel_create(2, dims, &fs);
    colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    int buf[16] = {0};
    if (me == 0) { /* the dataset's bytes exist: a failed rank leaves a gap inside the file, not past its end
                      (ompio's write data sieving fills gaps past the end with uninitialised bytes:
                      tests/mpi_valgrind_baseline.c) */
        FILE *fp = fopen(path, "wb");
        static const char zero[4096];
        fwrite(zero, 1, (size_t)(dims[0] * dims[1] * 4), fp);
        fclose(fp);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    char inj[64];
    snprintf(inj, sizeof inj, "%s:%d", phase, bad);
    setenv("COLLDIAG_INJECT", inj, 1);
    /* AUTO stands for link here (its types and collective call are the injection points): on this tiny
       selection the model would take all-independent, which an independent call priced at 1 s rules out */
    if (opt == COLLDIAG_MPIO_CHUNK_AUTO) setenv("COLLDIAG_AUTO_IND", "1", 1);
    colldiag_file *f;
    colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)opt);
    colldiag_set_dxpl_mpio_chunk_opt_ratio(x, 0); /* every chunk collective: types and collective I/O happen */
    /* write, read, and plan-only (which maps and counts, but builds no types and moves no data) */
    const int ndir = !strcmp(phase, "map") || !strcmp(phase, "exchange") ? 3 : 2;
    for (int dir = 0; dir < ndir; dir++) {
        int rc = dir == 2 ? colldiag_plan(f, l, fs, NULL, x) : dir ? colldiag_read(f, l, fs, NULL, buf, x) : colldiag_write(f, l, fs, NULL, buf, x);
        const char *msg = colldiag_xfer_errmsg(x);
        char r[32];
        snprintf(r, sizeof r, "rank %d", bad);
        const char *dn = dir == 2 ? "plan" : dir ? "read" : "write";
        if (me == bad) CHECK(rc != 0 && rc != COLLDIAG_ERR_PEER, "%s: the failing rank returned %d (%s)", dn, rc, msg);
        else CHECK(rc == COLLDIAG_ERR_PEER, "%s: healthy rank returned %d (%s), expected ERR_PEER", dn, rc, msg);
        CHECK(strstr(msg, r) != NULL, "%s: message does not name rank %d: %s", dn, bad, msg);
        if (!dir && !strcmp(phase, "io"))
            CHECK(strstr(msg, "selected bytes to the file before the call failed") != NULL, "a failed write does not say what may be written: %s", msg);
    }
    unsetenv("COLLDIAG_INJECT");
    unsetenv("COLLDIAG_AUTO_IND");
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    colldiag_sel_free(fs);
    colldiag_layout_free(l);
}

#ifdef COLLDIAG_TESTING
/* The node lookup made when a file opens (COLLDIAG_INJECT=nodes:BAD: rank BAD cannot allocate its
   node's list) fails soft and together: nobody hangs, every call still succeeds with the right bytes,
   the ranks of BAD's node (by host name, the test's own way) do not know the bytes crossing nodes while
   the others do, and no rank's AUTO prices the link (the node count is "not known" everywhere: two
   plans that differ only in COLLDIAG_AUTO_BW_NET_X give the same estimates). */
static void run_inject_nodes(int bad, const char *path)
{
    snprintf(g_case, sizeof g_case, "node lookup fails on rank %d", bad);
    char name[MPI_MAX_PROCESSOR_NAME] = "", *names = malloc((size_t)P * MPI_MAX_PROCESSOR_NAME);
    int len = 0;
    MPI_Get_processor_name(name, &len);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    const int with_bad = !strcmp(names + (size_t)me * MPI_MAX_PROCESSOR_NAME, names + (size_t)bad * MPI_MAX_PROCESSOR_NAME);
    free(names);
    if (me == 0) fclose(fopen(path, "wb"));
    MPI_Barrier(MPI_COMM_WORLD);
    char inj[64];
    snprintf(inj, sizeof inj, "nodes:%d", bad);
    setenv("COLLDIAG_INJECT", inj, 1);
    colldiag_file *f = NULL;
    int rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    unsetenv("COLLDIAG_INJECT");
    CHECK(rc == 0, "open: %s", colldiag_last_errmsg());
    /* one chunk of {4, 4P} ints; rank r writes columns [4r, 4r+4): every rank's piece goes to the owner */
    const uint64_t dims[2] = {4, 4 * (uint64_t)P}, st[2] = {0, 4 * (uint64_t)me}, cnt[2] = {4, 4};
    colldiag_layout *l = NULL;
    colldiag_layout_chunked(2, dims, dims, sizeof(int), 0, &l);
    colldiag_sel *s = NULL;
    colldiag_sel_create(2, dims, &s);
    colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cnt, NULL);
    int buf[16], back[16];
    for (int i = 0; i < 16; i++) buf[i] = me * 100 + i + 1;
    memset(back, 0, sizeof back);
    colldiag_xfer *x = NULL;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO);
    for (int dir = 0; dir < 2 && f; dir++) {
        rc = dir ? colldiag_read(f, l, s, NULL, back, x) : colldiag_write(f, l, s, NULL, buf, x);
        CHECK(rc == 0, "aggregated %s: %s", dir ? "read" : "write", colldiag_xfer_errmsg(x));
        uint64_t bytes = 0;
        int known = -1;
        colldiag_get_bytes_off_node(x, &bytes, &known);
        CHECK(known == !with_bad, "aggregated %s: bytes off the node %s known on a rank %s rank %d's node", dir ? "read" : "write",
              known ? "" : "not", with_bad ? "on" : "off", bad);
    }
    CHECK(!memcmp(buf, back, sizeof buf), "the bytes read back differ from the bytes written");
    double est[2][4] = {{0}};
    colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_AUTO);
    for (int v = 0; v < 2 && f; v++) {
        setenv("COLLDIAG_AUTO_BW_NET_X", v ? "1e3" : "1e12", 1);
        CHECK(colldiag_plan(f, l, s, NULL, x) == 0, "AUTO plan: %s", colldiag_xfer_errmsg(x));
        colldiag_get_model_estimates(x, est[v]);
    }
    unsetenv("COLLDIAG_AUTO_BW_NET_X");
    CHECK(est[0][2] == est[1][2], "aggregation's estimate moved with BW_NET_X (%g -> %g) though the nodes are not known", est[0][2], est[1][2]);
    colldiag_xfer_free(x);
    colldiag_sel_free(s);
    colldiag_layout_free(l);
    if (f) CHECK(colldiag_file_close(f) == 0, "close: %s", colldiag_last_errmsg());
}
#endif

/* argument checks that need no communication */
static void local_checks(void)
{
    snprintf(g_case, sizeof g_case, "local argument checks");
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    CHECK(colldiag_set_dxpl_mpio(x, (colldiag_xfer_mode_t)7) == COLLDIAG_ERR_ARG, "invalid xfer mode accepted");
    CHECK(strstr(colldiag_last_errmsg(), "colldiag_set_dxpl_mpio") && strstr(colldiag_last_errmsg(), "mode"), "msg: %s", colldiag_last_errmsg());
    CHECK(colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)9) == COLLDIAG_ERR_ARG, "invalid chunk opt accepted");
    CHECK(colldiag_set_dxpl_mpio_collective_opt(x, (colldiag_collective_opt_t)-1) == COLLDIAG_ERR_ARG, "invalid coll opt accepted");
    CHECK(colldiag_set_dxpl_mpio_chunk_opt_ratio(x, 101) == COLLDIAG_ERR_ARG, "ratio 101 accepted");
    CHECK(colldiag_set_buffer(x, 63) == COLLDIAG_ERR_ARG, "63-byte buffer accepted");
    CHECK(colldiag_set_coll_buffer(x, 0) == COLLDIAG_ERR_ARG, "0-byte collective buffer accepted");
    CHECK(colldiag_set_coll_buffer(x, 1) == 0, "1-byte collective buffer refused");
    colldiag_xfer_free(x);
    uint64_t d[2] = {UINT64_MAX / 2, 4}, c[2] = {1, 1};
    colldiag_layout *l = NULL;
    CHECK(colldiag_layout_contiguous(2, d, 4, 0, &l) == COLLDIAG_ERR_ARG && !l, "overflowing dims accepted");
    CHECK(strstr(colldiag_last_errmsg(), "overflow") != NULL, "msg: %s", colldiag_last_errmsg());
    uint64_t d2[2] = {10, 10};
    CHECK(colldiag_layout_contiguous(2, d2, 0, 0, &l) == COLLDIAG_ERR_ARG, "zero element size accepted");
    CHECK(colldiag_layout_chunked(2, d2, c, 4, -5, &l) == COLLDIAG_ERR_ARG, "negative base accepted");
    uint64_t c0[2] = {0, 2};
    CHECK(colldiag_layout_chunked(2, d2, c0, 4, 0, &l) == COLLDIAG_ERR_ARG, "zero chunk dim accepted");
    CHECK(colldiag_layout_contiguous(33, d2, 4, 0, &l) == COLLDIAG_ERR_ARG, "rank 33 accepted");
    colldiag_sel *s;
    colldiag_sel_create(2, d2, &s);
    uint64_t st[2] = {5, 5}, cn[2] = {2, 2}, sr[2] = {3, 3}, bl[2] = {4, 1};
    CHECK(colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, sr, cn, bl) == COLLDIAG_ERR_ARG, "stride < block accepted");
    uint64_t st2[2] = {9, 0}, cn2[2] = {2, 1};
    CHECK(colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st2, NULL, cn2, NULL) == COLLDIAG_ERR_ARG, "hyperslab past extent accepted");
    CHECK(colldiag_sel_npoints(s) == 100, "a failed call changed the selection (%" PRIu64 ")", colldiag_sel_npoints(s));
    uint64_t pts[6] = {1, 1, 2, 2, 1, 1};
    CHECK(colldiag_sel_select_elements(s, COLLDIAG_SELECT_SET, 3, pts) == COLLDIAG_ERR_ARG, "duplicate point accepted");
    CHECK(strstr(colldiag_last_errmsg(), "(1, 1)") != NULL, "msg: %s", colldiag_last_errmsg());
    CHECK(colldiag_sel_select_hyperslab(s, (colldiag_seloper_t)3, st, NULL, cn, NULL) == COLLDIAG_ERR_ARG, "invalid op accepted");
    colldiag_sel_free(s);
    char buf[8];
    size_t need = colldiag_cause_string(0x81, buf, sizeof buf);
    CHECK(need > 8 && strlen(buf) == 7, "cause_string truncation: need %zu, got '%s'", need, buf);
    CHECK(colldiag_cause_string(0, buf, sizeof buf) == 0 && buf[0] == 0, "cause 0 is not empty");
    CHECK(!strcmp(colldiag_strerror(COLLDIAG_ERR_PEER), "another rank failed in the same collective call"), "strerror");
}

/* A program may change colldiag's variables between calls, as it likes: each call must see the
   environment as it is at that call (getenv's answer), whatever colldiag keeps from call to call. A
   plan (collective, no I/O) under COLLDIAG_CHUNK_OPT after each change, its reported scheme against
   the one the test set: a value changed in its variable's slot (setenv, putenv), the variable removed
   (the setting's scheme again), added back after another variable, another variable removed before it
   (its slot shifts), another variable changed, and many added at once (the array reallocated). */
static void run_env_changes(const char *path)
{
    snprintf(g_case, sizeof g_case, "P=%d environment changes between calls", P);
    if (me == 0) fclose(fopen(path, "wb"));
    MPI_Barrier(MPI_COMM_WORLD);
    colldiag_file *f;
    CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f) == 0, "open: %s", colldiag_last_errmsg());
    uint64_t dims[2] = {16, 16}, cd[2] = {4, 4}, st[2] = {0, 0}, cn[2] = {16, 16};
    colldiag_layout *l;
    colldiag_layout_chunked(2, dims, cd, 4, 0, &l);
    colldiag_sel *fs;
    colldiag_sel_create(2, dims, &fs);
    st[0] = (uint64_t)me * 16 / (uint64_t)P;
    cn[0] = (uint64_t)(me + 1) * 16 / (uint64_t)P - st[0];
    if (cn[0]) colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    else colldiag_sel_select_none(fs);
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_ONE_IO); /* the setting: link-chunk */
    static char put_multi[] = "COLLDIAG_CHUNK_OPT=multi", put_link[] = "COLLDIAG_CHUNK_OPT=link";
    unsetenv("COLLDIAG_CHUNK_OPT");
    for (int step = 0; step < 11; step++) {
        const char *what = "";
        switch (step) {
        case 0: setenv("COLLDIAG_CHUNK_OPT", "multi", 1); what = "set to multi"; break;
        case 1: setenv("COLLDIAG_CHUNK_OPT", "link", 1); what = "changed to link"; break;
        case 2: setenv("COLLDIAG_CHUNK_OPT", "multi", 1); what = "changed back to multi"; break;
        case 3: unsetenv("COLLDIAG_CHUNK_OPT"); what = "removed"; break;
        case 4: setenv("COLLDIAG_TEST_BEFORE", "1", 1); setenv("COLLDIAG_CHUNK_OPT", "multi", 1); what = "added after another variable"; break;
        case 5: unsetenv("COLLDIAG_TEST_BEFORE"); what = "another variable before it removed"; break;
        case 6: setenv("COLLDIAG_CHUNK_OPT", "link", 1); what = "changed after its slot moved"; break;
        case 7: setenv("PATH_NOT_OURS", "x", 1); setenv("PATH_NOT_OURS", "y", 1); what = "another variable changed"; break;
        case 8: putenv(put_multi); what = "putenv multi"; break;
        case 9: putenv(put_link); what = "putenv link"; break;
        case 10:
            for (int i = 0; i < 300; i++) {
                char n[48];
                snprintf(n, sizeof n, "COLLDIAG_TEST_MANY_%d", i);
                setenv(n, "1", 1);
            }
            setenv("COLLDIAG_CHUNK_OPT", "multi", 1);
            what = "300 variables added, then changed to multi";
            break;
        }
        const char *e = getenv("COLLDIAG_CHUNK_OPT"); /* the reference: libc's own answer */
        const colldiag_actual_chunk_opt_mode_t want = e && !strcmp(e, "multi") ? COLLDIAG_MPIO_MULTI_CHUNK : COLLDIAG_MPIO_LINK_CHUNK;
        const int rc = colldiag_plan(f, l, fs, NULL, x);
        colldiag_actual_chunk_opt_mode_t co = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
        colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
        CHECK(rc == 0 && co == want, "step %d (%s, COLLDIAG_CHUNK_OPT=%s): rc %d, chunk opt %d, expected %d (%s)", step, what, e ? e : "(unset)", rc, (int)co,
              (int)want, colldiag_xfer_errmsg(x));
    }
    unsetenv("COLLDIAG_CHUNK_OPT");
    unsetenv("PATH_NOT_OURS");
    for (int i = 0; i < 300; i++) {
        char n[48];
        snprintf(n, sizeof n, "COLLDIAG_TEST_MANY_%d", i);
        unsetenv(n);
    }
    colldiag_xfer_free(x);
    colldiag_sel_free(fs);
    colldiag_layout_free(l);
    colldiag_file_close(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* AUTO's model is what this program checks (tests/test_auto.c checks its measurements): the
       measured choice of a pattern's later calls follows the machine's timings */
    if (!getenv("COLLDIAG_AUTO_MODE")) setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    char path[256];
    if (me == 0) snprintf(path, sizeof path, "%s/colldiag_test_err_%d.bin", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    local_checks();
    run_env_changes(path);
    int bads[3] = {0, P / 2, P - 1};
    for (int c = 0; c < C_N; c++)
        for (int b = 0; b < 3; b++) {
            if (b > 0 && bads[b] == bads[b - 1]) continue;
            if ((c == C_LAYOUT_DISAGREE || c == C_SETTINGS_DISAGREE || c == C_BUFFER_DISAGREE || c == C_AUTO_DISAGREE) && P == 1)
                continue;
            /* The I/O failure is injected into independent calls only: Open MPI's ompio and ROMIO both return
               success from a two-phase collective write whose piece lies beyond the file-size limit when that
               piece belongs to rank 0 (seen on Open MPI 4.1.4 and MPICH 4.0), so no library can report it. */
            int opts[3] = {COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_ALL_CHUNK_IND_IO};
            for (int o = 0; o < 3; o++) {
                if (c != C_IO_FAIL && o > 0) continue;
                if (c == C_IO_FAIL && o == 0) continue;
                run(c, bads[b], path, opts[o]);
            }
        }
    /* The environment is read from one snapshot a call, of at most 64 COLLDIAG_ and HDF5_ variables; with
       more, from getenv. Both must see the bad values: the environment cases again with 70 more. */
    for (int i = 0; i < 70; i++) {
        char n[40];
        snprintf(n, sizeof n, "COLLDIAG_TEST_PAD_%d", i);
        setenv(n, "1", 1);
    }
    const int env_cases[] = {C_BAD_ENV, C_BAD_BUFFER_ENV, C_AUTO_DISAGREE, C_BAD_AUTO_ENV};
    for (int k = 0; k < 4; k++)
        if (env_cases[k] != C_AUTO_DISAGREE || P > 1) run(env_cases[k], P - 1, path, COLLDIAG_MPIO_CHUNK_ONE_IO);
    for (int i = 0; i < 70; i++) {
        char n[40];
        snprintf(n, sizeof n, "COLLDIAG_TEST_PAD_%d", i);
        unsetenv(n);
    }
    /* NULL pointers on one rank, at every collective entry point ("quick": link and aggregation only) */
    const int quick = argc > 1 && !strcmp(argv[1], "quick");
    if (me == 0) fclose(fopen(path, "wb"));
    colldiag_file *nf;
    colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &nf);
    const int nopts[5] = {COLLDIAG_MPIO_CHUNK_DEFAULT, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO,
                          COLLDIAG_MPIO_CHUNK_AUTO, COLLDIAG_MPIO_ALL_CHUNK_IND_IO};
    for (int e = 0; e < E_N; e++)
        for (int a = 0; a < N_ARGS; a++)
            for (int b = 0; b < 3; b++) {
                if (b > 0 && bads[b] == bads[b - 1]) continue;
                if (a == N_BUF && e == E_PLAN) continue; /* a plan takes no buffer */
                for (int o = 0; o < 5; o++)
                    for (int chunked = 0; chunked < 2; chunked++) {
                        if (!chunked && o > 0) continue; /* contiguous layouts have no chunk scheme */
                        if (quick && (o == 1 || o > 2)) continue;
                        run_null(nf, e, a, bads[b], chunked, nopts[o], COLLDIAG_MPIO_COLLECTIVE, path);
                    }
                run_null(nf, e, a, bads[b], 1, COLLDIAG_MPIO_CHUNK_DEFAULT, COLLDIAG_MPIO_INDEPENDENT, path);
            }
    colldiag_file_close(nf);
    for (int b = 0; b < 3; b++)
        if (b == 0 || bads[b] != bads[b - 1]) run_report_null(bads[b], path);
    for (int b = 0; b < 3; b++)
        if (b == 0 || bads[b] != bads[b - 1]) run_file_args(bads[b], path);
    for (int b = 0; b < 3; b++)
        for (int inv = 0; inv < 2 && P > 1; inv++)
            for (int html = 0; html < 2; html++)
                if (b == 0 || bads[b] != bads[b - 1]) run_report_env(bads[b], inv, html, path);
#ifdef COLLDIAG_TESTING
    const char *phases[6] = {"map", "exchange", "types", "io", "buffers", "records"};
    const int iopts[6] = {COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO,
                          COLLDIAG_MPIO_ALL_CHUNK_IND_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO, COLLDIAG_MPIO_CHUNK_AUTO};
    for (int ph = 0; ph < 6; ph++)
        for (int o = 0; o < 6; o++)
            for (int b = 0; b < 3; b++) {
                if (b > 0 && bads[b] == bads[b - 1]) continue;
                if ((ph == 4 || ph == 5) && o != 4) continue; /* only aggregation allocates exchange buffers and
                                                                 counts records */
                if (ph == 1 && (o == 0 || o == 3 || o == 5)) continue; /* link, all-independent (and AUTO -> link) exchange nothing */
                if (ph == 2 && o == 3) continue;             /* all-independent builds no datatypes */
                run_inject(phases[ph], iopts[o], bads[b], path);
            }
    for (int b = 0; b < 3; b++)
        if (b == 0 || bads[b] != bads[b - 1]) run_inject_nodes(bads[b], path);
#endif
    if (me == 0) unlink(path);
    int status = test_summary("test_errors");
    MPI_Finalize();
    return status;
}

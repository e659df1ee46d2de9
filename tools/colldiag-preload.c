/* libcolldiag_preload.so: explains the H5Dwrite and H5Dread calls of an unmodified parallel HDF5
 * program (C, h5py, netCDF-4) and checks colldiag's prediction against HDF5's own answer.
 *
 *   make preload          -> build/<mpi>/libcolldiag_preload.so
 *   COLLDIAG_REPORT=1 mpirun.openmpi -n 3 -x LD_PRELOAD=$PWD/build/openmpi/libcolldiag_preload.so \
 *       -x COLLDIAG_REPORT ./app
 *   COLLDIAG_REPORT=json:calls.jsonl ...   one JSON object per line per call
 *   COLLDIAG_REPORT=html:calls.html ...    one page, a section per collective call, marked agree/disagree
 *
 * Per call: colldiag_h5_plan plans the call with exactly the application's arguments; the real
 * function then runs unchanged (same arguments, same return value; when the application passes
 * H5P_DEFAULT, a fresh default DXPL is passed instead so that HDF5's actual modes can be read back
 * from it); then HDF5's actual chunk optimisation, I/O mode and causes are read from that DXPL and
 * compared rank by rank with colldiag's plan.
 *
 * A collective call (the DXPL's transfer mode) is reported once, by rank 0 of the file's
 * communicator, for every rank: the plan gathers there anyway. An independent call is reported by
 * each calling rank for itself, and communicates nothing. A call colldiag cannot plan is reported
 * with "planned":false and why; the application's call runs all the same. Without COLLDIAG_REPORT
 * (or =0) the wrappers only forward.
 *
 * One translation unit with the kit (like the bench): the report needs the plan's communicator. */
#define _GNU_SOURCE
#include "../colldiag.c"

#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>

/* Two routes into a program's HDF5 calls, one source:
   - the preload (make preload): every wrapper has the HDF5 function's own name, and LD_PRELOAD puts it
     before HDF5's; the real function is the next one, dlsym(RTLD_NEXT). It sees a program whose HDF5
     is a shared library, and nothing else;
   - the link-time route (make wrap, -DCOLLDIAG_WRAP), for a program linked against HDF5 statically (plain
     h5pcc does: libhdf5.a), whose calls never pass through a shared library: the program is linked with
     build/<mpi>/libcolldiag_wrap.a and -Wl,--wrap=NAME for every wrapped function (the flags in
     build/<mpi>/colldiag-wrap.flags), so that the linker sends its calls of NAME to __wrap_NAME and the
     wrapper's own to __real_NAME, HDF5's. Darshan instruments static programs the same way. */
#ifdef COLLDIAG_WRAP
#define CD_WRAP(name) __wrap_##name
#define CD_LOOKUP(name) ((void *)&__real_##name)
#define CD_REAL_DECL(name) extern __typeof__(name) __real_##name;
CD_REAL_DECL(H5Dwrite) CD_REAL_DECL(H5Dwrite_chunk) CD_REAL_DECL(H5Dread) CD_REAL_DECL(H5Fclose) CD_REAL_DECL(H5Fcreate) CD_REAL_DECL(H5Fopen) CD_REAL_DECL(H5close)
CD_REAL_DECL(H5Pset_dxpl_mpio) CD_REAL_DECL(H5Pset_dxpl_mpio_collective_opt) CD_REAL_DECL(H5Pset_dxpl_mpio_chunk_opt)
CD_REAL_DECL(H5Pset_dxpl_mpio_chunk_opt_num) CD_REAL_DECL(H5Pset_dxpl_mpio_chunk_opt_ratio) CD_REAL_DECL(H5Pset_data_transform)
CD_REAL_DECL(H5Premove) CD_REAL_DECL(H5Pcopy_prop) CD_REAL_DECL(H5Pset) CD_REAL_DECL(H5Dset_extent) CD_REAL_DECL(H5Dopen2)
CD_REAL_DECL(H5Oopen) CD_REAL_DECL(H5Dcreate2) CD_REAL_DECL(H5Dcreate_anon) CD_REAL_DECL(H5Fflush) CD_REAL_DECL(H5Ldelete)
CD_REAL_DECL(H5Ldelete_by_idx) CD_REAL_DECL(H5Ocopy) CD_REAL_DECL(H5Odecr_refcount)
#ifndef H5_NO_DEPRECATED_SYMBOLS
CD_REAL_DECL(H5Dopen1) CD_REAL_DECL(H5Dcreate1) CD_REAL_DECL(H5Gunlink)
#endif
#if H5_VERSION_GE(1, 14, 0)
CD_REAL_DECL(H5Dwrite_multi) CD_REAL_DECL(H5Dread_multi) CD_REAL_DECL(H5Dwrite_async) CD_REAL_DECL(H5Dread_async)
CD_REAL_DECL(H5Dwrite_multi_async) CD_REAL_DECL(H5Dread_multi_async)
#endif
#else
#define CD_WRAP(name) name
#define CD_LOOKUP(name) dlsym(RTLD_NEXT, #name)
/* MPICH 4.1-4.2's ROMIO aborts on MPI datatypes HDF5 1.14 builds for irregular selections: the preload
   hands ROMIO such a type (only where it would abort) as the same bytes, flattened, and says so once a
   process (tools/mpich_flat_views.h; docs/hdf5.md). Nothing on other MPIs. */
#define FLAT_VIEWS_SAY
#include "mpich_flat_views.h"
#endif

typedef herr_t (*h5w_fn)(hid_t, hid_t, hid_t, hid_t, hid_t, const void *);
typedef herr_t (*h5r_fn)(hid_t, hid_t, hid_t, hid_t, hid_t, void *);

/* What one rank knows after the call: colldiag's plan and HDF5's answer, as numbers (same enums). */
enum { V_CD_OPT, V_CD_IO, V_CD_LOCAL, V_CD_GLOBAL, V_H5_OPT, V_H5_IO, V_H5_LOCAL, V_H5_GLOBAL, V_PLANNED, V_H5_OK, V_BYTES_LO, V_BYTES_HI,
       V_USEC, V_N };
/* ---- one record a call ----
   An intercepted raw-data call flows through the preload as one record, made when the call arrives
   (explain; explain_multi makes one a dataset) and passed forward, step after step: the accelerated path
   (accelerate: the rule list before anything, then colldiag_h5_write/read, which identify and plan the
   call inside the bridge), or HDF5's path (made_safe, the plan for the report, write_call or HDF5's read,
   then the report, the summary's counters and the engine's measurement). It holds the program's
   arguments; COLLDIAG_REPORT and COLLDIAG_ACCELERATE, read once; the facts several steps need, asked of
   HDF5 once (the transfer mode; the dataset's identity, names and element size; this rank's bytes);
   and what each step found for the steps after it. It lives in the wrapper's frame: a call nested in
   another (colldiag's own work for a call, a compact write's cure or made_safe, can reach these
   wrappers again) has its own, and the outer call's record is whole when it returns (these were eleven
   statics, two of them saved and restored around a nested call: valgrind once saw an outer report read
   a nested call's dead frame through one). */
/* A call the agreement gave to HDF5's path by measurement (measure.c, meas_engine_choose): the time it
   spent deciding, to which HDF5's call is added before the group's next call carries it. */
/* on: HDF5's time of the call is the engine's measurement (eng_hdf5_done); known: the engines' medians
   the choice saw (mt: HDF5's path, colldiag's; -1 none), for the summary (sum_hdf5_call) */
struct eng_pending { int on, known; uint64_t group, sig; double t, mt[2]; uint32_t mn[2]; };
struct sum_names;
typedef struct pl_call {
    int wr;
    hid_t dset, mt, ms, fs, dxpl;     /* as the program gave them (dxpl: its own; H5P_DEFAULT stays so) */
    const void *wbuf;
    void *rbuf;
    const char *op;                   /* the call's name in reports (H5Dwrite, H5Dread_async, H5Dwrite_multi, ...) */
    size_t multi_i, multi_n;          /* of a multi-dataset call (multi_n > 0): this record's dataset, of how many */
    const char *mode, *acc;           /* COLLDIAG_REPORT, COLLDIAG_ACCELERATE (rank 0's: alike on every rank) */
    int coll;                         /* the transfer mode is collective (read once; H5P_DEFAULT: independent) */
    size_t nm;                        /* the dataset's identity, names, element size: 1 + its index among them (pl_names; 0: not
                                         asked or unknown). An index, not a pointer: a call nested in this one can add names */
    uint64_t bytes;                   /* this rank's file bytes (the JSON line sums them over ranks; the summary) */
    double secs;                      /* HDF5's call, when HDF5 ran it */
    const char *accel_why;            /* why COLLDIAG_ACCELERATE left the call to HDF5 (NULL: not asked) */
    int compact;                      /* a compact write the accelerated path left to HDF5 (write_call) */
    uint64_t safe_from, safe_to;      /* made_safe: the file's size before and after (equal: nothing grew) */
    int safe_done;                    /* made_safe ran for this record (safe_early: before the engine's choice) */
    uint64_t kept_bytes, kept_of;     /* write_call: compact bytes merged across ranks, and the dataset's */
    struct eng_pending eng;           /* HDF5's path runs by measurement: its time is the engine's */
    int leased;                       /* HDF5's path runs it under a lease, without colldiag's agreement (lease_take) */
    /* the summary alone's bytes at risk: this rank's words before HDF5's call (sum_risk_light), recorded
       after it with HDF5's own cause (sum_risk_record) */
    int risk_have;
    uint32_t risk_kind_read;          /* 4: the words are a read's (COLLDIAG_RISK_READS) */
    uint64_t risk_own;                /* an independent compact write's bytes (its rank's alone) */
    uint64_t risk_cap, risk_v[AG_N];
} pl_call;

/* 1 when the transfer mode of dxpl is collective. */
static int sum_collective(hid_t dxpl) { return h5_dxpl_collective_quiet(dxpl); }

/* The record of a call as it arrives: the environment read, the transfer mode asked once. */
static pl_call pl_call_of(int wr, const char *op, hid_t dset, hid_t mt, hid_t ms, hid_t fs, hid_t dxpl, const void *wbuf, void *rbuf)
{
    pl_call c;
    memset(&c, 0, sizeof c);
    c.wr = wr;
    c.op = op ? op : wr ? "H5Dwrite" : "H5Dread";
    c.dset = dset;
    c.mt = mt;
    c.ms = ms;
    c.fs = fs;
    c.dxpl = dxpl;
    c.wbuf = wbuf;
    c.rbuf = rbuf;
    c.mode = cd_getenv("COLLDIAG_REPORT");
    c.acc = cd_getenv("COLLDIAG_ACCELERATE");
    c.coll = sum_collective(dxpl);
    return c;
}

/* What the call moved on this rank and how long it took (the record's), for the JSON line ("bytes":
   summed over ranks, "seconds": the slowest rank's) */
static void values_of(const pl_call *c, const colldiag_xfer *x, int planned, hid_t dxpl, herr_t ret, unsigned v[V_N])
{
    colldiag_actual_chunk_opt_mode_t co = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
    colldiag_actual_io_mode_t io = COLLDIAG_MPIO_NO_COLLECTIVE;
    uint32_t l = 0, g = 0;
    colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
    colldiag_get_mpio_actual_io_mode(x, &io);
    colldiag_get_mpio_no_collective_cause(x, &l, &g);
    v[V_CD_OPT] = (unsigned)co;
    v[V_CD_IO] = (unsigned)io;
    v[V_CD_LOCAL] = l;
    v[V_CD_GLOBAL] = g;
    H5D_mpio_actual_chunk_opt_mode_t hco = H5D_MPIO_NO_CHUNK_OPTIMIZATION;
    H5D_mpio_actual_io_mode_t hio = H5D_MPIO_NO_COLLECTIVE;
    uint32_t hl = 0, hg = 0;
    H5Pget_mpio_actual_chunk_opt_mode(dxpl, &hco);
    H5Pget_mpio_actual_io_mode(dxpl, &hio);
    H5Pget_mpio_no_collective_cause(dxpl, &hl, &hg);
    v[V_H5_OPT] = (unsigned)hco;
    v[V_H5_IO] = (unsigned)hio;
    v[V_H5_LOCAL] = hl;
    v[V_H5_GLOBAL] = hg;
    v[V_PLANNED] = (unsigned)planned;
    v[V_H5_OK] = ret >= 0;
    v[V_BYTES_LO] = (unsigned)(c->bytes & 0xffffffffu);
    v[V_BYTES_HI] = (unsigned)(c->bytes >> 32);
    v[V_USEC] = c->secs * 1e6 < 4e9 ? (unsigned)(c->secs * 1e6) : 4000000000u;
}

/* Appends to b (size n) the differences between colldiag and HDF5 on one rank; returns 1 if any. */
static int differences(int rank, const unsigned *v, char *b, size_t n)
{
    size_t k = strlen(b);
    int any = 0;
    static const char *const what[] = {"chunk_opt", "io_mode", "local_cause", "global_cause"};
    for (int i = 0; i < 4; i++) {
        if (v[V_CD_OPT + i] == v[V_H5_OPT + i]) continue;
        any = 1;
        if (k >= n) continue;
        if (i == 0)
            k += (size_t)snprintf(b + k, n - k, " rank %d: chunk_opt %s (HDF5 %s);", rank, colldiag_chunk_opt_name(v[V_CD_OPT]),
                                  colldiag_chunk_opt_name(v[V_H5_OPT]));
        else if (i == 1)
            k += (size_t)snprintf(b + k, n - k, " rank %d: io_mode %s (HDF5 %s);", rank, colldiag_io_mode_name(v[V_CD_IO]),
                                  colldiag_io_mode_name(v[V_H5_IO]));
        else
            k += (size_t)snprintf(b + k, n - k, " rank %d: %s 0x%x (HDF5 0x%x);", rank, what[i], v[V_CD_OPT + i], v[V_H5_OPT + i]);
    }
    return any;
}

/* The HDF5 half of a JSON line: "hdf5":{"ranks":[...]} for n ranks starting at rank r0. */
static void json_hdf5(FILE *o, const unsigned *v, int n, int r0)
{
    fprintf(o, "\"hdf5\":{\"ranks\":[");
    for (int p = 0; p < n; p++) {
        const unsigned *w = v + (size_t)p * V_N;
        fprintf(o, "%s{\"rank\":%d,\"chunk_opt\":\"%s\",\"io_mode\":\"%s\",\"local_cause\":%u,\"global_cause\":%u,\"ok\":%s}", p ? "," : "",
                r0 + p, colldiag_chunk_opt_name(w[V_H5_OPT]), colldiag_io_mode_name(w[V_H5_IO]), w[V_H5_LOCAL], w[V_H5_GLOBAL],
                w[V_H5_OK] ? "true" : "false");
    }
    fprintf(o, "]}");
}

/* One rank's colldiag object, as colldiag_report_json writes it for each rank (local: no gather). */
static void json_rank(FILE *o, int rank, const colldiag_xfer *x, const unsigned *v)
{
    colldiag_counters c;
    memset(&c, 0, sizeof c);
    colldiag_get_counters(x, &c);
    fprintf(o, "{\"rank\":%d,\"chunk_opt\":\"%s\",\"io_mode\":\"%s\",\"local_cause\":%u,\"global_cause\":%u,\"bytes_collective\":%" PRIu64
               ",\"bytes_independent\":%" PRIu64 ",\"calls_collective\":%" PRIu64 ",\"calls_independent\":%" PRIu64
               ",\"t_map\":%.9f,\"t_decide\":%.9f,\"chunks\":[",
            rank, colldiag_chunk_opt_name(v[V_CD_OPT]), colldiag_io_mode_name(v[V_CD_IO]), v[V_CD_LOCAL], v[V_CD_GLOBAL], c.bytes_collective,
            c.bytes_independent, c.calls_collective, c.calls_independent, c.t_map, c.t_decide);
    uint64_t n = 0;
    const colldiag_chunk_info *ci = NULL;
    if (colldiag_get_chunk_info(x, &n, &ci) == 0)
        for (uint64_t i = 0; i < n && i < CD_REPORT_MAX_CHUNKS; i++)
            fprintf(o, "%s{\"index\":%" PRIu64 ",\"nelem\":%" PRIu64 ",\"nproc\":%d,\"collective\":%s}", i ? "," : "", ci[i].index, ci[i].nelem,
                    ci[i].nproc, ci[i].collective ? "true" : "false");
    fprintf(o, "]}");
}

/* A line goes out in one write(2) on an O_APPEND descriptor, so lines of independent calls from many
   ranks never interleave inside a line. */
static void append_line(const char *path, const char *line, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    ssize_t w = write(fd, line, len);
    (void)w;
    close(fd);
}

/* Writes text in writes of whole lines, each at most PIPE_BUF bytes: a pipe keeps such a write together,
   so when ranks print at once (an independent call's report beside rank 0's collective one) lines may
   alternate but never break in the middle. */
static void write_lines(int fd, const char *text, size_t len)
{
    fflush(stdout);
    for (size_t k = 0; k < len;) {
        size_t n = len - k;
        if (n > PIPE_BUF) { /* cut after the last newline within PIPE_BUF (a longer line goes as it is) */
            n = PIPE_BUF;
            while (n > 0 && text[k + n - 1] != '\n') n--;
            if (n == 0) n = PIPE_BUF;
        }
        ssize_t w = write(fd, text + k, n);
        if (w <= 0) break;
        k += (size_t)w;
    }
}

static void names_of(hid_t dset, char *file, size_t fl, char *name, size_t nl)
{
    file[0] = name[0] = 0;
    if (H5Fget_name(dset, file, fl) < 0) file[0] = 0;
    if (H5Iget_name(dset, name, nl) < 0) name[0] = 0;
}

static int cd_internal; /* inside colldiag's own HDF5 calls (H5Fclose of the ids it opens) */

/* A COLLDIAG_* setting that asks for something: set, not empty, not "0". */
static int set_on(const char *v) { return v && *v && strcmp(v, "0"); }

/* Under COLLDIAG_ACCELERATE, every collective write HDF5 runs is made safe first (engine.c): the file
   extended to HDF5's end of allocation, so that MPI-IO's collective write finds no storage past its end
   to fill with its buffer's bytes (colldiag_h5_make_safe; nothing once the file is known that long, nor
   for a one-rank file written in one run, which has no holes: fs, the call's file selection).
   Every rank of the collective call does the same: the DXPL's transfer mode and the environment (rank
   0's, since MPI_Init) are alike. */
static void made_safe(pl_call *c)
{
    if (c->safe_done) return; /* safe_early made it safe, and its sizes are this call's */
    c->safe_done = 1;
    c->safe_from = c->safe_to = 0;
    if (!c->wr || !set_on(c->acc) || !c->coll) return;
    cd_internal++;
    h5_make_safe_for(c->dset, c->fs, 1, &c->safe_from, &c->safe_to); /* a one-rank file written in one run needs nothing */
    cd_internal--;
}

/* made_safe for a multi-dataset write: every dataset's storage, each dataset's own end (one dataset's
   does not cover another's created after it: tests/h5_defects.c holes-multi-collective came out wrong
   under COLLDIAG_ACCELERATE=1 with only the first made safe). The report's sizes span them all: from
   the file's size before the first growth to its size after the last. Alike on every rank: the call's
   datasets are (a collective call), and each dataset's end is compared with what the file is agreed
   to cover. */
#if H5_VERSION_GE(1, 14, 0) /* H5Dwrite_multi */
static void made_safe_multi(pl_call *c, size_t count, const hid_t *dsets)
{
    uint64_t from = 0, to = 0;
    int grew = 0;
    for (size_t i = 0; i < count; i++) {
        pl_call d = *c; /* each dataset's whole storage */
        d.dset = dsets[i];
        d.fs = H5I_INVALID_HID;
        made_safe(&d);
        if (d.safe_to > d.safe_from) {
            if (!grew) from = d.safe_from;
            grew = 1;
            to = d.safe_to;
        } else if (!grew && d.safe_from) {
            from = to = d.safe_from;
        }
    }
    c->safe_from = from;
    c->safe_to = to;
}
#endif

/* The advice for a call HDF5 runs, from colldiag's plan of it (the same on every rank of a collective
   call): the cost model's estimate of HDF5's path beside the best scheme, and the one change that gets
   it. Empty when the call was not planned. */
static void advice_of(const colldiag_xfer *x, int coll, int planned, char *out, size_t n)
{
    static const char *const scheme[4] = {"link-chunk", "multi-chunk", "aggregation", "all-independent"};
    out[0] = 0;
    if (!planned) return;
    if (!coll) {
        if (x->risk_bytes) snprintf(out, n, "%" PRIu64 " bytes at risk in HDF5's path: %s", x->risk_bytes, colldiag_risk_advice(x));
        else snprintf(out, n, "independent call: nothing is agreed, so nothing is estimated (a collective DXPL lets a collective scheme run)");
        return;
    }
    uint32_t l = 0, g = 0;
    colldiag_get_mpio_no_collective_cause(x, &l, &g);
    double e[4];
    colldiag_get_model_estimates(x, e);
    if (x->risk_bytes) { /* before any question of speed: HDF5's file will not be what the program wrote */
        snprintf(out, n, "%" PRIu64 " bytes at risk in HDF5's path: %s", x->risk_bytes, colldiag_risk_advice(x));
        return;
    }
    if (g == COLLDIAG_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET) {
        snprintf(out, n, "compact storage: the data lives in the object header; nothing to change");
        return;
    }
    if (g) {
        char cs[256];
        colldiag_cause_string(g, cs, sizeof cs);
        snprintf(out, n, "HDF5 breaks collective I/O here (%s): without that cause the call can be collective", cs);
        return;
    }
    if (e[0] < 0) {
        snprintf(out, n, "contiguous storage: HDF5 makes one collective call; nothing to change");
        return;
    }
    colldiag_actual_chunk_opt_mode_t co = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
    colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
    const int hp = co == COLLDIAG_MPIO_MULTI_CHUNK ? 1 : 0;
    int best = 0;
    for (int i = 1; i < 4; i++)
        if (e[i] < e[best]) best = i;
    /* within 10%: the model is not that precise, and a change that gains less is not worth advising */
    if (best == hp || e[hp] <= 1.1 * e[best]) {
        snprintf(out, n, "HDF5: %s, est. %.3g s: the model's best; nothing to change", scheme[hp], e[hp]);
        return;
    }
    static const char *const change[4] = {"H5Pset_dxpl_mpio_chunk_opt(dxpl, H5FD_MPIO_CHUNK_ONE_IO) or COLLDIAG_ACCELERATE=1",
                                          "H5Pset_dxpl_mpio_chunk_opt(dxpl, H5FD_MPIO_CHUNK_MULTI_IO) or COLLDIAG_ACCELERATE=1",
                                          "COLLDIAG_ACCELERATE=1", "COLLDIAG_ACCELERATE=1"};
    snprintf(out, n, "HDF5: %s, est. %.3g s; %s est. %.3g s: %s", scheme[hp], e[hp], scheme[best], e[best], change[best]);
}

/* While report() writes the entries of one multi-dataset call (explain_multi): the call's name, and
   which of its n datasets the entry is. The first entry carries the call's whole report (colldiag's
   plan, every dataset: collective); every entry its dataset's own modes as planned. */
static void report(const pl_call *c, colldiag_file *f, const colldiag_xfer *x, const unsigned *v)
{
    const char *const mode = c->mode, *const op = c->op;
    const int json = !strncmp(mode, "json:", 5), html = !strncmp(mode, "html:", 5);
    char file[1024], name[1024], diff[2048] = "";
    names_of(c->dset, file, sizeof file, name, sizeof name);
    const int whole = !c->multi_n || c->multi_i == 0; /* this entry carries the call's own report */
    const int coll = f && f->comm != MPI_COMM_NULL;
    unsigned *all = NULL;
    int P = 1, r0 = 0, me = 0, init = 0;
    if (f) r0 = f->rank;
    else if (MPI_Initialized(&init) == MPI_SUCCESS && init) MPI_Comm_rank(MPI_COMM_WORLD, &r0); /* a file with no communicator */
    if (coll) { /* every rank's plan and HDF5 answer to rank 0 of the file's communicator */
        P = f->size;
        me = f->rank;
        if (me == 0) all = malloc((size_t)P * V_N * sizeof *all);
        MPI_Gather(v, V_N, MPI_UNSIGNED, all, V_N, MPI_UNSIGNED, 0, f->comm);
        r0 = 0;
    } else {
        all = malloc(V_N * sizeof *all);
        if (all) memcpy(all, v, V_N * sizeof *all);
    }
    int agree = 1, allplanned = 1;
    if (all)
        for (int p = 0; p < P; p++) {
            agree &= !differences(r0 + p, all + (size_t)p * V_N, diff, sizeof diff);
            allplanned &= (int)all[(size_t)p * V_N + V_PLANNED];
        }
    if (coll) MPI_Bcast(&allplanned, 1, MPI_INT, 0, f->comm); /* the reports below are collective: one decision */
    char adv[512];
    advice_of(x, coll, allplanned, adv, sizeof adv);
    if (html) { /* one page per run, a section per collective call (independent calls cannot gather) */
        if (coll && allplanned && whole) {
            char title[2300], verdict[2200];
            if (c->multi_n) snprintf(title, sizeof title, "%s %s, %zu datasets from %s (collective, %d ranks)", op, file, c->multi_n, name, P);
            else snprintf(title, sizeof title, "%s %s:%s (collective, %d ranks)", op, file, name, P);
            snprintf(verdict, sizeof verdict, "%s%s; advice: %s", agree ? "HDF5 agrees" : "HDF5 DISAGREES:", agree ? "" : diff, adv);
            html_append(f, x, mode + 5, title, verdict);
        }
        free(all);
        return;
    }
    char *text = NULL;
    size_t tlen = 0;
    FILE *o = (!coll || me == 0) ? open_memstream(&text, &tlen) : NULL;
    if (json) {
        char *cd = NULL;
        size_t cl = 0;
        FILE *co = NULL;
        if (allplanned && coll && whole) { /* colldiag's own report of the plan, every rank (collective) */
            co = me == 0 ? open_memstream(&cd, &cl) : NULL;
            colldiag_report_json(f, x, co);
            if (co) fclose(co);
        }
        if (o) {
            if (cd && cl > 2 && cd[cl - 1] == '\n' && cd[cl - 2] == '}') {
                fwrite(cd, 1, cl - 2, o); /* the report's object, reopened for the HDF5 fields */
            } else if (allplanned) {
                fprintf(o, "{\"colldiag\":\"%s\",\"nprocs\":%d,\"scheme\":{\"chunk_opt\":\"%s\",\"reason\":", colldiag_version(),
                        f ? f->size : 1, colldiag_chunk_opt_name(v[V_CD_OPT]));
                json_str(o, colldiag_scheme_reason(x));
                fprintf(o, "},\"counters\":\"planned\",\"ranks\":[");
                json_rank(o, r0, x, v);
                fprintf(o, "]");
            } else {
                fprintf(o, "{\"colldiag\":\"%s\",\"nprocs\":%d,\"planned\":false,\"why\":", colldiag_version(), f ? f->size : P);
                json_str(o, colldiag_xfer_errmsg(x)[0] ? colldiag_xfer_errmsg(x) : cd_errbuf);
            }
            fprintf(o, ",\"op\":\"%s\",\"collective\":%s,\"file\":", op, coll ? "true" : "false");
            json_str(o, file);
            fprintf(o, ",\"dataset\":");
            json_str(o, name);
            if (allplanned) fprintf(o, ",\"planned\":true");
            if (c->multi_n) {
                colldiag_actual_chunk_opt_mode_t dco = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
                colldiag_actual_io_mode_t dio = COLLDIAG_MPIO_NO_COLLECTIVE;
                uint32_t dl = 0, dg = 0;
                fprintf(o, ",\"dataset_index\":%zu,\"datasets\":%zu", c->multi_i, c->multi_n);
                if (allplanned && colldiag_get_dataset_mpio(x, c->multi_i, &dco, &dio, &dl, &dg) == 0)
                    fprintf(o, ",\"dataset_mpio\":{\"chunk_opt\":\"%s\",\"io_mode\":\"%s\",\"local_cause\":%u,\"global_cause\":%u}",
                            colldiag_chunk_opt_name(dco), colldiag_io_mode_name(dio), dl, dg);
            }
            fprintf(o, ",");
            if (all) json_hdf5(o, all, P, r0);
            else fprintf(o, "\"hdf5\":{\"ranks\":[]}");
            if (!(cd && cl > 2)) { /* colldiag's own object carries them */
                fprintf(o, ",\"bytes_at_risk\":%" PRIu64 ",\"risk\":", allplanned ? x->risk_bytes : 0);
                json_str(o, allplanned ? colldiag_risk_reason(x) : "");
            }
            uint64_t bytes = 0;
            unsigned usec = 0;
            for (int p = 0; all && p < P; p++) {
                bytes += all[(size_t)p * V_N + V_BYTES_LO] | (uint64_t)all[(size_t)p * V_N + V_BYTES_HI] << 32;
                if (all[(size_t)p * V_N + V_USEC] > usec) usec = all[(size_t)p * V_N + V_USEC];
            }
            /* the call's cause as the summary counts it: a collective call's global (rank 0's answer), an
               independent call's own */
            const unsigned cause = all ? (coll ? all[V_H5_GLOBAL] : all[V_H5_LOCAL]) : 0;
            fprintf(o, ",\"bytes\":%" PRIu64 ",\"seconds\":%.6f,\"cause\":%u", bytes, usec * 1e-6, cause);
            fprintf(o, ",\"agree\":%s,\"engine\":\"hdf5\"", allplanned && agree ? "true" : "false");
            if (adv[0]) {
                fprintf(o, ",\"advice\":");
                json_str(o, adv);
            }
            double e[4];
            if (allplanned && colldiag_get_model_estimates(x, e) == 0 && e[0] >= 0)
                fprintf(o, ",\"estimates\":{\"link\":%.6g,\"multi\":%.6g,\"aggregation\":%.6g,\"independent\":%.6g}", e[0], e[1], e[2], e[3]);
            if (c->accel_why) {
                fprintf(o, ",\"why\":");
                json_str(o, c->accel_why);
            }
            if (c->safe_to > c->safe_from) fprintf(o, ",\"made_safe\":{\"from\":%" PRIu64 ",\"to\":%" PRIu64 "}", c->safe_from, c->safe_to);
            if (c->kept_bytes) fprintf(o, ",\"compact_kept\":{\"bytes\":%" PRIu64 ",\"of\":%" PRIu64 "}", c->kept_bytes, c->kept_of);
            fprintf(o, "}\n");
        }
        free(cd);
    } else {
        if (o && c->multi_n) fprintf(o, "colldiag: %s %s:%s (dataset %zu of %zu), %s, %d rank%s%s\n", op, file, name, c->multi_i, c->multi_n,
                                    coll ? "collective" : "independent", P, P > 1 ? "s" : "", coll ? "" : " (this one)");
        else if (o) fprintf(o, "colldiag: %s %s:%s, %s, %d rank%s%s\n", op, file, name, coll ? "collective" : "independent", P, P > 1 ? "s" : "",
                            coll ? "" : " (this one)");
        if (o && c->multi_n && allplanned) {
            colldiag_actual_chunk_opt_mode_t dco = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
            colldiag_actual_io_mode_t dio = COLLDIAG_MPIO_NO_COLLECTIVE;
            if (colldiag_get_dataset_mpio(x, c->multi_i, &dco, &dio, NULL, NULL) == 0)
                fprintf(o, "  this dataset: chunk_opt %s, io_mode %s%s\n", colldiag_chunk_opt_name(dco), colldiag_io_mode_name(dio),
                        whole ? "; the call:" : " (the call: its first entry)");
        }
        if (allplanned && coll && whole) {
            if (o) fflush(o);
            colldiag_report_print(f, x, o);
        } else if (o && allplanned) {
            char cs[256];
            colldiag_cause_string(v[V_CD_LOCAL], cs, sizeof cs);
            fprintf(o, "  rank %d: chunk_opt %s, io_mode %s, causes: %s\n", r0, colldiag_chunk_opt_name(v[V_CD_OPT]),
                    colldiag_io_mode_name(v[V_CD_IO]), cs);
        }
        if (o && allplanned && x->risk_bytes && !(coll && whole)) /* colldiag's report above has it otherwise */
            fprintf(o, "  bytes at risk: %" PRIu64 " (%s)\n", x->risk_bytes, colldiag_risk_reason(x));
        if (o && !allplanned)
            fprintf(o, "  not planned: %s\n", colldiag_xfer_errmsg(x)[0] ? colldiag_xfer_errmsg(x) : cd_errbuf);
        else if (o && agree) fprintf(o, "  HDF5 agrees\n");
        else if (o) fprintf(o, "  HDF5 DISAGREES:%s\n", diff);
        if (o && adv[0]) fprintf(o, "  advice: %s\n", adv);
        if (o && c->accel_why) fprintf(o, "  engine: HDF5 (not accelerated: %s)\n", c->accel_why);
        if (o && c->safe_to > c->safe_from)
            fprintf(o, "  made safe: colldiag extended the file from %" PRIu64 " to %" PRIu64 " bytes (the end of the dataset's storage) before HDF5's "
                       "collective write, so that no storage lay past its end%s\n", c->safe_from, c->safe_to,
                    x->risk_bytes ? ": the bytes at risk above read zeros, as the program left them" : "");
        if (o && c->kept_bytes)
            fprintf(o, "  kept: colldiag merged every rank's pieces of the compact dataset (%" PRIu64 " of its %" PRIu64 " bytes) and HDF5 "
                       "wrote the whole dataset on every rank, so that whichever rank's object header HDF5 keeps holds them all%s\n",
                    c->kept_bytes, c->kept_of, x->risk_bytes ? ": no byte at risk above is lost" : "");
    }
    if (o) {
        fclose(o);
        if (json) append_line(mode + 5, text, tlen);
        else write_lines(STDOUT_FILENO, text, tlen);
    }
    free(text);
    free(all);
}

/* ---- the run's summary (src/summary.c) ----
   Every H5Dwrite/H5Dread adds to this rank's counters, keyed by file and dataset: no message, no
   collective. With COLLDIAG_REPORT=summary that is all a call costs beyond HDF5's own: the call is not
   planned (a plan agrees, and gathers for its report), so its modes and causes are HDF5's own answers read
   back from the DXPL (a default DXPL stands in for H5P_DEFAULT, as for the report), and its bytes the
   selection's; the other report settings plan every call anyway, and the summary gets the plan's bytes at
   risk and estimates too. The ranks combine once, in MPI_Finalize (every rank is there), or, when a rank
   exits without it, that rank writes its own alone (no rank waits for another). */

static colldiag_file *accel_file(hid_t dset);

/* A dataset's names, element size, this rank's place in its file's communicator and its summary
   entries, kept by its identity (file number, object address): asked of HDF5 once (H5Fget_name and
   H5Iget_name cost microseconds, a small call's budget). The last id asked for is remembered too: an id
   names one object while the library is open (h5_identify), and programs write a dataset many times
   in a row. */
typedef struct sum_names {
    unsigned long fileno;
    haddr_t addr;
    char *file, *name;
    size_t esize;
    int file_rank, file_size;
    uint64_t coll_writes, coll_reads; /* the dataset's collective writes and reads so far: alike on every rank of its file (sum_risk_light) */
} sum_names;
static sum_names *sum_nm;
static size_t sum_nn, sum_ncap;
static hid_t sum_last_id = -1;
static size_t sum_last;

static const sum_names *sum_names_of(hid_t dset)
{
    if (dset == sum_last_id && sum_last < sum_nn) return &sum_nm[sum_last];
    h5_oid oi = {0, 0};
    if (h5_identify(dset, &oi) < 0) return NULL;
    for (size_t i = sum_nn; i-- > 0;) /* the latest first */
        if (sum_nm[i].fileno == oi.fileno && sum_nm[i].addr == oi.addr) {
            sum_last_id = dset;
            sum_last = i;
            return &sum_nm[i];
        }
    uint64_t cap = sum_ncap;
    if (cd_grow((void **)&sum_nm, &cap, sum_nn + 1, sizeof *sum_nm)) return NULL;
    sum_ncap = (size_t)cap;
    char file[1024], name[1024];
    names_of(dset, file, sizeof file, name, sizeof name);
    sum_names *n = &sum_nm[sum_nn];
    n->fileno = oi.fileno;
    n->addr = oi.addr;
    n->file = strdup(file);
    n->name = strdup(name);
    hid_t t = H5Dget_type(dset);
    n->esize = t >= 0 ? H5Tget_size(t) : 0;
    if (t >= 0) H5Tclose(t);
    h5_fentry *fe = NULL; /* this rank's place in the file's communicator (local: the bridge's entry) */
    n->file_rank = h5_bridge_entry(dset, oi.fileno, &fe, "colldiag summary") == 0 ? fe->f->rank : -1;
    n->file_size = fe ? fe->f->size : 1;
    n->coll_writes = n->coll_reads = 0;
    if (!n->file || !n->name) { free(n->file); free(n->name); return NULL; }
    sum_last_id = dset;
    sum_last = sum_nn;
    return &sum_nm[sum_nn++];
}

/* H5close numbers files and objects from the start again: the names go too. */
static void sum_names_forget(void)
{
    for (size_t i = 0; i < sum_nn; i++) { free(sum_nm[i].file); free(sum_nm[i].name); }
    sum_nn = 0;
    sum_last_id = -1;
    cd_sum_forget_last(); /* the summary's last entry was known by these strings */
}

/* This rank's file bytes of the call: the selection's elements, the dataset's element size. */
static uint64_t sum_bytes(hid_t dset, hid_t fs, size_t esize)
{
    hid_t sp = fs == H5S_ALL ? H5Dget_space(dset) : fs;
    const hssize_t n = sp >= 0 ? (fs == H5S_ALL ? H5Sget_simple_extent_npoints(sp) : H5Sget_select_npoints(sp)) : 0;
    if (fs == H5S_ALL && sp >= 0) H5Sclose(sp);
    return n > 0 ? (uint64_t)n * esize : 0;
}

/* The record's dataset: its names and element size asked once a call (sum_names_of, which keeps them
   by identity), and its bytes on this rank. */
static void pl_names_ask(pl_call *c)
{
    const sum_names *n = sum_names_of(c->dset);
    c->nm = n ? (size_t)(n - sum_nm) + 1 : 0;
    c->bytes = n ? sum_bytes(c->dset, c->fs, n->esize) : 0;
}

/* ... and found again, for each step after (NULL: unknown). */
static sum_names *pl_names(const pl_call *c) { return c->nm && c->nm <= sum_nn ? &sum_nm[c->nm - 1] : NULL; }

/* COLLDIAG_REPORT=summary: whether a collective write may have bytes at risk in HDF5's path, from what
   this rank knows without communicating (summary.c, "bytes at risk found by the summary alone"):
   compact storage on a file of several ranks; contiguous storage without a written fill that reaches
   past the file's size (asked only when the storage ends past the largest size seen); chunks without a
   written fill not known to lie inside the file (h5_alloc_inside). The dataset's facts are learned once
   (h5_learn: a collective call, every rank alike). Cheap where nothing can be at risk: a cached entry
   and a comparison. */
static int sum_risk_possible(hid_t dset, const sum_names *n)
{
    h5_oid oi;
    if (h5_identify(dset, &oi)) return 0;
    h5_dentry *e = h5_dataset(dset, &oi);
    if (!e) return 1; /* not known: look (h5_risk_words decides) */
    if (!e->learned) h5_learn(dset, e);
    if (e->layout == H5D_COMPACT) return n->file_size > 1;
    if (!e->fill_unwritten) return 0;
    if (e->layout == H5D_CHUNKED) return !h5_alloc_inside_oi(&oi);
    const haddr_t a = H5Dget_offset(dset);
    if (a == HADDR_UNDEF) return 0; /* no storage yet (the bridge refuses its calls; HDF5 allocates it) */
    const uint64_t end = (uint64_t)a + H5Dget_storage_size(dset);
    h5_alloc *al = h5_allocs ? h5_alloc_of(dset, 0) : NULL;
    if (al && end <= al->size_seen) return 0;
    MPI_File fh;
    int r, p;
    MPI_Offset sz = 0;
    if (h5_mpi_file(dset, &fh, &r, &p, "colldiag summary") || MPI_File_get_size(fh, &sz) != MPI_SUCCESS) return 1;
    if (al && (uint64_t)sz > al->size_seen) al->size_seen = (uint64_t)sz;
    return end > (uint64_t)sz;
}

/* COLLDIAG_REPORT=summary, before HDF5 runs a collective write (and before it is made safe: the risk is
   HDF5's path's as the program left the file): this rank's words of the bytes at risk, when there may
   be any (h5_risk_words); recorded after the call, with HDF5's own cause (sum_risk_record). */
static const char risk_own_why[] = "compact storage written independently on a file of several ranks: HDF5 keeps one rank's copy of the "
                                   "object header, so these bytes survive only if every rank writes the same";
static void sum_risk_light(pl_call *c, hid_t dxpl)
{
    const hid_t dset = c->dset;
    c->risk_have = 0;
    c->risk_own = 0;
    c->risk_kind_read = 0;
    sum_names *n = pl_names(c);
    if (!n) return;
    if (!c->wr) { /* a collective read on a stack whose overlapping reads go wrong (decision.c, risk_read_stack) */
        if (!c->coll || !risk_read_stack()) return;
        n->coll_reads++;
        c->risk_have = h5_risk_words(dset, c->mt, c->ms, c->fs, dxpl, NULL, 1, c->risk_v, &c->risk_cap) == 0;
        c->risk_kind_read = 4;
        return;
    }
    if (!c->coll) { /* as a plan's risk_independent: nothing is agreed, the rank's own bytes */
        h5_dentry *e = n->file_size > 1 ? h5_cached_entry(dset) : NULL;
        h5_oid oi;
        /* learned here only where one rank may read the object header alone */
        if (!e && n->file_size > 1 && !h5_reads_need_all_ranks(dset) && !h5_identify(dset, &oi)) e = h5_dataset(dset, &oi);
        if (e && !e->learned && !h5_reads_need_all_ranks(dset)) h5_learn(dset, e);
        if (e && e->learned && e->layout == H5D_COMPACT) c->risk_own = c->bytes;
        return;
    }
    n->coll_writes++;
    if (sum_risk_possible(dset, n)) c->risk_have = h5_risk_words(dset, c->mt, c->ms, c->fs, dxpl, c->wbuf, 0, c->risk_v, &c->risk_cap) == 0;
}

/* ... and after it: HDF5's own global cause says whether its path was one collective write (any cause
   makes it write run by run: no holes), its collective_opt whether independent writes were sieved. */
static void sum_risk_record(pl_call *c, hid_t dxpl)
{
    const sum_names *n = c->risk_have ? pl_names(c) : NULL;
    c->risk_have = 0;
    if (!n) return;
    uint32_t l = 0, g = 0;
    H5FD_mpio_collective_opt_t copt = H5FD_MPIO_COLLECTIVE_IO;
    H5Pget_mpio_no_collective_cause(dxpl, &l, &g);
    H5E_BEGIN_TRY { if (H5Pget(dxpl, "mpio_collective_opt", &copt) < 0) copt = H5FD_MPIO_COLLECTIVE_IO; } H5E_END_TRY;
    if (c->risk_kind_read) { /* a read's: its cause decides nothing (ompio sieves the collective read it makes) */
        if (!g) cd_sum_risk_record(n->file, n->name, n->coll_reads, c->risk_v, 4u, c->risk_cap);
        return;
    }
    const uint32_t kind = !g ? (copt == H5FD_MPIO_COLLECTIVE_IO ? 1u : 2u) : 0u;
    cd_sum_risk_record(n->file, n->name, n->coll_writes, c->risk_v, kind, c->risk_cap);
}

#if H5_VERSION_GE(1, 14, 0) /* H5Dwrite_multi */
/* A multi-dataset write's words of bytes at risk, dataset after dataset, joined as colldiag_h5_plan_multi
   joins them (multi.c, multi_combine): the call's extent over every dataset, the bytes past the file
   summed, the compact datasets' digests chained. first: c is empty. */
static void risk_join(uint64_t c[AG_N], const uint64_t w[AG_N], int first)
{
    if (first || w[AG_RISK_LO] < c[AG_RISK_LO]) c[AG_RISK_LO] = w[AG_RISK_LO];
    if (w[AG_RISK_HI] > c[AG_RISK_HI]) c[AG_RISK_HI] = w[AG_RISK_HI];
    if (w[AG_RISK_FSIZE] > c[AG_RISK_FSIZE]) c[AG_RISK_FSIZE] = w[AG_RISK_FSIZE];
    c[AG_RISK_PAST] += w[AG_RISK_PAST];
    c[AG_RISK_CBYTES] += w[AG_RISK_CBYTES];
    c[AG_RISK_RANKS] |= w[AG_RISK_RANKS];
    if (w[AG_RISK_CBYTES]) c[AG_RISK_DIG] = cd_mix64(c[AG_RISK_DIG] ^ w[AG_RISK_DIG]);
    c[AG_RISK_DIG_NOT] = ~c[AG_RISK_DIG];
}
#endif

/* A call HDF5 ran: its answers from the DXPL it ran with (x: colldiag's plan of it, or NULL). */
static void sum_hdf5_call(const pl_call *k, hid_t dxpl, const colldiag_xfer *x, int planned, int agree)
{
    const sum_names *n = pl_names(k);
    if (!n) return;
    const int wr = k->wr;
    cd_sum_call c;
    memset(&c, 0, sizeof c);
    c.file = n->file;
    c.dataset = n->name;
    c.stable = 1;
    c.write = wr;
    c.collective = k->coll;
    c.counts = !c.collective || n->file_rank == 0; /* rank 0 of the file's communicator counts a collective call */
    H5D_mpio_actual_io_mode_t io = H5D_MPIO_NO_COLLECTIVE;
    uint32_t l = 0, g = 0;
    if (dxpl != H5P_DEFAULT) {
        H5Pget_mpio_actual_io_mode(dxpl, &io);
        H5Pget_mpio_no_collective_cause(dxpl, &l, &g);
    } else {
        l = g = COLLDIAG_MPIO_SET_INDEPENDENT; /* H5P_DEFAULT's transfer is independent */
    }
    c.io_mode = (int)io;
    c.local_cause = l;
    c.global_cause = g;
    c.bytes = k->bytes;
    c.secs = k->secs;
    c.made_safe = k->safe_to > k->safe_from ? k->safe_to - k->safe_from : 0;
    c.kept = k->kept_bytes;
    c.est_hdf5 = c.est_best = -1;
    c.planned = x ? planned : -1;
    c.agree = agree;
    c.leased = k->leased;
    if (k->eng.known) { /* HDF5's path by the engines' measurement: what the choice saw */
        c.meas_of = CD_SUM_MEAS_ENGINES;
        c.meas_ran = 0;
        memcpy(c.meas_t, k->eng.mt, sizeof k->eng.mt);
        memcpy(c.meas_n, k->eng.mn, sizeof k->eng.mn);
    }
    if (!x && k->risk_own) { /* the summary alone: an independent compact write (sum_risk_light) */
        c.risk = k->risk_own;
        c.risk_why = risk_own_why;
    }
    if (x && planned) {
        c.risk = x->risk_bytes;
        c.risk_why = x->risk_why;
        if (!wr && x->filt_known) {
            c.filt_known = 1;
            c.filt_chunks = x->filt_chunks;
            c.filt_stored = x->filt_stored;
            c.filt_raw = x->filt_raw;
            c.filt_shared = x->filt_shared;
        }
        if (x->model_est[0] >= 0) { /* HDF5's path as planned against the model's best */
            const int hp = x->chunk_opt_done == COLLDIAG_MPIO_MULTI_CHUNK ? 1 : 0;
            int best = 0;
            for (int i = 1; i < 4; i++)
                if (x->model_est[i] < x->model_est[best]) best = i;
            c.est_hdf5 = x->model_est[hp];
            c.est_best = x->model_est[best];
            c.best = best;
        }
    }
    cd_sum_record(&c);
}

/* A call colldiag ran (COLLDIAG_ACCELERATE): its own results, and HDF5's path as the model sees it. */
static void sum_colldiag_call(const pl_call *k, const colldiag_xfer *x, double secs)
{
    const sum_names *n = pl_names(k);
    const colldiag_file *f = n ? accel_file(k->dset) : NULL;
    const int wr = k->wr;
    if (!n) return;
    cd_sum_call c;
    memset(&c, 0, sizeof c);
    c.file = n->file;
    c.dataset = n->name;
    c.stable = 1;
    c.write = wr;
    c.colldiag = 1;
    c.collective = x->set.mode == COLLDIAG_MPIO_COLLECTIVE;
    c.counts = !c.collective || !f || f->rank == 0;
    c.io_mode = x->io_mode_done;
    c.local_cause = x->local_cause;
    c.global_cause = x->global_cause;
    if (!wr && x->filt_read) { /* filtered chunks colldiag read: each decoded once, on its owner */
        c.dec_known = 1;
        c.dec_chunks = x->filt_decoded;
        c.dec_stored = x->filt_decoded_stored;
        c.dec_raw = x->filt_decoded_raw;
        c.dec_readers = x->filt_decoded_readers;
        c.dec_secs = x->filt_decode_s;
    }
    c.bytes_coll = x->cnt.bytes_collective;
    c.bytes_ind = x->cnt.bytes_independent;
    c.bytes = c.bytes_coll + c.bytes_ind;
    c.secs = secs;
    c.risk = x->risk_bytes;
    c.risk_why = x->risk_why;
    c.est_hdf5 = x->hdf5_est;
    c.est_best = -1;
    c.planned = -1;
    if (x->auto_est[0] >= 0) { /* the scheme AUTO ran, as the model estimated it */
        int best = 0;
        for (int i = 1; i < 4; i++)
            if (x->auto_est[i] < x->auto_est[best]) best = i;
        c.est_best = x->auto_est[best];
        c.best = best;
    }
    cd_sum_measured(&c, x);
    cd_sum_record(&c);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while every MPI call still works and every rank
   is there: the summary's one combine. */
static int sum_at_finalize(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm; (void)key; (void)val; (void)extra;
    cd_sum_finish(MPI_COMM_WORLD, 1, cd_getenv("COLLDIAG_REPORT"));
    return MPI_SUCCESS;
}

/* A rank that exits without MPI_Finalize writes its own (rank 0: the others would wait for nobody). */
static void sum_at_exit(void)
{
    int init = 0, fin = 0;
    if (MPI_Initialized(&init) != MPI_SUCCESS || !init) return;
    MPI_Finalized(&fin);
    if (fin) return; /* MPI_Finalize wrote it */
    cd_sum_finish(MPI_COMM_WORLD, 0, cd_getenv("COLLDIAG_REPORT"));
}

/* COLLDIAG_REPORT=summary or summary:PATH: no per-call report, only the counters. */
static int summary_only(const char *mode) { return mode && !strncmp(mode, "summary", 7); }

/* Every rank arms the summary in MPI_Init, after every rank took rank 0's COLLDIAG_* environment: all of
   them then combine in MPI_Finalize, or none. */
static void sum_arm(void)
{
    const char *mode = cd_getenv("COLLDIAG_REPORT");
    if (!mode || !*mode || !strcmp(mode, "0")) return;
    int kv = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, sum_at_finalize, &kv, NULL) == MPI_SUCCESS) MPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL);
    atexit(sum_at_exit);
}

/* The bridge's file of dset's file (made by the accelerated call that just ran), or NULL. */
static colldiag_file *accel_file(hid_t dset)
{
    h5_oid oi;
    if (h5_object_id(dset, &oi) < 0) return NULL;
    for (h5_fentry *e = h5_files; e; e = e->next)
        if (e->fileno == oi.fileno) return e->f;
    return NULL;
}

/* The report of a call colldiag moved (COLLDIAG_ACCELERATE): colldiag's own report of the transfer,
   with the engine and the time on rank 0 of the file's communicator (collective calls), or each
   calling rank's line (independent calls). */
static void report_accel(const pl_call *c, const colldiag_xfer *x, double secs)
{
    const char *const mode = c->mode, *const op = c->op;
    const int json = !strncmp(mode, "json:", 5), html = !strncmp(mode, "html:", 5);
    colldiag_file *f = accel_file(c->dset);
    const int coll = f && x->set.mode == COLLDIAG_MPIO_COLLECTIVE && f->comm != MPI_COMM_NULL;
    char file[1024], name[1024];
    names_of(c->dset, file, sizeof file, name, sizeof name);
    double t = secs;
    if (coll) MPI_Reduce(&secs, &t, 1, MPI_DOUBLE, MPI_MAX, 0, f->comm); /* the call took its slowest rank's time */
    const uint64_t b = x->cnt.bytes_collective + x->cnt.bytes_independent;
    uint64_t tb = b;
    if (coll && json) MPI_Reduce(&b, &tb, 1, MPI_UINT64_T, MPI_SUM, 0, f->comm); /* the bytes every rank moved */
    const int me = f ? f->rank : 0, P = f ? f->size : 1;
    if (html) {
        if (coll) {
            char title[2300], verdict[256];
            snprintf(title, sizeof title, "%s %s:%s (collective, %d ranks)", op, file, name, P);
            snprintf(verdict, sizeof verdict, "accelerated: colldiag moved the bytes (%s, %.6f s)%s", colldiag_chunk_opt_name(x->chunk_opt_done), t,
                     x->engine_rule == CD_RULE_AT_RISK ? "; HDF5's path had bytes at risk: the file holds what the program wrote" : "");
            html_append(f, x, mode + 5, title, verdict);
        }
        return;
    }
    char *text = NULL, *cd = NULL;
    size_t tlen = 0, cl = 0;
    FILE *o = (!coll || me == 0) ? open_memstream(&text, &tlen) : NULL;
    if (json) {
        FILE *co = coll && me == 0 ? open_memstream(&cd, &cl) : NULL;
        if (coll) colldiag_report_json(f, x, co);
        if (co) fclose(co);
        if (o) {
            if (cd && cl > 2 && cd[cl - 1] == '\n' && cd[cl - 2] == '}') {
                fwrite(cd, 1, cl - 2, o);
            } else {
                fprintf(o, "{\"colldiag\":\"%s\",\"nprocs\":%d,\"scheme\":{\"chunk_opt\":\"%s\",\"reason\":", colldiag_version(), P,
                        colldiag_chunk_opt_name(x->chunk_opt_done));
                json_str(o, colldiag_scheme_reason(x));
                fprintf(o, "}");
            }
            fprintf(o, ",\"op\":\"%s\",\"collective\":%s,\"file\":", op, coll ? "true" : "false");
            json_str(o, file);
            fprintf(o, ",\"dataset\":");
            json_str(o, name);
            if (!(cd && cl > 2)) fprintf(o, ",\"bytes_at_risk\":%" PRIu64, x->risk_bytes);
            fprintf(o, ",\"bytes\":%" PRIu64 ",\"seconds\":%.9f,\"cause\":%u", tb, t, coll ? x->global_cause : x->local_cause);
            /* HDF5's own path for the same call, as the cost model sees it: what the summary's "saved" compares */
            if (x->hdf5_scheme >= 0)
                fprintf(o, ",\"hdf5\":{\"plan\":{\"chunk_opt\":\"%s\",\"estimate\":%.6g}}", x->hdf5_scheme ? "MULTI_CHUNK" : "LINK_CHUNK", x->hdf5_est);
            fprintf(o, ",\"engine\":\"colldiag\"");
            static const char *const ek[4] = {"", "rule", "measured", "trying"};
            if (x->eng_kind) /* the engine measured (measure.c): each engine's warm median agreed call, -1 none */
                fprintf(o, ",\"engine_measured\":{\"kind\":\"%s\",\"hdf5\":{\"seconds\":%.9g,\"calls\":%u},\"colldiag\":{\"seconds\":%.9g,\"calls\":%u}}",
                        ek[x->eng_kind], x->eng_t[0], x->eng_n[0], x->eng_t[1], x->eng_n[1]);
            fprintf(o, ",\"time\":%.9f}\n", t);
        }
        free(cd);
    } else {
        if (o) fprintf(o, "colldiag: %s %s:%s, %s, %d rank%s, accelerated: colldiag moved the bytes in %.6f s%s\n", op, file, name,
                       coll ? "collective" : "independent", P, P > 1 ? "s" : "", t,
                       x->engine_rule == CD_RULE_AT_RISK ? " (HDF5's path had bytes at risk: the file holds what the program wrote)" : "");
        if (coll) {
            if (o) fflush(o);
            colldiag_report_print(f, x, o);
        }
    }
    if (o) {
        fclose(o);
        if (json) append_line(mode + 5, text, tlen);
        else write_lines(STDOUT_FILENO, text, tlen);
    }
    free(text);
}

/* COLLDIAG_ACCELERATE=1 (read at every call; every rank must see the same value): run the call through
   colldiag_h5_write/read. 1 if colldiag moved the bytes (the application's call is done), 0 if HDF5
   must run it (why says why). */
/* The intercepted call's transfer: static storage, made afresh for each call (xfer_init), its buffers
   freed after it. A transfer allocated per call could fail on one rank only, which would then run
   HDF5's collective call while the others wait in colldiag's (the accelerated call, or the plan). */
static colldiag_xfer call_storage;

static colldiag_xfer *call_xfer(void)
{
    xfer_release(&call_storage);
    xfer_init(&call_storage);
    return &call_storage;
}

/* COLLDIAG_ACCELERATE=1 runs a call through colldiag where HDF5's own path would not leave the file as
   the program wrote it (bytes at risk: colldiag_get_bytes_at_risk), and otherwise only where colldiag
   expects to be at least as fast as HDF5's own path; =all runs every call colldiag can move (to test
   the engine, or to measure it). One ordered list of rules decides (src/engine.c, the table in
   docs/hdf5.md), with the facts each place knows alike on every rank: here, before anything, the
   storage class and the transfer mode; in the bridge, the file's communicator; after colldiag's one
   reduction, the bytes at risk and the shape of every rank's part. Contiguous writes and independent
   contiguous reads are decided here: HDF5's path is then one MPI-IO call of the same bytes with the same
   view (one MPI_File_write_at_all, as colldiag's), so colldiag could only add its own agreement to it.
   Measured with IOR -a HDF5 -c and h5bench's VPIC-IO (bench/patterns.sh), that agreement was not free:
   with ranks sharing cores, each extra collective is a point where a descheduled rank stalls the
   others, and the contiguous writes ran at 0.2-0.8x HDF5's rate. But a collective contiguous write
   whose storage may lie past the end of the file is one HDF5's MPI-IO can fill with process memory
   between the ranks' pieces (tests/h5_defects.c): it goes on to colldiag's agreement, which counts the
   bytes at risk and runs the call itself when there are some, or extends the file and leaves it to HDF5
   when there are none; the file is then known to be long enough (file_covered, alike on every rank),
   and the dataset's later writes are decided here again. The storage class is the dataset's, the same
   on every rank, and H5Dget_offset tells it without an HDF5 error (HADDR_UNDEF for any other storage,
   or storage not yet allocated, whose calls the bridge refuses anyway); the transfer mode is the
   call's, the same on every rank of a collective call. */

/* 1 when the file of dset is agreed to be at least as long as its contiguous storage, which ends at end
   (covered_to: file_covered, h5_make_safe), so that no byte of a write to it can be at risk: alike on
   every rank, since only collective calls raise it. Local. */
static int h5_contig_covered(hid_t dset, uint64_t end)
{
    h5_oid oi;
    if (!h5_files || h5_identify(dset, &oi)) return 0; /* no file of the bridge's: none agreed covered (and no H5Oget_info2) */
    for (const h5_fentry *e = h5_files; e; e = e->next)
        if (e->fileno == oi.fileno) return end <= e->f->covered_to;
    return 0;
}

/* 1 (why says why) when the rules give the call to HDF5 with what every rank knows here, without
   communication (a dataset colldiag never moves is refused by the bridge the same way: h5_never_fact).
   single: one dataset (a multi-dataset call's contiguous reads have no stretch path). */
static int hdf5_runs_it(int wr, int single, hid_t dset, int coll, const char *acc, char *why, size_t wl)
{
    if (!strcmp(acc, "all")) return 0;
    uint64_t size = 0;
    const haddr_t a = h5_contig_storage(dset, &size);
    /* the file's ranks: local, no bridge entry made for them (h5_file_one_rank); the file id it asks
       HDF5 for is closed as colldiag's own */
    cd_internal++;
    const int one = h5_file_one_rank(dset);
    cd_internal--;
    cd_engine_facts ef;
    if (a != HADDR_UNDEF) { /* a collective contiguous read of one dataset is colldiag's to decide (x->read_stretch_bytes) */
        const cd_engine_facts c = {.risk = !wr || !coll || h5_contig_covered(dset, (uint64_t)a + size) ? 0 : -1, .can_make_safe = wr && coll, .contig_write = wr,
                                   .ind_contig_read = !wr && (!coll || !single), .one_rank = one, .whole_chunks = -1, .many_stretches = -1};
        ef = c;
    } else if (one == 1) { /* chunked, one rank: as the bridge's own rule (h5_one_rank_as_fast); a collective write's
                              bytes at risk are learnt in the agreement (the preload cannot make chunks safe) */
        const cd_engine_facts c = {.risk = wr && coll ? -1 : 0, .one_rank = 1, .whole_chunks = -1, .many_stretches = -1};
        ef = c;
    } else return 0; /* chunked: the bridge and the agreement decide */
    const int rule = engine_rule(&ef);
    if (engine_of(rule) != CD_ENGINE_HDF5) return 0;
    h5_copy(why, wl, engine_why(rule));
    return 1;
}

/* HDF5's path ran a call the agreement gave it by measurement (c->eng, set by accelerate: the time
   colldiag spent deciding), or a lease did (lease_take), and returned ret on this rank in secs: the
   engine's measurement (a leased read's joins its lease's, meas_engine_leased). */
static void eng_hdf5_done(pl_call *c, herr_t ret, double secs)
{
    if (c->eng.on && ret >= 0 && c->leased) meas_engine_leased(c->eng.group, c->eng.sig, secs);
    else if (c->eng.on && ret >= 0) meas_engine_done(c->eng.group, c->eng.sig, 0, c->eng.t + secs);
    c->eng.on = 0;
}

/* Under COLLDIAG_ACCELERATE=1, a collective write of a contiguous dataset whose storage the file is not
   agreed to cover is made safe before the engine is chosen (made_safe, which extends the file over every
   contiguous dataset open in it: h5_make_safe's wide extent), so that the rules then see no byte at
   risk and leave the write to HDF5 at once, as they do every later write of a covered dataset. Before,
   such a write went to colldiag's agreement (a size asked and a reduction) only to be extended there
   and handed back, and every dataset paid it on its first write: VPIC-IO's eight new datasets a time
   step, eight times a step. Alike on every rank of a collective call: the transfer mode, the storage's
   address and the agreed coverage are. When the step fails the agreement decides, as before. */
static void safe_early(pl_call *c)
{
    if (!c->wr || !c->coll || !strcmp(c->acc, "all")) return; /* =all: colldiag's agreement extends it */
    uint64_t size = 0;
    const haddr_t a = h5_contig_storage(c->dset, &size);
    if (a == HADDR_UNDEF || h5_contig_covered(c->dset, (uint64_t)a + size)) return;
    made_safe(c);
}

/* ---- leases: HDF5's path without colldiag's agreement ----
   Under COLLDIAG_ACCELERATE=1 every collective call the rules do not decide at once pays colldiag's
   agreement (one reduction) before either engine runs it: for a read HDF5's path was measured to run
   faster, that reduction is all the preload adds to HDF5's own call, and on a busy or oversubscribed
   node it is not small (h5bench's 3-D reads, 1 MiB a rank on ROMIO: HDF5's path 0.5-2 ms a call, the
   agreement's reduction 0.1-0.4 ms more, 0.89x of HDF5's rate). FFTW's wisdom, applied to the call
   stream: once the agreement chose HDF5's path by measurement (measure.c, meas_engine_choose's
   "measured faster") for a collective read, the next reads of datasets of the same class in the same
   file (lease_key: contiguous or chunked, element size, extent) go to HDF5 at once, CD_LEASE_FIRST of
   them; the next agreed call renews the lease, twice as long each time the measurement holds, up to
   CD_LEASE_MAX; any other outcome (a try, colldiag's path chosen) ends it and the next starts short.
   Collective safety: a lease is granted in an agreed call, on agreed facts, and spent only by
   collective calls, which every rank of the file makes alike on the same dataset: every rank takes the
   same calls out of the agreement. Reads only: HDF5's path is the program's own call, whose bytes are
   its own, and a read has no bytes at risk to cure (a write may, which only the agreement learns).
   Not under a per-call report (COLLDIAG_REPORT other than summary), which plans every call anyway, nor
   COLLDIAG_ACCELERATE=all. Leased reads are still measured: their mean time (the slowest rank's) reaches
   the engines' table in the next agreed call as that many calls (meas_engine_leased), so HDF5's path's
   median follows the pace of the calls it runs and the relooks (a slower pace, or a faster phase after
   a close choice) see it at the lease's end: without that, one agreed sample per lease left h5bench-like
   first-phase choices in place (IOR's 1 MiB contiguous reads, compared in their cold first iteration,
   stayed on HDF5's path: 1.16x of plain HDF5's rate where colldiag's path had run 1.32x). What a lease
   costs: a read of a class whose best engine changed runs HDF5's path, as plain HDF5 would, until the
   lease ends. */
/* The first lease's reads: short, because leased reads reach the engines' table only at the lease's end,
   and a choice made in a job's cold first calls must be looked at again soon (IOR's 1 MiB contiguous
   reads: eight reads a file, compared in the first file's cold reads; with 8 the relook that puts
   colldiag's path back came at the 18th read of 24, with 4 at the 14th, about where it came without
   leases). Then doubling: a choice that keeps holding is checked at geometrically longer intervals,
   so a long loop pays an agreement every CD_LEASE_MAX reads. */
#define CD_LEASE_FIRST 4
#define CD_LEASE_MAX 64

/* Leases apply to this call's kind: a collective read, measured engines, no per-call report. */
static int lease_applies(const pl_call *c) { return !c->wr && c->coll && strcmp(c->acc, "all") && (!set_on(c->mode) || summary_only(c->mode)); }

/* The bridge's entry of dset's file (made by the file's first agreed call), or NULL. */
static h5_fentry *lease_file(hid_t dset)
{
    h5_oid oi;
    if (!h5_files || h5_identify(dset, &oi) < 0) return NULL; /* by the dataset's entry where it has one */
    for (h5_fentry *e = h5_files; e; e = e->next)
        if (e->fileno == oi.fileno) return e;
    return NULL;
}

/* A dataset's class for leases: facts of the dataset, alike on every rank of a collective call (its
   extent changes only collectively). Contiguous or not, element size, extent. */
static uint64_t lease_key(hid_t dset)
{
    const hid_t sp = H5Dget_space(dset), ty = H5Dget_type(dset);
    hsize_t d[H5S_MAX_RANK];
    const int nd = sp >= 0 ? H5Sget_simple_extent_dims(sp, d, NULL) : -1;
    uint64_t k = cd_hash_u64(H5Dget_offset(dset) == HADDR_UNDEF ? 1u : 2u, ty >= 0 ? (uint64_t)H5Tget_size(ty) : 0u);
    for (int i = 0; i < nd; i++) k = cd_hash_u64(k, (uint64_t)d[i]);
    if (sp >= 0) H5Sclose(sp);
    if (ty >= 0) H5Tclose(ty);
    return cd_hash_u64(k, (uint64_t)(nd + 2));
}

/* 1 (why says so) when a lease gives this collective read to HDF5's path at once. */
static int lease_take(pl_call *c, char *why, size_t wl)
{
    if (!lease_applies(c)) return 0;
    h5_fentry *fe = lease_file(c->dset);
    int live = 0;
    for (int i = 0; fe && i < 4; i++) live |= fe->lease[i].left > 0;
    if (!live) return 0; /* the common case: no HDF5 query */
    const uint64_t key = lease_key(c->dset);
    for (int i = 0; i < 4; i++)
        if (fe->lease[i].left && fe->lease[i].key == key) {
            fe->lease[i].left--;
            c->eng.on = 1; /* HDF5's time of the read joins the lease's (eng_hdf5_done) */
            c->eng.group = fe->lease[i].group;
            c->eng.sig = fe->lease[i].esig;
            c->eng.t = 0;
            snprintf(why, wl, "HDF5's path, measured faster for this file's reads of datasets like this one: leased, without colldiag's "
                              "agreement, %u more call%s", fe->lease[i].left, fe->lease[i].left == 1 ? "" : "s");
            c->leased = 1;
            return 1;
        }
    return 0;
}

/* After an agreed call that measured the engines (x->eng_kind; rc the bridge's result, alike on every
   rank): HDF5's path measured faster for a collective read grants or renews its class's lease; any
   other outcome ends it. */
static void lease_after(const pl_call *c, const colldiag_xfer *x, int rc)
{
    if (!x->eng_kind || !lease_applies(c)) return;
    h5_fentry *fe = lease_file(c->dset);
    if (!fe) return;
    const uint64_t key = lease_key(c->dset);
    int i = 0;
    while (i < 4 && !(fe->lease[i].next && fe->lease[i].key == key)) i++;
    if (x->eng_kind == 2 && x->eng_choice == 0 && rc == COLLDIAG_ERR_UNSUPPORTED) {
        if (i == 4) {
            i = (int)(fe->lease_turn++ % 4u);
            fe->lease[i].key = key;
            fe->lease[i].next = CD_LEASE_FIRST;
        }
        fe->lease[i].left = fe->lease[i].next;
        fe->lease[i].group = x->eng_group;
        fe->lease[i].esig = x->eng_sig;
        fe->lease[i].next = fe->lease[i].next < CD_LEASE_MAX / 2 ? 2 * fe->lease[i].next : CD_LEASE_MAX;
    } else if (i < 4) {
        fe->lease[i].left = 0;
        fe->lease[i].next = CD_LEASE_FIRST;
    }
}

static int accelerate(pl_call *c, char *why, size_t wl)
{
    const char *const acc = c->acc;
    const int wr = c->wr;
    if (lease_take(c, why, wl)) return 0;
    safe_early(c);
    if (hdf5_runs_it(wr, 1, c->dset, c->coll, acc, why, wl)) return 0;
    colldiag_xfer *x = call_xfer();
    x->accel = strcmp(acc, "all") ? 1 : 2; /* the rule list decides on the agreed facts too (engine.c) */
    /* =1: a write HDF5's collective path moves in the same stretches is left to it, decided alike on
       every rank after colldiag's agreement (COLLDIAG_ACCEL_WHOLE_BYTES says why and where) */
    if (strcmp(acc, "all")) x->hdf5_as_fast_bytes = COLLDIAG_ACCEL_WHOLE_BYTES;
    /* =1: a contiguous read runs as one independent read a rank where every rank reads one long stretch
       of its own, and is left to HDF5 otherwise (COLLDIAG_ACCEL_STRETCH_BYTES) */
    if (strcmp(acc, "all")) x->read_stretch_bytes = COLLDIAG_ACCEL_STRETCH_BYTES;
    h5_bridge_quiet = 1; /* the reports are this library's */
    const double t0 = MPI_Wtime();
    cd_internal++;
    int rc = wr ? colldiag_h5_write(c->dset, c->mt, c->ms, c->fs, c->dxpl, c->wbuf, x) : colldiag_h5_read(c->dset, c->mt, c->ms, c->fs, c->dxpl, c->rbuf, x);
    const double t = MPI_Wtime() - t0;
    /* the engine measured: colldiag's time now, HDF5's once its call ran (explain_call) */
    if (x->eng_kind && x->eng_choice == 1 && rc == 0) meas_engine_done(x->eng_group, x->eng_sig, 1, t);
    lease_after(c, x, rc);
    if (x->eng_kind && x->eng_choice == 0 && rc == COLLDIAG_ERR_UNSUPPORTED) {
        c->eng.on = 1;
        c->eng.group = x->eng_group;
        c->eng.sig = x->eng_sig;
        c->eng.t = t;
        c->eng.known = 1;
        memcpy(c->eng.mt, x->eng_t, sizeof c->eng.mt);
        memcpy(c->eng.mn, x->eng_n, sizeof c->eng.mn);
    }
    if (rc == 0 && set_on(c->mode)) {
        pl_names_ask(c);
        if (!summary_only(c->mode)) report_accel(c, x, t);
        sum_colldiag_call(c, x, t);
    }
    cd_internal--;
    if (rc) h5_copy(why, wl, colldiag_xfer_errmsg(x)[0] ? colldiag_xfer_errmsg(x) : cd_errbuf);
    xfer_release(x);
    return rc == 0;
}

/* Under COLLDIAG_ACCELERATE without a report, a write colldiag cannot move whose bytes are at risk in
   HDF5's path is warned, not hidden: compact storage (colldiag cannot address the object header), which
   keeps one rank's copy (colldiag_get_bytes_at_risk). The plan costs what the call's own would (collective
   exactly when the call is: every rank of a collective call comes here alike, since the bridge's reason
   is a fact of the dataset); once a dataset and process (64 datasets), the warning on stderr by the
   rank that knows: of a collective call, rank 0 of its file (the count is every rank's); of an
   independent call, each rank for itself. */
static void warn_compact(const pl_call *c, hid_t dxpl)
{
    /* the datasets warned of, collective calls' apart: every rank of those saw the same ones (an
       independent call's on one rank must not make that rank skip a later collective plan) */
    static h5_oid seen[2][64];
    static int nseen[2];
    const int coll = c->coll;
    const hid_t dset = c->dset;
    h5_oid oi = {0, 0};
    if (h5_identify(dset, &oi) < 0) return;
    for (int i = 0; i < nseen[coll]; i++)
        if (seen[coll][i].fileno == oi.fileno && seen[coll][i].addr == oi.addr) return;
    if (nseen[coll] < 64) seen[coll][nseen[coll]++] = oi;
    colldiag_xfer *x = call_xfer();
    colldiag_file *f = NULL;
    cd_internal++;
    colldiag_set_plan_buffer(x, c->wbuf);
    if (colldiag_h5_plan(dset, c->mt, c->ms, c->fs, dxpl, COLLDIAG_TO_FILE, x, &f) == 0 && x->risk_bytes && (!f || f->comm == MPI_COMM_NULL || f->rank == 0)) {
        char file[1024], name[1024];
        names_of(dset, file, sizeof file, name, sizeof name);
        fprintf(stderr, "colldiag: H5Dwrite %s:%s: %" PRIu64 " bytes at risk in HDF5's path, which colldiag cannot move: %s; to keep them: %s "
                        "(warned once a dataset; COLLDIAG_REPORT=1 explains every call)\n", file, name, x->risk_bytes, colldiag_risk_reason(x),
                colldiag_risk_advice(x));
    }
    colldiag_file_close(f);
    xfer_release(x);
    cd_internal--;
}

/* HDF5 runs a write the accelerated path left to it. A collective write of a compact dataset first has
   every rank's pieces merged, and HDF5 then writes the whole merged dataset on every rank
   (colldiag_h5_write_compact: whichever rank's copy of the object header HDF5 keeps holds every rank's
   bytes); where that cannot be (alike on every rank), or for an independent compact write, the bytes
   at risk are warned (warn_compact, without a report: warn) and HDF5 runs the program's own call. Every rank of a collective
   call comes here alike: the storage class is the dataset's (the bridge's reason), the transfer mode the
   call's, COLLDIAG_ACCELERATE rank 0's. */
static colldiag_xfer kept_storage;
static herr_t write_call(pl_call *c, int warn, hid_t dxpl, h5w_fn real_write)
{
    const hid_t dset = c->dset, mt = c->mt, ms = c->ms, fs = c->fs;
    const void *const wbuf = c->wbuf;
    c->kept_bytes = c->kept_of = 0;
    if (c->compact && c->coll) {
        xfer_release(&kept_storage);
        xfer_init(&kept_storage);
        int ret = -1;
        h5_compact_write = real_write;
        cd_internal++;
        const int rc = colldiag_h5_write_compact(dset, mt, ms, fs, dxpl, wbuf, &kept_storage, &ret);
        cd_internal--;
        if (rc == 0) {
            c->kept_bytes = kept_storage.compact_kept;
            c->kept_of = kept_storage.compact_file_bytes;
            return ret;
        }
    }
    if (c->compact && warn) warn_compact(c, dxpl);
    return real_write(dset, mt, ms, fs, dxpl, wbuf);
}

/* ---- a read's destination, prefaulted (COLLDIAG_ACCELERATE) ----
   A read into memory the program never touched pays a page fault a page (~10-14 us here, a Firecracker
   VM): the kit's cd_prefault_run (src/memory.c) populates such a destination first where this process
   measured that it pays, and says why. The preload calls it before either engine, for H5Dread's memory
   selection when that is one run of bytes, so that HDF5's path and colldiag's both read into resident
   memory and are timed alike (colldiag's engine then finds the buffer seen and asks nothing more). A new
   buffer costs a few HDF5 queries of the memory selection; one seen already, one lookup. */

/* The read's destination as one run of bytes of buf, [*a, *a + *n): the memory selection (H5S_ALL: the
   file's selection, in the file's extent) is one contiguous run of its extent. 0: it is not, or unknown. */
static int dest_run(const pl_call *c, uintptr_t *a, size_t *n)
{
    int ok = 0;
    H5E_BEGIN_TRY {
        const hid_t own = c->ms == H5S_ALL && c->fs == H5S_ALL ? H5Dget_space(c->dset) : -1;
        const hid_t sp = c->ms != H5S_ALL ? c->ms : c->fs != H5S_ALL ? c->fs : own;
        const size_t es = H5Tget_size(c->mt);
        const int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
        const hssize_t np = nd >= 0 ? H5Sget_select_npoints(sp) : -1;
        hsize_t dims[H5S_MAX_RANK], lo[H5S_MAX_RANK], hi[H5S_MAX_RANK];
        if (es > 0 && nd >= 0 && H5Sget_select_type(sp) != H5S_SEL_POINTS && nd <= H5S_MAX_RANK && np > 0 && H5Sget_simple_extent_dims(sp, dims, NULL) == nd &&
            (nd == 0 || H5Sget_select_bounds(sp, lo, hi) >= 0)) {
            /* one run: the box holds every point, and its dimensions after the first wider than one are whole */
            hsize_t box = 1, first = 0;
            int wide = -1;
            for (int i = 0; i < nd; i++) {
                box *= hi[i] - lo[i] + 1;
                if (wide >= 0 && (lo[i] != 0 || hi[i] != dims[i] - 1)) wide = -2;
                if (wide == -1 && hi[i] > lo[i]) wide = i;
                first = first * dims[i] + lo[i];
            }
            if (wide != -2 && box == (hsize_t)np) {
                *a = (uintptr_t)c->rbuf + (uintptr_t)(first * es);
                *n = (size_t)np * es;
                ok = 1;
            }
        }
        if (own >= 0) H5Sclose(own);
    } H5E_END_TRY;
    return ok;
}

/* Before a read under COLLDIAG_ACCELERATE: a destination never touched, populated in one call where this
   process measured that it pays (src/memory.c). Counted in the run's summary, whose memory line says
   the decision (rank 0's). */
static void prefault_dest(const pl_call *c)
{
    if (c->wr || !c->rbuf || cd_pf_state < 0 || !set_on(c->acc)) return;
    for (unsigned i = 0; i < CD_PF_SEEN; i++) /* seen: no HDF5 query, no system call */
        if (cd_pf_seen[i] == (uintptr_t)c->rbuf) return;
    cd_pf_seen[cd_pf_next++ % CD_PF_SEEN] = (uintptr_t)c->rbuf;
    uintptr_t a = 0;
    size_t n = 0;
    if (!dest_run(c, &a, &n)) return;
    const uint64_t got = cd_prefault_run(a, n);
    if (cd_pf_state) cd_sum_pf_note = cd_pf_note;
    if (got && set_on(c->mode)) cd_sum_prefault(got);
}

/* The one wrapper behind both functions: the record c flows through the accelerated path, or through
   HDF5's (made safe, planned for the report, run, reported, counted, measured). */
static herr_t explain_call(pl_call *c)
{
    static h5w_fn real_write;
    static h5r_fn real_read;
    if (!real_write) real_write = (h5w_fn)CD_LOOKUP(H5Dwrite);
    if (!real_read) real_read = (h5r_fn)CD_LOOKUP(H5Dread);
    const int wr = c->wr, on = set_on(c->mode);
    const hid_t dset = c->dset, mt = c->mt, ms = c->ms, fs = c->fs, dxpl = c->dxpl;
    char why[1024] = "";
    prefault_dest(c); /* before either engine: both then read into resident memory, and are timed alike */
    if (set_on(c->acc) && accelerate(c, why, sizeof why)) return 0; /* H5Dwrite/H5Dread's success */
    c->accel_why = why[0] ? why : NULL; /* this frame's: the record does not outlive the call */
    h5_hdf5_ran++; /* HDF5 runs the call: it sets the DXPL's actual-mode properties (h5_set_actual) */
    c->compact = wr && c->accel_why && strstr(c->accel_why, "a compact dataset"); /* under COLLDIAG_ACCELERATE (write_call) */
    if (!on) {
        const int timed = c->eng.on; /* the engine's measurement is the only reader of the time */
        const double t0 = timed ? MPI_Wtime() : 0;
        made_safe(c);
        const herr_t ret = wr ? write_call(c, 1, dxpl, real_write) : real_read(dset, mt, ms, fs, dxpl, c->rbuf);
        if (timed) eng_hdf5_done(c, ret, MPI_Wtime() - t0);
        return ret;
    }
    /* HDF5 records its actual modes in the DXPL it is given; H5P_DEFAULT cannot be read back */
    const int light = summary_only(c->mode);
    hid_t use = dxpl == H5P_DEFAULT ? H5Pcreate(H5P_DATASET_XFER) : dxpl; /* a fresh one: HDF5 leaves an independent call's answers as they were */
    if (use < 0) use = dxpl;
    pl_names_ask(c);
    if (light) { /* the summary alone: HDF5's own answers, no plan, nothing communicated */
        cd_internal++;
        sum_risk_light(c, use);
        made_safe(c);
        const double t0 = MPI_Wtime();
        const herr_t ret = wr ? write_call(c, 1, use, real_write) : real_read(dset, mt, ms, fs, use, c->rbuf);
        c->secs = MPI_Wtime() - t0;
        eng_hdf5_done(c, ret, c->secs);
        if (ret >= 0) sum_hdf5_call(c, use, NULL, 0, 0);
        sum_risk_record(c, use);
        c->risk_own = 0;
        cd_internal--;
        if (use != dxpl) H5Pclose(use);
        return ret;
    }
    colldiag_xfer *x = call_xfer();
    colldiag_file *f = NULL;
    cd_internal++;
    if (wr) colldiag_set_plan_buffer(x, c->wbuf); /* a compact write's bytes are compared across ranks (bytes at risk) */
    const int planned = colldiag_h5_plan(dset, mt, ms, fs, use, wr ? COLLDIAG_TO_FILE : COLLDIAG_TO_MEMORY, x, &f) == 0;
    made_safe(c); /* after the plan: its bytes at risk are HDF5's path's as the program left the file */
    const double t0 = MPI_Wtime();
    herr_t ret = wr ? write_call(c, 0, use, real_write) /* the report warns */ : real_read(dset, mt, ms, fs, use, c->rbuf);
    c->secs = MPI_Wtime() - t0;
    eng_hdf5_done(c, ret, c->secs);
    unsigned v[V_N];
    values_of(c, x, planned, use, ret, v);
    report(c, f, x, v);
    char nodiff[8] = "";
    if (ret >= 0) sum_hdf5_call(c, use, x, planned, !differences(0, v, nodiff, 0));
    colldiag_file_close(f);
    xfer_release(x);
    cd_internal--;
    if (use != dxpl) H5Pclose(use);
    return ret;
}

/* An intercepted H5Dwrite or H5Dread (op: the name it is reported by; NULL: those). A call may nest:
   colldiag's own work for a call (a compact write's cure, made_safe) can reach these wrappers again,
   with a record of its own. The environment is read once for the call and the bridge's work inside it. */
static herr_t explain(int wr, const char *op, hid_t dset, hid_t mt, hid_t ms, hid_t fs, hid_t dxpl, const void *wbuf, void *rbuf)
{
    cd_env_enter();
    pl_call c = pl_call_of(wr, op, dset, mt, ms, fs, dxpl, wbuf, rbuf);
    const herr_t ret = explain_call(&c);
    cd_env_leave();
    return ret;
}

/* H5Dwrite_chunk (and 1.10's H5DOwrite_chunk, which calls it): a direct chunk write is not collective,
   and in a file open on several ranks parallel HDF5 keeps the chunk (its index entry) only when every
   rank makes the same calls with the same bytes: each rank writing its own chunks, or rank 0 alone,
   returns success and loses them (tests/h5_direct_chunk.c, HDF5 1.10.8). Nothing can be asked of the
   other ranks here; the run's summary (any COLLDIAG_REPORT) hashes this rank's calls in order (the
   chunk's offsets, filter mask, size and bytes) and compares the ranks' when it combines them
   (cd_sum_dc_fold), naming the bytes at risk. HDF5 runs the call as the program made it. */
typedef herr_t (*h5wc_fn)(hid_t, hid_t, uint32_t, const hsize_t *, size_t, const void *);
static void sum_direct_chunk(hid_t dset, uint32_t filters, const hsize_t *offset, size_t size, const void *buf, double secs)
{
    const sum_names *n = sum_names_of(dset);
    if (!n || n->file_size < 2) return;
    uint64_t h = 1469598103934665603ull;
#define CD_DC_MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
    hid_t sp = H5Dget_space(dset);
    const int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : 0;
    if (sp >= 0) H5Sclose(sp);
    for (int i = 0; i < nd && offset; i++) CD_DC_MIX(offset[i]);
    CD_DC_MIX(filters);
    CD_DC_MIX(size);
    const unsigned char *b = buf;
    size_t i = 0;
    for (; b && i + 8 <= size; i += 8) { /* the bytes, a word at a time */
        uint64_t w;
        memcpy(&w, b + i, 8);
        CD_DC_MIX(w);
    }
    for (; b && i < size; i++) CD_DC_MIX(b[i]);
#undef CD_DC_MIX
    cd_sum_call c;
    memset(&c, 0, sizeof c);
    c.file = n->file;
    c.dataset = n->name;
    c.stable = 1;
    c.write = 1;
    c.counts = 1; /* every rank's own call */
    c.io_mode = -1;
    c.bytes = c.bytes_ind = size;
    c.secs = secs;
    c.est_hdf5 = c.est_best = -1;
    c.planned = -1;
    c.direct = 1;
    c.dc_hash = h;
    c.dc_size = n->file_size;
    cd_sum_record(&c);
}

herr_t CD_WRAP(H5Dwrite_chunk)(hid_t dset, hid_t dxpl, uint32_t filters, const hsize_t *offset, size_t data_size, const void *buf)
{
    static h5wc_fn real;
    if (!real) real = (h5wc_fn)CD_LOOKUP(H5Dwrite_chunk);
    if (!real) return -1;
    const char *mode = cd_getenv("COLLDIAG_REPORT");
    const int on = mode && *mode && strcmp(mode, "0") && !cd_internal;
    const double t0 = on ? MPI_Wtime() : 0;
    const herr_t ret = real(dset, dxpl, filters, offset, data_size, buf);
    if (on && ret >= 0) {
        cd_internal++;
        sum_direct_chunk(dset, filters, offset, data_size, buf, MPI_Wtime() - t0);
        cd_internal--;
    }
    return ret;
}

herr_t CD_WRAP(H5Dwrite)(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf)
{
    return explain(1, NULL, dset, mem_type, mem_space, file_space, dxpl, buf, NULL);
}

herr_t CD_WRAP(H5Dread)(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, void *buf)
{
    return explain(0, NULL, dset, mem_type, mem_space, file_space, dxpl, NULL, buf);
}

/* ---- HDF5 1.14's other raw-data calls ----
   H5Dwrite_multi / H5Dread_multi move several datasets of one file in one call. Under
   COLLDIAG_ACCELERATE colldiag runs such a call whole (colldiag_h5_write_multi / _read_multi: one
   collective data call, link-chunk, with colldiag_h5_write's rules for each dataset), all or nothing:
   where any dataset is one HDF5 runs as fast (a contiguous one under =1, as_fast_why) or colldiag
   cannot move (any rank's reason), HDF5 runs the whole call unchanged. A call HDF5 runs is explained
   (explain_multi): planned as HDF5 1.14 decides it, as a whole, and compared with HDF5's answer for
   the call. The asynchronous H5Dwrite_async,
   H5Dread_async, H5Dwrite_multi_async and H5Dread_multi_async run in HDF5 (their event sets are
   HDF5's), except with the event set H5ES_NONE: HDF5 then runs them as the synchronous calls, and so
   does the preload (h5bench's SYNC mode makes every raw-data call that way). Either way, with COLLDIAG_REPORT the report has one entry per dataset of every such call, so
   that no raw-data call goes unseen. Reported by rank 0 of MPI_COMM_WORLD (the call's communicator is
   not known without asking HDF5 collectively). */
#if H5_VERSION_GE(1, 14, 0)
static const char async_why[] = "an asynchronous call (its event set is HDF5's): HDF5 runs it";

/* The report's entries for one such call: by_colldiag, its scheme (chunk_opt) and time; else why HDF5
   ran it. */
static void report_multi(const char *op, size_t count, const hid_t *dsets, int by_colldiag, const char *why, const char *scheme, double t,
                         const uint64_t *bytes)
{
    const char *mode = cd_getenv("COLLDIAG_REPORT");
    int init = 0, me = 0;
    if (!mode || !*mode || !strcmp(mode, "0") || !strncmp(mode, "html:", 5) || cd_internal) return;
    if (MPI_Initialized(&init) == MPI_SUCCESS && init) MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me != 0) return;
    const int json = !strncmp(mode, "json:", 5);
    for (size_t i = 0; i < count; i++) {
        char file[1024], name[1024], *text = NULL;
        size_t tlen = 0;
        names_of(dsets[i], file, sizeof file, name, sizeof name);
        FILE *o = open_memstream(&text, &tlen);
        if (!o) continue;
        if (json) {
            fprintf(o, "{\"op\":\"%s\",\"dataset_index\":%zu,\"file\":", op, i);
            json_str(o, file);
            fprintf(o, ",\"dataset\":");
            json_str(o, name);
            if (bytes) fprintf(o, ",\"bytes\":%" PRIu64 ",\"seconds\":%.9f", bytes[i], t);
            if (by_colldiag) fprintf(o, ",\"planned\":true,\"engine\":\"colldiag\",\"chunk_opt\":\"%s\",\"time\":%.9f}\n", scheme, t);
            else {
                fprintf(o, ",\"planned\":false,\"engine\":\"hdf5\",\"why\":");
                json_str(o, why);
                fprintf(o, "}\n");
            }
        } else if (by_colldiag) {
            fprintf(o, "colldiag: %s %s:%s (dataset %zu of %zu), accelerated: colldiag moved the bytes (%s, %.6f s)\n", op, file, name, i, count,
                    scheme, t);
        } else {
            fprintf(o, "colldiag: %s %s:%s (dataset %zu of %zu), not planned: %s\n", op, file, name, i, count, why);
        }
        fclose(o);
        if (json) append_line(mode + 5, text, tlen);
        else write_lines(STDOUT_FILENO, text, tlen);
        free(text);
    }
}
static void declined(const char *op, size_t count, const hid_t *dsets) { report_multi(op, count, dsets, 0, async_why, NULL, 0, NULL); }

/* One dataset of a multi-dataset call colldiag ran: the call's results, this dataset's bytes. */
static void sum_multi_call(int wr, hid_t dset, const colldiag_xfer *x, double secs, uint64_t bytes)
{
    const sum_names *n = sum_names_of(dset);
    const colldiag_file *f = accel_file(dset);
    if (!n) return;
    cd_sum_call c;
    memset(&c, 0, sizeof c);
    c.file = n->file;
    c.dataset = n->name;
    c.stable = 1;
    c.write = wr;
    c.colldiag = 1;
    c.collective = x->set.mode == COLLDIAG_MPIO_COLLECTIVE;
    c.counts = !c.collective || !f || f->rank == 0;
    c.io_mode = x->io_mode_done;
    c.local_cause = x->local_cause;
    c.global_cause = x->global_cause;
    c.bytes = bytes;
    c.secs = secs;
    c.est_hdf5 = c.est_best = -1;
    c.planned = -1;
    cd_sum_record(&c);
}

/* 1 if colldiag ran the whole multi-dataset call (see above); else why HDF5 runs it. Every rank of a
   collective call decides alike: the environment is rank 0's, a dataset's storage the same on every
   rank, and colldiag_h5_*_multi fails everywhere or nowhere. */
static int accelerate_multi(int wr, size_t count, const hid_t *dsets, const hid_t *mts, const hid_t *mss, const hid_t *fss, hid_t dxpl,
                            const void **wbufs, void **rbufs, const char *acc, char *why, size_t wl)
{
    const int coll = sum_collective(dxpl);
    for (size_t i = 0; i < count; i++) {
        char w[768];
        if (hdf5_runs_it(wr, 0, dsets[i], coll, acc, w, sizeof w)) {
            snprintf(why, wl, "dataset %zu of the call: %s", i, w);
            return 0;
        }
    }
    colldiag_xfer *x = call_xfer();
    x->accel = strcmp(acc, "all") ? 1 : 2;
    h5_bridge_quiet = 1; /* the reports are this library's */
    const double t0 = MPI_Wtime();
    cd_internal++;
    const int rc = wr ? colldiag_h5_write_multi(count, dsets, mts, mss, fss, dxpl, wbufs, x)
                      : colldiag_h5_read_multi(count, dsets, mts, mss, fss, dxpl, rbufs, x);
    const double t = MPI_Wtime() - t0;
    cd_internal--;
    if (rc == 0) { /* the summary's counters, and each dataset's bytes over the file's ranks for the report */
        const char *mode = cd_getenv("COLLDIAG_REPORT");
        uint64_t *mine = calloc(count, sizeof *mine), *all = calloc(count, sizeof *all);
        for (size_t i = 0; mine && i < count; i++) {
            const sum_names *n = sum_names_of(dsets[i]);
            mine[i] = n ? sum_bytes(dsets[i], fss[i], n->esize) : 0;
            if (mode && *mode && strcmp(mode, "0")) sum_multi_call(wr, dsets[i], x, t, mine[i]);
        }
        const colldiag_file *f = accel_file(dsets[0]);
        if (mine && all && f && f->comm != MPI_COMM_NULL && x->set.mode == COLLDIAG_MPIO_COLLECTIVE && mode && !strncmp(mode, "json:", 5))
            MPI_Allreduce(mine, all, (int)count, MPI_UINT64_T, MPI_SUM, f->comm);
        else if (mine && all) memcpy(all, mine, count * sizeof *all);
        if (!summary_only(mode))
            report_multi(wr ? "H5Dwrite_multi" : "H5Dread_multi", count, dsets, 1, NULL, colldiag_chunk_opt_name(x->chunk_opt_done), t, all);
        free(mine);
        free(all);
    } else h5_copy(why, wl, colldiag_xfer_errmsg(x)[0] ? colldiag_xfer_errmsg(x) : cd_errbuf);
    xfer_release(x);
    return rc == 0;
}

/* Dataset i's record of a multi-dataset call c: the call's (environment, transfer mode, file made safe,
   HDF5's time), with the dataset's own arguments, names and bytes. */
static pl_call pl_call_dataset(const pl_call *c, size_t i, hid_t *dsets, hid_t *mts, hid_t *mss, hid_t *fss, const void **wbufs)
{
    pl_call d = *c;
    d.multi_i = i;
    d.dset = dsets[i];
    d.mt = mts ? mts[i] : H5T_NATIVE_UCHAR;
    d.ms = mss ? mss[i] : H5S_ALL;
    d.fs = fss ? fss[i] : H5S_ALL;
    d.wbuf = wbufs ? wbufs[i] : NULL;
    pl_names_ask(&d);
    d.risk_have = 0;
    d.risk_own = 0;
    d.risk_kind_read = 0;
    return d;
}

/* A multi-dataset call HDF5 runs, explained as a single call is (explain_call): colldiag's plan of the
   whole call as the linked HDF5 decides it (colldiag_h5_plan_multi), HDF5's own call, then the report,
   one entry per dataset, each with HDF5's answer for the call (the DXPL holds one for the whole call)
   beside colldiag's, and the dataset's own planned modes. why: why COLLDIAG_ACCELERATE left it to
   HDF5 (NULL: not asked). */
static herr_t explain_multi(int wr, size_t count, hid_t *dsets, hid_t *mts, hid_t *mss, hid_t *fss, hid_t dxpl, const void **wbufs, void **rbufs,
                            const char *why, herr_t (*real_w)(size_t, hid_t *, hid_t *, hid_t *, hid_t *, hid_t, const void **),
                            herr_t (*real_r)(size_t, hid_t *, hid_t *, hid_t *, hid_t *, hid_t, void **))
{
    /* the call's record (its first dataset's), and one a dataset for its entries (pl_call_dataset) */
    pl_call c = pl_call_of(wr, wr ? "H5Dwrite_multi" : "H5Dread_multi", count > 0 && dsets ? dsets[0] : H5I_INVALID_HID, H5I_INVALID_HID,
                           H5I_INVALID_HID, H5I_INVALID_HID, dxpl, NULL, NULL);
    c.accel_why = why;
    c.multi_n = count;
    h5_hdf5_ran++; /* HDF5 runs the call: it sets the DXPL's actual-mode properties */
    if (!set_on(c.mode) || cd_internal || count == 0 || !dsets) {
        if (!cd_internal && count > 0 && dsets) made_safe_multi(&c, count, dsets);
        return wr ? real_w(count, dsets, mts, mss, fss, dxpl, wbufs) : real_r(count, dsets, mts, mss, fss, dxpl, rbufs);
    }
    /* HDF5 records its actual modes in the DXPL it is given; H5P_DEFAULT cannot be read back */
    hid_t use = dxpl == H5P_DEFAULT ? H5Pcreate(H5P_DATASET_XFER) : dxpl;
    if (use < 0) use = dxpl;
    if (summary_only(c.mode)) { /* the summary alone: HDF5's answers for the call, each dataset's bytes */
        cd_internal++;
        /* a collective write's bytes at risk, before it is made safe, as the planned run counts them
           (colldiag_h5_plan_multi): one extent over every dataset's words, recorded under each dataset */
        uint64_t cv[AG_N];
        int cany = 0;
        memset(cv, 0, sizeof cv);
        for (size_t i = 0; wr && i < count; i++) {
            pl_call d = pl_call_dataset(&c, i, dsets, mts, mss, fss, wbufs);
            sum_risk_light(&d, use);
            if (d.risk_have) { risk_join(cv, d.risk_v, !cany); cany = 1; }
            /* an independent compact write's own bytes (d.risk_own): not counted for multi-dataset calls */
        }
        made_safe_multi(&c, count, dsets);
        const double t0 = MPI_Wtime();
        const herr_t ret = wr ? real_w(count, dsets, mts, mss, fss, use, wbufs) : real_r(count, dsets, mts, mss, fss, use, rbufs);
        c.secs = MPI_Wtime() - t0;
        for (size_t i = 0; ret >= 0 && i < count; i++) {
            pl_call d = pl_call_dataset(&c, i, dsets, mts, mss, fss, wbufs);
            sum_hdf5_call(&d, use, NULL, 0, 0);
        }
        for (size_t i = 0; ret >= 0 && cany && i < count; i++) {
            pl_call d = pl_call_dataset(&c, i, dsets, mts, mss, fss, wbufs);
            memcpy(d.risk_v, cv, sizeof cv);
            d.risk_cap = UINT64_MAX; /* as the plan's risk_agreed for a multi-dataset call */
            d.risk_have = 1;
            sum_risk_record(&d, use);
        }
        cd_internal--;
        if (use != dxpl) H5Pclose(use);
        return ret;
    }
    colldiag_xfer *x = call_xfer();
    colldiag_file *f = NULL;
    cd_internal++;
    const int planned = colldiag_h5_plan_multi(count, dsets, mts, mss, fss, use, wr ? COLLDIAG_TO_FILE : COLLDIAG_TO_MEMORY, x, &f) == 0;
    made_safe_multi(&c, count, dsets);
    const double t0 = MPI_Wtime();
    const herr_t ret = wr ? real_w(count, dsets, mts, mss, fss, use, wbufs) : real_r(count, dsets, mts, mss, fss, use, rbufs);
    c.secs = MPI_Wtime() - t0;
    unsigned v[V_N];
    values_of(&c, x, planned, use, ret, v);
    for (size_t i = 0; i < count; i++) { /* each entry its dataset's bytes */
        pl_call d = pl_call_dataset(&c, i, dsets, mts, mss, fss, wbufs);
        v[V_BYTES_LO] = (unsigned)(d.bytes & 0xffffffffu);
        v[V_BYTES_HI] = (unsigned)(d.bytes >> 32);
        report(&d, f, x, v);
        char nodiff[8] = "";
        if (ret >= 0) sum_hdf5_call(&d, use, x, planned, !differences(0, v, nodiff, 0));
    }
    colldiag_file_close(f);
    xfer_release(x);
    cd_internal--;
    if (use != dxpl) H5Pclose(use);
    return ret;
}

/* H5Dwrite_multi and H5Dread_multi's one wrapper: colldiag runs the call (accelerate_multi) or HDF5 does. */
static herr_t multi_call(int wr, size_t count, hid_t *dsets, hid_t *mts, hid_t *mss, hid_t *fss, hid_t dxpl, const void **wbufs, void **rbufs,
                         herr_t (*real_w)(size_t, hid_t *, hid_t *, hid_t *, hid_t *, hid_t, const void **),
                         herr_t (*real_r)(size_t, hid_t *, hid_t *, hid_t *, hid_t *, hid_t, void **))
{
    cd_env_enter();
    const char *acc = cd_getenv("COLLDIAG_ACCELERATE");
    char why[1024] = "";
    herr_t ret = 0;
    if (!wr && rbufs && mts && mss && fss && count > 0 && dsets && acc && *acc && strcmp(acc, "0") && !cd_internal)
        for (size_t i = 0; i < count; i++) { /* each destination as H5Dread's (prefault_dest), before either engine */
            const pl_call c = pl_call_of(0, "H5Dread_multi", dsets[i], mts[i], mss[i], fss[i], dxpl, NULL, rbufs[i]);
            prefault_dest(&c);
        }
    if (!(count > 0 && dsets && acc && *acc && strcmp(acc, "0") && !cd_internal &&
          accelerate_multi(wr, count, dsets, mts, mss, fss, dxpl, wbufs, rbufs, acc, why, sizeof why)))
        ret = explain_multi(wr, count, dsets, mts, mss, fss, dxpl, wbufs, rbufs, why[0] ? why : NULL, real_w, real_r);
    cd_env_leave();
    return ret;
}

#define CD_REAL(fn, type) static type real; if (!real) real = (type)CD_LOOKUP(fn)
typedef herr_t (*h5wm_fn)(size_t, hid_t *, hid_t *, hid_t *, hid_t *, hid_t, const void **);
typedef herr_t (*h5rm_fn)(size_t, hid_t *, hid_t *, hid_t *, hid_t *, hid_t, void **);
herr_t CD_WRAP(H5Dwrite_multi)(size_t count, hid_t dset_id[], hid_t mem_type_id[], hid_t mem_space_id[], hid_t file_space_id[], hid_t dxpl_id,
                      const void *buf[])
{
    CD_REAL(H5Dwrite_multi, h5wm_fn);
    return multi_call(1, count, dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, NULL, real, NULL);
}
herr_t CD_WRAP(H5Dread_multi)(size_t count, hid_t dset_id[], hid_t mem_type_id[], hid_t mem_space_id[], hid_t file_space_id[], hid_t dxpl_id,
                     void *buf[])
{
    CD_REAL(H5Dread_multi, h5rm_fn);
    return multi_call(0, count, dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, NULL, buf, NULL, real);
}
#undef H5Dwrite_async
#undef H5Dread_async
#undef H5Dwrite_multi_async
#undef H5Dread_multi_async
typedef herr_t (*h5wa_fn)(const char *, const char *, unsigned, hid_t, hid_t, hid_t, hid_t, hid_t, const void *, hid_t);
typedef herr_t (*h5ra_fn)(const char *, const char *, unsigned, hid_t, hid_t, hid_t, hid_t, hid_t, void *, hid_t);
typedef herr_t (*h5wma_fn)(const char *, const char *, unsigned, size_t, hid_t *, hid_t *, hid_t *, hid_t *, hid_t, const void **, hid_t);
typedef herr_t (*h5rma_fn)(const char *, const char *, unsigned, size_t, hid_t *, hid_t *, hid_t *, hid_t *, hid_t, void **, hid_t);
herr_t CD_WRAP(H5Dwrite_async)(const char *app_file, const char *app_func, unsigned app_line, hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id,
                      hid_t file_space_id, hid_t dxpl_id, const void *buf, hid_t es_id)
{
    CD_REAL(H5Dwrite_async, h5wa_fn);
    if (es_id == H5ES_NONE) { /* synchronous */
        return explain(1, "H5Dwrite_async", dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, NULL);
    }
    declined("H5Dwrite_async", 1, &dset_id);
    return real(app_file, app_func, app_line, dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, es_id);
}
herr_t CD_WRAP(H5Dread_async)(const char *app_file, const char *app_func, unsigned app_line, hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id,
                     hid_t file_space_id, hid_t dxpl_id, void *buf, hid_t es_id)
{
    CD_REAL(H5Dread_async, h5ra_fn);
    if (es_id == H5ES_NONE) { /* synchronous */
        return explain(0, "H5Dread_async", dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, NULL, buf);
    }
    declined("H5Dread_async", 1, &dset_id);
    return real(app_file, app_func, app_line, dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, es_id);
}
herr_t CD_WRAP(H5Dwrite_multi_async)(const char *app_file, const char *app_func, unsigned app_line, size_t count, hid_t dset_id[], hid_t mem_type_id[],
                            hid_t mem_space_id[], hid_t file_space_id[], hid_t dxpl_id, const void *buf[], hid_t es_id)
{
    CD_REAL(H5Dwrite_multi_async, h5wma_fn);
    if (es_id == H5ES_NONE) return H5Dwrite_multi(count, dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf); /* synchronous */
    declined("H5Dwrite_multi_async", count, dset_id);
    return real(app_file, app_func, app_line, count, dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, es_id);
}
herr_t CD_WRAP(H5Dread_multi_async)(const char *app_file, const char *app_func, unsigned app_line, size_t count, hid_t dset_id[], hid_t mem_type_id[],
                           hid_t mem_space_id[], hid_t file_space_id[], hid_t dxpl_id, void *buf[], hid_t es_id)
{
    CD_REAL(H5Dread_multi_async, h5rma_fn);
    if (es_id == H5ES_NONE) return H5Dread_multi(count, dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf); /* synchronous */
    declined("H5Dread_multi_async", count, dset_id);
    return real(app_file, app_func, app_line, count, dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, es_id);
}
#undef CD_REAL
#endif

/* ---- one environment on every rank ----
   Open MPI's mpirun gives its shell's variables to the ranks on its own node and to no other unless
   told with -x; batch launchers differ again. A COLLDIAG_ACCELERATE or COLLDIAG_REPORT that some ranks
   see and others do not sends some ranks into colldiag's collective calls (or its plan) and the others
   into HDF5's alone: the job hangs. So when MPI starts, every rank takes rank 0's COLLDIAG_* variables
   (a few collective calls on MPI_COMM_WORLD, once), and rank 0 says how many ranks had others. A program
   that changes them later (setenv) must do so on every rank, as with any setting of a collective call.
   HDF5's own variables are HDF5's business and stay as they are. */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* This rank's COLLDIAG_* entries, sorted, as "NAME=VALUE\0NAME=VALUE\0..." (malloc'd; *len bytes). */
static char *colldiag_entries(size_t *len)
{
    size_t n = 0, bytes = 0;
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "COLLDIAG_", 9)) { n++; bytes += strlen(*e) + 1; }
    char **v = malloc((n ? n : 1) * sizeof *v), *buf = malloc(bytes ? bytes : 1);
    if (!v || !buf) { free(v); free(buf); return NULL; }
    n = 0;
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "COLLDIAG_", 9)) v[n++] = *e;
    qsort(v, n, sizeof *v, cmp_str);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t k = strlen(v[i]) + 1;
        memcpy(buf + at, v[i], k);
        at += k;
    }
    free(v);
    *len = at;
    return buf;
}

/* Rank 0's entries replace this rank's (every COLLDIAG_* variable first removed, then rank 0's set).
   0, or -1 when the environment could not be changed (no memory). */
static int take_entries(const char *buf, size_t len)
{
    int rc = 0;
    size_t left = 0;
    for (char **e = environ; e && *e; e++) left += !strncmp(*e, "COLLDIAG_", 9);
    for (; left > 0; left--) { /* unsetenv reshuffles environ: look again after each (at most once per entry:
                                  an entry without '=' is not one unsetenv removes) */
        char *name = NULL;
        for (char **e = environ; e && *e && !name; e++)
            if (!strncmp(*e, "COLLDIAG_", 9)) {
                const char *eq = strchr(*e, '=');
                name = strndup(*e, eq ? (size_t)(eq - *e) : strlen(*e));
                if (!name) return -1;
            }
        const int gone = name && !unsetenv(name);
        free(name);
        if (!gone) break;
    }
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "COLLDIAG_", 9)) rc = -1; /* one that unsetenv refused */
    for (size_t at = 0; at < len;) {
        const char *kv = buf + at, *eq = strchr(kv, '=');
        const size_t k = strlen(kv);
        if (eq) {
            char *name = strndup(kv, (size_t)(eq - kv));
            if (!name || setenv(name, eq + 1, 1)) rc = -1;
            free(name);
        }
        at += k + 1;
    }
    return rc;
}

static void same_environment(void)
{
    int me = 0, P = 1, ok = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &P);
    size_t len = 0;
    char *mine = colldiag_entries(&len);
    /* rank 0's length, or ULLONG_MAX when it has no memory or too much to send (nobody changes anything) */
    unsigned long long n = me == 0 ? (mine && len <= INT_MAX ? len : ULLONG_MAX) : 0;
    PMPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (n == ULLONG_MAX) { free(mine); return; }
    char *r0 = me == 0 ? mine : malloc(n ? n : 1);
    ok = r0 != NULL;
    /* in pieces of the same size on every rank, so that a rank without memory for rank 0's entries
       still takes part (receiving each piece into one it ignores) */
    static char ignored[4096];
    for (unsigned long long off = 0; off < n; off += sizeof ignored) {
        const int k = (int)(n - off < sizeof ignored ? n - off : sizeof ignored);
        PMPI_Bcast(ok ? r0 + off : ignored, k, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    int differs = me != 0 && (!ok || !mine || len != n || memcmp(mine, r0, n));
    if (me != 0 && ok && differs && take_entries(r0, n)) ok = 0;
    /* the bridge may then let a variable decide alike on every rank without agreeing it (every rank took
       rank 0's entries, or had them) */
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    h5_env_uniform = all_ok;
    int ndiff = 0, first = differs ? me : P;
    PMPI_Reduce(&differs, &ndiff, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    int lowest = P;
    PMPI_Reduce(&first, &lowest, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (me == 0 && ndiff)
        fprintf(stderr, "colldiag: %d of %d ranks started with other COLLDIAG_* variables than rank 0 (rank %d the first); every rank now "
                        "has rank 0's (Open MPI's mpirun passes a variable to every rank with -x NAME)\n", ndiff, P, lowest);
    if (r0 != mine) free(r0);
    free(mine);
}

/* ---- a warm heap under COLLDIAG_ACCELERATE ----
   What cost ~10 ms in an accelerated call (docs/benchmarks.md) was fresh pages: MPI-IO's collective
   calls allocate their buffers in every call, and whether glibc hands them back from pages its heap
   kept or as freshly mapped ones (14-21 us a 4 KiB page on this VM, ~0.25 us on a cluster node)
   depends on what the process did before: glibc raises its mmap threshold only when a mapped block is
   freed, and trims the heap's top. Measured with IOR -a HDF5 -c on ROMIO (contiguous, 1 MiB a rank,
   3 ranks, five alternating runs), HDF5's own collective writes ran at 0.84x their plain rate under the
   preload as it was, because colldiag's reads had left the heap colder, and at 1.22x with this. So
   with COLLDIAG_ACCELERATE set, the preload fixes glibc's thresholds at the values its own dynamic
   threshold reaches at most (mmap 32 MiB, trim twice that): blocks freed up to that size stay in the
   heap for the next call. The price is memory the process keeps instead of returning: at most the
   largest block it freed below 32 MiB, plus 64 MiB of free heap top. A malloc setting of the user's
   own (GLIBC_TUNABLES naming glibc.malloc, or MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_) is left
   as it is. Not a collective decision: each rank's heap is its own.
   The heap's top is then warmed once, here: CD_HEAP_WARM_TOP bytes malloc'ed, each page touched, and
   freed, so that they stay at the top of the heap (below the trim threshold) as pages already faulted
   in. Why: a heap that keeps what it freed still grows into fresh pages whenever a block cannot reuse a
   hole, and a program that opens and closes files does that at every open: the file's metadata cache
   (~650 KiB a file in HDF5) is freed at the close, a small block malloc'ed later lands in its hole, and
   the next open extends the heap, faulting each new page in inside HDF5's own H5Fopen or H5Fcreate
   (strace: one brk, then ~2 ms of faults; IOR -F, a file a rank, whose each phase lasts 3-5 ms here).
   The preload's own queries of HDF5 made that likelier (bench/results/2026-12-05-0050-experiment-
   ior-F-free-lists-ce13614.txt), and giving HDF5's free lists back at each close (H5garbage_collect,
   4ef7d7a) fixed ompio's writes but slowed ROMIO's next H5Fopen (0.35 -> 1.2 ms: HDF5 malloc'ed its
   blocks again into the hole). Warming the top instead: IOR -F at 1.03-1.12x plain HDF5's rates under
   both layers (writes and reads), against 0.94-1.00x with the collection under ROMIO (30 interleaved rounds,
   bench/results/2026-12-05-0400-experiment-ior-F-warm-top-0dc5e32.txt). The price: 4 MiB a rank kept
   resident from MPI_Init, and faulting them in once there (~15 ms on this VM, ~0.3 ms at a cluster
   node's ~0.25 us a page). 4 MiB: a few file opens' worth of HDF5's cache; 8 and 16 MiB measured no
   better. */
#define CD_HEAP_MMAP_MAX ((int)32 << 20)
#define CD_HEAP_WARM_TOP ((size_t)4 << 20)

static void warm_heap_top(size_t n)
{
    volatile char *p = malloc(n); /* below the mmap threshold just set: from the heap's top */
    if (!p) return;
    for (size_t i = 0; i < n; i += 4096) p[i] = 0;
    free((void *)p);
}

static void keep_heap_warm(void)
{
    const char *acc = cd_getenv("COLLDIAG_ACCELERATE"), *t = getenv("GLIBC_TUNABLES");
    if (!acc || !*acc || !strcmp(acc, "0")) return;
    if ((t && strstr(t, "glibc.malloc.")) || getenv("MALLOC_MMAP_THRESHOLD_") || getenv("MALLOC_TRIM_THRESHOLD_")) return;
    mallopt(M_MMAP_THRESHOLD, CD_HEAP_MMAP_MAX);
    mallopt(M_TRIM_THRESHOLD, 2 * CD_HEAP_MMAP_MAX);
    warm_heap_top(CD_HEAP_WARM_TOP);
}

/* ---- a program whose HDF5 the preload cannot see ----
   A program linked against HDF5 statically (plain h5pcc: libhdf5.a) calls its own copy of H5Dwrite, not
   a shared library's: LD_PRELOAD changes nothing for it (the preload even loads a second, unused HDF5),
   and a summary of "0 calls, causes: none" would tell its user the run was explained and protected
   when none of it was. Its executable then holds HDF5's version string (H5_VERS_INFO, which HDF5 keeps
   in the library itself: a program linked against the shared library does not carry it). Looked for
   once, by rank 0, when COLLDIAG_REPORT or COLLDIAG_ACCELERATE is set (a scan of the executable: ~1 ms
   for 6 MB here); said on stderr at once and in the run's summary (cd_sum_unseen). Not in the link-time
   route, which is how such a program is seen. */
static void static_hdf5_check(void)
{
#ifndef COLLDIAG_WRAP
    static char static_note[1024];
    const char *rep = cd_getenv("COLLDIAG_REPORT"), *acc = cd_getenv("COLLDIAG_ACCELERATE");
    const int on = (rep && *rep && strcmp(rep, "0")) || (acc && *acc && strcmp(acc, "0"));
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (!on || me != 0) return;
    char exe[PATH_MAX];
    const ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const int fd = el > 0 ? open("/proc/self/exe", O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) { if (fd >= 0) close(fd); return; }
    exe[el] = 0;
    static const char mark[] = "HDF5 library version: ";
    char *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return;
    const char *hit = memmem(map, (size_t)st.st_size, mark, sizeof mark - 1);
    char ver[32] = "";
    if (hit) {
        size_t k = 0;
        for (const char *v = hit + sizeof mark - 1; v < map + st.st_size && k + 1 < sizeof ver && (isdigit((unsigned char)*v) || *v == '.' || *v == '-'); v++)
            ver[k++] = *v;
        ver[k] = 0;
    }
    munmap(map, (size_t)st.st_size);
    if (!hit) return;
    snprintf(static_note, sizeof static_note,
             "%.300s carries HDF5 %s linked statically (plain h5pcc links libhdf5.a): the preload sees none of its HDF5 calls and "
             "neither explains nor protects them. Rebuild it with h5pcc -shlib, or link colldiag's wrappers in: make wrap, then "
             "h5pcc ... $(cat build/<mpi>/colldiag-wrap.flags) (docs/hdf5.md)", exe, ver[0] ? ver : "(version unknown)");
    cd_sum_unseen = static_note;
    fprintf(stderr, "colldiag: %s\n", static_note);
#endif
}

/* Under COLLDIAG_ACCELERATE, before MPI_Init reads its parameters: Open MPI 4.1.0-4.1.4's ompio returns
   zeros for part of a collective read whose ranks' requests overlap, through its read data sieving
   (colldiag.c, risk_read_stack: issue #10546, fixed in 4.1.5), HDF5's reads and colldiag's alike. The
   sieving off, those reads are right (tests/h5_defects.c, reads-overlap-collective; fuzz_h5's reads of
   "the same bytes, not the file's"); each aggregator then reads each request as it is. Not when the
   program's environment sets the parameter itself. */
static void mend_reads(void)
{
    const char *acc = getenv("COLLDIAG_ACCELERATE");
    if (acc && *acc && strcmp(acc, "0") && !getenv("OMPI_MCA_fbtl_posix_read_datasieving") && risk_read_stack())
        setenv("OMPI_MCA_fbtl_posix_read_datasieving", "0", 1);
}

int MPI_Init(int *argc, char ***argv)
{
    mend_reads();
    const int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) same_environment();
    if (rc == MPI_SUCCESS) keep_heap_warm();
    if (rc == MPI_SUCCESS) sum_arm();
    if (rc == MPI_SUCCESS) static_hdf5_check();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    mend_reads();
    const int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) same_environment();
    if (rc == MPI_SUCCESS) keep_heap_warm();
    if (rc == MPI_SUCCESS) sum_arm();
    if (rc == MPI_SUCCESS) static_hdf5_check();
    return rc;
}

/* The bridge caches a communicator and chunk addresses per file: dropped when the application closes it
   (H5Fclose is collective in parallel HDF5, as colldiag_h5_forget is for a file). */
herr_t CD_WRAP(H5Fclose)(hid_t file)
{
    static herr_t (*real_close)(hid_t);
    if (!real_close) real_close = (herr_t(*)(hid_t))CD_LOOKUP(H5Fclose);
    /* not colldiag's own closes of the ids it asks HDF5 for, and only the application's last reference */
    if (!cd_internal && (h5_files || h5_dsets || h5_n_md_files || h5_allocs)) {
        int refs = 0;
        H5E_BEGIN_TRY { refs = H5Iget_ref(file); } H5E_END_TRY; /* an id the program got wrong: HDF5's close says so */
        if (refs == 1) colldiag_h5_forget(file);
    }
    return real_close(file);
}

/* Whether a file's metadata reads are collective is read from the program's own access list when it
   opens the file (h5_note_file: asking HDF5 later copies the list, which duplicates its communicator). */
hid_t CD_WRAP(H5Fcreate)(const char *name, unsigned flags, hid_t fcpl, hid_t fapl)
{
    static hid_t (*real)(const char *, unsigned, hid_t, hid_t);
    if (!real) real = (hid_t(*)(const char *, unsigned, hid_t, hid_t))CD_LOOKUP(H5Fcreate);
    const hid_t f = real(name, flags, fcpl, fapl);
    if (!cd_internal) colldiag_h5_file_opened(f, fapl);
    return f;
}

hid_t CD_WRAP(H5Fopen)(const char *name, unsigned flags, hid_t fapl)
{
    static hid_t (*real)(const char *, unsigned, hid_t);
    if (!real) real = (hid_t(*)(const char *, unsigned, hid_t))CD_LOOKUP(H5Fopen);
    const hid_t f = real(name, flags, fapl);
    if (!cd_internal) colldiag_h5_file_opened(f, fapl);
    return f;
}

/* H5close closes every open file without H5Fclose, and HDF5 numbers ids and files from the start again
   after it: the bridge's dataset ids and file numbers would then name other objects. So everything the
   bridge cached goes first. (HDF5's own shutdown at exit runs no H5close call; there is nothing left to
   use the cache then.) */
herr_t CD_WRAP(H5close)(void)
{
    static herr_t (*real)(void);
    if (!real) real = (herr_t(*)(void))CD_LOOKUP(H5close);
    if (!cd_internal) h5_forget_files(NULL);
    h5_plist_gen++; /* the ids start again: a new list could have the remembered one's */
    sum_names_forget(); /* ... and the summary's names of datasets */
    return real();
}

/* Every change a program can make to what the bridge reads from a DXPL (h5_dxpl_rest in colldiag.c:
   the transfer mode, the chunk-opt settings, the data transform) passes through one of these, and each
   counts in h5_plist_gen: the bridge then reads a DXPL's settings once, not at every call, and again
   after any of them ran (on any list: a count, not a list of ids). Every call HDF5 runs is counted
   apart, in h5_hdf5_ran (HDF5 sets the actual-mode properties, never the settings): after an
   accelerated call the bridge sets them itself (h5_set_actual), and skips that when neither count
   moved since it last did with the same values. Its
   own four H5Pset of them are the only ones not counted. HDF5 runs each wrapped call unchanged. */
__attribute__((constructor)) static void watch_plists(void)
{
    h5_plist_watched = 1;
    h5_plan_lends = 1; /* every plan file here is closed inside the wrapper that made it */
}

#define FORWARD(ret, name, params, args)                                                                                              \
    ret CD_WRAP(name) params                                                                                                          \
    {                                                                                                                                 \
        static ret(*real) params;                                                                                                     \
        if (!real) real = (ret(*) params)CD_LOOKUP(name);                                                                     \
        h5_plist_gen++;                                                                                                               \
        return real args;                                                                                                             \
    }
FORWARD(herr_t, H5Pset_dxpl_mpio, (hid_t p, H5FD_mpio_xfer_t m), (p, m))
FORWARD(herr_t, H5Pset_dxpl_mpio_collective_opt, (hid_t p, H5FD_mpio_collective_opt_t m), (p, m))
FORWARD(herr_t, H5Pset_dxpl_mpio_chunk_opt, (hid_t p, H5FD_mpio_chunk_opt_t m), (p, m))
FORWARD(herr_t, H5Pset_dxpl_mpio_chunk_opt_num, (hid_t p, unsigned n), (p, n))
FORWARD(herr_t, H5Pset_dxpl_mpio_chunk_opt_ratio, (hid_t p, unsigned n), (p, n))
FORWARD(herr_t, H5Pset_data_transform, (hid_t p, const char *expr), (p, expr))
FORWARD(herr_t, H5Premove, (hid_t p, const char *name), (p, name))
FORWARD(herr_t, H5Pcopy_prop, (hid_t dst, hid_t src, const char *name), (dst, src, name))
#undef FORWARD

herr_t CD_WRAP(H5Pset)(hid_t p, const char *name, const void *value)
{
    static herr_t (*real)(hid_t, const char *, const void *);
    if (!real) real = (herr_t(*)(hid_t, const char *, const void *))CD_LOOKUP(H5Pset);
    static const char *const ours[] = {"actual_chunk_opt_mode", "actual_io_mode", "local_no_collective_cause", "global_no_collective_cause"};
    int counted = 1;
    for (size_t i = 0; cd_internal && name && i < sizeof ours / sizeof ours[0]; i++)
        if (!strcmp(name, ours[i])) counted = 0;
    h5_plist_gen += (unsigned long)counted;
    return real(p, name, value);
}

/* A shrink across a chunk marks the dataset's file (h5_shrunk_why in colldiag.c: HDF5 then runs its
   calls until the program flushes or closes it). The file's entry is made here if the bridge has none
   yet. Local. */
static void note_shrink(hid_t dset)
{
    h5_oid oi;
    h5_fentry *fe = NULL;
    H5E_BEGIN_TRY {
        if (h5_object_id(dset, &oi) >= 0) h5_bridge_file(dset, oi.fileno, 0, &fe, "H5Dset_extent");
    } H5E_END_TRY;
    if (fe) fe->shrunk = 1;
}

/* The bridge's cache knows a dataset by its object address and keeps its chunk addresses while its
   extent is unchanged. HDF5 gives a deleted object's address to the next object created, and a
   dataset shrunk and grown back has new chunks under the same extent (colldiag.h, colldiag_h5_forget):
   so a shrink forgets the dataset, and a deletion every dataset this process cached (a link can lead
   into a mounted file; deletions are rare, and the next call of each dataset finds its chunks again).
   Both after HDF5's own call, whose result is returned unchanged. A shrink that cuts a chunk also
   marks the file (note_shrink). */
herr_t CD_WRAP(H5Dset_extent)(hid_t dset, const hsize_t size[])
{
    static herr_t (*real)(hid_t, const hsize_t *);
    if (!real) real = (herr_t(*)(hid_t, const hsize_t *))CD_LOOKUP(H5Dset_extent);
    int shrinks = 0, cuts = 0, grows = 0;
    if (!cd_internal && size) {
        hsize_t old[H5S_MAX_RANK], ch[H5S_MAX_RANK];
        hid_t sp, dcpl;
        H5E_BEGIN_TRY { sp = H5Dget_space(dset); } H5E_END_TRY;
        const int r = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
        if (r > 0 && H5Sget_simple_extent_dims(sp, old, NULL) >= 0)
            for (int d = 0; d < r; d++) { shrinks |= size[d] < old[d]; grows |= size[d] > old[d]; }
        if (sp >= 0) H5Sclose(sp);
        if (shrinks) { /* rare: the chunk dims only then */
            H5E_BEGIN_TRY {
                dcpl = H5Dget_create_plist(dset);
                if (dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, r, ch) == r)
                    for (int d = 0; d < r; d++) cuts |= size[d] < old[d] && size[d] % ch[d];
                if (dcpl >= 0) H5Pclose(dcpl);
            } H5E_END_TRY;
        }
    }
    herr_t ret = real(dset, size);
    if ((shrinks || grows) && ret >= 0 && h5_dsets) h5_contig_forget(dset); /* asked again (HDF5 extends chunked datasets only) */
    if (shrinks && h5_dsets) colldiag_h5_forget(dset);
    if (cuts && ret >= 0) note_shrink(dset);
    if (grows && ret >= 0) colldiag_h5_extended(dset); /* new chunks, past the end until the next flush */
    return ret;
}

/* A dataset the program creates: under COLLDIAG_ACCELERATE the bridge learns its storage from the
   program's own creation list now (colldiag_h5_created), so that its first call need not copy the list
   back from HDF5; in any case whatever the bridge cached at the new dataset's address goes (it belonged
   to an object since deleted: an anonymous dataset closed, which no deletion wrapper sees). After
   HDF5's own call, whose result is returned unchanged. Every rank creates a dataset (H5Dcreate2 is
   collective) and has rank 0's COLLDIAG_ACCELERATE, so every rank asks HDF5 the same here: on a file
   with collective metadata reads, a query that misses HDF5's cache is a collective read. With the
   variable off, where this rank's cache may hold entries another's does not, nothing is asked: every
   cached dataset goes (entries are left only by an earlier accelerated stretch of the program). */
static void note_created(hid_t dset, hid_t dcpl, hid_t space)
{
    if (dset < 0 || cd_internal) return;
    const char *acc = cd_getenv("COLLDIAG_ACCELERATE");
    cd_internal++;
    /* explaining alone, a file whose metadata reads need every rank still needs the bridge's facts (its
       independent calls are planned from them: colldiag_h5_opened). Either way its storage lies past the
       end of the file until the next flush (created: as extended): colldiag_h5_created records that too,
       with the identity it asks anyway */
    if ((acc && *acc && strcmp(acc, "0")) || h5_reads_need_all_ranks(dset)) h5_created(dset, dcpl, space);
    else {
        colldiag_h5_extended(dset);
        if (h5_dsets) h5_forget_dsets(NULL, NULL);
    }
    cd_internal--;
}

/* Every rank opens a dataset of a file whose metadata reads are collective: the one moment its object
   header can be read by every rank together (colldiag_h5_opened; nothing on other files). */
static void note_opened(hid_t dset)
{
    if (dset < 0 || cd_internal) return;
    cd_internal++;
    colldiag_h5_opened(dset);
    cd_internal--;
}

hid_t CD_WRAP(H5Dopen2)(hid_t loc, const char *name, hid_t dapl)
{
    static hid_t (*real)(hid_t, const char *, hid_t);
    if (!real) real = (hid_t(*)(hid_t, const char *, hid_t))CD_LOOKUP(H5Dopen2);
    const hid_t d = real(loc, name, dapl);
    note_opened(d);
    return d;
}

/* netCDF-4 opens a file's variables with H5Oopen as it walks the file at nc_open (every rank) */
hid_t CD_WRAP(H5Oopen)(hid_t loc, const char *name, hid_t lapl)
{
    static hid_t (*real)(hid_t, const char *, hid_t);
    if (!real) real = (hid_t(*)(hid_t, const char *, hid_t))CD_LOOKUP(H5Oopen);
    const hid_t o = real(loc, name, lapl);
    if (o >= 0 && H5Iget_type(o) == H5I_DATASET) note_opened(o);
    return o;
}

#ifndef H5_NO_DEPRECATED_SYMBOLS
hid_t CD_WRAP(H5Dopen1)(hid_t loc, const char *name)
{
    static hid_t (*real)(hid_t, const char *);
    if (!real) real = (hid_t(*)(hid_t, const char *))CD_LOOKUP(H5Dopen1);
    const hid_t d = real(loc, name);
    note_opened(d);
    return d;
}
#endif

hid_t CD_WRAP(H5Dcreate2)(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl, hid_t dapl)
{
    static hid_t (*real)(hid_t, const char *, hid_t, hid_t, hid_t, hid_t, hid_t);
    if (!real) real = (hid_t(*)(hid_t, const char *, hid_t, hid_t, hid_t, hid_t, hid_t))CD_LOOKUP(H5Dcreate2);
    const hid_t d = real(loc, name, type, space, lcpl, dcpl, dapl);
    note_created(d, dcpl, space);
    return d;
}

hid_t CD_WRAP(H5Dcreate_anon)(hid_t loc, hid_t type, hid_t space, hid_t dcpl, hid_t dapl)
{
    static hid_t (*real)(hid_t, hid_t, hid_t, hid_t, hid_t);
    if (!real) real = (hid_t(*)(hid_t, hid_t, hid_t, hid_t, hid_t))CD_LOOKUP(H5Dcreate_anon);
    const hid_t d = real(loc, type, space, dcpl, dapl);
    note_created(d, dcpl, space);
    return d;
}

#ifndef H5_NO_DEPRECATED_SYMBOLS
hid_t CD_WRAP(H5Dcreate1)(hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl)
{
    static hid_t (*real)(hid_t, const char *, hid_t, hid_t, hid_t);
    if (!real) real = (hid_t(*)(hid_t, const char *, hid_t, hid_t, hid_t))CD_LOOKUP(H5Dcreate1);
    const hid_t d = real(loc, name, type, space, dcpl);
    note_created(d, dcpl, space);
    return d;
}
#endif

/* A flush writes HDF5's cached chunks, pruned ones too: calls on the file may run through colldiag again. */
herr_t CD_WRAP(H5Fflush)(hid_t obj, H5F_scope_t scope)
{
    static herr_t (*real)(hid_t, H5F_scope_t);
    if (!real) real = (herr_t(*)(hid_t, H5F_scope_t))CD_LOOKUP(H5Fflush);
    herr_t ret = real(obj, scope);
    if (ret >= 0 && !cd_internal) colldiag_h5_flushed(obj); /* the file now reaches HDF5's end of allocation */
    h5_oid oi;
    herr_t oe = -1;
    if (ret >= 0 && h5_files) H5E_BEGIN_TRY { oe = h5_object_id(obj, &oi); } H5E_END_TRY;
    for (h5_fentry *fe = oe >= 0 ? h5_files : NULL; fe; fe = fe->next)
        if (fe->fileno == oi.fileno) fe->shrunk = 0;
    return ret;
}

static void forget_all_datasets(void)
{
    if (!cd_internal) h5_forget_dsets(NULL, NULL);
}

herr_t CD_WRAP(H5Ldelete)(hid_t loc, const char *name, hid_t lapl)
{
    static herr_t (*real)(hid_t, const char *, hid_t);
    if (!real) real = (herr_t(*)(hid_t, const char *, hid_t))CD_LOOKUP(H5Ldelete);
    herr_t ret = real(loc, name, lapl);
    forget_all_datasets();
    return ret;
}

herr_t CD_WRAP(H5Ldelete_by_idx)(hid_t loc, const char *group, H5_index_t idx_type, H5_iter_order_t order, hsize_t n, hid_t lapl)
{
    static herr_t (*real)(hid_t, const char *, H5_index_t, H5_iter_order_t, hsize_t, hid_t);
    if (!real) real = (herr_t(*)(hid_t, const char *, H5_index_t, H5_iter_order_t, hsize_t, hid_t))CD_LOOKUP(H5Ldelete_by_idx);
    herr_t ret = real(loc, group, idx_type, order, n, lapl);
    forget_all_datasets();
    return ret;
}

/* Copies are new objects, possibly at the address of an anonymous dataset closed since (see
   note_created): the datasets cached go, as at a deletion. Rare. */
herr_t CD_WRAP(H5Ocopy)(hid_t src_loc, const char *src_name, hid_t dst_loc, const char *dst_name, hid_t ocpypl, hid_t lcpl)
{
    static herr_t (*real)(hid_t, const char *, hid_t, const char *, hid_t, hid_t);
    if (!real) real = (herr_t(*)(hid_t, const char *, hid_t, const char *, hid_t, hid_t))CD_LOOKUP(H5Ocopy);
    herr_t ret = real(src_loc, src_name, dst_loc, dst_name, ocpypl, lcpl);
    forget_all_datasets();
    return ret;
}

herr_t CD_WRAP(H5Odecr_refcount)(hid_t obj)
{
    static herr_t (*real)(hid_t);
    if (!real) real = (herr_t(*)(hid_t))CD_LOOKUP(H5Odecr_refcount);
    herr_t ret = real(obj);
    forget_all_datasets();
    return ret;
}

#ifndef H5_NO_DEPRECATED_SYMBOLS
herr_t CD_WRAP(H5Gunlink)(hid_t loc, const char *name)
{
    static herr_t (*real)(hid_t, const char *);
    if (!real) real = (herr_t(*)(hid_t, const char *))CD_LOOKUP(H5Gunlink);
    herr_t ret = real(loc, name);
    forget_all_datasets();
    return ret;
}
#endif

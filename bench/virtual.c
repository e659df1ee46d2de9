/* virtual — what one call costs each rank at 10^3 to 10^5 ranks, simulated in one process (issue 57).
 *
 *   make bench-virtual [VIRTUAL_P="1000 10000 100000"]      (mpirun -n 1 virtual P [P ...])
 *   environment: VIRTUAL_PATTERNS="B1,B3" VIRTUAL_SCHEMES="multi,aggregate" VIRTUAL_JOBS=2 (children at once)
 *
 * colldiag's own code runs for every one of P virtual ranks: colldiag.c is included below with its
 * collective MPI calls renamed to this file's vr_* functions, which answer as P ranks would. A call's
 * collectives are resolved one at a time (replay): to learn collective k, every virtual rank runs the
 * call in a forked child that answers collectives 0..k-1 from results already computed, sends its
 * arguments to collective k to this process through a pipe and exits; once every rank has sent them,
 * this process computes what each rank receives and goes on to k+1. A child whose call ends instead
 * sends what it measured. So the code measured is the code shipped and every answer is real: the
 * agreement reduces every rank's vector, the exchange routes every rank's chunk ids to their owners,
 * rank 0 gathers every rank's report. A rank that makes another collective than the others (in a real
 * run, a hang) stops the simulation, naming the ranks and the calls.
 *
 * Per rank and call (colldiag_plan, then the report's gather, colldiag_report_print to /dev/null):
 *   - local work: CPU time of the call outside the simulated collectives (they only copy answers);
 *   - memory: the high-water mark of colldiag's allocator during the call (MPI's own buffers aside);
 *   - messages and bytes sent, as the usual algorithms send them: allreduce, allgather(v) and barrier
 *     by recursive doubling (ceil(log2 P) messages; allreduce above 8 KiB Rabenseifner's 2 log2 P),
 *     bcast and gather by a binomial tree (a rank sends its subtree's data once), gatherv linearly,
 *     colldiag's sparse exchange (owners.c, NBX) one message a destination with data plus its
 *     non-blocking barrier's ceil(log2 P). (colldiag makes no MPI_Alltoall(v) any more.)
 * It prints, per pattern, scheme and P, the busiest rank's figure and rank 0's. The patterns are the
 * bench's B1-B4 (bench/bench.c), scaled so that a rank's own selection stays the same at any P:
 *   B1 rows:        {40 P, 1024} doubles in {16, 64} chunks, rank r rows [40 r, 40 r + 40): chunk rows
 *                   split between neighbours
 *   B2 tiny:        {256 g, 256 g} ints (g = ceil(sqrt P)) in 8 x 8 chunks, rank r one 64 x 64 block of
 *                   its own: about 10^6 chunks a thousand ranks, none shared
 *   B3 interleaved: {256, 4 P} ints in {32, 256} chunks, rank r the columns j = r (mod P): each chunk
 *                   shared by 256 ranks
 *   B4 slabs:       {12 P, 64, 64} ints in 8^3 chunks, rank r planes [12 r, 12 r + 12)
 * Only MPI_Init and a file opened on MPI_COMM_SELF are real (colldiag_file_wrap needs a file handle;
 * planning moves no data). Memory grows with the answers kept (the exchange's ids, rank 0's gather).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- colldiag's allocator, counted and tracked: live bytes and their peak, and every block tagged
   with the run (generation) that made it, so that a run left half-way (at the collective it hands over)
   gives back everything it allocated */
#include <setjmp.h>
typedef struct blk { struct blk *prev, *next; size_t n; uint64_t gen; } blk; /* 32 bytes: alignment kept */
static blk g_blocks = {&g_blocks, &g_blocks, 0, 0};
static size_t g_live, g_peak;
static uint64_t g_gen; /* 0 while setting up */
static void *ca_malloc(size_t n)
{
    blk *b = malloc(sizeof *b + n);
    if (!b) return NULL;
    b->n = n;
    b->gen = g_gen;
    b->next = g_blocks.next;
    b->prev = &g_blocks;
    g_blocks.next->prev = b;
    g_blocks.next = b;
    g_live += n;
    if (g_live > g_peak) g_peak = g_live;
    return b + 1;
}
static void *ca_calloc(size_t n, size_t s)
{
    void *p = ca_malloc(n * s);
    if (p) memset(p, 0, n * s);
    return p;
}
static void ca_free(void *q)
{
    if (!q) return;
    blk *b = (blk *)q - 1;
    b->prev->next = b->next;
    b->next->prev = b->prev;
    g_live -= b->n;
    free(b);
}
static void *ca_realloc(void *q, size_t n)
{
    if (!q) return ca_malloc(n);
    blk *b = (blk *)q - 1;
    void *r = ca_malloc(n);
    if (!r) return NULL;
    memcpy(r, q, b->n < n ? b->n : n);
    ((blk *)r - 1)->gen = b->gen;
    ca_free(q);
    return r;
}
/* frees every block of generation gen (a run's, whether it ended or was left at a collective) */
static void sweep(uint64_t gen)
{
    for (blk *b = g_blocks.next, *nx; b != &g_blocks; b = nx) {
        nx = b->next;
        if (b->gen == gen) ca_free(b + 1);
    }
}
#define COLLDIAG_MALLOC(n) ca_malloc(n)
#define COLLDIAG_CALLOC(n, s) ca_calloc((n), (s))
#define COLLDIAG_REALLOC(p, n) ca_realloc((p), (n))
#define COLLDIAG_FREE(p) ca_free(p)

/* ---- colldiag's collectives, renamed (mpi.h is already in: its prototypes keep their names) */
static int vr_comm_dup(MPI_Comm c, MPI_Comm *out);
static int vr_comm_free(MPI_Comm *c);
static int vr_comm_rank(MPI_Comm c, int *r);
static int vr_comm_size(MPI_Comm c, int *n);
static int vr_allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c);
static int vr_bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c);
static int vr_gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c);
static int vr_gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rc, const int *rd, MPI_Datatype rt, int root,
                      MPI_Comm c);
static int vr_allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c);
static int vr_allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rc, const int *rd, MPI_Datatype rt,
                         MPI_Comm c);
static int vr_barrier(MPI_Comm c);
static int vr_comm_split_type(MPI_Comm c, int type, int key, MPI_Info info, MPI_Comm *out);
#define MPI_Comm_split_type vr_comm_split_type
#define MPI_Comm_dup vr_comm_dup
#define MPI_Comm_free vr_comm_free
#define MPI_Comm_rank vr_comm_rank
#define MPI_Comm_size vr_comm_size
#define MPI_Allreduce vr_allreduce
#define MPI_Bcast vr_bcast
#define MPI_Gather vr_gather
#define MPI_Gatherv vr_gatherv
#define MPI_Allgather vr_allgather
#define MPI_Allgatherv vr_allgatherv
#define CD_SPX_EXCHANGE vr_spx_exchange /* colldiag's sparse exchange (owners.c), answered below */
#define MPI_Barrier vr_barrier
#include "../colldiag.c"
#undef MPI_Comm_dup
#undef MPI_Comm_free
#undef MPI_Comm_rank
#undef MPI_Comm_size
#undef MPI_Allreduce
#undef MPI_Bcast
#undef MPI_Gather
#undef MPI_Gatherv
#undef MPI_Allgather
#undef MPI_Allgatherv
#undef MPI_Barrier
#undef MPI_Comm_split_type

/* ---- the virtual world ------------------------------------------------------------------------- */
enum { K_ALLREDUCE, K_BCAST, K_GATHER, K_GATHERV, K_ALLGATHER, K_ALLGATHERV, K_SPARSE, K_BARRIER, K_DONE };
static const char *const kname[] = {"allreduce", "bcast", "gather", "gatherv", "allgather", "allgatherv", "sparse exchange",
                                    "barrier", "the call's end"};

static int g_P = 1, g_v = 0;              /* the virtual world's size, and the rank this process plays */
static MPI_Comm g_vcomm = MPI_COMM_NULL;  /* colldiag's duplicate of the virtual world (MPI_COMM_WORLD) */
static int g_self_mode = 1;               /* setting up (colldiag_file_wrap): every rank passes what this one does */
static int g_target = -1, g_ncoll = 0;    /* the collective to hand over (replay), the ones made so far */
static FILE *g_out;                       /* the worker's records, for this process's parent */
static jmp_buf g_jb;                      /* where a run left at its target collective comes back to */
static MPI_Op g_agree_op = MPI_OP_NULL;   /* colldiag's agreement operator (the file's) */
static uint64_t g_msgs, g_bytes;          /* this rank's messages and bytes sent, modelled */
static double g_coll_cpu;                 /* CPU seconds inside the simulated collectives */

static int is_virtual(MPI_Comm c) { return c == MPI_COMM_WORLD || (c != MPI_COMM_NULL && c == g_vcomm); }
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int ceil_log2(int p)
{
    int l = 0;
    while ((1 << l) < p) l++;
    return l;
}
static size_t tsize(MPI_Datatype t)
{
    int s = 0;
    PMPI_Type_size(t, &s);
    return (size_t)s;
}
static size_t textent(MPI_Datatype t)
{
    MPI_Aint lb = 0, ext = 0;
    PMPI_Type_get_extent(t, &lb, &ext);
    return (size_t)ext;
}
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "virtual: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fflush(stderr);
    _exit(2);
}

/* ---- what a rank hands over at a collective: a header, then its data ----------------------------- */
typedef struct {
    int kind, root, op, count; /* op: 0 colldiag's agreement, 1 MIN, 2 MAX, 3 SUM, 4 BOR, 5 BAND, 6 LOR, 7 LAND */
    int dt;                    /* 0 bytes, 1 int, 2 uint64, 3 double */
    int rank;                  /* the virtual rank that hands it over */
    uint64_t bytes;            /* payload bytes that follow */
    /* DONE: what the rank measured */
    double local_s, report_s;
    uint64_t mem, rmem, msgs, sent, rmsgs, rsent, chunks;
    int scheme;
} rec;

static void put(const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, g_out) != n) _exit(3);
}
static int op_code(MPI_Op op)
{
    if (op == g_agree_op) return 0;
    if (op == MPI_MIN) return 1;
    if (op == MPI_MAX) return 2;
    if (op == MPI_SUM) return 3;
    if (op == MPI_BOR) return 4;
    if (op == MPI_BAND) return 5;
    if (op == MPI_LOR) return 6;
    if (op == MPI_LAND) return 7;
    die("an operator this simulation does not know");
}
static int dt_code(MPI_Datatype t)
{
    if (t == MPI_INT) return 1;
    if (t == MPI_UINT64_T || t == MPI_UNSIGNED_LONG || t == MPI_UNSIGNED_LONG_LONG) return 2;
    if (t == MPI_DOUBLE) return 3;
    return 0;
}

/* ---- the answers, kept in this process for every collective resolved so far (children inherit them) */
typedef struct { int src; uint32_t n; size_t off; } piece; /* the sparse exchange: n bytes from src at off in data */
typedef struct {
    int kind;
    unsigned char *shared; /* the same for every rank: allreduce, bcast, allgather(v); gather(v): the root's */
    size_t shared_n;
    /* the sparse exchange: what each rank receives (only sources with data) */
    uint64_t *first; /* P + 1 offsets into pcs */
    piece *pcs;
    unsigned char *data;
} answer;
static answer *g_ans;
static int g_nans;

/* ---- the message model (see the top) ---------------------------------------------------------- */
static void count_rd(uint64_t bytes_each) /* recursive doubling, bytes_each a message */
{
    g_msgs += (uint64_t)ceil_log2(g_P);
    g_bytes += (uint64_t)ceil_log2(g_P) * bytes_each;
}
static int binomial_children(int rel) /* ranks a binomial tree's rank rel (0 the root) sends to */
{
    int n = 0;
    for (int m = 1; m < g_P; m <<= 1) {
        if (rel & m) break;
        if (rel + m < g_P) n++;
    }
    return n;
}
static int binomial_subtree(int rel) /* ranks under rel, itself included */
{
    int m = 1;
    while (m < g_P && !(rel & m)) m <<= 1;
    int end = rel + m;
    return (end > g_P ? g_P : end) - rel;
}

/* ---- a collective in a child: answered (before the target), handed over (the target) ------------ */
static const answer *enter(int kind, double *t0)
{
    *t0 = cpu_now();
    const int i = g_ncoll++;
    if (i < g_nans) {
        if (g_ans[i].kind != kind) die("rank %d makes %s as its collective %d, rank 0 made %s", g_v, kname[kind], i, kname[g_ans[i].kind]);
        return &g_ans[i];
    }
    if (i != g_target) die("rank %d ran past collective %d", g_v, g_target);
    return NULL;
}
static void hand_over(rec *h, const void *a, size_t an, const void *b, size_t bn)
{
    h->rank = g_v;
    h->bytes = an + bn;
    put(h, sizeof *h);
    put(a, an);
    put(b, bn);
    longjmp(g_jb, 1);
}
static int leave(double t0)
{
    g_coll_cpu += cpu_now() - t0;
    return MPI_SUCCESS;
}

static int vr_comm_dup(MPI_Comm c, MPI_Comm *out)
{
    if (!is_virtual(c)) return PMPI_Comm_dup(c, out);
    int rc = PMPI_Comm_dup(MPI_COMM_SELF, out);
    g_vcomm = *out;
    return rc;
}
static int vr_comm_free(MPI_Comm *c) { return PMPI_Comm_free(c); }
/* Virtual ranks have no nodes: the split gives none, and colldiag counts no bytes crossing nodes (plans
   never exchange data anyway) */
static int vr_comm_split_type(MPI_Comm c, int type, int key, MPI_Info info, MPI_Comm *out)
{
    if (!is_virtual(c)) return PMPI_Comm_split_type(c, type, key, info, out);
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
static int vr_comm_rank(MPI_Comm c, int *r)
{
    if (!is_virtual(c)) return PMPI_Comm_rank(c, r);
    *r = g_v;
    return MPI_SUCCESS;
}
static int vr_comm_size(MPI_Comm c, int *n)
{
    if (!is_virtual(c)) return PMPI_Comm_size(c, n);
    *n = g_P;
    return MPI_SUCCESS;
}

static int vr_allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    if (!is_virtual(c)) return PMPI_Allreduce(s, r, n, t, op, c);
    const size_t nb = (size_t)n * tsize(t);
    if (s == MPI_IN_PLACE) s = r;
    if (g_self_mode) { /* every rank alike: MIN, MAX, BOR, BAND, LOR and LAND of equal values are the value */
        if (op == MPI_SUM && t == MPI_INT) { /* a sum of equal ints (file_nodes: how many nodes) is P of them */
            int *ri = r;
            const int *si = s;
            for (int i = 0; i < n; i++) ri[i] = si[i] * g_P;
            return MPI_SUCCESS;
        }
        if (op == MPI_SUM) die("a sum while setting up");
        if (s != r) memcpy(r, s, nb);
        return MPI_SUCCESS;
    }
    double t0;
    const answer *a = enter(K_ALLREDUCE, &t0);
    if (!a) {
        rec h = {.kind = K_ALLREDUCE, .op = op_code(op), .count = n, .dt = dt_code(t)};
        hand_over(&h, s, nb, NULL, 0);
    }
    if (a->shared_n != nb) die("rank %d reduces %zu bytes, rank 0 %zu", g_v, nb, a->shared_n);
    memcpy(r, a->shared, nb);
    if (nb <= 8192) count_rd(nb);
    else {
        g_msgs += 2 * (uint64_t)ceil_log2(g_P);
        g_bytes += 2 * (uint64_t)nb * (uint64_t)(g_P - 1) / (uint64_t)g_P;
    }
    return leave(t0);
}
static int vr_bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    if (!is_virtual(c)) return PMPI_Bcast(b, n, t, root, c);
    if (g_self_mode) return MPI_SUCCESS;
    const size_t nb = (size_t)n * tsize(t);
    double t0;
    const answer *a = enter(K_BCAST, &t0);
    if (!a) {
        rec h = {.kind = K_BCAST, .root = root, .count = n};
        hand_over(&h, g_v == root ? b : NULL, g_v == root ? nb : 0, NULL, 0);
    }
    if (a->shared_n != nb) die("rank %d broadcasts %zu bytes, the root %zu", g_v, nb, a->shared_n);
    memcpy(b, a->shared, nb);
    const int kids = binomial_children((g_v - root + g_P) % g_P);
    g_msgs += (uint64_t)kids;
    g_bytes += (uint64_t)kids * nb;
    return leave(t0);
}
static int vr_gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c)
{
    if (!is_virtual(c)) return PMPI_Gather(s, sn, st, r, rn, rt, root, c);
    if (g_self_mode) die("a gather while setting up");
    const size_t nb = (size_t)sn * tsize(st);
    double t0;
    const answer *a = enter(K_GATHER, &t0);
    if (!a) {
        rec h = {.kind = K_GATHER, .root = root, .count = sn};
        hand_over(&h, s, nb, NULL, 0);
    }
    if (g_v == root) {
        if (a->shared_n != (size_t)g_P * (size_t)rn * tsize(rt)) die("the root gathers a size the ranks did not send");
        memcpy(r, a->shared, a->shared_n);
    }
    const int rel = (g_v - root + g_P) % g_P;
    if (rel) {
        g_msgs++;
        g_bytes += (uint64_t)binomial_subtree(rel) * nb;
    }
    return leave(t0);
}
static int vr_gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rc, const int *rd, MPI_Datatype rt, int root,
                      MPI_Comm c)
{
    if (!is_virtual(c)) return PMPI_Gatherv(s, sn, st, r, rc, rd, rt, root, c);
    if (g_self_mode) die("a gatherv while setting up");
    const size_t nb = (size_t)sn * tsize(st);
    double t0;
    const answer *a = enter(K_GATHERV, &t0);
    if (!a) {
        rec h = {.kind = K_GATHERV, .root = root, .count = sn};
        hand_over(&h, s, nb, NULL, 0);
    }
    if (g_v == root) { /* the answer holds every rank's bytes in rank order, each count before its bytes */
        const unsigned char *p = a->shared;
        const size_t ext = textent(rt);
        for (int q = 0; q < g_P; q++) {
            uint64_t n;
            memcpy(&n, p, 8);
            p += 8;
            if (n != (uint64_t)rc[q] * tsize(rt)) die("rank %d sends the root %llu bytes, the root expects %zu", q, (unsigned long long)n, (size_t)rc[q] * tsize(rt));
            memcpy((char *)r + (size_t)rd[q] * ext, p, n);
            p += n;
        }
    } else if (nb) {
        g_msgs++;
        g_bytes += nb;
    }
    return leave(t0);
}
static int vr_allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
    if (!is_virtual(c)) return PMPI_Allgather(s, sn, st, r, rn, rt, c);
    const size_t nb = (size_t)sn * tsize(st);
    if (g_self_mode) die("an allgather while setting up");
    double t0;
    const answer *a = enter(K_ALLGATHER, &t0);
    if (!a) {
        rec h = {.kind = K_ALLGATHER, .count = sn};
        hand_over(&h, s, nb, NULL, 0);
    }
    if (rn && a->shared_n != (size_t)g_P * (size_t)rn * tsize(rt)) die("an allgather of sizes that differ between ranks");
    if (rn) memcpy(r, a->shared, a->shared_n);
    g_msgs += (uint64_t)ceil_log2(g_P);
    g_bytes += (uint64_t)(g_P - 1) * nb;
    return leave(t0);
}
static int vr_allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rc, const int *rd, MPI_Datatype rt,
                         MPI_Comm c)
{
    if (!is_virtual(c)) return PMPI_Allgatherv(s, sn, st, r, rc, rd, rt, c);
    if (g_self_mode) die("an allgatherv while setting up");
    const size_t nb = (size_t)sn * tsize(st);
    double t0;
    const answer *a = enter(K_ALLGATHERV, &t0);
    if (!a) {
        rec h = {.kind = K_ALLGATHERV, .count = sn};
        hand_over(&h, s, nb, NULL, 0);
    }
    const unsigned char *p = a->shared;
    const size_t ext = textent(rt);
    uint64_t total = 0;
    for (int q = 0; q < g_P; q++) {
        uint64_t n;
        memcpy(&n, p, 8);
        p += 8;
        if (n != (uint64_t)rc[q] * tsize(rt)) die("allgatherv: rank %d sends %llu bytes, rank %d expects %zu", q, (unsigned long long)n, g_v, (size_t)rc[q] * tsize(rt));
        memcpy((char *)r + (size_t)rd[q] * ext, p, n);
        p += n;
        total += n;
    }
    g_msgs += (uint64_t)ceil_log2(g_P);
    g_bytes += total - nb;
    return leave(t0);
}
/* colldiag's sparse exchange (owners.c, NBX): every rank's destinations handed over as (destination,
   bytes, data); what a rank receives comes back as the exchange returns it (sources ascending), in
   colldiag's allocator. Messages as NBX sends them: one a destination other than itself (fragments
   aside), and the non-blocking barrier's ceil(log2 P) (a dissemination barrier). */
static int vr_spx_exchange(MPI_Comm c, int tag, int nd, const int *dest, const uint64_t *cnt, const uint64_t *dsp,
                           const uint64_t *sbuf, cd_spx *in, int *lost)
{
    (void)tag;
    memset(in, 0, sizeof *in);
    *lost = 0;
    if (!is_virtual(c)) die("a sparse exchange on another communicator");
    if (g_self_mode) die("a sparse exchange while setting up");
    double t0;
    const answer *a = enter(K_SPARSE, &t0);
    if (!a) {
        size_t nb = 0;
        uint32_t k = 0;
        for (int i = 0; i < nd; i++)
            if (cnt[i]) { nb += (size_t)cnt[i] * 8; k++; }
        rec h = {.kind = K_SPARSE, .count = (int)k, .rank = g_v, .bytes = nb + (size_t)k * 8};
        put(&h, sizeof h);
        for (int i = 0; i < nd; i++) {
            if (!cnt[i]) continue;
            uint32_t hdr[2] = {(uint32_t)dest[i], (uint32_t)(cnt[i] * 8)};
            put(hdr, 8);
            put(sbuf + dsp[i], (size_t)cnt[i] * 8);
        }
        longjmp(g_jb, 1);
    }
    const int ns = (int)(a->first[g_v + 1] - a->first[g_v]);
    uint64_t words = 0;
    for (uint64_t i = a->first[g_v]; i < a->first[g_v + 1]; i++) words += a->pcs[i].n / 8;
    if (ns) {
        in->src = cd_malloc((size_t)ns * sizeof *in->src);
        in->cnt = cd_malloc((size_t)ns * sizeof *in->cnt);
        in->dsp = cd_malloc((size_t)ns * sizeof *in->dsp);
        in->buf = cd_malloc((size_t)(words ? words : 1) * sizeof *in->buf);
        if (!in->src || !in->cnt || !in->dsp || !in->buf) die("rank %d: out of memory in the sparse exchange", g_v);
        uint64_t w = 0;
        for (uint64_t i = a->first[g_v]; i < a->first[g_v + 1]; i++) {
            const piece *pc = &a->pcs[i];
            in->src[in->n] = pc->src;
            in->dsp[in->n] = w;
            in->cnt[in->n++] = pc->n / 8;
            memcpy(in->buf + w, a->data + pc->off, pc->n);
            w += pc->n / 8;
        }
    }
    for (int i = 0; i < nd; i++)
        if (dest[i] != g_v && cnt[i]) {
            g_msgs += (cnt[i] + SPX_FRAG - 1) / SPX_FRAG;
            g_bytes += cnt[i] * 8;
        }
    g_msgs += (uint64_t)ceil_log2(g_P);
    return leave(t0);
}
static int vr_barrier(MPI_Comm c)
{
    if (!is_virtual(c)) return PMPI_Barrier(c);
    if (g_self_mode) return MPI_SUCCESS;
    double t0;
    const answer *a = enter(K_BARRIER, &t0);
    if (!a) {
        rec h = {.kind = K_BARRIER};
        hand_over(&h, NULL, 0, NULL, 0);
    }
    count_rd(0);
    return leave(t0);
}

/* ---- combining what the ranks handed over into every rank's answer (this process) ---------------- */
static void reduce_into(unsigned char *acc, const unsigned char *in, const rec *h, MPI_Datatype agree_t)
{
    const int n = h->count;
    if (h->op == 0) {
        int len = n;
        MPI_Datatype t = agree_t;
        cd_agree_fn((void *)in, acc, &len, &t);
        return;
    }
#define RED(T)                                                                  \
    do {                                                                        \
        T *y = (T *)acc;                                                        \
        const T *x = (const T *)in;                                             \
        for (int i = 0; i < n; i++) switch (h->op) {                            \
            case 1: if (x[i] < y[i]) y[i] = x[i]; break;                        \
            case 2: if (x[i] > y[i]) y[i] = x[i]; break;                        \
            case 3: y[i] += x[i]; break;                                        \
            case 6: y[i] = y[i] || x[i]; break;                                 \
            case 7: y[i] = y[i] && x[i]; break;                                 \
            default: die("a bitwise operator on doubles");                      \
            }                                                                   \
    } while (0)
#define REDI(T)                                                                 \
    do {                                                                        \
        T *y = (T *)acc;                                                        \
        const T *x = (const T *)in;                                             \
        for (int i = 0; i < n; i++) switch (h->op) {                            \
            case 1: if (x[i] < y[i]) y[i] = x[i]; break;                        \
            case 2: if (x[i] > y[i]) y[i] = x[i]; break;                        \
            case 3: y[i] += x[i]; break;                                        \
            case 4: y[i] |= x[i]; break;                                        \
            case 5: y[i] &= x[i]; break;                                        \
            case 6: y[i] = y[i] || x[i]; break;                                 \
            case 7: y[i] = y[i] && x[i]; break;                                 \
            }                                                                   \
    } while (0)
    if (h->dt == 1) REDI(int);
    else if (h->dt == 2) REDI(uint64_t);
    else if (h->dt == 3) RED(double);
    else die("a reduction of a type this simulation does not know");
#undef RED
#undef REDI
}

/* One collective's arguments from every rank, as the children hand them over, combined into answers. */
typedef struct {
    int kind, root, count, op, dt;
    unsigned char *acc; /* allreduce */
    size_t acc_n;
    unsigned char *cat; /* gather(v), allgather(v): every rank's bytes in rank order ((v): each after its count) */
    size_t cat_n, cat_cap;
    /* the sparse exchange: every piece as (src, dst, n, data), routed once all are in */
    struct { int src, dst; uint32_t n; size_t off; } *pt;
    size_t npt, cap_pt;
    unsigned char *pdata;
    size_t pdata_n, pdata_cap;
    int done; /* ranks whose call ended instead */
} gathering;

static void grow(unsigned char **b, size_t *cap, size_t need)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    *b = realloc(*b, c);
    if (!*b) die("out of memory keeping %zu bytes of answers", need);
    *cap = c;
}

/* ---- one call, every rank: the measurements ---------------------------------------------------- */
typedef struct { double local_s, report_s; uint64_t mem, rmem, msgs, sent, rmsgs, rsent, chunks; int scheme; } meas;

typedef struct {
    const char *name;
    int nd;
    uint64_t dims[3], cd[3];
    size_t elem;
} pattern;

static void pattern_for(const char *pname, int P, pattern *pt)
{
    memset(pt, 0, sizeof *pt);
    pt->name = pname;
    if (!strcmp(pname, "B1")) {
        *pt = (pattern){pname, 2, {40 * (uint64_t)P, 1024}, {16, 64}, 8};
    } else if (!strcmp(pname, "B2")) {
        uint64_t g = 1;
        while (g * g < (uint64_t)P) g++;
        *pt = (pattern){pname, 2, {256 * g, 256 * g}, {8, 8}, 4};
    } else if (!strcmp(pname, "B3")) {
        *pt = (pattern){pname, 2, {256, 4 * (uint64_t)P}, {32, 256}, 4};
    } else {
        *pt = (pattern){pname, 3, {12 * (uint64_t)P, 64, 64}, {8, 8, 8}, 4};
    }
}
static void select_for(const pattern *pt, int v, int P, colldiag_sel *s)
{
    if (!strcmp(pt->name, "B1")) {
        uint64_t st[2] = {40 * (uint64_t)v, 0}, cn[2] = {40, 1024};
        colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    } else if (!strcmp(pt->name, "B2")) {
        uint64_t g = pt->dims[0] / 256;
        uint64_t st[2] = {256 * ((uint64_t)v / g) + 96, 256 * ((uint64_t)v % g) + 96}, cn[2] = {64, 64};
        colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    } else if (!strcmp(pt->name, "B3")) {
        uint64_t st[2] = {0, (uint64_t)v}, sd[2] = {1, (uint64_t)P}, cn[2] = {256, 4}, bl[2] = {1, 1};
        colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, sd, cn, bl);
    } else {
        uint64_t st[3] = {12 * (uint64_t)v, 0, 0}, cn[3] = {12, 64, 64};
        colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    }
}

static colldiag_file *g_f;
static FILE *g_devnull;

/* One virtual rank's call, up to collective g_target (hand_over jumps back to the worker) or to its end. */
static void rank_run(const pattern *pt, int opt)
{
    g_f->rank = g_v;
    colldiag_layout *l = NULL;
    colldiag_sel *s = NULL;
    colldiag_xfer *x = NULL;
    if (colldiag_layout_chunked(pt->nd, pt->dims, pt->cd, pt->elem, 0, &l) || colldiag_sel_create(pt->nd, pt->dims, &s) ||
        colldiag_xfer_create(&x))
        die("rank %d: %s", g_v, colldiag_last_errmsg());
    select_for(pt, g_v, g_P, s);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)opt);
    const size_t live0 = g_live;
    g_peak = g_live;
    g_msgs = g_bytes = 0;
    g_coll_cpu = 0;
    double c0 = cpu_now();
    if (colldiag_plan(g_f, l, s, NULL, x)) die("rank %d: colldiag_plan: %s", g_v, colldiag_xfer_errmsg(x));
    const double plan_s = cpu_now() - c0 - g_coll_cpu;
    const double cr = g_coll_cpu;
    const uint64_t plan_msgs = g_msgs, plan_sent = g_bytes;
    const size_t plan_mem = g_peak - live0, live1 = g_live;
    g_peak = g_live;
    double c1 = cpu_now();
    if (colldiag_report_print(g_f, x, g_devnull)) die("rank %d: the report: %s", g_v, colldiag_last_errmsg());
    const double rep_s = cpu_now() - c1 - (g_coll_cpu - cr);
    colldiag_actual_chunk_opt_mode_t mode = 0;
    colldiag_get_mpio_actual_chunk_opt_mode(x, &mode);
    uint64_t nch = 0;
    const colldiag_chunk_info *ci = NULL;
    colldiag_get_chunk_info(x, &nch, &ci);
    rec h = {.kind = K_DONE, .rank = g_v, .local_s = plan_s, .report_s = rep_s, .mem = plan_mem, .rmem = g_peak - live1,
             .msgs = plan_msgs, .sent = plan_sent, .rmsgs = g_msgs - plan_msgs, .rsent = g_bytes - plan_sent, .chunks = nch,
             .scheme = (int)mode};
    put(&h, sizeof h);
    colldiag_xfer_free(x);
    colldiag_sel_free(s);
    colldiag_layout_free(l);
}

/* rank_run, come back from wherever it stops (its own function: nothing of it changes after setjmp) */
static void run_one(const pattern *pt, int opt)
{
    if (setjmp(g_jb) == 0) rank_run(pt, opt);
}

/* A worker: virtual ranks [lo, hi) one after the other, each up to collective k, its records to out. A
   run left at its collective comes back here by longjmp; whatever it allocated is swept, the file's
   struct restored. The worker ends with the phase, and with it anything else a run left behind. */
static void worker(const pattern *pt, int opt, int k, int lo, int hi, FILE *out)
{
    g_out = out;
    g_target = k;
    g_self_mode = 0;
    const colldiag_file keep = *g_f;
    for (int v = lo; v < hi; v++) {
        g_v = v;
        g_ncoll = 0;
        const uint64_t gen = ++g_gen;
        run_one(pt, opt);
        g_gen = 0;
        sweep(gen);
        *g_f = keep;
        /* AUTO's measured groups (measure.c) were the run's allocations, swept: each virtual rank is a
           process of its own, with nothing measured yet (left linked, the next run's list ran in a cycle) */
        cd_groups = NULL;
    }
    if (fflush(out)) _exit(3);
    _exit(0);
}

static int g_jobs = 2;

/* Collective k (or the end) from every rank: VIRTUAL_JOBS workers each run a block of ranks into a file
   of its own; their records are then read in rank order. Returns 1 when every call ended (ms filled), 0
   when collective k is now answered, and stops the simulation when the ranks disagree. */
static int resolve(const pattern *pt, int opt, int k, meas *ms)
{
    gathering g;
    memset(&g, 0, sizeof g);
    g.kind = -1;
    const int W = g_jobs < g_P ? g_jobs : g_P;
    FILE **in = malloc(sizeof(FILE *) * (size_t)W);
    pid_t *pids = malloc(sizeof(pid_t) * (size_t)W);
    for (int w = 0; w < W; w++) {
        in[w] = tmpfile();
        if (!in[w]) die("tmpfile: %s", strerror(errno));
        fflush(NULL);
        pids[w] = fork();
        if (pids[w] < 0) die("fork: %s", strerror(errno));
        if (pids[w] == 0) worker(pt, opt, k, (int)((int64_t)g_P * w / W), (int)((int64_t)g_P * (w + 1) / W), in[w]);
    }
    for (int w = 0; w < W; w++) {
        int st = 0;
        if (waitpid(pids[w], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            die("worker %d (ranks %d..%d) ended badly (status %d)", w, (int)((int64_t)g_P * w / W), (int)((int64_t)g_P * (w + 1) / W) - 1, st);
        rewind(in[w]);
    }
    int w = 0;
    for (int v = 0; v < g_P; v++) {
        while (w < W - 1 && v >= (int)((int64_t)g_P * (w + 1) / W)) w++;
        rec h;
        if (fread(&h, sizeof h, 1, in[w]) != 1) die("rank %d left no record (see above)", v);
        if (h.rank != v) die("rank %d's record came where rank %d's belongs", h.rank, v);
        if (h.kind == K_DONE) {
            ms[v] = (meas){h.local_s, h.report_s, h.mem, h.rmem, h.msgs, h.sent, h.rmsgs, h.rsent, h.chunks, h.scheme};
            g.done++;
        } else {
            if (g.kind < 0) { g.kind = h.kind; g.root = h.root; g.count = h.count; g.op = h.op; g.dt = h.dt; }
            if (h.kind != g.kind) die("collective %d: rank %d makes %s, rank 0 %s", k, v, kname[h.kind], kname[g.kind]);
            if (h.kind == K_BCAST || h.kind == K_GATHER || h.kind == K_GATHERV) {
                if (h.root != g.root) die("collective %d (%s): rank %d names root %d, rank 0 %d", k, kname[h.kind], v, h.root, g.root);
            }
            unsigned char *data = h.bytes ? malloc(h.bytes) : NULL;
            if (h.bytes && fread(data, 1, h.bytes, in[w]) != h.bytes) die("rank %d's data was cut short", v);
            switch (h.kind) {
            case K_ALLREDUCE:
                if (h.op != g.op || h.count != g.count) die("collective %d (allreduce): rank %d reduces %d items with operator %d, rank 0 %d with %d", k, v, h.count, h.op, g.count, g.op);
                if (!g.acc) { g.acc = data; g.acc_n = h.bytes; data = NULL; }
                else reduce_into(g.acc, data, &h, MPI_UINT64_T);
                break;
            case K_BCAST:
                if (v == g.root) { g.acc = data; g.acc_n = h.bytes; data = NULL; }
                break;
            case K_GATHER: case K_ALLGATHER:
                grow(&g.cat, &g.cat_cap, g.cat_n + h.bytes);
                if (h.bytes) memcpy(g.cat + g.cat_n, data, h.bytes);
                g.cat_n += h.bytes;
                break;
            case K_GATHERV: case K_ALLGATHERV: {
                grow(&g.cat, &g.cat_cap, g.cat_n + 8 + h.bytes);
                uint64_t n = h.bytes;
                memcpy(g.cat + g.cat_n, &n, 8);
                if (h.bytes) memcpy(g.cat + g.cat_n + 8, data, h.bytes);
                g.cat_n += 8 + h.bytes;
                break;
            }
            case K_SPARSE: {
                const unsigned char *p = data;
                for (int i = 0; i < h.count; i++) {
                    uint32_t hd[2];
                    memcpy(hd, p, 8);
                    p += 8;
                    if (g.npt == g.cap_pt) {
                        g.cap_pt = g.cap_pt ? 2 * g.cap_pt : 1024;
                        g.pt = realloc(g.pt, g.cap_pt * sizeof *g.pt);
                    }
                    grow(&g.pdata, &g.pdata_cap, g.pdata_n + hd[1]);
                    memcpy(g.pdata + g.pdata_n, p, hd[1]);
                    g.pt[g.npt].src = v;
                    g.pt[g.npt].dst = (int)hd[0];
                    g.pt[g.npt].n = hd[1];
                    g.pt[g.npt].off = g.pdata_n;
                    g.npt++;
                    g.pdata_n += hd[1];
                    p += hd[1];
                }
                break;
            }
            case K_BARRIER: break;
            default: die("collective %d: an unknown kind", k);
            }
            free(data);
        }
    }
    for (int q = 0; q < W; q++) fclose(in[q]);
    free(in);
    free(pids);
    if (g.done == g_P) return 1;
    if (g.done) die("collective %d: %d ranks' calls ended, the others make %s (a hang in a real run)", k, g.done, kname[g.kind]);
    /* the answer every rank will read from now on */
    g_ans = realloc(g_ans, sizeof *g_ans * (size_t)(g_nans + 1));
    answer *a = &g_ans[g_nans++];
    memset(a, 0, sizeof *a);
    a->kind = g.kind;
    if (g.kind == K_ALLREDUCE || g.kind == K_BCAST) {
        a->shared = g.acc;
        a->shared_n = g.acc_n;
    } else if (g.kind == K_GATHER || g.kind == K_ALLGATHER || g.kind == K_GATHERV || g.kind == K_ALLGATHERV) {
        a->shared = g.cat;
        a->shared_n = g.cat_n;
    } else if (g.kind == K_SPARSE) {
        /* route: pieces sorted by destination, then source (counting sort over destinations) */
        a->first = calloc((size_t)g_P + 1, sizeof *a->first);
        for (size_t i = 0; i < g.npt; i++) a->first[g.pt[i].dst + 1]++;
        for (int d = 0; d < g_P; d++) a->first[d + 1] += a->first[d];
        uint64_t *at = malloc(sizeof *at * (size_t)g_P);
        memcpy(at, a->first, sizeof *at * (size_t)g_P);
        a->pcs = malloc(sizeof *a->pcs * (g.npt ? g.npt : 1));
        for (size_t i = 0; i < g.npt; i++) a->pcs[at[g.pt[i].dst]++] = (piece){g.pt[i].src, g.pt[i].n, g.pt[i].off};
        free(at);
        a->data = g.pdata;
        free(g.pt);
    }
    return 0;
}

static void forget_answers(void)
{
    for (int i = 0; i < g_nans; i++) {
        free(g_ans[i].shared);
        free(g_ans[i].first);
        free(g_ans[i].pcs);
        free(g_ans[i].data);
    }
    free(g_ans);
    g_ans = NULL;
    g_nans = 0;
}

static const char *mode_name(int m)
{
    switch (m) {
    case COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION: return "none";
    case COLLDIAG_MPIO_LINK_CHUNK: return "link";
    case COLLDIAG_MPIO_MULTI_CHUNK: return "multi";
    case COLLDIAG_MPIO_ALL_CHUNK_IND: return "ind";
    case COLLDIAG_MPIO_CHUNK_AGGREGATE: return "aggr";
    default: return "other";
    }
}

static int want(const char *list, const char *name)
{
    if (!list || !*list) return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* AUTO's model is what this program checks (tests/test_auto.c checks its measurements): the
       measured choice of a pattern's later calls follows the machine's timings */
    if (!getenv("COLLDIAG_AUTO_MODE")) setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
    int real = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &real);
    if (real != 1) {
        fprintf(stderr, "virtual: run it as one process (mpirun -n 1): the ranks are virtual\n");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsetenv("COLLDIAG_REPORT");
    signal(SIGPIPE, SIG_IGN);
    const char *j = getenv("VIRTUAL_JOBS");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    g_jobs = j && atoi(j) > 0 ? atoi(j) : cores > 0 ? (int)cores : 1;
    g_devnull = fopen("/dev/null", "w");
    const char *pats = getenv("VIRTUAL_PATTERNS"), *schs = getenv("VIRTUAL_SCHEMES");
    static const char *const pnames[] = {"B1", "B2", "B3", "B4"};
    static const char *const snames[] = {"link", "multi", "aggregate", "auto"};
    static const int sopt[] = {COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO,
                               COLLDIAG_MPIO_CHUNK_AUTO};
    char path[256];
    snprintf(path, sizeof path, "/tmp/colldiag_virtual_%d.bin", (int)getpid());
    MPI_File fh;
    if (PMPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh))
        die("cannot open %s", path);
    printf("# colldiag_plan then the report's gather (colldiag_report_print), P virtual ranks (bench/virtual.c); per rank and call:\n"
           "# chunks touched, local work (the busiest rank's CPU time outside MPI), memory colldiag allocates (its high-water mark),\n"
           "# messages and KiB sent (modelled); the report's own work and memory on rank 0, which gathers it\n");
    printf("%-3s %-11s %7s %6s %9s %9s %8s %9s %10s %10s %9s %7s\n", "pat", "scheme", "P", "chunks", "local us", "mem KiB", "msgs",
           "sent KiB", "report us", "rep KiB", "rep others", "sim s");
    for (int ai = 1; ai < argc; ai++) {
        const int P = atoi(argv[ai]);
        if (P < 1) die("P must be a positive number, not %s", argv[ai]);
        g_P = P;
        g_v = 0;
        g_self_mode = 1;
        if (colldiag_file_wrap(MPI_COMM_WORLD, fh, &g_f)) die("colldiag_file_wrap: %s", colldiag_last_errmsg());
        g_agree_op = g_f->op;
        meas *ms = calloc((size_t)P, sizeof *ms);
        for (int pi = 0; pi < 4; pi++) {
            if (!want(pats, pnames[pi])) continue;
            pattern pt;
            pattern_for(pnames[pi], P, &pt);
            for (int si = 0; si < 4; si++) {
                if (!want(schs, snames[si])) continue;
                struct timespec w0, w1;
                clock_gettime(CLOCK_MONOTONIC, &w0);
                int k = 0;
                while (!resolve(&pt, sopt[si], k, ms)) k++;
                clock_gettime(CLOCK_MONOTONIC, &w1);
                forget_answers();
                meas mx = {0};
                for (int v = 0; v < P; v++) {
                    if (ms[v].local_s > mx.local_s) mx.local_s = ms[v].local_s;
                    if (ms[v].report_s > mx.report_s) mx.report_s = ms[v].report_s;
                    if (ms[v].mem > mx.mem) mx.mem = ms[v].mem;
                    if (ms[v].rmem > mx.rmem) mx.rmem = ms[v].rmem;
                    if (ms[v].msgs > mx.msgs) mx.msgs = ms[v].msgs;
                    if (ms[v].sent > mx.sent) mx.sent = ms[v].sent;
                    if (ms[v].chunks > mx.chunks) mx.chunks = ms[v].chunks;
                }
                char sch[32];
                snprintf(sch, sizeof sch, "%s%s%s", snames[si], si == 3 ? "->" : "", si == 3 ? mode_name(ms[0].scheme) : "");
                /* the report's cost on the other ranks: the busiest of ranks 1..P-1 (rank 0 gathers) */
                double rep_others = 0;
                for (int v = 1; v < P; v++)
                    if (ms[v].report_s > rep_others) rep_others = ms[v].report_s;
                printf("%-3s %-11s %7d %6llu %9.1f %9.1f %8llu %9.1f %10.1f %10.1f %9.1f %7.1f\n", pt.name, sch, P,
                       (unsigned long long)mx.chunks, mx.local_s * 1e6, (double)mx.mem / 1024, (unsigned long long)mx.msgs,
                       (double)mx.sent / 1024, ms[0].report_s * 1e6, (double)ms[0].rmem / 1024, rep_others * 1e6,
                       (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec));
                fflush(stdout);
                (void)k;
            }
        }
        free(ms);
        g_self_mode = 1;
        g_v = 0;
        g_f->rank = 0;
        /* colldiag_file_close frees what wrap made; the file stays ours */
        colldiag_file_close(g_f);
    }
    PMPI_File_close(&fh);
    fclose(g_devnull);
    MPI_Finalize();
    return 0;
}

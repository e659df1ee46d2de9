/* test_auto: AUTO that measures (src/measure.c), proven with an injected clock, never with a timing:
 * built with -DCOLLDIAG_TESTING, where COLLDIAG_INJECT=clock:L,M,A,I[,skew] makes a call that ran link,
 * multi, aggregation or all-independent take L, M, A or I seconds (rank r sees scheme k's times
 * 1 + skew ((r + k) mod 4): with a skew the ranks disagree on which is cheapest).
 *
 *   mpirun -n P test_auto DIR
 *
 * Each case is a time-step loop of the kit's API (a chunked 2-D dataset, every rank its column blocks:
 * every scheme is a candidate), every call's bytes checked (read back, compared with what the test
 * computed itself), and every rank's view of every call gathered:
 *  1. agreement: every rank runs the same scheme in every call, also when ranks see different times
 *     (skew: the call's time is its slowest rank's, agreed);
 *  2. convergence: the model's first choice is made 20 times slower than its estimate; every other
 *     scheme costs its estimate. The second call's corrected estimates (colldiag_get_auto_corrected)
 *     must carry what the first measured: the first choice's exactly 20 times its estimate, the others
 *     between their estimate and 20 times it, all-independent's untouched by a collective scheme's error
 *     (it shares no term with link or aggregation); the second call must try, of the others whose lower
 *     of estimate and corrected estimate halves the first's time, the cheapest by corrected estimate
 *     (the test applies the rule to them itself);
 *     and from the sixth call on every call must run the cheapest (agreed) of the schemes that ran,
 *     never the first choice;
 *     every call of these loops is also checked against the rule itself, applied by the test to the
 *     corrected estimates colldiag reports and the times the test injected;
 * 2b. a slow network: every scheme but all-independent 300 times its estimate: the rule call by call,
 *     ending on all-independent;
 *  3. the bound: no more than 1 + 2 schemes ever run on one pattern, and a scheme estimated slower than
 *     the measured best is never tried (the model's first choice, made cheapest, is kept);
 * 3b. the try's bar: a first choice over 4x its estimate is left at the second call for a scheme 30%
 *     cheaper; from the fourth call a scheme 30% cheaper than the best's fastest call is not tried;
 * 3c. a cold start (the pattern's first call 3x dearer) does not rule out the model's choice: it ends
 *     on the scheme cheapest warm;
 *     and once another scheme ran, nothing is tried against the first choice's halved cold call (it
 *     runs again, warm);
 * 3d. every scheme F (> 4) times its estimate: one try, then no other (two far off: the model is off
 *     here across the board);
 * 3e. whole row blocks, the model's choice near its estimate (under 4x) and a scheme never run estimated
 *     to beat it by 15% but not by half: never tried (its own first call would pay its MPI-IO set-up);
 * 3f. the model's choice 15x its estimate on its first two calls, then at its estimate: nothing tried
 *     (a job's first calls can run cold for two calls);
 * 3i. a tie: the best ran as the model priced it (within 1.4x, either way) and an untried link or multi's
 *     lent estimate is within 10% of its time (its estimate, when it ran under it), collective MPI-IO
 *     calls made: that scheme is tried once, and kept when faster; not when the best ran under 1/1.4 of
 *     its estimate;
 * 3g. a best whose median is far off its estimate but whose fastest call is not: nothing tried by an
 *     untried scheme's own estimate alone;
 *  4. COLLDIAG_AUTO_MODE=estimate: the model's choice in every call, whatever the clock says;
 *  5. wisdom: COLLDIAG_WISDOM saved by one run (a child job of this test cannot: the file is written at
 *     MPI_Finalize, so the test writes a wisdom file the way colldiag does and checks that colldiag reads
 *     it) is used from the first call; wisdom of another place (ranks=...) is ignored.
 * 6c. RUN by the run count: link-chunk's estimate prices the busiest rank's runs (counted by the test)
 *     at RUN x RUN_LOW under RUN_KNEE, and on the log-scale step between RUN x RUN_LOW and RUN past it.
 *  7. aggregation's owners' I/O: tried once by independent calls after two warm calls, kept only when
 *     15% faster, the write's own MPI-IO calls counted, carried by wisdom; and one rank failing on the
 *     independent way makes every rank return an error naming it.
 *  8. directions: reads far over their estimates leave the job's first write's all-independent at its
 *     estimate (a read's error is no evidence about a write's file-system terms), also through wisdom.
 */
#define _GNU_SOURCE
#include "colldiag.h"
#include "testutil.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>

enum { N = 64, C = 16, W = 4 };
static const char *dir;

/* Which part the loops write: 0, rank r's column blocks of W columns j / W = r (mod P), every row
   (every chunk shared: every scheme a candidate); 1, a block of whole rows (case 3e: schemes estimated
   close to each other). */
static int g_rows;
/* Per call of the last loop: how AUTO moved aggregation's owners' runs (colldiag_get_auto_aggregation_io:
   1 independent calls, 0 collective, -1 not aggregation), what it had measured of the two ways, and the
   write's collective and independent MPI-IO calls on this rank (colldiag_get_counters) */
enum { NCMAX = 32 };
static int g_aggio[NCMAX];
static double g_aggt[NCMAX][2];
static uint64_t g_ncoll[NCMAX], g_nind[NCMAX];
/* called by loop before its call c, on every rank alike (case 7b: the clock changed mid-loop); NULL none */
static void (*g_before)(int c, const int *kind);
/* The model's estimates term by term (colldiag_get_model_terms) at the last loop's first call: the
   pattern's, every call alike; check_rule's "off across the board" floor needs them */
static double g_term[4][4];
/* The time the bars' cases (3, the cold first calls, 7, 7b) give the model's choice, as a share of its
   estimate: 1, or 0.7 where an untried link-chunk or multi-chunk is estimated within 1.1x of the choice.
   That is a tie (src/measure.c, meas_tie: tried once, after the collective set-up ran twice, while the
   best runs within 1.4x of its price), which those cases' premise "nothing else is tried" excludes; at
   0.7x, under 1/1.4, no tie is tried and the bars alone are under test (case 3i tests ties). Link-chunk
   ties aggregation on 16 ranks of this machine once a run is priced by the run count. */
static double g_fit = 1;
/* Does scheme k share a term with scheme i, a tenth of each's estimate at least (g_term: the last call's
   terms)? The "model off everywhere" floor covers only such schemes (src/measure.c). */
static int shares_term(int k, int i, const double est[4])
{
    for (int j = 0; j < 4; j++)
        if (g_term[i][j] >= 0.1 * est[i] && g_term[k][j] >= 0.1 * est[k]) return 1;
    return 0;
}
static uint64_t row0(int r) { return (uint64_t)r * N / (uint64_t)P; }
static int mine(uint64_t i, uint64_t j)
{
    if (g_rows) return i >= row0(me) && i < row0(me + 1);
    return (j / W) % (uint64_t)P == (uint64_t)me;
}

static colldiag_sel *my_sel(void)
{
    colldiag_sel *s = NULL;
    uint64_t dims[2] = {N, N};
    colldiag_sel_create(2, dims, &s);
    if (g_rows) {
        uint64_t st[2] = {row0(me), 0}, cn[2] = {1, 1}, bl[2] = {row0(me + 1) - row0(me), N};
        if (bl[0]) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cn, bl);
        else colldiag_sel_select_none(s);
        return s;
    }
    uint64_t st[2] = {0, (uint64_t)(me % (N / W)) * W}, sr[2] = {1, (uint64_t)P * W}, cn[2] = {1, 0}, bl[2] = {N, W};
    cn[1] = st[1] < N ? (N - st[1] + sr[1] - 1) / sr[1] : 0;
    if (cn[1]) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, sr, cn, bl);
    else colldiag_sel_select_none(s);
    return s;
}

static double value(int step, uint64_t i, uint64_t j) { return step * 100000.0 + (double)(i * N + j); }

/* The file DIR/test_auto_NAME.bin (its path into path), the N x N dataset of C x C chunks, and a
   collective AUTO transfer: what every loop of the test writes through. */
static void open_auto(const char *name, char path[1024], colldiag_file **f, colldiag_layout **l, colldiag_xfer **x)
{
    snprintf(path, 1024, "%s/test_auto_%s.bin", dir, name);
    uint64_t dims[2] = {N, N}, cd[2] = {C, C};
    *f = NULL;
    *l = NULL;
    *x = NULL;
    CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, f) == 0, "open");
    colldiag_layout_chunked(2, dims, cd, sizeof(double), 0, l);
    colldiag_xfer_create(x);
    colldiag_set_dxpl_mpio(*x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(*x, COLLDIAG_MPIO_CHUNK_AUTO);
}

/* This rank's values of step `step` in row-major order (its selection's order) into w; how many. */
static uint64_t my_values(int step, double *w)
{
    uint64_t k = 0;
    for (uint64_t i = 0; i < N; i++)
        for (uint64_t j = 0; j < N; j++)
            if (mine(i, j)) w[k++] = value(step, i, j);
    return k;
}

/* Every rank's view of call c of `name` (its scheme, kind and aggregation's owners' I/O), on every rank:
   they must be alike. */
static void check_alike(const char *name, int c, int ch, int kd, int aio)
{
    int v[3] = {ch, kd, aio}, *all = malloc((size_t)P * 3 * sizeof *all);
    MPI_Allgather(v, 3, MPI_INT, all, 3, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < P; q++)
        CHECK(all[3 * q] == ch && all[3 * q + 1] == kd && all[3 * q + 2] == aio, "%s call %d: rank %d ran scheme %d (%d, owners' I/O %d), this rank %d (%d, %d)",
              name, c, q, all[3 * q], all[3 * q + 1], all[3 * q + 2], ch, kd, aio);
    free(all);
}

/* One time-step loop of n calls (writes, each read back and checked); chosen[c]: the scheme of call c,
   kind[c]: colldiag's reason (colldiag_get_auto_measured), est: the model's estimates of the first call. */
static void loop(const char *name, int n, int *chosen, int *kind, double est[4], double (*ec)[4])
{
    char path[1024];
    colldiag_file *f;
    colldiag_layout *l;
    colldiag_xfer *x;
    open_auto(name, path, &f, &l, &x);
    colldiag_sel *s = my_sel();
    const uint64_t ne = colldiag_sel_npoints(s);
    double *w = malloc((ne + 1) * sizeof *w), *r = malloc((ne + 1) * sizeof *r);
    for (int c = 0; c < n; c++) {
        const uint64_t k = my_values(c, w);
        CHECK(k == ne, "%llu elements counted, %llu selected", (unsigned long long)k, (unsigned long long)ne);
        if (g_before) g_before(c, kind);
        int rc = colldiag_write(f, l, s, NULL, w, x);
        CHECK(rc == 0, "%s call %d: write failed: %s", name, c, colldiag_xfer_errmsg(x));
        int kd = -1, ch = -1;
        colldiag_get_auto_measured(x, NULL, NULL, &kd, &ch);
        if (c == 0 && est) colldiag_get_model_estimates(x, est);
        if (c == 0) {
            CHECK(colldiag_get_model_terms(x, g_term) == 0, "colldiag_get_model_terms");
            double e4[4];
            colldiag_get_model_estimates(x, e4);
            for (int k = 0; k < 4; k++) {
                const double sum = g_term[k][0] + g_term[k][1] + g_term[k][2] + g_term[k][3];
                CHECK(fabs(sum - e4[k]) <= 1e-15 + 1e-12 * e4[k], "scheme %d's terms sum to %.17g s, its estimate is %.17g s", k, sum, e4[k]);
            }
            CHECK(g_term[3][0] == 0 && g_term[3][1] == 0 && g_term[3][2] == 0, "all-independent has terms besides independent I/O: %g %g %g", g_term[3][0],
                  g_term[3][1], g_term[3][2]);
        }
        int aio = -2;
        colldiag_counters cn;
        CHECK(colldiag_get_auto_aggregation_io(x, &aio, c < NCMAX ? g_aggt[c] : NULL) == 0 && colldiag_get_counters(x, &cn) == 0, "the getters");
        if (c < NCMAX) { g_aggio[c] = aio; g_ncoll[c] = cn.calls_collective; g_nind[c] = cn.calls_independent; }
        if (ec) CHECK(colldiag_get_auto_corrected(x, ec[c]) == 0, "colldiag_get_auto_corrected");
        memset(r, 0, (ne + 1) * sizeof *r);
        colldiag_xfer *xr = NULL;
        colldiag_xfer_create(&xr);
        colldiag_set_dxpl_mpio(xr, COLLDIAG_MPIO_COLLECTIVE);
        CHECK(colldiag_read(f, l, s, NULL, r, xr) == 0, "%s call %d: read failed", name, c);
        colldiag_xfer_free(xr);
        CHECK(!memcmp(r, w, ne * sizeof *r), "%s call %d: the bytes read back differ from those written", name, c);
        check_alike(name, c, ch, kd, aio);
        chosen[c] = ch;
        kind[c] = kd;
    }
    free(w);
    free(r);
    colldiag_sel_free(s);
    colldiag_xfer_free(x);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    if (me == 0) remove(path);
}

static int argmin(const double v[4], int skip)
{
    int b = -1;
    for (int k = 0; k < 4; k++)
        if (k != skip && (b < 0 || v[k] < v[b])) b = k;
    return b;
}

/* Every call of a loop against the rule (src/measure.c, stated in colldiag.h and docs/design.md), applied
   by the test to what colldiag reports it knew (the corrected estimates ec[c] of call c) and to the
   times the test injected (agreed[k]: what every rank must agree scheme k cost; constant, so a scheme's
   median and fastest call are that). est: the model's estimates (the pattern's, every call alike). */
static void check_rule(const char *name, int n, const int *ch, const int *kd, double (*ec)[4], const double est[4], const double agreed[4])
{
    int runs[4] = {0}, tries = 0, agg_tried = 0;
    for (int c = 0; c < n; c++) {
        int want, wkind;
        if (c == 0) { /* the pattern's first call: the corrected model's best */
            want = argmin(ec[0], -1);
            wkind = 1;
        } else {
            /* the measured best: the first call's scheme, while that (cold) call is its only one, counts half */
            int best = -1, cand = -1;
            double rank[4], cand_gate = 0;
            for (int k = 0; k < 4; k++) rank[k] = (runs[k] == 1 && k == ch[0] ? 0.5 : 1.0) * agreed[k];
            for (int k = 0; k < 4; k++)
                if (runs[k] && (best < 0 || rank[k] < rank[best])) best = k;
            /* tries on the second and third calls by 15% once the best ran far (over 4x) off its
               estimate, or ran twice while the scheme tried ran in the job before (never here: each
               case's loop starts a forgotten table with one pattern), else by half; from the fourth
               call by half only */
            /* judged at its rank time, but the first call's scheme, while that (cold) call is its only one,
               is far only when a quarter of it is; and then no try at all unless it is (it runs once more, warm) */
            /* ... and, far or not, once another scheme ran (half a cold call is a guess; no try against it) */
            int others = 0;
            for (int k = 0; k < 4; k++) others |= k != best && runs[k];
            /* ... the same while it has run the cold call and one more (a job's first calls can run cold
               for two): judged at a quarter of that second call, no try unless that is far off */
            const int young = (runs[best] == 1 || runs[best] == 2) && best == ch[0];
            const int far = (young ? 0.25 * agreed[best] : rank[best]) > 4 * est[best], wait = young && (!far || others);
            const double bar = c <= 2 && far ? 0.87 * rank[best] : 0.5 * rank[best];
            /* ... but a scheme whose try makes no collective MPI-IO call (aggregation, tried by its owners'
               independent way, and all-independent) by 15% on calls 3 and 4 once the best, warm, ran over
               2x its estimate */
            const int misjudged = !young && rank[best] > 2 * est[best];
            const double bar_ind = (c <= 2 && far) || (c <= 4 && misjudged) ? 0.87 * rank[best] : 0.5 * rank[best];
            /* two or more schemes that ran over 4x their estimates: the untried estimates of schemes that
               share a term with one of them (a tenth of each's estimate at least) times the smaller error */
            double off = 0;
            int nfar = 0;
            for (int k = 0; k < 4; k++)
                if (runs[k] && agreed[k] > 4 * est[k]) off = nfar++ && off < agreed[k] / est[k] ? off : agreed[k] / est[k];
            if (nfar < 2) off = 0;
            for (int k = 0; k < 4; k++) {
                int shared = 0;
                for (int i = 0; i < 4; i++)
                    for (int j = 0; j < 4; j++)
                        shared |= runs[i] && agreed[i] > 4 * est[i] && g_term[i][j] >= 0.1 * est[i] && g_term[k][j] >= 0.1 * est[k];
                double gate = far && est[k] < ec[c][k] ? est[k] : ec[c][k];
                gate = shared && gate < off * est[k] ? off * est[k] : gate;
                if (!wait && !runs[k] && gate < (k >= 2 ? bar_ind : bar) && (cand < 0 || ec[c][k] < ec[c][cand])) { cand = k; cand_gate = gate; }
            }
            /* a tie: nothing by the bars, the best (warm, not far) ran within 1.4x its estimate either way,
               and an untried link or multi's corrected estimate is within 10% of the best's time (of its
               estimate, when it ran under that), once collective
               MPI-IO calls ran twice in the loop (link, multi, or aggregation as the first choice: its
               collective owners' way; tried, it runs its owners' independent way) */
            const int coll = runs[0] + runs[1] + (ch[0] == 2 ? runs[2] : 0);
            const double at = agreed[best] > est[best] ? agreed[best] : est[best];
            if (cand < 0 && !wait && !far && agreed[best] * 1.4 >= est[best] && agreed[best] <= 1.4 * est[best])
                for (int k = 0; k < 4; k++)
                    if (k < 2 && !runs[k] && ec[c][k] <= 1.1 * at && coll >= 2 && (cand < 0 || ec[c][k] < ec[c][cand])) cand = k;
            /* aggregation the best after three calls, its owners' way not yet moved: that way tried first
               (kind 4), a try of the bound's; the collective way is the way of a first choice, the
               independent one of a try (then only when aggregation's estimate halves its time); the
               injected clock times both ways alike, so the way tried is never kept */
            /* ... unless aggregation is far off and a candidate could halve its time (its gate): that first */
            const int agg_first = best == 2 && runs[2] >= 3 && !agg_tried && tries < 2 && (ch[0] == 2 || est[2] < 0.5 * agreed[2]) &&
                                  !(cand >= 0 && far && cand_gate < 0.5 * rank[2]);
            const int try = cand >= 0 && tries < 2 && !agg_first;
            tries += try || agg_first;
            agg_tried |= agg_first;
            want = try ? cand : best;
            wkind = try ? 3 : agg_first ? 4 : 2;
        }
        CHECK(ch[c] == want && kd[c] == wkind, "%s call %d ran %d (kind %d); the rule says %d (kind %d): corrected estimates %g %g %g %g", name, c,
              ch[c], kd[c], want, wkind, ec[c][0], ec[c][1], ec[c][2], ec[c][3]);
        if (ch[c] >= 0 && ch[c] < 4) runs[ch[c]]++;
    }
}

/* The same clock on every rank (setenv on every rank: the environment is read at every call). */
static void clock_env(const double t[4], double skew)
{
    char e[256];
    snprintf(e, sizeof e, "clock:%.17g,%.17g,%.17g,%.17g,%.17g", t[0], t[1], t[2], t[3], skew);
    setenv("COLLDIAG_INJECT", e, 1);
}

/* Whole row blocks from here on (g_rows, until the case resets it: schemes estimated close together),
   and the model's estimates e1 of their pattern from one call on a forgotten table and a flat clock;
   ch[0] the model's choice. */
static void rows_probe(const char *name, int *ch, int *kd, double e1[4])
{
    const double flat[4] = {1e-3, 1e-3, 1e-3, 1e-3};
    g_rows = 1;
    colldiag_auto_forget();
    clock_env(flat, 0);
    loop(name, 1, ch, kd, e1, NULL);
}

/* Case 7b's clock, changed mid-loop by loop's g_before: the schemes' times g_rl_t, aggregation's by
   collective owners' runs g_rl_a; g_rl_relook the calls that looked again (kind 5). */
static double g_rl_t[4], g_rl_a;
static int g_rl_relook[1];
static void rl_clock(double coll, double ind)
{
    char e[256];
    snprintf(e, sizeof e, "clock:%.17g,%.17g,%.17g,%.17g,0,1,%.17g", g_rl_t[0], g_rl_t[1], coll, g_rl_t[3], ind);
    setenv("COLLDIAG_INJECT", e, 1);
}
/* Before call c (kind[]: the calls before it): the independent way slows to 3A from call 6; two calls
   after the first relook, the collective way slows to 5A and the independent one is back at A/2. */
static void relook_phases(int c, const int *kind)
{
    if (c == 6) rl_clock(g_rl_a, 3 * g_rl_a);
    if (c > 0 && kind[c - 1] == 5 && g_rl_relook[0] < 0) g_rl_relook[0] = c - 1;
    if (g_rl_relook[0] >= 0 && c == g_rl_relook[0] + 2) rl_clock(5 * g_rl_a, 0.5 * g_rl_a);
}

/* One AUTO write on a fresh open of a file (case 6): the step latency the open probed, checked alike on
   every rank, and the model's estimates and reason of the call. COLLDIAG_INJECT as given (NULL: unset). */
static double step_open(const char *name, const char *inject, double est[4], char *why, size_t nwhy)
{
    char path[1024];
    if (inject) setenv("COLLDIAG_INJECT", inject, 1);
    else unsetenv("COLLDIAG_INJECT");
    colldiag_file *f;
    colldiag_layout *l;
    colldiag_xfer *x;
    open_auto(name, path, &f, &l, &x);
    double lat = -1;
    CHECK(colldiag_file_get_step_latency(f, &lat) == 0, "colldiag_file_get_step_latency");
    double *all = malloc((size_t)P * sizeof *all);
    MPI_Allgather(&lat, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int q = 0; q < P; q++) CHECK(all[q] == lat, "%s: rank %d's step latency %.17g, this rank's %.17g", name, q, all[q], lat);
    free(all);
    colldiag_sel *s = my_sel();
    const uint64_t ne = colldiag_sel_npoints(s);
    double *w = calloc(ne + 1, sizeof *w);
    CHECK(colldiag_write(f, l, s, NULL, w, x) == 0, "%s: write failed: %s", name, colldiag_xfer_errmsg(x));
    colldiag_get_model_estimates(x, est);
    snprintf(why, nwhy, "%s", colldiag_scheme_reason(x));
    free(w);
    colldiag_sel_free(s);
    colldiag_xfer_free(x);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    if (me == 0) remove(path);
    return lat;
}

/* A lone cold first call that starts no try (cases 3c' and 3c'''): the model's choice F (first) costs its
   estimate warm and cold x it in its first call; every other scheme costs 10x its own estimate. F runs
   again (kind 2), warm, and nothing is tried in the n calls of the loop. Tested where a try's bar of
   bar x cold x F's estimate (what an older rule compared the next estimate with) would have tried one;
   else the line says why not. ch, kd: the loop's schemes and kinds. */
static void cold_alone_case(const char *label, const char *loop_name, double cold, double bar, int first, const double est[4], int n, int *ch, int *kd)
{
    const int other = argmin(est, first);
    if (est[other] >= bar * cold * est[first]) {
        if (me == 0) printf("%s: not tested at %d ranks (the next estimate %g is over %g x %g x the choice's %g)\n", label, P, est[other], bar, cold, est[first]);
        return;
    }
    double t[4];
    char e[256];
    for (int k = 0; k < 4; k++) t[k] = 10 * est[k];
    t[first] = g_fit * est[first];
    /* the cold call at cold x the estimate, whatever g_fit */
    snprintf(e, sizeof e, "clock:%.17g,%.17g,%.17g,%.17g,0,%.17g", t[0], t[1], t[2], t[3], cold / g_fit);
    colldiag_auto_forget();
    setenv("COLLDIAG_INJECT", e, 1);
    loop(loop_name, n, ch, kd, NULL, NULL);
    CHECK(ch[1] == first && kd[1] == 2, "the second call ran %d (kind %d); %d again (kind 2) expected after a cold first call of %g x its estimate", ch[1], kd[1],
          first, cold);
    for (int c = 0; c < n; c++) CHECK(ch[c] == first, "call %d ran %d; nothing is tried after a lone cold first call (%d is the cheapest)", c, ch[c], first);
}

/* n AUTO reads of what a fixed scheme wrote once (step 0's values) from DIR/test_auto_NAME.bin, every
   byte checked against the values the test computes; ch, kd: each read's scheme and kind, alike on every
   rank; est, ec: the model's estimates and the corrected ones of the first read (NULL: not wanted). */
static void read_loop(const char *name, int n, int *ch, int *kd, double est[4], double ec[4])
{
    char path[1024];
    colldiag_file *f;
    colldiag_layout *l;
    colldiag_xfer *x, *xw = NULL;
    open_auto(name, path, &f, &l, &x);
    colldiag_sel *s = my_sel();
    const uint64_t ne = colldiag_sel_npoints(s);
    double *w = malloc((ne + 1) * sizeof *w), *r = malloc((ne + 1) * sizeof *r);
    CHECK(my_values(0, w) == ne, "%s: the values counted differ from the selection's %llu", name, (unsigned long long)ne);
    colldiag_xfer_create(&xw); /* not AUTO: measures nothing */
    colldiag_set_dxpl_mpio(xw, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(xw, COLLDIAG_MPIO_ALL_CHUNK_IND_IO);
    CHECK(colldiag_write(f, l, s, NULL, w, xw) == 0, "%s: the data's write failed: %s", name, colldiag_xfer_errmsg(xw));
    colldiag_xfer_free(xw);
    for (int c = 0; c < n; c++) {
        memset(r, 0, (ne + 1) * sizeof *r);
        CHECK(colldiag_read(f, l, s, NULL, r, x) == 0, "%s read %d failed: %s", name, c, colldiag_xfer_errmsg(x));
        CHECK(!memcmp(r, w, ne * sizeof *r), "%s read %d: the bytes differ from those written", name, c);
        colldiag_get_auto_measured(x, NULL, NULL, &kd[c], &ch[c]);
        if (c == 0 && est) colldiag_get_model_estimates(x, est);
        if (c == 0 && ec) colldiag_get_auto_corrected(x, ec);
        int aio = -2;
        colldiag_get_auto_aggregation_io(x, &aio, NULL);
        check_alike(name, c, ch[c], kd[c], aio);
    }
    free(w);
    free(r);
    colldiag_sel_free(s);
    colldiag_xfer_free(x);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    if (me == 0) remove(path);
}

/* The run's summary (COLLDIAG_REPORT=summary:PATH, colldiag_summary_write) of a loop of n calls whose
   call c ran scheme ch[c], each scheme k at the injected agreed[k]: on rank 0, the loop's writes are one
   row of n calls and n x N x N doubles, and its "measured" says what the last call's choice saw: AUTO's
   schemes, the scheme the last call ran, and each scheme that ran before it at its injected time (its
   median, the same every call) with its count of those calls; none other. */
static void check_summary(const char *path, int n, const int *ch, const double agreed[4])
{
    if (me != 0) return;
    static const char *const name[4] = {"link", "multi", "aggregation", "independent"};
    char buf[1 << 16];
    FILE *in = fopen(path, "r");
    const size_t len = in ? fread(buf, 1, sizeof buf - 1, in) : 0;
    if (in) fclose(in);
    buf[len] = 0;
    remove(path);
    const char *row = strstr(buf, "\"op\":\"H5Dwrite\"");
    CHECK(row != NULL, "the summary in %s has no row of the loop's writes: %.300s", path, buf);
    if (!row) return;
    const char *end = strstr(row, "{\"file\":");
    char r[8192];
    snprintf(r, sizeof r, "%.*s", end ? (int)(end - row) : (int)strlen(row), row);
    unsigned long long calls = 0, bytes = 0;
    const char *pc = strstr(r, "\"CALLS\":"), *pb = strstr(r, "\"BYTES\":");
    if (pc) calls = strtoull(pc + 8, NULL, 10);
    if (pb) bytes = strtoull(pb + 8, NULL, 10);
    CHECK(calls == (unsigned long long)n && bytes == (unsigned long long)n * N * N * sizeof(double), "the summary's row: %llu calls, %llu bytes; the loop made %d calls of %llu bytes",
          calls, bytes, n, (unsigned long long)N * N * sizeof(double));
    const char *m = strstr(r, "\"measured\":{");
    CHECK(m != NULL, "the summary's row of the loop's writes has no \"measured\": %s", r);
    if (!m) return;
    char want[64];
    snprintf(want, sizeof want, "\"measured\":{\"of\":\"auto\",\"ran\":\"%s\"", name[ch[n - 1]]);
    CHECK(!strncmp(m, want, strlen(want)), "the summary's measured: %.200s; expected it to start %s", m, want);
    for (int k = 0; k < 4; k++) {
        unsigned before = 0;
        for (int c = 0; c < n - 1; c++) before += ch[c] == k;
        char key[64];
        snprintf(key, sizeof key, "\"%s\":{\"seconds\":", name[k]);
        const char *e = strstr(m, key);
        double sec = -1;
        unsigned got = 0;
        if (e) sscanf(e + strlen(key), "%lf,\"calls\":%u", &sec, &got);
        if (!before) CHECK(e == NULL, "the summary's measured names %s, which no call before the last ran: %.300s", name[k], m);
        else CHECK(e && got == before && fabs(sec - agreed[k]) <= 1e-9 + 1e-6 * agreed[k], "the summary's %s: %g s, %u calls; it ran %u calls before the last, at %g s each",
                   name[k], sec, got, before, agreed[k]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    dir = argc > 1 ? argv[1] : "/tmp";
    unsetenv("COLLDIAG_WISDOM");
    unsetenv("COLLDIAG_AUTO_MODE");
    enum { NC = 10 };
    int ch[NC], kd[NC];
    double est[4], ec[NC][4];

    /* the model's first choice, from a call with a flat clock */
    snprintf(g_case, sizeof g_case, "the model's choice");
    const double flat[4] = {1e-3, 1e-3, 1e-3, 1e-3};
    colldiag_auto_forget();
    clock_env(flat, 0);
    loop("probe", 1, ch, kd, est, NULL);
    const int first = ch[0];
    CHECK(first >= 0 && first < 4 && first == argmin(est, -1), "the first call ran scheme %d, the model's best is %d", first, argmin(est, -1));
    CHECK(kd[0] == 1, "the first call of a pattern: kind %d, expected 1", kd[0]);
    for (int k = 0; k < 2; k++)
        if (k != first && est[k] <= 1.1 * est[first]) g_fit = 0.7;
    if (me == 0 && g_fit != 1)
        printf("estimates %g %g %g %g: a tie with the choice %d; the bars' cases run it at %gx its estimate\n", est[0], est[1], est[2], est[3], first, g_fit);

    /* 2. convergence: the model's choice 20 times slower than estimated, the others as estimated */
    for (int skewed = 0; skewed < 2; skewed++) {
        snprintf(g_case, sizeof g_case, "convergence%s", skewed ? ", ranks see different times" : "");
        double t[4], agreed[4], most_est = 0;
        for (int k = 0; k < 4; k++) t[k] = est[k];
        t[first] = 20 * est[first];
        /* skewed: the other schemes cost the same, three times the largest estimate (so that the two tries
           are spent; the model's choice ten times that), and the skew alone orders them, differently on
           different ranks (at 4 ranks or more some rank always prefers each of any two): only the agreed
           time keeps the ranks together */
        for (int k = 0; k < 4; k++) most_est = k != first && est[k] > most_est ? est[k] : most_est;
        for (int k = 0; skewed && k < 4; k++) t[k] = k != first ? 3 * most_est : 30 * most_est;
        const double skew = skewed ? 0.5 : 0;
        /* what every rank must agree a scheme cost: its slowest rank's time */
        for (int k = 0; k < 4; k++) {
            int most = 0;
            for (int r = 0; r < P; r++) most = (r + k) % 4 > most ? (r + k) % 4 : most;
            agreed[k] = t[k] * (1 + skew * most);
        }
        colldiag_auto_forget();
        clock_env(t, skew);
        char spath[1100];
        snprintf(spath, sizeof spath, "summary:%s/test_auto_summary.json", dir);
        if (!skewed) setenv("COLLDIAG_REPORT", spath, 1); /* the run's summary of this loop (check_summary) */
        loop(skewed ? "skew" : "converge", NC, ch, kd, NULL, ec);
        if (!skewed) {
            colldiag_summary_write(MPI_COMM_WORLD); /* once a process: later loops are not counted */
            unsetenv("COLLDIAG_REPORT");
            check_summary(spath + 8, NC, ch, agreed);
        }
        int distinct = 0, seen[4] = {0};
        for (int c = 0; c < NC; c++)
            if (ch[c] >= 0 && ch[c] < 4 && !seen[ch[c]]++) distinct++;
        /* the cheapest, by the agreed times, of the schemes that ran */
        int best = -1;
        for (int k = 0; k < 4; k++)
            if (seen[k] && (best < 0 || agreed[k] < agreed[best])) best = k;
        if (!skewed) {
            /* what the first call measured, in the second call's corrected estimates: the job's first
               call paid its set-up, so while it is its scheme's only call it does not price that scheme
               (nothing else ran: the model's estimate), but lends to the others */
            const double tol = 1e-6;
            CHECK(ec[1][first] > est[first] * (1 - tol) && ec[1][first] < est[first] * (1 + tol),
                  "the first choice's corrected estimate is %g after the job's first call (its set-up), not the model's %g", ec[1][first], est[first]);
            for (int k = 0; k < 4; k++)
                if (k != first)
                    CHECK(ec[1][k] >= est[k] * (1 - tol) && ec[1][k] <= 20 * est[k] * (1 + tol), "scheme %d's corrected estimate %g is outside [%g, %g]", k,
                          ec[1][k], est[k], 20 * est[k]);
            if (first == 0 || first == 2)
                CHECK(ec[1][3] == est[3], "all-independent's estimate moved (%g -> %g) with a collective scheme's error", est[3], ec[1][3]);
            /* the rule, applied by the test: after one call 20x its estimate (far off: the model is wrong
               here), of the others whose lower of estimate and corrected estimate beats the first's
               measured time by 15%, the cheapest by corrected estimate */
            int cand = -1;
            for (int k = 0; k < 4; k++) {
                const double opt = ec[1][k] < est[k] ? ec[1][k] : est[k];
                if (k != first && opt < 0.87 * agreed[first] && (cand < 0 || ec[1][k] < ec[1][cand])) cand = k;
            }
            const int want1 = cand >= 0 ? cand : first;
            CHECK(ch[1] == want1, "the second call ran %d; expected %d (corrected estimates %g %g %g %g, the first measured %g)", ch[1], want1,
                  ec[1][0], ec[1][1], ec[1][2], ec[1][3], agreed[first]);
            CHECK(best != first, "AUTO stayed on the first choice, measured 20 times its estimate (estimates %g %g %g %g, corrected %g %g %g %g)",
                  est[0], est[1], est[2], est[3], ec[NC - 1][0], ec[NC - 1][1], ec[NC - 1][2], ec[NC - 1][3]);
        }
        check_rule(skewed ? "skew" : "converge", NC, ch, kd, ec, est, agreed);
        for (int c = 5; c < NC; c++)
            CHECK(ch[c] == best, "call %d ran scheme %d; the cheapest that ran is %d (agreed times %g %g %g %g)", c, ch[c], best, agreed[0], agreed[1],
                  agreed[2], agreed[3]);
        CHECK(distinct <= 3, "%d schemes ran on one pattern (at most 1 + 2 tries)", distinct);
        CHECK(ch[0] == first, "the first call ran %d, the model's choice is %d", ch[0], first);
        CHECK(kd[NC - 1] == 2, "the last call's kind is %d: the measured best (2) expected", kd[NC - 1]);
    }

    /* 2b. a slow network: every scheme but all-independent 300 times its estimate (they all move bytes
       between ranks or run collective rounds), all-independent as estimated: AUTO follows the rule call by
       call, and ends on all-independent */
    snprintf(g_case, sizeof g_case, "slow network");
    {
        double t[4];
        for (int k = 0; k < 4; k++) t[k] = k == 3 ? est[k] : 300 * est[k];
        colldiag_auto_forget();
        clock_env(t, 0);
        loop("network", NC, ch, kd, NULL, ec);
        check_rule("network", NC, ch, kd, ec, est, t);
        if (me == 0) {
            printf("slow network: estimates %g %g %g %g, schemes run", est[0], est[1], est[2], est[3]);
            for (int c = 0; c < NC; c++) printf(" %d", ch[c]);
            printf("; corrected at call 2: %g %g %g %g\n", ec[2][0], ec[2][1], ec[2][2], ec[2][3]);
        }
        /* on one rank multi-chunk moves nothing between ranks and runs no round: it is independent I/O by
           the same terms, so the premise (only all-independent as estimated) does not hold there */
        if (P > 1) CHECK(ch[NC - 1] == argmin(t, -1), "the last call ran %d; the cheapest is %d", ch[NC - 1], argmin(t, -1));
    }

    /* 3. the bound: the model's choice is also the cheapest; the others cost 10 times their estimate,
       so no corrected estimate beats the measured best: nothing else is ever tried */
    snprintf(g_case, sizeof g_case, "no needless exploration");
    {
        double t[4];
        for (int k = 0; k < 4; k++) t[k] = 10 * est[k];
        t[first] = g_fit * est[first];
        colldiag_auto_forget();
        clock_env(t, 0);
        loop("stay", NC, ch, kd, NULL, NULL);
        for (int c = 0; c < NC; c++) CHECK(ch[c] == first, "call %d ran scheme %d, not the model's choice %d, which measured cheapest", c, ch[c], first);
    }

    /* 3b. the try's bar (src/measure.c, meas_try_bar), each half of it on its own case; X below is the
       test's time of the model's choice: the cheapest other scheme's estimate / 0.7, so that the other
       beats it by 30% (over the 15% bar, under the halving one). Both cases need X over 4x the
       choice's own estimate (then the bar compares the others' own estimates: the lent errors only
       raise them); where the model's choice is estimated too close to the others for that, they say so. */
    {
        double t[4], X;
        const int other = argmin(est, first);
        for (int k = 0; k < 4; k++) t[k] = est[k];
        X = est[other] / 0.7;
        if (X <= 4 * est[first]) {
            if (me == 0) printf("the try's bar: not tested at %d ranks (the model's choice %g, the next %g: not 4x apart)\n", P, est[first], est[other]);
        } else {
            /* far off its estimate at the first call, even judged at a quarter (a lone cold call): the second
               call tries (15% against its half, as it ranks, is enough; a cold start does not explain 16x) */
            snprintf(g_case, sizeof g_case, "a first choice far off its estimate, left at the second call");
            t[first] = 4 * X;
            colldiag_auto_forget();
            clock_env(t, 0);
            loop("far", 3, ch, kd, NULL, ec);
            int cand = -1;
            for (int k = 0; k < 4; k++) {
                const double gate = ec[1][k] < est[k] ? ec[1][k] : est[k];
                if (k != first && gate < 0.87 * 2 * X && (cand < 0 || ec[1][k] < ec[1][cand])) cand = k;
            }
            CHECK(cand >= 0 && ch[1] == cand && kd[1] == 3, "the second call ran %d (kind %d); a try of %d expected (the first ran %g, %g x its estimate)",
                  ch[1], kd[1], cand, 4 * X, 4 * X / est[first]);
            t[first] = X;
            /* tries belong to a loop's first calls: the choice runs at its estimate three calls (nothing
               beats it), then at X; once its 8 kept times are all X, another scheme would beat its fastest
               call by 30%: not enough after the third call (by half only), so nothing is tried */
            snprintf(g_case, sizeof g_case, "no try after the third call for less than half");
            colldiag_auto_forget();
            clock_env(est, 0);
            loop("late-a", 3, ch, kd, NULL, NULL);
            for (int c = 0; c < 3; c++) CHECK(ch[c] == first, "call %d ran %d; the model's choice %d costs its estimate, the cheapest", c, ch[c], first);
            clock_env(t, 0);
            enum { NL = 12 };
            int chl[NL], kdl[NL];
            loop("late-b", NL, chl, kdl, NULL, NULL);
            /* (aggregation, once it ran three times, moves its owners' runs by independent calls once: kind 4,
               the pattern's call 3, case 7; that clock makes them cost the same, so it is not kept) */
            for (int c = 0; c < NL; c++)
                CHECK(chl[c] == first && kdl[c] == (first == 2 && c == 0 ? 4 : 2), "call %d ran %d (kind %d): a try at the loop's call %d, for a scheme estimated to beat the best by 30%%",
                      c + 3, chl[c], kdl[c], c + 3);
        }
    }

    /* 3c. a cold start: the pattern's first call costs `cold` times the scheme's (the file's first
       pages, MPI-IO's set-up), the model's choice F costs 2x its estimate warm (2 cold x cold: far off even
       at a quarter, as a lone cold call is judged, cold > 8, and enough over the next estimate that the second
       call tries a scheme), every other scheme cold + 0.5 times F's estimate: cheaper than F's cold call,
       dearer than half of it (so F runs again) and cheaper than the mean of F's cold and warm calls (so F's cold call must be left out of its median). F's one
       cold call must not rule it out: it runs again, its cold call is left out of its median, and from the sixth call F
       runs (as a time-step loop across simulated nodes showed: aggregation's cold 0.083 s call kept it
       behind link's 0.05 s, while it ran 0.026 s warm) */
    snprintf(g_case, sizeof g_case, "a cold first call");
    {
        double t[4], cold = est[argmin(est, first)] / est[first] / 0.7;
        char e[256];
        cold = cold > 9 ? cold : 9;
        for (int k = 0; k < 4; k++) t[k] = (cold + 0.5) * est[first];
        t[first] = 2 * est[first];
        snprintf(e, sizeof e, "clock:%.17g,%.17g,%.17g,%.17g,0,%.17g", t[0], t[1], t[2], t[3], cold);
        colldiag_auto_forget();
        setenv("COLLDIAG_INJECT", e, 1);
        loop("cold", NC, ch, kd, NULL, NULL);
        int tried = 0;
        for (int c = 0; c < NC; c++) tried |= ch[c] != first;
        CHECK(tried, "no other scheme was tried after the first call ran %g x its estimate", 2 * cold);
        for (int c = 5; c < NC; c++) CHECK(ch[c] == first, "call %d ran %d; %d is the cheapest after its cold first call", c, ch[c], first);
        if (me == 0) {
            printf("a cold first call: schemes run");
            for (int c = 0; c < NC; c++) printf(" %d", ch[c]);
            printf("\n");
        }
    }

    /* 3c'. a cold first call alone starts no try: the model's choice F is the cheapest scheme (its
       estimate), every other costs 10x its own; F's first call, cold, costs 7.5x F's estimate: over 4x,
       but a quarter of it is not (a cold start cost up to 12x a warm call on this machine). F runs again (kind 2), warm, and nothing is
       ever tried. Before the rule, the second call tried the next scheme by the 15% bar against the
       cold call (bench-auto, 3 ranks: all-independent's first call 6.5x its estimate; aggregation tried,
       20x all-independent's warm call). Tested where that bar would have tried one. */
    snprintf(g_case, sizeof g_case, "a cold first call alone starts no try");
    cold_alone_case("a cold first call alone", "cold-alone", 7.5, 0.87, first, est, NC, ch, kd);

    /* 3c'''. a lone cold first call up to 16x its estimate starts no try: F, the model's choice, costs its
       estimate warm and 15.9x it in its first call (half of that, 7.95x, is over 4x; a quarter is not);
       every other scheme costs 10x its own estimate. F runs again, warm, and nothing is tried. With half
       as the measure the second call tried a scheme (bench-auto, 8 ranks of 2 cores, B1 writes:
       all-independent's first call 10x its warm calls and estimate; link-chunk tried, 55-69 ms against
       2.5 ms). Tested where half's 15% bar would have tried one. */
    snprintf(g_case, sizeof g_case, "a lone cold first call up to 16x starts no try");
    cold_alone_case("a lone cold first call up to 16x", "cold-16", 15.9, 0.87 * 0.5, first, est, NC, ch, kd);

    /* 3c''. no try against a cold call's half once another scheme ran: F, the model's choice, costs its
       estimate warm, and its first call 4h (a quarter of it, h, is over 4x F's estimate: far off, so the
       second call tries a scheme G against its half, 2h); every other scheme costs 2.2h, so that F's halved
       cold call still ranks first after G ran, while G runs within 4x its own estimate (one scheme far off, not two). F
       runs again, warm (kind 2), and nothing more is tried: before the rule, that half was "far" again
       at the third call and a third scheme was tried against it (4x2 simulated nodes, B3w64 writes:
       link-chunk, 0.115 s where multi-chunk ran 0.044 s). h is set just above the 15% bar's reach of
       the second-cheapest other scheme, so that both could be tried against it; tested where that keeps
       whichever is tried within 4x its estimate. */
    snprintf(g_case, sizeof g_case, "no try against a cold call's half");
    {
        const int s1 = argmin(est, first);
        int s2 = -1;
        for (int k = 0; k < 4; k++)
            if (k != first && k != s1 && (s2 < 0 || est[k] < est[s2])) s2 = k;
        double h = 1.05 * est[s2] / (0.87 * 2);
        h = h > 5 * est[first] ? h : 5 * est[first];
        int ok = est[s2] < 0.87 * 2 * h;
        for (int k = 0; k < 4; k++) ok &= k == first || est[k] >= 0.87 * 2 * h || 2.2 * h < 4 * est[k];
        if (!ok) {
            if (me == 0) printf("no try against a cold call's half: not tested at %d ranks (estimates %g %g %g %g: no h keeps a try within 4x)\n", P, est[0], est[1],
                                est[2], est[3]);
        } else {
            double t[4];
            char e[256];
            for (int k = 0; k < 4; k++) t[k] = 2.2 * h;
            t[first] = est[first];
            snprintf(e, sizeof e, "clock:%.17g,%.17g,%.17g,%.17g,0,%.17g", t[0], t[1], t[2], t[3], 4 * h / est[first]);
            colldiag_auto_forget();
            setenv("COLLDIAG_INJECT", e, 1);
            loop("cold-half", NC, ch, kd, NULL, NULL);
            CHECK(ch[1] != first && kd[1] == 3, "the second call ran %d (kind %d); a try (kind 3) expected after a cold first call of %g x its estimate", ch[1],
                  kd[1], 4 * h / est[first]);
            CHECK(ch[2] == first && kd[2] == 2, "the third call ran %d (kind %d); %d again (kind 2) expected: its cold call's half ranks first, and nothing is tried against it",
                  ch[2], kd[2], first);
            for (int c = 2; c < NC; c++) CHECK(ch[c] == first, "call %d ran %d; %d is the cheapest warm", c, ch[c], first);
            if (me == 0) {
                printf("no try against a cold call's half: schemes run");
                for (int c = 0; c < NC; c++) printf(" %d", ch[c]);
                printf("\n");
            }
        }
    }

    /* 3d. the model off everywhere: every scheme costs F times its estimate, F over 16 (the first call
       alone is far off when a quarter of it is over 4x) and enough that the
       two schemes estimated next cheapest after the model's choice could beat its time by their
       estimates: the second call tries one (the choice is far off); once it too ran F times its estimate,
       two far off say the model is off across the board, and the other is not tried */
    snprintf(g_case, sizeof g_case, "the model off everywhere");
    {
        int o1 = argmin(est, first), o2 = -1;
        for (int k = 0; k < 4; k++)
            if (k != first && k != o1 && (o2 < 0 || est[k] < est[o2])) o2 = k;
        double F = 1.5 * est[o2] / est[first] / 0.87, t[4];
        F = F > 17 ? F : 17;
        for (int k = 0; k < 4; k++) t[k] = F * est[k];
        colldiag_auto_forget();
        clock_env(t, 0);
        loop("everywhere", NC, ch, kd, NULL, ec);
        check_rule("everywhere", NC, ch, kd, ec, est, t);
        int distinct = 0, seen[4] = {0};
        for (int c = 0; c < NC; c++)
            if (ch[c] >= 0 && ch[c] < 4 && !seen[ch[c]]++) distinct++;
        /* the floor covers an untried scheme only where it shares a term with one of the two far off (on
           16 ranks here all-independent, its own I/O alone, shares none with aggregation and link-chunk:
           as likely a slow network as a model off, so it may be tried, the bound's second try; check_rule
           says which call) */
        const int t1 = ch[1] >= 0 && ch[1] < 4 ? ch[1] : first;
        int floored[4], all_floored = 1;
        for (int k = 0; k < 4; k++) {
            floored[k] = k == first || k == t1 || shares_term(k, first, est) || shares_term(k, t1, est);
            all_floored &= floored[k];
        }
        CHECK(kd[1] == 3 && (all_floored ? distinct == 2 : distinct <= 3),
              "%d schemes ran (second call kind %d): the model's choice and one try expected%s, every scheme %g x its estimate", distinct, kd[1],
              all_floored ? "" : " (and a try of one not under the floor)", F);
        for (int c = 2; c < NC; c++)
            CHECK(ch[c] == first || (ch[c] >= 0 && ch[c] < 4 && !floored[ch[c]] && kd[c] == 3), "call %d ran %d (kind %d); the model's choice %d is the cheapest", c, ch[c],
                  kd[c], first);
    }

    /* 3e. a scheme the job never ran pays its own MPI-IO set-up on its first call (link-chunk's first
       collective read on 8 ranks: 57 ms, 6 ms warm, 1.5 ms estimated), so a try made on the model's
       word alone, while the best runs near its estimate (within 4x), must halve the best's time: 15%
       is not enough. Whole row blocks (schemes estimated close together): the model's choice F costs
       the next scheme's estimate / 0.7 (under 4x F's own estimate: not far), every other scheme its
       estimate. Where some untried scheme's corrected estimate beats F's time by 15% but not by half
       at the third call (the old bar tried it there), nothing is tried in the whole loop. */
    snprintf(g_case, sizeof g_case, "a scheme the job never ran, near the best");
    {
        double e1[4], t[4];
        rows_probe("rows-probe", ch, kd, e1);
        const int f1 = ch[0], o = argmin(e1, f1);
        const double tf = e1[o] / 0.7;
        if (!(tf > e1[f1] && tf <= 4 * e1[f1])) {
            if (me == 0) printf("a scheme never ran, near the best: not tested at %d ranks (estimates %g %g %g %g)\n", P, e1[0], e1[1], e1[2], e1[3]);
        } else {
            for (int k = 0; k < 4; k++) t[k] = e1[k];
            t[f1] = tf;
            colldiag_auto_forget();
            clock_env(t, 0);
            loop("rows", NC, ch, kd, NULL, ec);
            check_rule("rows", NC, ch, kd, ec, e1, t);
            int near = -1;
            for (int k = 0; k < 4; k++)
                if (k != f1 && ec[2][k] < 0.87 * tf && ec[2][k] >= 0.5 * tf) near = k;
            if (near >= 0) {
                for (int c = 0; c < NC; c++)
                    CHECK(ch[c] == f1, "call %d ran %d: scheme %d (corrected %g) was tried against the best's %g s (%g x its estimate), never run in the job",
                          c, ch[c], near, ec[2][near], tf, tf / e1[f1]);
            } else if (me == 0)
                printf("a scheme never ran, near the best: no scheme within 15%%..50%% at %d ranks (corrected %g %g %g %g, the best %g)\n", P, ec[2][0], ec[2][1],
                       ec[2][2], ec[2][3], tf);
        }
        g_rows = 0;
    }

    /* 3f. a job's first calls can run cold for two calls, not one (all-independent's B1 writes on 3 and 8
       ranks of 2 cores, a process's first loop: 11-29 ms, 10-21 ms, then 2.4-3 ms): the model's choice F
       costs Y = 15x its estimate on the pattern's first two calls (its second alone is over 4x, "far"; a
       quarter of it is not), then its estimate; every other scheme costs its estimate. Where another
       scheme is estimated under 0.87 Y x F's estimate (the early 15% bar, judged on the second call alone,
       tried it at the third call), nothing is tried: F runs every call (from the pattern's call 3 it is
       near its estimate again; aggregation alone moves its owners' runs once by independent calls). */
    snprintf(g_case, sizeof g_case, "a second call still cold");
    {
        const double Y = 15;
        double t[4];
        for (int k = 0; k < 4; k++) t[k] = est[k];
        const int o = argmin(est, first);
        if (!(est[o] < 0.87 * Y * est[first])) {
            if (me == 0) printf("a second call still cold: not tested at %d ranks (the next estimate %g is over 0.87 x %g x the choice's %g)\n", P, est[o], Y, est[first]);
        } else {
            t[first] = Y * est[first];
            colldiag_auto_forget();
            clock_env(t, 0);
            loop("young-a", 2, ch, kd, NULL, NULL);
            clock_env(est, 0);
            loop("young-b", NC - 2, ch + 2, kd + 2, NULL, NULL);
            for (int c = 0; c < NC; c++)
                CHECK(ch[c] == first && kd[c] == (c == 0 ? 1 : first == 2 && c == 3 ? 4 : 2),
                      "call %d ran %d (kind %d): the model's choice %d, %g x its estimate on its first two calls only, must run every call, nothing tried", c, ch[c],
                      kd[c], first, Y);
            if (me == 0) printf("a second call still cold: schemes run %d %d %d %d %d %d %d %d %d %d\n", ch[0], ch[1], ch[2], ch[3], ch[4], ch[5], ch[6], ch[7], ch[8], ch[9]);
        }
    }

    /* 3g. a best is "far" off its estimate only when even its fastest call is: its median can still hold
       a slow second call (8 ranks, B4 writes: multi-chunk's median read as far after a slow second call,
       and all-independent, estimated alike, was tried by its own estimate at 9x it: 1.39x the best's
       total). Whole row blocks (schemes estimated close together): the model's choice F costs 15x its
       estimate on its first two calls, then 3x (under 4x); every other scheme its estimate. At the
       pattern's call 3 F's warm median is 9x its estimate, its fastest call 3x: not far, so a scheme G
       is tried only when its lent estimate (F's error carried by the terms they share) halves F's 3x,
       not by its own estimate alone. Tested where G's own estimate is under that bar and its lent one
       is not (the median rule tried G there). */
    snprintf(g_case, sizeof g_case, "far by the fastest call");
    {
        double e1[4], t[4], ecg[NC][4];
        rows_probe("fast-probe", ch, kd, e1);
        const int f1 = ch[0], g = argmin(e1, f1);
        for (int k = 0; k < 4; k++) t[k] = e1[k];
        t[f1] = 15 * e1[f1];
        colldiag_auto_forget();
        clock_env(t, 0);
        loop("fast-a", 2, ch, kd, NULL, ecg);
        t[f1] = 3 * e1[f1];
        clock_env(t, 0);
        loop("fast-b", 2, ch + 2, kd + 2, NULL, ecg + 2);
        /* (a G whose try makes no collective MPI-IO call, aggregation or all-independent, by 15% there: F,
           warm, ran over 2x its estimate, case 3h) */
        const double bar = (g >= 2 ? 0.87 : 0.5) * 3 * e1[f1];
        CHECK(ch[0] == f1 && ch[1] == f1 && ch[2] == f1, "calls 0-2 ran %d %d %d: the model's choice %d, young, runs them", ch[0], ch[1], ch[2], f1);
        if (e1[g] < bar && ecg[3][g] >= bar) {
            CHECK(ch[3] == f1 && kd[3] == 2, "call 3 ran %d (kind %d): %d's fastest call is 3x its estimate (not far), and %d's lent estimate %g does not halve it (%g)",
                  ch[3], kd[3], f1, g, ecg[3][g], 3 * e1[f1]);
            if (me == 0) printf("far by the fastest call: schemes run %d %d %d %d (estimates %g %g %g %g, lent at call 3 %g %g %g %g)\n", ch[0], ch[1], ch[2], ch[3], e1[0],
                                e1[1], e1[2], e1[3], ecg[3][0], ecg[3][1], ecg[3][2], ecg[3][3]);
        } else if (me == 0)
            printf("far by the fastest call: not tested at %d ranks (estimates %g %g %g %g, lent at call 3 %g %g %g %g; the bar %g)\n", P, e1[0], e1[1], e1[2], e1[3],
                   ecg[3][0], ecg[3][1], ecg[3][2], ecg[3][3], bar);
        g_rows = 0;
    }

    /* 3h. a best the model misjudged by over 2x (but under 4x), warm: a scheme whose try makes no
       collective MPI-IO call (all-independent; aggregation, tried by its owners' independent way) is
       tried on calls 3 and 4 by 15%, not by half: no collective MPI-IO set-up to pay on its first call, and
       the model's ranking is in doubt by the best's own error (bench-auto across 4x2 simulated nodes: B3w64
       reads ran all-independent at 2-2.6x its estimate while aggregation's owners' independent way, never
       tried, ran 0.3x its time; at 200 Mbit/s B3w64 writes the same). Whole row blocks (schemes estimated
       close together); the model's choice F costs m (2 < m <= 4) times its estimate from its first call,
       m set so that G, the cheaper of aggregation and all-independent (not F), is estimated at 0.7 of
       that; every other scheme costs its estimate. Where, at call 3, G's lent estimate is between half
       and 0.87 of F's time (at 3, 8 and 16 ranks: F all-independent, G aggregation),
       G must run at call 3 (kind 3) (check_rule mirrors the rest); aggregation by its owners' independent
       way, with no collective MPI-IO call on any rank, and, its estimate not halving that way's time,
       never by the collective way after. */
    snprintf(g_case, sizeof g_case, "a misjudged best, a try with no collective MPI-IO");
    {
        double t[4], e1[4];
        /* link-chunk at RUN's full price a run (RUN_LOW 1): priced at RUN_LOW's share, its estimate of whole
           row blocks is as low as all-independent's (3 ranks: 0.13 ms against 0.12) and it halves F's time
           by a hair, a try with a collective set-up that this case is not about */
        setenv("COLLDIAG_AUTO_RUN_LOW", "1", 1);
        rows_probe("misjudged-probe", ch, kd, e1);
        const int f = ch[0];
        int g = -1;
        for (int k = 2; k < 4; k++)
            if (k != f && (g < 0 || e1[k] < e1[g])) g = k;
        double m = e1[g] / (0.7 * e1[f]);
        m = m < 2.05 ? 2.05 : m > 3.95 ? 3.95 : m;
        for (int k = 0; k < 4; k++) t[k] = e1[k];
        t[f] = m * e1[f];
        colldiag_auto_forget();
        clock_env(t, 0);
        loop("misjudged", NC, ch, kd, NULL, ec);
        unsetenv("COLLDIAG_AUTO_RUN_LOW");
        const int first = f; /* (the messages' and the rule's names) */
        if (ec[3][g] >= 0.5 * t[first] && ec[3][g] < 0.87 * t[first]) {
            check_rule("misjudged", NC, ch, kd, ec, e1, t);
            CHECK(ch[3] == g && kd[3] == 3, "call 3 ran %d (kind %d): %d, lent %g, is within 15%%..50%% of the best's %g s (%gx its estimate), and its try makes no collective "
                  "MPI-IO call", ch[3], kd[3], g, ec[3][g], t[first], m);
            for (int c = 3; g == 2 && c < NC && ch[c] == 2; c++)
                CHECK(g_aggio[c] == 1 && g_ncoll[c] == 0, "call %d: aggregation's owners' I/O %d, %llu collective MPI-IO calls on rank %d: its independent way expected", c,
                      g_aggio[c], (unsigned long long)g_ncoll[c], me);
            if (me == 0) printf("a misjudged best: %d tried at call 3 (lent %g, the best's time %g)\n", g, ec[3][g], t[first]);
        } else if (me == 0)
            printf("a misjudged best: not tested at %d ranks (scheme %d lent %g at call 3, the best's time %g)\n", P, g, ec[3][g], t[first]);
        g_rows = 0;
    }

    /* 3i. a tie the model cannot break (src/measure.c, meas_tie): the best, warm, ran as the model priced it
       (within 1.4x its estimate, either way) and an untried scheme's lent estimate is within 10% of the
       best's time (of its estimate, when it ran under that): it is tried, once, though it does not halve that time (bench-auto's Xrr, rows dealt
       round-robin: link-chunk and aggregation both priced at 3.2 ms, aggregation ran 3.5-4 ms and
       link-chunk, never tried, 2 ms); only link or multi, once collective MPI-IO calls ran twice (F
       link, multi, or aggregation by its collective way). Column blocks, all-independent and multi
       priced out (COLLDIAG_AUTO_IND) and link-chunk priced at 1.05x aggregation (COLLDIAG_AUTO_RUN): the
       model's choice F (aggregation) costs 1.3x, 0.8x or 0.6x its estimate, G (the cheaper estimate of
       link and multi, not F) half of F's time, every other scheme its estimate. Where F is not
       all-independent and G's lent estimate is within 10% of the larger of F's time and estimate at
       calls 3 to 5, G must be tried by call 5 and run the loop's last call; at 0.6x it is never tried
       (unless it halves F's time); check_rule mirrors every call. */
    snprintf(g_case, sizeof g_case, "a tie the model cannot break");
    {
        double t[4], e1[4], r0[4], r1[4], run = -1;
        const double flat[4] = {1e-3, 1e-3, 1e-3, 1e-3};
        /* column blocks (every scheme a candidate); all-independent and multi priced out (IND), and RUN set
           so that link-chunk is estimated at 1.05x aggregation: both estimates are linear in RUN (link's
           runs are the file's, aggregation's its owners' whole chunks), two probes give their slopes */
        g_rows = 0;
        setenv("COLLDIAG_AUTO_IND", "1e-2", 1);
        clock_env(flat, 0);
        setenv("COLLDIAG_AUTO_RUN", "4e-6", 1);
        colldiag_auto_forget();
        loop("tie-probe", 1, ch, kd, r0, NULL);
        setenv("COLLDIAG_AUTO_RUN", "8e-6", 1);
        colldiag_auto_forget();
        loop("tie-probe", 1, ch, kd, r1, NULL);
        const double sl = (r1[0] - r0[0]) / 4e-6, sa = (r1[2] - r0[2]) / 4e-6, al = r0[0] - sl * 4e-6, aa = r0[2] - sa * 4e-6;
        if (sl > 1.05 * sa) run = (1.05 * aa - al) / (sl - 1.05 * sa);
        char rs[64];
        snprintf(rs, sizeof rs, "%.17g", run > 0 ? run : 4e-6);
        setenv("COLLDIAG_AUTO_RUN", rs, 1);
        colldiag_auto_forget();
        loop("tie-probe", 1, ch, kd, e1, NULL);
        const int f = ch[0], g = f == 0 ? 1 : f == 1 ? 0 : e1[0] < e1[1] ? 0 : 1;
        /* F at 1.3x its estimate (a tie against its time), at 0.8x (under its price: the guess is held
           against F's estimate, the two prices within 10%), and at 0.6x (under 1/1.4 of its price: the
           model is wrong about F and no tie is tried) */
        static const double fit[3] = {1.3, 0.8, 0.6};
        for (int v = 0; v < 3; v++) {
            for (int k = 0; k < 4; k++) t[k] = e1[k];
            t[f] = fit[v] * e1[f];
            t[g] = 0.5 * t[f];
            colldiag_auto_forget();
            clock_env(t, 0);
            loop("tie", NC, ch, kd, NULL, ec);
            check_rule("tie", NC, ch, kd, ec, e1, t);
            int tie = 0, tried = -1, barred = 0;
            const double at = t[f] > e1[f] ? t[f] : e1[f];
            for (int c = 3; c <= 5; c++) tie |= ec[c][g] <= 1.1 * at && f <= 2 && fit[v] * 1.4 >= 1;
            for (int c = 1; c < NC; c++) barred |= ec[c][g] < 0.5 * t[f]; /* the halving bar would try it anyway */
            for (int c = 1; c < NC; c++)
                if (tried < 0 && ch[c] == g && kd[c] == 3) tried = c;
            if (tie) {
                CHECK(tried >= 3 && tried <= 5 && ch[NC - 1] == g, "%d (lent %g at call 3) ties the best %d's %g s (%gx its estimate %g): tried at call %d (kinds %d %d %d), last call ran %d",
                      g, ec[3][g], f, t[f], fit[v], e1[f], tried, kd[3], kd[4], kd[5], ch[NC - 1]);
                if (me == 0) printf("a tie (the best at %gx its estimate): %d tried at call %d (lent %g, the best %d's time %g)\n", fit[v], g, tried, ec[3][g], f, t[f]);
            } else if (fit[v] * 1.4 < 1 && f <= 2 && !barred) {
                CHECK(tried < 0, "%d was tried at call %d: the best %d ran %gx its estimate, under 1/1.4 of it, where no tie is tried (lent %g at call 3)", g, tried,
                      f, fit[v], ec[3][g]);
                if (me == 0) printf("no tie (the best at %gx its estimate): %d never tried (lent %g, the best %d's estimate %g)\n", fit[v], g, ec[3][g], f, e1[f]);
            } else if (me == 0)
                printf("a tie (the best at %gx its estimate): not tested at %d ranks (scheme %d lent %g at call 3, the best %d's time %g; estimates %g %g %g %g; RUN %g)\n",
                       fit[v], P, g, ec[3][g], f, t[f], e1[0], e1[1], e1[2], e1[3], run);
        }
        unsetenv("COLLDIAG_AUTO_IND");
        unsetenv("COLLDIAG_AUTO_RUN");
    }

    /* 4. the pure model */
    snprintf(g_case, sizeof g_case, "COLLDIAG_AUTO_MODE=estimate");
    {
        double t[4];
        for (int k = 0; k < 4; k++) t[k] = est[k];
        t[first] = 100 * est[first];
        colldiag_auto_forget();
        clock_env(t, 0);
        setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
        loop("estimate", 4, ch, kd, NULL, NULL);
        for (int c = 0; c < 4; c++) CHECK(ch[c] == first && kd[c] == 0, "call %d ran %d (kind %d); the model's %d, kind 0", c, ch[c], kd[c], first);
        unsetenv("COLLDIAG_AUTO_MODE");
    }

    /* 5. wisdom: a run that measured the convergence case (its file written as colldiag writes it at
       MPI_Finalize: by this same process, which then forgets and loads it) starts on the best scheme */
    snprintf(g_case, sizeof g_case, "wisdom");
    {
        char wpath[1024];
        snprintf(wpath, sizeof wpath, "%s/test_auto_wisdom.txt", dir);
        double t[4];
        for (int k = 0; k < 4; k++) t[k] = est[k];
        t[first] = 20 * est[first];
        int want;
        colldiag_auto_forget();
        if (me == 0) remove(wpath);
        MPI_Barrier(MPI_COMM_WORLD);
        setenv("COLLDIAG_WISDOM", wpath, 1);
        clock_env(t, 0);
        loop("learn", NC, ch, kd, NULL, NULL);
        want = ch[NC - 1]; /* what the learning run settled on */
        colldiag_auto_save_wisdom(); /* what MPI_Finalize does */
        MPI_Barrier(MPI_COMM_WORLD);
        colldiag_auto_forget();
        loop("reuse", 3, ch, kd, NULL, NULL);
        for (int c = 0; c < 3; c++) CHECK(ch[c] == want && kd[c] == 2, "with wisdom, call %d ran %d (kind %d); the measured best %d, kind 2", c, ch[c], kd[c], want);
        /* another place: the ranks in the file's place line differ */
        if (me == 0) {
            FILE *in = fopen(wpath, "r");
            char buf[65536];
            size_t len = in ? fread(buf, 1, sizeof buf - 1, in) : 0;
            if (in) fclose(in);
            buf[len] = 0;
            char *at = strstr(buf, "where ranks=");
            FILE *o = fopen(wpath, "w");
            if (o && at) {
                fwrite(buf, 1, (size_t)(at - buf), o);
                fprintf(o, "where ranks=%d%s", P + 1000, strchr(at + 12, ' '));
            }
            if (o) fclose(o);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        colldiag_auto_forget();
        loop("foreign", 1, ch, kd, NULL, NULL);
        CHECK(ch[0] == first && kd[0] == 1, "with wisdom of another place, the first call ran %d (kind %d); the model's %d, kind 1", ch[0], kd[0], first);
        unsetenv("COLLDIAG_WISDOM");
        if (me == 0) remove(wpath);
    }
    /* 6. the probed collective step (src/files.c, file_probe_step): a file's first open over a group of
       ranks probes what one step of an exchange costs (COLLDIAG_INJECT=step:S gives the answer in test
       builds), and the model prices multi-chunk's three steps and aggregation's seven (this pattern
       shares its chunks) at it; a set COLLDIAG_AUTO_LAT_X rules instead; the group's answer is kept.
       (COLLDIAG_AUTO_LAT is set here so that a collective MPI-IO call's latency stays put: see 6b.) */
    {
        snprintf(g_case, sizeof g_case, "the probed collective step");
        double ea[4], eb[4], ec2[4];
        char why[1024];
        const double S = 0.002, K = 1e-5;
        colldiag_auto_forget();
        setenv("COLLDIAG_AUTO_LAT", "1e-4", 1);
        const double la = step_open("step_a", "step:0.002", ea, why, sizeof why);
        CHECK(P > 1 ? la == S : la == 0, "the probed step is %.17g s, expected %g", la, P > 1 ? S : 0.0);
        if (P > 1) CHECK(strstr(why, "a collective step probed at 2e+03 us") != NULL, "the reason does not name the probed step: %s", why);
        /* the group's probe is kept: another file over the same ranks is not probed again */
        const double lc = step_open("step_c", "step:0.05", ec2, why, sizeof why);
        CHECK(lc == la, "a second file over the same ranks has step %.17g s, the group's %.17g s", lc, la);
        colldiag_auto_forget();
        setenv("COLLDIAG_AUTO_LAT_X", "1e-5", 1);
        const double lb = step_open("step_b", "step:0.002", eb, why, sizeof why);
        unsetenv("COLLDIAG_AUTO_LAT_X");
        CHECK(lb == 0, "with COLLDIAG_AUTO_LAT_X set the step was probed: %.17g s", lb);
        if (P > 1) {
            const double d[4] = {0, 3 * (S - K), 7 * (S - K), 0}; /* multi: 3 steps, aggregation: 7 */
            for (int k = 0; k < 4; k++)
                CHECK(fabs((ea[k] - eb[k]) - d[k]) <= 1e-9 + 1e-9 * fabs(ea[k]), "scheme %d's estimate with the probed step %.9g s, "
                      "with the set one %.9g s: a difference of %.9g s, expected %.9g s", k, ea[k], eb[k], ea[k] - eb[k], d[k]);
        }
        unsetenv("COLLDIAG_AUTO_LAT");
        /* the real probe (no injection): a positive time, agreed by every rank (checked in step_open) */
        colldiag_auto_forget();
        const double ld = step_open("step_d", NULL, ec2, why, sizeof why);
        CHECK(P > 1 ? ld > 0 && ld < 10 : ld == 0, "the probed step is %.17g s", ld);
        colldiag_auto_forget();
    }
    /* 6b. a step probed slower than the default LAT_X (7 us, colldiag.h) slows a collective MPI-IO
       call's latency (LAT: link-chunk's one call, each of multi-chunk's collective chunks, aggregation's
       one call) by the same factor; a faster one leaves it as it is; a set COLLDIAG_AUTO_LAT rules. The
       default LAT is internal, so the test finds it: link-chunk's estimate is LAT plus terms that do not
       depend on the step, and with LAT set to L it is L plus the same terms. */
    if (P > 1) {
        snprintf(g_case, sizeof g_case, "the probed step scales a collective call's latency");
        double hi[4], lo[4], set[4];
        char why[1024];
        const double X0 = 7e-6, S = 0.002, SL = 3.5e-6, L = 2e-4;
        /* RUN_LOW set (not its default): a run's price then stays put whatever the step (run_slow) */
        setenv("COLLDIAG_AUTO_RUN_LOW", "1", 1);
        colldiag_auto_forget();
        step_open("lat_hi", "step:0.002", hi, why, sizeof why);
        colldiag_auto_forget();
        step_open("lat_lo", "step:3.5e-6", lo, why, sizeof why);
        colldiag_auto_forget();
        setenv("COLLDIAG_AUTO_LAT", "2e-4", 1);
        step_open("lat_set", "step:0.002", set, why, sizeof why);
        unsetenv("COLLDIAG_AUTO_LAT");
        unsetenv("COLLDIAG_AUTO_RUN_LOW");
        colldiag_auto_forget();
        const double rest = set[0] - L, lat0 = lo[0] - rest; /* link-chunk's other terms; the default LAT */
        CHECK(lat0 > 1e-6 && lat0 < 1e-2, "the default LAT found as %.9g s (link-chunk %.9g s at the low step, %.9g s with LAT %g)", lat0, lo[0], set[0], L);
        const double dl = hi[0] - lo[0], want = lat0 * (S / X0 - 1);
        CHECK(fabs(dl - want) <= 1e-9 + 1e-6 * want, "link-chunk's estimate rose by %.9g s from a step of %g s to one of %g s, expected LAT x (%g / %g - 1) = %.9g s",
              dl, SL, S, S, X0, want);
        /* aggregation: one such call and seven steps */
        const double da = hi[2] - lo[2], wa = want + 7 * (S - SL);
        CHECK(fabs(da - wa) <= 1e-9 + 1e-6 * wa, "aggregation's estimate rose by %.9g s, expected %.9g s", da, wa);
        /* multi-chunk: its three steps at least (and LAT once a collective chunk) */
        CHECK(hi[1] - lo[1] >= 3 * (S - SL) - 1e-9, "multi-chunk's estimate rose by %.9g s, less than its three steps' %.9g s", hi[1] - lo[1], 3 * (S - SL));
        /* all-independent has no collective call */
        CHECK(fabs(hi[3] - lo[3]) <= 1e-12 + 1e-9 * hi[3], "all-independent's estimate moved with the step: %.9g s, %.9g s", lo[3], hi[3]);
    }
    /* 6c. RUN by the run count (colldiag.c's run_price): link-chunk's estimate holds R RUN x RUN_LOW for
       the busiest rank's R runs up to RUN_KNEE runs, R RUN at 64K runs and more, and R RUN x
       RUN_LOW^(1 - g) between, g = ln(R / knee) / ln(65536 / knee). The test counts R itself: rank r's
       column blocks b = r (mod P) of W columns, each a run in each of the N rows (no two of a rank's
       blocks touch with P > 1), so R = N ceil(16 / P) for P ranks up to 16 (the busiest, rank 0; the
       mean is less). Only RUN's term moves between settings, so differences of link-chunk's estimate
       are run prices; all-independent's must not move (no collective call). */
    if (P > 1 && P <= N / W) {
        snprintf(g_case, sizeof g_case, "RUN by the run count");
        const double flat[4] = {1e-3, 1e-3, 1e-3, 1e-3}, run = 4e-6, low = 0.25;
        const double R = (double)N * (double)((N / W + P - 1) / P);
        const char *const set[3][2] = {{"1", "4096"}, {"0.25", "4096"}, {"0.25", NULL}};
        char knee[32];
        snprintf(knee, sizeof knee, "%.17g", R / 4);
        double e[3][4];
        int ch[1], kd[1];
        g_rows = 0;
        clock_env(flat, 0);
        setenv("COLLDIAG_AUTO_RUN", "4e-6", 1);
        for (int v = 0; v < 3; v++) {
            setenv("COLLDIAG_AUTO_RUN_LOW", set[v][0], 1);
            setenv("COLLDIAG_AUTO_RUN_KNEE", set[v][1] ? set[v][1] : knee, 1);
            colldiag_auto_forget();
            loop("run-count", 1, ch, kd, e[v], NULL);
        }
        unsetenv("COLLDIAG_AUTO_RUN");
        unsetenv("COLLDIAG_AUTO_RUN_LOW");
        unsetenv("COLLDIAG_AUTO_RUN_KNEE");
        colldiag_auto_forget();
        /* under the knee: RUN_LOW of the price */
        const double below = R * run * (1 - low);
        CHECK(fabs((e[0][0] - e[1][0]) - below) <= 1e-12 + 1e-9 * below, "%g runs a rank, under the knee: link-chunk's estimate %.9g s at RUN_LOW 1, %.9g s at "
              "%g, a difference of %.9g s, expected R RUN (1 - RUN_LOW) = %.9g s", R, e[0][0], e[1][0], low, e[0][0] - e[1][0], below);
        /* past the knee (at R / 4): the geometric step between the two prices */
        const double g = log(4.0) / log(65536.0 / (R / 4)), past = R * run * (1 - pow(low, 1 - g));
        CHECK(fabs((e[0][0] - e[2][0]) - past) <= 1e-12 + 1e-9 * past, "%g runs a rank, 4x the knee: link-chunk's estimate %.9g s, %.9g s at RUN_LOW 1: "
              "a difference of %.9g s, expected R RUN (1 - RUN_LOW^(1 - %.6g)) = %.9g s", R, e[2][0], e[0][0], e[0][0] - e[2][0], g, past);
        for (int v = 1; v < 3; v++)
            CHECK(e[v][3] == e[0][3], "all-independent's estimate moved with RUN_LOW or RUN_KNEE: %.9g s, %.9g s", e[0][3], e[v][3]);
        if (me == 0) printf("RUN by the run count: %g runs a rank, link-chunk %.6g s at one price, %.6g s under the knee, %.6g s past it\n", R, e[0][0], e[1][0], e[2][0]);
    }

    /* 7. aggregation's owners' I/O, measured (src/measure.c, meas_agg_judge): aggregation is the model's
       choice and the cheapest scheme (its estimate; every other costs 10x its own: never tried); once it
       ran twice warm (calls 1 and 2), call 3 moves its owners' runs by independent calls (kind 4), costing Y
       (the clock's seventh value). Kept from call 4 on only when Y < 0.87 x aggregation's collective
       median, the clock's A; every rank alike; the MPI-IO calls the write made say how it moved (the
       test's counters: no collective call when independent, one at least on every rank when not); every
       byte read back and checked (loop). Then the wisdom saved (as MPI_Finalize saves it) starts the
       next run's first calls the way the loop kept, without trying again. */
    for (int kept = 0; kept < 2; kept++) {
        snprintf(g_case, sizeof g_case, "aggregation's owners' I/O, %s", kept ? "independent faster" : "independent slower");
        if (first != 2) {
            if (me == 0 && kept) printf("aggregation's owners' I/O: not tested at %d ranks (the model's choice is %d, not aggregation)\n", P, first);
            continue;
        }
        double t[4];
        for (int k = 0; k < 4; k++) t[k] = 10 * est[k];
        t[2] = g_fit * est[2];
        const double y = kept ? 0.5 * t[2] : 2 * t[2];
        char e[256];
        snprintf(e, sizeof e, "clock:%.17g,%.17g,%.17g,%.17g,0,1,%.17g", t[0], t[1], t[2], t[3], y);
        char wpath[1024];
        snprintf(wpath, sizeof wpath, "%s/test_auto_aggio_wisdom.txt", dir);
        colldiag_auto_forget();
        if (me == 0) remove(wpath);
        MPI_Barrier(MPI_COMM_WORLD);
        setenv("COLLDIAG_WISDOM", wpath, 1);
        setenv("COLLDIAG_INJECT", e, 1);
        loop(kept ? "aggio_kept" : "aggio_dropped", NC, ch, kd, NULL, NULL);
        const int keep = y < 0.87 * t[2]; /* the rule, applied by the test */
        for (int c = 0; c < NC; c++) {
            const int wkind = c == 0 ? 1 : c == 3 ? 4 : 2, wio = c == 3 || (c > 3 && keep);
            CHECK(ch[c] == 2 && kd[c] == wkind && g_aggio[c] == wio, "call %d ran %d (kind %d, owners' I/O %d), expected aggregation (kind %d, owners' I/O %d)", c,
                  ch[c], kd[c], g_aggio[c], wkind, wio);
            CHECK(wio ? g_ncoll[c] == 0 : g_ncoll[c] >= 1, "call %d: %llu collective MPI-IO calls on rank %d, its owners' runs moved by %s calls", c,
                  (unsigned long long)g_ncoll[c], me, wio ? "independent" : "collective");
            if (c > 3) /* what the pattern measured of the two ways: the agreed times are the clock's (ns) */
                CHECK(fabs(g_aggt[c][0] - t[2]) <= 2e-9 && fabs(g_aggt[c][1] - y) <= 2e-9, "call %d: aggregation measured %.9g s collective, %.9g s independent; the clock said %.9g, %.9g",
                      c, g_aggt[c][0], g_aggt[c][1], t[2], y);
            else CHECK(g_aggt[c][0] < 0 && g_aggt[c][1] < 0, "call %d: aggregation's two ways reported measured (%g, %g) before the try's time was agreed", c, g_aggt[c][0], g_aggt[c][1]);
        }
        uint64_t ind = 0, sum = 0;
        for (int c = 4; c < NC; c++) ind += g_nind[c];
        MPI_Allreduce(&ind, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        CHECK(!keep || sum > 0, "the owners' runs kept by independent calls, but no rank made an independent MPI-IO call from call 4 on");
        /* the rank whose MPI-IO call fails below: the last that made independent calls here (an owner; on
           12 ranks here rank 11 owns no run and makes no MPI-IO call, so a failure injected there never fires) */
        int mine = ind > 0 ? me : -1, victim = -1;
        MPI_Allreduce(&mine, &victim, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        colldiag_auto_save_wisdom(); /* what MPI_Finalize does */
        MPI_Barrier(MPI_COMM_WORLD);
        colldiag_auto_forget();
        loop(kept ? "aggio_kept_reuse" : "aggio_dropped_reuse", 5, ch, kd, NULL, NULL);
        for (int c = 0; c < 5; c++)
            CHECK(ch[c] == 2 && kd[c] == 2 && g_aggio[c] == keep && fabs(g_aggt[c][0] - t[2]) <= 2e-9 && fabs(g_aggt[c][1] - y) <= 2e-9,
                  "with wisdom, call %d ran %d (kind %d, owners' I/O %d, measured %g / %g); aggregation, kind 2, owners' I/O %d, %g / %g expected", c, ch[c], kd[c],
                  g_aggio[c], g_aggt[c][0], g_aggt[c][1], keep, t[2], y);
        /* collective safety on the independent way: with the wisdom that kept it, the pattern's first call
           moves its owners' runs by independent calls; one rank's MPI-IO call fails there (injected): every
           rank returns an error naming that rank, none hangs */
        if (keep && P > 1 && victim >= 0) {
            snprintf(g_case, sizeof g_case, "aggregation's owners' I/O, independent, rank %d failing", victim);
            colldiag_auto_forget();
            snprintf(e, sizeof e, "io:%d", victim);
            setenv("COLLDIAG_INJECT", e, 1);
            char path[1024];
            colldiag_file *f;
            colldiag_layout *l;
            colldiag_xfer *x;
            open_auto("aggio_fail", path, &f, &l, &x);
            colldiag_sel *sl = my_sel();
            const uint64_t ne = colldiag_sel_npoints(sl);
            double *w = calloc(ne + 1, sizeof *w);
            const int rc = colldiag_write(f, l, sl, NULL, w, x);
            int aio = -2, kd1 = -1;
            colldiag_get_auto_aggregation_io(x, &aio, NULL);
            colldiag_get_auto_measured(x, NULL, NULL, &kd1, NULL);
            char r[32];
            snprintf(r, sizeof r, "rank %d", victim);
            CHECK(aio == 1 && kd1 == 2, "the failing call: owners' I/O %d (kind %d), the wisdom's independent way expected", aio, kd1);
            CHECK(rc != 0 && strstr(colldiag_xfer_errmsg(x), r) != NULL, "the call returned %d, message \"%s\": an error naming %s expected on every rank", rc,
                  colldiag_xfer_errmsg(x), r);
            unsetenv("COLLDIAG_INJECT");
            free(w);
            colldiag_sel_free(sl);
            colldiag_xfer_free(x);
            colldiag_layout_free(l);
            colldiag_file_close(f);
            if (me == 0) remove(path);
        }
        unsetenv("COLLDIAG_WISDOM");
        if (me == 0) remove(wpath);
        if (me == 0 && kept) printf("aggregation's owners' I/O: tried at call 3, kept when %g < 0.87 x %g\n", y, t[2]);
    }
    /* 7b. aggregation's owners' way looked at again (src/measure.c, meas_agg_slowed): as in case 7,
       aggregation is the cheapest scheme (collective owners' runs A, the model's estimate), and its
       owners' runs by independent calls cost A/2, so call 3 tries them and the loop keeps them. Then
       they slow to 3A (from call 6: a file system that got busy): within the 8 calls whose median
       AUTO keeps, one call (kind 5) moves them by collective calls again, and at A < 0.87 x 3A the loop
       keeps that way, reporting both ways' times (A, 3A). Then the collective way slows to 5A and the
       independent one is back at A/2 (from the second call after that relook): a second relook
       (kind 5, independent) within 8 calls, kept. Every call ran aggregation, every rank alike, its
       MPI-IO calls as the way says; every byte read back and checked (loop). */
    if (first == 2) {
        snprintf(g_case, sizeof g_case, "aggregation's owners' way looked at again");
        enum { NL = 30 };
        int lch[NL], lkd[NL];
        g_rl_a = g_fit * est[2];
        for (int k = 0; k < 4; k++) g_rl_t[k] = 10 * est[k];
        g_rl_relook[0] = -1;
        const double a = g_rl_a;
        rl_clock(a, 0.5 * a);
        colldiag_auto_forget();
        g_before = relook_phases;
        loop("aggio_relook", NL, lch, lkd, NULL, NULL);
        g_before = NULL;
        int r[2] = {-1, -1}, nr = 0;
        for (int c = 0; c < NL; c++)
            if (lkd[c] == 5) {
                if (nr < 2) r[nr] = c;
                nr++;
            }
        CHECK(nr == 2, "%d calls looked at the owners' way again (kind 5), 2 expected (the independent way slowed at call 6, then the collective one)", nr);
        if (nr == 2) {
            CHECK(r[0] > 6 && r[0] <= 6 + 8, "the first relook ran at call %d, expected after call 6 (the slowing) and within 8 calls of it", r[0]);
            CHECK(r[1] > r[0] + 2 && r[1] <= r[0] + 2 + 8, "the second relook ran at call %d, expected after call %d (the slowing) and within 8 calls of it", r[1], r[0] + 2);
            for (int c = 0; c < NL; c++) {
                const int wkind = c == 0 ? 1 : c == 3 ? 4 : c == r[0] || c == r[1] ? 5 : 2;
                const int wio = c < 3 ? 0 : c < r[0] ? 1 : c < r[1] ? 0 : 1;
                CHECK(lch[c] == 2 && lkd[c] == wkind && g_aggio[c] == wio, "call %d ran %d (kind %d, owners' I/O %d), expected aggregation (kind %d, owners' I/O %d)", c, lch[c],
                      lkd[c], g_aggio[c], wkind, wio);
                CHECK(wio ? g_ncoll[c] == 0 : g_ncoll[c] >= 1, "call %d: %llu collective MPI-IO calls on rank %d, its owners' runs moved by %s calls", c,
                      (unsigned long long)g_ncoll[c], me, wio ? "independent" : "collective");
            }
            /* what the relooks measured (agreed times: the clock's, to the ns): the way tried at its call's
               cost, the way it replaced at a median the clock's times bound, over 1.25x the other */
            const double *m1 = g_aggt[r[0] + 1], *m2 = g_aggt[r[1] + 1];
            CHECK(fabs(m1[0] - a) <= 2e-9 && m1[1] > 1.25 * a && m1[1] <= 3 * a + 2e-9, "after the first relook aggregation measured %.9g s collective, %.9g s independent; "
                  "expected %.9g and a median in (%.9g, %.9g]", m1[0], m1[1], a, 1.25 * a, 3 * a);
            CHECK(fabs(m2[1] - 0.5 * a) <= 2e-9 && m2[0] > 1.25 * m1[1] && m2[0] <= 5 * a + 2e-9, "after the second relook aggregation measured %.9g s collective, %.9g s independent; "
                  "expected a median in (%.9g, %.9g] and %.9g", m2[0], m2[1], 1.25 * m1[1], 5 * a, 0.5 * a);
        }
        unsetenv("COLLDIAG_INJECT");
        if (me == 0) printf("aggregation's owners' way looked at again: at calls %d and %d\n", r[0], r[1]);
    }

    /* 8. directions: a read's error says nothing about a write's file-system terms (src/measure.c,
       meas_corrected). Reads run far over their estimates (all-independent 0.5 s a call, every other
       scheme 5 s: hundreds of times the model's milliseconds); then the job's first write of the pattern
       must see all-independent (whose estimate is independent I/O alone, case 2) at exactly its
       estimate, and no scheme below its own (the network's terms may learn from reads, and reads only
       raise them here). Pooled, all-independent's read error priced its writes too (bench-auto: the
       first B1 write after B1 reads went to aggregation, 30x dearer). The same after the reads' wisdom is
       saved, forgotten and loaded: the reads' error comes back to reads, not to writes. */
    {
        snprintf(g_case, sizeof g_case, "directions");
        char wpath[1024];
        snprintf(wpath, sizeof wpath, "%s/test_auto_dirs_wisdom.txt", dir);
        enum { NR = 6 };
        int rch[NR], rkd[NR], ran_i = 0;
        double rest[4], rec[4], west[4], wec[NC][4];
        const double t[4] = {5, 5, 5, 0.5};
        colldiag_auto_forget();
        if (me == 0) remove(wpath);
        MPI_Barrier(MPI_COMM_WORLD);
        setenv("COLLDIAG_WISDOM", wpath, 1);
        clock_env(t, 0);
        read_loop("dirs_read", NR, rch, rkd, rest, NULL);
        for (int c = 1; c < NR; c++) ran_i += rch[c] == 3; /* past the group's first call (its set-up, not its own evidence) */
        CHECK(ran_i > 0, "the reads never ran all-independent after their first call (schemes %d %d %d %d %d %d): the case proves nothing", rch[0], rch[1],
              rch[2], rch[3], rch[4], rch[5]);
        for (int round = 0; round < 2; round++) { /* 0: this job's reads; 1: their wisdom, loaded by a fresh table */
            if (round) {
                colldiag_auto_save_wisdom(); /* what MPI_Finalize does */
                MPI_Barrier(MPI_COMM_WORLD);
                colldiag_auto_forget();
                read_loop("dirs_read_again", 1, rch, rkd, NULL, rec); /* the group's first call loads the wisdom */
                CHECK(rec[3] > 50 * rest[3], "after the wisdom's load, the reads' all-independent is corrected to %g, its estimate %g: the reads' error "
                      "(hundreds of times) was not loaded for reads", rec[3], rest[3]);
            }
            loop(round ? "dirs_write_wisdom" : "dirs_write", 1, ch, kd, west, wec);
            CHECK(kd[0] == 1, "%s: the first write of the pattern ran kind %d, expected 1", round ? "wisdom" : "this job", kd[0]);
            CHECK(fabs(wec[0][3] - west[3]) <= 1e-9 * west[3], "%s: the first write's all-independent corrected to %.17g, its estimate %.17g: a read's "
                  "error priced a write", round ? "wisdom" : "this job", wec[0][3], west[3]);
            for (int k = 0; k < 4; k++)
                CHECK(wec[0][k] >= west[k] * (1 - 1e-9), "%s: the first write's scheme %d corrected to %g, below its estimate %g", round ? "wisdom" : "this job",
                      k, wec[0][k], west[k]);
            CHECK(ch[0] == argmin(wec[0], -1), "%s: the first write ran %d, the corrected best is %d", round ? "wisdom" : "this job", ch[0], argmin(wec[0], -1));
            if (round == 0) colldiag_auto_forget(); /* the wisdom saved next holds the reads only */
            if (round == 0) {
                clock_env(t, 0);
                read_loop("dirs_read_b", NR, rch, rkd, NULL, NULL);
            }
        }
        unsetenv("COLLDIAG_WISDOM");
        if (me == 0) remove(wpath);
        if (me == 0) printf("directions: reads at hundreds of times their estimates (all-independent ran %d of %d reads past the first); the first write's all-independent at its estimate, then and after wisdom\n",
                            ran_i, NR - 1);
    }
    unsetenv("COLLDIAG_INJECT");
    const int rc = test_summary("test_auto");
    MPI_Finalize();
    return rc;
}

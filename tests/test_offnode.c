/* Bytes crossing nodes (colldiag_get_bytes_off_node and the reports' "across nodes" line), checked
 * against the test's own count on every rank:
 *
 *   test_offnode DIR [NODES]
 *
 * A {20, 8P} int dataset in chunks of {4, 8P}: each of the 5 chunks spans every column, and rank r writes
 * w_r = r % 8 + 1 columns from column 8r in every row, so every rank touches every chunk and chunk c's
 * owner under aggregation is rank c mod P (the first toucher at or after c mod P). The test learns the
 * nodes its own way (MPI_Get_processor_name of every rank: tests/nodes.sh gives each node its own host
 * name) and expects, for an aggregated write, each rank to send its piece (4 rows x w_r ints) to each
 * chunk's owner on another node, and for an aggregated read each owner to send every rank on another
 * node its piece back. (Pieces of different sizes and 5 chunks over P ranks, so that counting the ranks
 * of the same node instead gives other numbers.) Every rank checks its own count and that it is known; rank 0 checks the text report's node
 * count and sum, the JSON's, and that a link-chunk write (MPI-IO's own exchange) says nothing is known.
 * The bytes read back must be the bytes written. AUTO's estimates must move with
 * COLLDIAG_AUTO_BW_NET_X as the test's own count of the pieces leaving their node says (link-chunk's
 * shuffle, aggregation's exchange, its collective owners' call), for chunks of every rank and for
 * chunks of one node's ranks (aggregation's then not at all), and across nodes AUTO must run
 * aggregation there with its owners' runs by independent calls (no collective MPI-IO call, the bytes
 * read back); the link's rate probed at open must be alike on every rank, known exactly when there are
 * nodes, and be the rate the model uses. With NODES, the host
 * names must number NODES. Exit
 * status 1 on every rank when any rank failed. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colldiag.h"

static int me, P, bad;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL ", me); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); bad = 1; } } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* AUTO's model is what this program checks (tests/test_auto.c checks its measurements): the
       measured choice of a pattern's later calls follows the machine's timings */
    if (!getenv("COLLDIAG_AUTO_MODE")) setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 2) { if (!me) fprintf(stderr, "usage: test_offnode DIR [NODES]\n"); MPI_Finalize(); return 2; }
    const int want_nodes = argc > 2 ? atoi(argv[2]) : 0;
    /* the nodes, the test's way: host names */
    char name[MPI_MAX_PROCESSOR_NAME] = "", *names = malloc((size_t)P * MPI_MAX_PROCESSOR_NAME);
    int len = 0;
    MPI_Get_processor_name(name, &len);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
#define HOST(r) (names + (size_t)(r) * MPI_MAX_PROCESSOR_NAME)
    int hosts = 0;
    for (int r = 0; r < P; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++) first = strcmp(HOST(q), HOST(r)) != 0;
        hosts += first;
    }
    if (want_nodes) CHECK(hosts == want_nodes, "%d host names, expected %d", hosts, want_nodes);
    const uint64_t rows = 20, cols = 8 * (uint64_t)P, cr = 4;
#define PIECE(r) (cr * (uint64_t)((r) % 8 + 1) * sizeof(int))
    const uint64_t w = (uint64_t)(me % 8 + 1);
    const uint64_t nchunks = rows / cr;
    uint64_t expect_w = 0, expect_r = 0;
    for (uint64_t c = 0; c < nchunks; c++) {
        const int owner = (int)(c % (uint64_t)P);
        if (strcmp(HOST(owner), HOST(me))) expect_w += PIECE(me);
        if (owner == me)
            for (int r = 0; r < P; r++) expect_r += strcmp(HOST(r), HOST(me)) ? PIECE(r) : 0;
    }
    uint64_t sums[2] = {expect_w, expect_r}, sum[2];
    MPI_Allreduce(sums, sum, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);

    char path[1024];
    snprintf(path, sizeof path, "%s/test_offnode.bin", argv[1]);
    colldiag_file *f = NULL;
    CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f) == 0, "open: %s",
          colldiag_last_errmsg());
    const uint64_t dims[2] = {rows, cols}, cd[2] = {cr, cols};
    colldiag_layout *l = NULL;
    colldiag_layout_chunked(2, dims, cd, sizeof(int), 0, &l);
    colldiag_sel *s = NULL;
    colldiag_sel_create(2, dims, &s);
    const uint64_t st[2] = {0, 8 * (uint64_t)me}, cnt[2] = {rows, w};
    colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cnt, NULL);
    int *buf = malloc(rows * w * sizeof *buf), *back = calloc(rows * w, sizeof *back);
    for (uint64_t i = 0; i < rows * w; i++) buf[i] = me * 100000 + (int)i;
    colldiag_xfer *x = NULL;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    uint64_t got = 0;
    int known = 0;

    /* link-chunk: MPI-IO's exchange, not colldiag's: nothing known */
    colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_ONE_IO);
    CHECK(colldiag_write(f, l, s, NULL, buf, x) == 0, "link write: %s", colldiag_xfer_errmsg(x));
    colldiag_get_bytes_off_node(x, &got, &known);
    CHECK(known == 0 && got == 0, "after a link-chunk write: known %d, %llu bytes", known, (unsigned long long)got);

    for (int dir = 0; dir < 2; dir++) {
        colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO);
        int rc = dir == 0 ? colldiag_write(f, l, s, NULL, buf, x) : colldiag_read(f, l, s, NULL, back, x);
        CHECK(rc == 0, "aggregated %s: %s", dir ? "read" : "write", colldiag_xfer_errmsg(x));
        colldiag_get_bytes_off_node(x, &got, &known);
        const uint64_t want = dir == 0 ? expect_w : expect_r;
        CHECK(known == 1 && got == want, "aggregated %s: known %d, %llu bytes off the node, expected %llu", dir ? "read" : "write", known,
              (unsigned long long)got, (unsigned long long)want);
        /* the reports: the sum over ranks and the node count */
        char *txt = NULL, *js = NULL;
        size_t tl = 0, jl = 0;
        FILE *t = me == 0 ? open_memstream(&txt, &tl) : NULL, *j = me == 0 ? open_memstream(&js, &jl) : NULL;
        CHECK(colldiag_report_print(f, x, t) == 0, "report");
        CHECK(colldiag_report_json(f, x, j) == 0, "json report");
        if (me == 0) {
            fclose(t);
            fclose(j);
            char line[256], jfield[128];
            snprintf(line, sizeof line, "   across nodes: %d node%s (MPI_COMM_TYPE_SHARED); the aggregation exchange sent %llu data bytes", hosts,
                     hosts == 1 ? "" : "s", (unsigned long long)sum[dir]);
            CHECK(strstr(txt, line) != NULL, "the text report has no line \"%s\":\n%s", line, txt);
            snprintf(jfield, sizeof jfield, "\"nodes\":%d,\"bytes_off_node\":%llu", hosts, (unsigned long long)sum[dir]);
            CHECK(strstr(js, jfield) != NULL, "the JSON report has no %s", jfield);
            printf("%s: %d nodes, %llu bytes between them (as the test counts)\n", dir ? "aggregated read" : "aggregated write", hosts,
                   (unsigned long long)sum[dir]);
            free(txt);
            free(js);
        }
    }
    CHECK(memcmp(buf, back, rows * w * sizeof *buf) == 0, "the bytes read back are not the bytes written");

    /* AUTO's model knows the nodes. Two plans that differ only in COLLDIAG_AUTO_BW_NET_X (1e4 and 1e3 B/s:
       links so slow that across nodes the model moves aggregation's owners' runs by independent calls),
       on every rank, against the test's own counts: H the nodes (host names), K = P/H the ranks a node,
       B the busiest rank's bytes, and the share of the pieces sent to owners that leave the owner's node
       (each chunk's owner is c mod P, every rank touches every chunk: the pieces of the ranks on other
       hosts than the owner's, over all the non-owners' pieces).
       - link-chunk's two-phase shuffle to its aggregators (about one a node) moves by B (H-1)/H K / BW;
       - aggregation by collective owners' calls (colldiag_get_model_aggregation) by B K (share + (H-1)/H)
         / BW: its exchange's share, and the owners' collective call's shuffle as link-chunk's;
       - aggregation's estimate (the model's way: independent across nodes, collective on one) by
         B K share / BW across nodes, and as the collective way's on one node;
       - nothing else moves.
       Then the same with each chunk touched only by the ranks of one host (a chunk a node, rank r's
       columns in it): the share is 0, and aggregation's estimate across nodes does not move at all. */
    for (int lay = 0; lay < 2; lay++) {
        const double X1 = 1e4, X2 = 1e3, H = hosts, K = (double)P / H;
        /* the hosts in order of their first rank: rank r's node index */
        int *node = malloc((size_t)P * sizeof *node), nn = 0;
        for (int r = 0; r < P; r++) {
            node[r] = -1;
            for (int q = 0; q < r && node[r] < 0; q++)
                if (!strcmp(HOST(q), HOST(r))) node[r] = node[q];
            if (node[r] < 0) node[r] = nn++;
        }
        colldiag_layout *lm = l;
        colldiag_sel *sm = s;
        double Bmax = 0, leave = 0, moved = 0;
        if (lay == 0) {
            for (int r = 0; r < P; r++)
                if ((double)(PIECE(r) * nchunks) > Bmax) Bmax = (double)(PIECE(r) * nchunks);
            for (uint64_t c = 0; c < nchunks; c++)
                for (int r = 0; r < P; r++)
                    if (r != (int)(c % (uint64_t)P)) {
                        moved += 1;
                        leave += strcmp(HOST(r), HOST((int)(c % (uint64_t)P))) != 0;
                    }
        } else { /* {4 nn, 8P} in chunks of {4, 8P}: chunk n holds node n's ranks' rows, rank r's w_r columns from 8r */
            const uint64_t d2[2] = {cr * (uint64_t)nn, cols}, st2[2] = {cr * (uint64_t)node[me], 8 * (uint64_t)me}, cn2[2] = {cr, w};
            colldiag_layout_chunked(2, d2, cd, sizeof(int), 0, &lm);
            colldiag_sel_create(2, d2, &sm);
            colldiag_sel_select_hyperslab(sm, COLLDIAG_SELECT_SET, st2, NULL, cn2, NULL);
            for (int r = 0; r < P; r++)
                if ((double)PIECE(r) > Bmax) Bmax = (double)PIECE(r);
            for (int n = 0; n < nn; n++) { /* the owner is one of the chunk's own ranks (the first at or after n mod P) */
                int owner = -1, lo = -1;
                for (int r = 0; r < P; r++)
                    if (node[r] == n) {
                        if (lo < 0) lo = r;
                        if (owner < 0 && r >= n % P) owner = r;
                    }
                if (owner < 0) owner = lo;
                for (int r = 0; r < P; r++)
                    if (node[r] == n && r != owner) { moved += 1; leave += strcmp(HOST(r), HOST(owner)) != 0; }
            }
            CHECK(leave == 0, "the test's own layout sends %g pieces off their node", leave);
        }
        const double share = moved > 0 ? leave / moved : 0.0, off = H > 1 ? (H - 1) / H : 0.0, dbw = 1 / X2 - 1 / X1;
        const double want_link = Bmax * off * K * dbw, want_coll = Bmax * K * (share + off) * dbw, want_agg = H > 1 ? Bmax * K * share * dbw : want_coll;
        double est[2][4], coll[2] = {-1, -1};
        int way[2] = {-1, -1};
        colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_AUTO);
        for (int v = 0; v < 2; v++) {
            char val[32];
            snprintf(val, sizeof val, "%g", v ? X2 : X1);
            setenv("COLLDIAG_AUTO_BW_NET_X", val, 1);
            CHECK(colldiag_plan(f, lm, sm, NULL, x) == 0, "AUTO plan (BW_NET_X %s): %s", val, colldiag_xfer_errmsg(x));
            CHECK(colldiag_get_model_estimates(x, est[v]) == 0, "model estimates");
            CHECK(colldiag_get_model_aggregation(x, &way[v], &coll[v]) == 0, "colldiag_get_model_aggregation");
            /* the model's way: independent calls across nodes on links this slow, collective on one node */
            CHECK(way[v] == (H > 1), "layout %d, BW_NET_X %s: the model's way for aggregation's owners' runs is %d, expected %d (%d nodes)", lay, val,
                  way[v], H > 1, hosts);
            CHECK(way[v] ? est[v][2] < coll[v] : est[v][2] == coll[v], "layout %d: aggregation's estimate %.9g s, by collective owners' calls %.9g s (way %d)",
                  lay, est[v][2], coll[v], way[v]);
        }
        unsetenv("COLLDIAG_AUTO_BW_NET_X");
#define NEAR(d, want) ((d) >= (want) * (1 - 1e-9) - 1e-12 && (d) <= (want) * (1 + 1e-9) + 1e-12)
        const double dl = est[1][0] - est[0][0], dc = coll[1] - coll[0], da = est[1][2] - est[0][2];
        CHECK(NEAR(dl, want_link), "layout %d: link's estimate moved by %.9g s when BW_NET_X fell from %g to %g B/s, expected %.9g s (%d nodes, %d ranks)", lay,
              dl, X1, X2, want_link, hosts, P);
        CHECK(NEAR(dc, want_coll), "layout %d: aggregation by collective owners' calls moved by %.9g s, expected %.9g s (share %.6g, %d nodes, %d ranks)", lay,
              dc, want_coll, share, hosts, P);
        CHECK(NEAR(da, want_agg), "layout %d: aggregation's estimate moved by %.9g s, expected %.9g s (share %.6g, %d nodes, %d ranks)", lay, da, want_agg,
              share, hosts, P);
        for (int e = 1; e < 4; e++)
            if (e != 2) CHECK(est[1][e] == est[0][e], "layout %d: estimate %d moved with BW_NET_X: %g -> %g", lay, e, est[0][e], est[1][e]);
        if (me == 0)
            printf("AUTO with BW_NET_X %g -> %g B/s, %s: link +%.6g s, aggregation +%.6g s (collective owners' calls +%.6g s); the test's share of pieces "
                   "leaving their node %.4g (%d nodes)\n",
                   X1, X2, lay ? "chunks of one node's ranks" : "chunks of every rank", dl, da, dc, share, hosts);
        /* ... and AUTO runs that way. Constants set so that, across nodes, aggregation by independent
           owners' calls is the cheapest scheme by far for the layout whose chunks are node-mates':
           every run a collective scheme hands MPI-IO costs RUN = 10 ms at any count (RUN_LOW 1; link-chunk, multi-chunk's
           partial pieces, aggregation's collective owners' call), a write's run under a page dirties a
           page at IND_DIRTY = 1 s (all-independent: every run of w ints), a step LAT_X = 10 us (set, so
           not probed) and the link BW_NET_X = 1 kB/s; the exchange stays on each node. The write, by
           the pure model and by AUTO that measures (its pattern's first call): aggregation, no
           collective MPI-IO call on any rank, the owners' independent calls, and the bytes read back
           (by link-chunk) those written. */
        if (lay && hosts > 1) {
            static const char *const env[][2] = {{"COLLDIAG_AUTO_RUN", "1e-2"}, {"COLLDIAG_AUTO_RUN_LOW", "1"}, {"COLLDIAG_AUTO_IND_DIRTY", "1"}, {"COLLDIAG_AUTO_LAT_X", "1e-5"},
                                                 {"COLLDIAG_AUTO_BW_NET_X", "1e3"}};
            for (size_t e = 0; e < sizeof env / sizeof *env; e++) setenv(env[e][0], env[e][1], 1);
            int *mine = malloc(cr * w * sizeof *mine), *got2 = calloc(cr * w, sizeof *got2);
            for (int mode = 0; mode < 2; mode++) {
                setenv("COLLDIAG_AUTO_MODE", mode ? "measure" : "estimate", 1);
                colldiag_auto_forget();
                for (uint64_t i = 0; i < cr * w; i++) mine[i] = (mode + 1) * 1000000 + me * 1000 + (int)i;
                colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_AUTO);
                CHECK(colldiag_write(f, lm, sm, NULL, mine, x) == 0, "AUTO write (%s): %s", mode ? "measure" : "estimate", colldiag_xfer_errmsg(x));
                colldiag_actual_chunk_opt_mode_t ran = 0;
                colldiag_get_mpio_actual_chunk_opt_mode(x, &ran);
                colldiag_counters cn;
                colldiag_get_counters(x, &cn);
                int ind = -2;
                colldiag_get_model_aggregation(x, &ind, NULL);
                CHECK(ran == COLLDIAG_MPIO_CHUNK_AGGREGATE && ind == 1, "AUTO (%s) ran chunk opt %d, the model's way %d: aggregation by independent owners' calls expected",
                      mode ? "measure" : "estimate", (int)ran, ind);
                const char *why = colldiag_scheme_reason(x);
                CHECK(why && strstr(why, "its owners' runs by independent calls"), "AUTO (%s): the reason does not say how the owners' runs moved: %s",
                      mode ? "measure" : "estimate", why ? why : "(null)");
                CHECK(cn.calls_collective == 0, "AUTO (%s): %llu collective MPI-IO calls on rank %d; the owners' runs go by independent calls",
                      mode ? "measure" : "estimate", (unsigned long long)cn.calls_collective, me);
                if (mode) {
                    int aio = -2, kind = -1;
                    colldiag_get_auto_aggregation_io(x, &aio, NULL);
                    colldiag_get_auto_measured(x, NULL, NULL, &kind, NULL);
                    CHECK(aio == 1 && kind == 1, "AUTO that measures: owners' I/O %d, kind %d; the pattern's first call, independent, expected", aio, kind);
                }
                uint64_t ni = cn.calls_independent, nsum = 0;
                MPI_Allreduce(&ni, &nsum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
                CHECK(nsum > 0, "AUTO (%s): no rank made an independent MPI-IO call, yet the owners' runs moved", mode ? "measure" : "estimate");
                colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_ONE_IO);
                memset(got2, 0, cr * w * sizeof *got2);
                CHECK(colldiag_read(f, lm, sm, NULL, got2, x) == 0, "read back: %s", colldiag_xfer_errmsg(x));
                CHECK(memcmp(mine, got2, cr * w * sizeof *mine) == 0, "AUTO (%s): the bytes read back are not the bytes written", mode ? "measure" : "estimate");
            }
            setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
            for (size_t e = 0; e < sizeof env / sizeof *env; e++) unsetenv(env[e][0]);
            free(mine);
            free(got2);
            if (me == 0) printf("AUTO across %d nodes, chunks of one node's ranks, a slow link: aggregation, its owners' runs by independent calls\n", hosts);
        }
        if (lay) {
            colldiag_sel_free(sm);
            colldiag_layout_free(lm);
        }
        free(node);
    }
    {
        /* the link's rate, probed once at open when the ranks span nodes (colldiag_file_get_link_rate):
           the same on every rank, known exactly when there are nodes, and what the model then uses: a
           plan with COLLDIAG_AUTO_BW_NET_X set to it estimates exactly as one without (this test's model
           checks run with COLLDIAG_AUTO_MODE=estimate, which probes nothing: a second file, opened with
           AUTO measuring, probes) */
        double rate = -1, lo = 0, hi = 0, none = -1;
        CHECK(colldiag_file_get_link_rate(f, &none) == 0 && none == 0, "a file opened with COLLDIAG_AUTO_MODE=estimate has a probed link rate, %g", none);
        char mode[32];
        snprintf(mode, sizeof mode, "%s", getenv("COLLDIAG_AUTO_MODE") ? getenv("COLLDIAG_AUTO_MODE") : "");
        unsetenv("COLLDIAG_AUTO_MODE");
        colldiag_file *f2 = NULL;
        char path2[1100];
        snprintf(path2, sizeof path2, "%s.probe", path);
        CHECK(colldiag_file_open(MPI_COMM_WORLD, path2, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f2) == 0, "open %s", path2);
        CHECK(colldiag_file_get_link_rate(f2, &rate) == 0, "colldiag_file_get_link_rate");
        MPI_Allreduce(&rate, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&rate, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        CHECK(lo == hi, "the probed link rate differs between ranks: %g .. %g B/s", lo, hi);
        CHECK(hosts > 1 ? rate > 0 : rate == 0, "the probed link rate is %g B/s with %d nodes", rate, hosts);
        if (hosts > 1 && rate > 0) {
            double ep[2][4];
            CHECK(colldiag_plan(f2, l, s, NULL, x) == 0, "AUTO plan (probed link)");
            colldiag_get_model_estimates(x, ep[0]);
            char val[40];
            snprintf(val, sizeof val, "%.17g", rate);
            setenv("COLLDIAG_AUTO_BW_NET_X", val, 1);
            CHECK(colldiag_plan(f2, l, s, NULL, x) == 0, "AUTO plan (BW_NET_X %s)", val);
            colldiag_get_model_estimates(x, ep[1]);
            unsetenv("COLLDIAG_AUTO_BW_NET_X");
            for (int e = 0; e < 4; e++)
                CHECK(ep[0][e] == ep[1][e], "estimate %d: %.17g with the probed link, %.17g with BW_NET_X set to its rate", e, ep[0][e], ep[1][e]);
            if (me == 0) printf("the link between nodes, probed at open: %.4g MB/s\n", rate * 1e-6);
        }
        colldiag_file_close(f2);
        if (me == 0) unlink(path2);
        if (mode[0]) setenv("COLLDIAG_AUTO_MODE", mode, 1);
    }
    colldiag_xfer_free(x);
    colldiag_sel_free(s);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    if (me == 0) unlink(path);
    free(buf);
    free(back);
    free(names);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!me) printf("test_offnode: %s (%d ranks, %d nodes)\n", any ? "FAILED" : "ok", P, hosts);
    MPI_Finalize();
    return any ? 1 : 0;
}

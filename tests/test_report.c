/* test_report — the diagnostics: plan-only makes the same decisions as a real write, the report and its
 * JSON carry the getters' numbers, reporting off costs no communication, and the per-chunk reasons
 * name the right thresholds at boundary ratios. Writes JSON to argv[1] for tests/test_report.sh.
 *
 *   mpirun -n 3 tests/test_report OUT.json
 */
#define _GNU_SOURCE
#include "colldiag.h"
#include "testutil.h"
#include "pmpi_count.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* The text report (collective), as a string on rank 0 (caller frees), NULL elsewhere. */
static char *report_text(colldiag_file *f, const colldiag_xfer *x, const char *what)
{
    char *txt = NULL;
    size_t len = 0;
    FILE *mem = me == 0 ? open_memstream(&txt, &len) : NULL;
    CHECK(colldiag_report_print(f, x, mem) == 0, "%s", what);
    if (mem) fclose(mem);
    return txt;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* AUTO's model is what this program checks (tests/test_auto.c checks its measurements): the
       measured choice of a pattern's later calls follows the machine's timings */
    if (!getenv("COLLDIAG_AUTO_MODE")) setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (P != 3 || argc < 2) {
        if (me == 0) fprintf(stderr, "usage: mpirun -n 3 test_report OUT.json\n");
        MPI_Finalize();
        return 2;
    }
    char path[256];
    if (me == 0) snprintf(path, sizeof path, "/tmp/colldiag_test_report_%d.bin", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    const uint64_t dims[1] = {30}, chunk[1] = {10}, start[3] = {1, 6, 22}, count[3] = {5, 8, 6};
    colldiag_file *f;
    colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    colldiag_layout *l;
    colldiag_layout_chunked(1, dims, chunk, 4, 0, &l);
    colldiag_sel *s;
    colldiag_sel_create(1, dims, &s);
    colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, &start[me], NULL, &count[me], NULL);
    int buf[8] = {0};

    /* boundary ratios with 3 ranks: 33 -> threshold max(1, 0) = 1, 34 -> 1, 66 -> 1, 67 -> 2 */
    const unsigned ratios[4] = {33, 34, 66, 67};
    const unsigned thr[4] = {1, 1, 1, 2};
    for (int i = 0; i < 4; i++) {
        colldiag_xfer *x, *xp;
        colldiag_xfer_create(&x);
        colldiag_xfer_create(&xp);
        colldiag_xfer *both[2] = {x, xp};
        for (int k = 0; k < 2; k++) {
            colldiag_set_dxpl_mpio(both[k], COLLDIAG_MPIO_COLLECTIVE);
            colldiag_set_dxpl_mpio_chunk_opt(both[k], COLLDIAG_MPIO_CHUNK_MULTI_IO);
            colldiag_set_dxpl_mpio_chunk_opt_ratio(both[k], ratios[i]);
        }
        pmpi_reset();
        CHECK(colldiag_plan(f, l, s, NULL, xp) == 0, "plan: %s", colldiag_xfer_errmsg(xp));
        CHECK(g_pmpi.coll_calls == 0 && g_pmpi.ind_calls == 0 && g_pmpi.set_view == 0, "plan touched the file");
        pmpi_reset();
        CHECK(colldiag_write(f, l, s, NULL, buf, x) == 0, "write: %s", colldiag_xfer_errmsg(x));
        /* the multi write's communication: agreement, two exchanges + counts, the collective-chunk list, the end */
        uint64_t comm = g_pmpi.comm_calls;
        colldiag_actual_io_mode_t a, b;
        colldiag_get_mpio_actual_io_mode(x, &a);
        colldiag_get_mpio_actual_io_mode(xp, &b);
        CHECK(a == b, "ratio %u: plan says io mode %d, the write %d", ratios[i], (int)b, (int)a);
        uint64_t n1, n2;
        const colldiag_chunk_info *c1, *c2;
        colldiag_get_chunk_info(x, &n1, &c1);
        colldiag_get_chunk_info(xp, &n2, &c2);
        CHECK(n1 == n2, "chunk counts differ");
        for (uint64_t j = 0; j < n1 && j < n2; j++)
            CHECK(c1[j].index == c2[j].index && c1[j].collective == c2[j].collective && c1[j].nproc == c2[j].nproc,
                  "ratio %u chunk %d: plan and write disagree", ratios[i], (int)c1[j].index);
        for (uint64_t j = 0; j < n1; j++) {
            int want = (unsigned)c1[j].nproc > thr[i];
            CHECK(c1[j].collective == want, "ratio %u chunk %d: nproc %d threshold %u collective %d", ratios[i], (int)c1[j].index,
                  c1[j].nproc, thr[i], c1[j].collective);
        }
        /* with reporting on, the report's gathering happens inside the report function only */
        setenv("COLLDIAG_REPORT", "json:/dev/null", 1);
        pmpi_reset();
        colldiag_write(f, l, s, NULL, buf, x);
        uint64_t comm_rep = g_pmpi.comm_calls;
        unsetenv("COLLDIAG_REPORT");
        pmpi_reset();
        colldiag_write(f, l, s, NULL, buf, x);
        CHECK(g_pmpi.comm_calls == comm, "reporting off: %llu collective calls, before %llu", (unsigned long long)g_pmpi.comm_calls,
              (unsigned long long)comm);
        CHECK(comm_rep >= comm, "report on: fewer calls");
        if (i == 3) {
            /* the human report names the threshold */
            char *txt = report_text(f, x, "report_print");
            if (txt) {
                CHECK(strstr(txt, "2 of 3 ranks <= threshold 2") != NULL, "report lacks the chunk reason:\n%s", txt);
                CHECK(strstr(txt, "chunk map") != NULL, "report lacks the map");
                free(txt);
            }
            FILE *out = me == 0 ? fopen(argv[1], "w") : NULL;
            CHECK(colldiag_report_json(f, x, out) == 0, "report_json");
            if (out) fclose(out);
            /* the getters, for the shell side to compare with the JSON */
            colldiag_counters cn;
            colldiag_get_counters(x, &cn);
            char line[128], all[3][128];
            snprintf(line, sizeof line, "%d %d %llu %llu", (int)a, (int)n1, (unsigned long long)cn.bytes_collective,
                     (unsigned long long)cn.bytes_independent);
            MPI_Gather(line, 128, MPI_CHAR, all, 128, MPI_CHAR, 0, MPI_COMM_WORLD);
            if (me == 0) {
                char p2[300];
                snprintf(p2, sizeof p2, "%s.getters", argv[1]);
                FILE *g = fopen(p2, "w");
                for (int r = 0; r < 3; r++) fprintf(g, "%s\n", all[r]);
                fclose(g);
            }
        }
        colldiag_xfer_free(x);
        colldiag_xfer_free(xp);
    }
    /* link over many chunks builds one file type and one memory type per rank, never one per chunk */
    {
        const uint64_t d2[2] = {64, 64}, c2[2] = {4, 4};
        uint64_t st[2] = {(uint64_t)me * 20, 0}, cn[2] = {20, 64};
        colldiag_layout *l2;
        colldiag_layout_chunked(2, d2, c2, 4, 0, &l2);
        colldiag_sel *s2;
        colldiag_sel_create(2, d2, &s2);
        colldiag_sel_select_hyperslab(s2, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
        int *b2 = calloc(20 * 64, sizeof *b2);
        colldiag_xfer *x2;
        colldiag_xfer_create(&x2);
        colldiag_set_dxpl_mpio(x2, COLLDIAG_MPIO_COLLECTIVE);
        pmpi_reset();
        CHECK(colldiag_write(f, l2, s2, NULL, b2, x2) == 0, "link write: %s", colldiag_xfer_errmsg(x2));
        uint64_t n2;
        const colldiag_chunk_info *c2i;
        colldiag_get_chunk_info(x2, &n2, &c2i);
        CHECK(n2 >= 80 && g_pmpi.type_commits == 2, "link over %llu chunks committed %llu MPI types (expected 2)", (unsigned long long)n2,
              (unsigned long long)g_pmpi.type_commits);
        colldiag_xfer_free(x2);
        free(b2);
        colldiag_sel_free(s2);
        colldiag_layout_free(l2);
    }
    /* aggregation: the owner of each chunk is in the chunk info and the report (chunk 0: ranks 0 and 1
       touch it, owner = first toucher at or after 0 mod 3 = rank 0; chunks 1 and 2: their only toucher) */
    {
        colldiag_xfer *xa;
        colldiag_xfer_create(&xa);
        colldiag_set_dxpl_mpio(xa, COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_dxpl_mpio_chunk_opt(xa, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO);
        for (int i = 0; i < (int)count[me]; i++) buf[i] = 100 * me + i;
        CHECK(colldiag_write(f, l, s, NULL, buf, xa) == 0, "aggregate write: %s", colldiag_xfer_errmsg(xa));
        uint64_t na;
        const colldiag_chunk_info *ca;
        colldiag_get_chunk_info(xa, &na, &ca);
        const int want_owner[3] = {0, 1, 2}, want_nproc[3] = {2, 1, 1};
        for (uint64_t j = 0; j < na; j++)
            CHECK(ca[j].owner == want_owner[ca[j].index] && ca[j].nproc == want_nproc[ca[j].index] && ca[j].collective,
                  "aggregate chunk %d: owner %d nproc %d collective %d", (int)ca[j].index, ca[j].owner, ca[j].nproc, ca[j].collective);
        char *txt = report_text(f, xa, "report_print (aggregate)");
        if (txt) {
            CHECK(strstr(txt, "rank 1 chunk 0 (0) @0: 4 elements, collective: aggregated, rank 0 of the 2 touching it moves the chunk") != NULL,
                  "aggregate report lacks rank 1's chunk 0 owner line:\n%s", txt);
            CHECK(strstr(txt, "CHUNK_AGGREGATE") != NULL, "aggregate report lacks the scheme:\n%s", txt);
            free(txt);
        }
        int back[8] = {0};
        CHECK(colldiag_read(f, l, s, NULL, back, xa) == 0, "aggregate read: %s", colldiag_xfer_errmsg(xa));
        for (uint64_t i = 0; i < count[me]; i++) CHECK(back[i] == 100 * me + (int)i, "aggregate read element %d: %d", (int)i, back[i]);
        /* AUTO: plan reports the choice and an estimate for each alternative; the write does what the plan said */
        colldiag_xfer *xp;
        colldiag_xfer_create(&xp);
        colldiag_set_dxpl_mpio(xp, COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_dxpl_mpio_chunk_opt(xp, COLLDIAG_MPIO_CHUNK_AUTO);
        double el = 0, em = 0, ea = 0;
        colldiag_get_auto_estimates(xp, &el, &em, &ea);
        double ei0 = 0;
        colldiag_get_auto_estimate_independent(xp, &ei0);
        CHECK(el == -1 && em == -1 && ea == -1 && ei0 == -1, "estimates before any AUTO call: %g %g %g %g", el, em, ea, ei0);
        CHECK(colldiag_plan(f, l, s, NULL, xp) == 0, "AUTO plan: %s", colldiag_xfer_errmsg(xp));
        colldiag_get_auto_estimates(xp, &el, &em, &ea);
        double ei = 0;
        colldiag_get_auto_estimate_independent(xp, &ei);
        colldiag_actual_chunk_opt_mode_t pc, wc;
        colldiag_get_mpio_actual_chunk_opt_mode(xp, &pc);
        double best = pc == COLLDIAG_MPIO_LINK_CHUNK ? el : pc == COLLDIAG_MPIO_MULTI_CHUNK ? em : pc == COLLDIAG_MPIO_CHUNK_AGGREGATE ? ea : ei;
        CHECK(el > 0 && em > 0 && ea > 0 && ei > 0 && best <= el && best <= em && best <= ea && best <= ei,
              "AUTO chose %s with estimates %g %g %g %g", colldiag_chunk_opt_name(pc), el, em, ea, ei);
        CHECK(strstr(colldiag_scheme_reason(xp), "AUTO: estimated link") != NULL, "AUTO reason: %s", colldiag_scheme_reason(xp));
        CHECK(colldiag_write(f, l, s, NULL, buf, xp) == 0, "AUTO write: %s", colldiag_xfer_errmsg(xp));
        colldiag_get_mpio_actual_chunk_opt_mode(xp, &wc);
        CHECK(wc == pc, "AUTO planned %s, wrote with %s", colldiag_chunk_opt_name(pc), colldiag_chunk_opt_name(wc));
        colldiag_set_dxpl_mpio_chunk_opt(xp, COLLDIAG_MPIO_CHUNK_ONE_IO);
        CHECK(colldiag_plan(f, l, s, NULL, xp) == 0, "plan: %s", colldiag_xfer_errmsg(xp));
        colldiag_get_auto_estimates(xp, &el, NULL, NULL);
        colldiag_get_auto_estimate_independent(xp, &ei);
        CHECK(el == -1 && ei == -1, "estimates survive a non-AUTO call: %g %g", el, ei);
        colldiag_xfer_free(xp);
        colldiag_xfer_free(xa);
    }
    /* many chunk lines: the report prints a few and counts the rest right (3 ranks, 90 + 100 + 110 one-element
       chunks, planned only) */
    {
        const uint64_t d1[1] = {300}, c1[1] = {1}, st1[3] = {0, 90, 190}, cn1[3] = {90, 100, 110};
        colldiag_layout *lm;
        colldiag_layout_chunked(1, d1, c1, 4, 0, &lm);
        colldiag_sel *sm;
        colldiag_sel_create(1, d1, &sm);
        colldiag_sel_select_hyperslab(sm, COLLDIAG_SELECT_SET, &st1[me], NULL, &cn1[me], NULL);
        colldiag_xfer *xm;
        colldiag_xfer_create(&xm);
        colldiag_set_dxpl_mpio(xm, COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_dxpl_mpio_chunk_opt(xm, COLLDIAG_MPIO_CHUNK_MULTI_IO);
        CHECK(colldiag_plan(f, lm, sm, NULL, xm) == 0, "plan over 300 chunks: %s", colldiag_xfer_errmsg(xm));
        char *txt = report_text(f, xm, "report over 300 chunks");
        if (me == 0 && txt) {
            uint64_t printed = 0, more = 0;
            for (const char *q = txt; (q = strstr(q, "\n   rank ")); q++)
                if (strstr(q, " chunk ") && strstr(q, " chunk ") < strchr(q + 1, '\n')) printed++;
            const char *m = strstr(txt, "... ");
            CHECK(m && sscanf(m, "... %llu more rank/chunk lines", (unsigned long long *)&more) == 1, "no '... N more' line:\n%s", txt);
            CHECK(printed > 0 && printed + more == cn1[0] + cn1[1] + cn1[2], "%llu chunk lines printed + %llu said omitted != %llu",
                  (unsigned long long)printed, (unsigned long long)more, (unsigned long long)(cn1[0] + cn1[1] + cn1[2]));
        }
        free(txt);
        colldiag_xfer_free(xm);
        colldiag_sel_free(sm);
        colldiag_layout_free(lm);
    }
    /* a chunk grid too large to draw (40 x 40): the report counts the distinct chunks touched, and how
       many are collective, from every rank's list. Rank r takes rows [20 r, 20 r + 30) of an 80 x 80
       dataset in 2 x 2 chunks: chunk rows [10 r, 10 r + 15), neighbours sharing 5 chunk rows. Touched:
       the union of those ranges, 40 chunks a row; link-chunk makes every one collective, all-independent
       none. */
    {
        const uint64_t d2[2] = {80, 80}, c2[2] = {2, 2}, st2[2] = {20 * (uint64_t)me, 0}, cn2[2] = {30, 80};
        uint64_t rows_touched = 0;
        for (uint64_t cr = 0; cr < 40; cr++) {
            int any = 0;
            for (int r = 0; r < P; r++) any |= cr >= 10 * (uint64_t)r && cr < 10 * (uint64_t)r + 15;
            rows_touched += (uint64_t)any;
        }
        colldiag_layout *lg;
        colldiag_layout_chunked(2, d2, c2, 4, 0, &lg);
        colldiag_sel *sg;
        colldiag_sel_create(2, d2, &sg);
        colldiag_sel_select_hyperslab(sg, COLLDIAG_SELECT_SET, st2, NULL, cn2, NULL);
        const colldiag_chunk_opt_t opts[2] = {COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_ALL_CHUNK_IND_IO};
        for (int k = 0; k < 2; k++) {
            colldiag_xfer *xg;
            colldiag_xfer_create(&xg);
            colldiag_set_dxpl_mpio(xg, COLLDIAG_MPIO_COLLECTIVE);
            colldiag_set_dxpl_mpio_chunk_opt(xg, opts[k]);
            CHECK(colldiag_plan(f, lg, sg, NULL, xg) == 0, "plan over a 40 x 40 grid: %s", colldiag_xfer_errmsg(xg));
            char *txt = report_text(f, xg, "report over a 40 x 40 grid");
            if (me == 0 && txt) {
                unsigned long long t = 0, c = 0, i = 0;
                const char *m = strstr(txt, "chunk map omitted (40 x 40 chunks): ");
                CHECK(m && sscanf(m, "chunk map omitted (40 x 40 chunks): %llu touched, %llu collective, %llu independent", &t, &c, &i) == 3,
                      "no 'chunk map omitted' line:\n%s", txt);
                const unsigned long long want = rows_touched * 40;
                CHECK(t == want && c == (k == 0 ? want : 0) && i == (k == 0 ? 0 : want),
                      "%s: %llu touched, %llu collective, %llu independent; expected %llu touched, all %s", k ? "all-independent" : "link",
                      t, c, i, want, k ? "independent" : "collective");
            }
            free(txt);
            colldiag_xfer_free(xg);
        }
        colldiag_sel_free(sg);
        colldiag_layout_free(lg);
    }
    /* a rank passing x = NULL to the report: everybody returns an error, nobody hangs */
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    int rc = colldiag_report_print(f, me == 1 ? NULL : x, NULL);
    CHECK(rc == (me == 1 ? COLLDIAG_ERR_ARG : COLLDIAG_ERR_PEER), "report with a NULL xfer on rank 1: rc %d", rc);
    colldiag_xfer_free(x);
    colldiag_sel_free(s);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    if (me == 0) unlink(path);
    int status = test_summary("test_report");
    MPI_Finalize();
    return status;
}

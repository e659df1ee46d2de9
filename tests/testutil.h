/* Shared by the MPI test programs: CHECK records a failure with the rank and the current case instead
 * of aborting (so every rank keeps taking part in the collective calls that follow), and
 * test_summary prints the totals over all ranks in the "N passed, N failed" form CI reads. */
#ifndef TESTUTIL_H
#define TESTUTIL_H
#include <mpi.h>
#include <stdio.h>

static int me, P, failures, checks;
static char g_case[256];

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        checks++;                                                                     \
        if (!(cond)) {                                                                \
            failures++;                                                               \
            printf("rank %d FAIL [%s] %s:%d: ", me, g_case, __FILE__, __LINE__);      \
            printf(__VA_ARGS__);                                                      \
            printf("\n");                                                             \
            fflush(stdout);                                                           \
        }                                                                             \
    } while (0)

/* Collective. Returns the process exit status. */
static int test_summary(const char *name)
{
    int tf = 0, tc = 0;
    PMPI_Allreduce(&failures, &tf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Allreduce(&checks, &tc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("%s P=%d: %d passed, %d failed\n", name, P, tc - tf, tf);
    return tf ? 1 : 0;
}
#endif

/* What MPI sees of the simulated nodes (tests/nodes.sh), checked on rank 0 against what the caller says:
 *
 *   nodes_probe NODES [EXIT [BYTES]]
 *
 * Every rank sends rank 0 its processor name, the size of its MPI_COMM_TYPE_SHARED split, the value of
 * COLLDIAG_NODES_PROBE in its environment and whether LD_PRELOAD reached it. Rank 0 prints one line a
 * rank and fails (exit 1) unless MPI reports exactly NODES distinct hosts, every rank's shared split is
 * the number of ranks that share its host name, and every rank saw the same probe value as rank 0.
 * Rank 0 then exits EXIT (default 0) after MPI_Finalize, so the launcher's status can be checked too.
 * With BYTES, rank 0 then sends the last rank (on another node when there are two) BYTES bytes in 1 MiB
 * messages and prints the rate it took, "link N MB/s", timed from the first message to the last's
 * acknowledgement: what a shaped link (tests/nodes.sh --rate) lets through. With COLLDIAG_NODES_PROBE_FILE
 * set, every rank opens that file with MPI-IO and rank 0 prints "cb_nodes V": the aggregator count ROMIO
 * chose (one a host by default), "cb_nodes unset" where the MPI-IO layer does not say (ompio). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD 128
struct seen { char host[FIELD]; char probe[FIELD]; int shared; int preload; };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int want_nodes = argc > 1 ? atoi(argv[1]) : 0, exit_code = argc > 2 ? atoi(argv[2]) : 0;

    struct seen mine;
    memset(&mine, 0, sizeof mine);
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    MPI_Get_processor_name(name, &len);
    snprintf(mine.host, FIELD, "%s", name);
    const char *probe = getenv("COLLDIAG_NODES_PROBE");
    snprintf(mine.probe, FIELD, "%s", probe ? probe : "(unset)");
    mine.preload = getenv("LD_PRELOAD") != NULL && getenv("LD_PRELOAD")[0] != '\0';
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared);
    MPI_Comm_size(shared, &mine.shared);
    MPI_Comm_free(&shared);

    struct seen *all = me == 0 ? calloc((size_t)P, sizeof *all) : NULL;
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    int bad = 0;
    if (me == 0) {
        int hosts = 0;
        for (int r = 0; r < P; r++) {
            int same = 0, first = 1;
            for (int q = 0; q < P; q++) {
                if (strcmp(all[q].host, all[r].host) == 0) {
                    same++;
                    if (q < r) first = 0;
                }
            }
            hosts += first;
            printf("rank %d: host %s, shared split %d, probe %s, LD_PRELOAD %s\n", r, all[r].host, all[r].shared,
                   all[r].probe, all[r].preload ? "set" : "unset");
            if (all[r].shared != same) {
                printf("FAIL rank %d: its shared split has %d ranks, %d ranks name its host\n", r, all[r].shared, same);
                bad = 1;
            }
            if (strcmp(all[r].probe, all[0].probe) != 0) {
                printf("FAIL rank %d: COLLDIAG_NODES_PROBE is %s, rank 0's %s\n", r, all[r].probe, all[0].probe);
                bad = 1;
            }
        }
        printf("%d ranks on %d hosts\n", P, hosts);
        if (want_nodes > 0 && hosts != want_nodes) {
            printf("FAIL %d hosts, expected %d\n", hosts, want_nodes);
            bad = 1;
        }
        free(all);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    const char *path = getenv("COLLDIAG_NODES_PROBE_FILE");
    if (path && *path) {
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
            if (me == 0) printf("FAIL cannot open %s\n", path);
            bad = 1;
        } else {
            MPI_Info info;
            char v[64] = "unset";
            int flag = 0;
            MPI_File_get_info(fh, &info);
            MPI_Info_get(info, "cb_nodes", (int)sizeof v - 1, v, &flag);
            if (me == 0) printf("cb_nodes %s\n", flag ? v : "unset");
            MPI_Info_free(&info);
            MPI_File_close(&fh);
        }
    }
    long long bytes = argc > 3 ? atoll(argv[3]) : 0;
    if (bytes > 0 && P > 1 && (me == 0 || me == P - 1)) {
        const int piece = 1 << 20;
        char *buf = calloc(piece, 1);
        int ack = 0;
        MPI_Barrier(MPI_COMM_WORLD); /* every rank enters it (the else below): the two start together */
        double t0 = MPI_Wtime();
        for (long long sent = 0; sent < bytes; sent += piece) {
            int n = (int)(bytes - sent < piece ? bytes - sent : piece);
            if (me == 0) MPI_Send(buf, n, MPI_BYTE, P - 1, 1, MPI_COMM_WORLD);
            else MPI_Recv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (me == 0) MPI_Recv(&ack, 1, MPI_INT, P - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        if (me == 0) printf("link %.1f MB/s\n", (double)bytes / (MPI_Wtime() - t0) / 1e6);
        free(buf);
    } else if (bytes > 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    if (bad) return 1;
    return me == 0 ? exit_code : 0;
}

/* ---- a read's destination, populated first where this process measures that it pays ----
   A read into memory the program never touched pays a page fault a 4 KiB page, taken in the kernel's
   copy or in MPI-IO's: ~10-14 us a page on the machine colldiag was built on (a Firecracker VM), against
   0.6 us a page when the same pages are populated in one madvise(MADV_POPULATE_WRITE, Linux 5.14). There
   h5bench's BD-CATS-IO spent 14 of each 4 MiB read's 15 ms of its first time step faulting its fresh
   buffers in (bench/results/2026-12-04-1250-experiment-bdcats-first-touch-49adf4b.txt), and a kit
   program's first read into a new buffer does the same.
   So before a read whose destination is one run of bytes the read writes whole (the packed buffer, or a
   memory selection that is one run; never one with gaps or of points: pages the read would skip stay
   untouched), and whose run's last whole page is not resident (mincore), colldiag populates the run's
   whole pages in one call. Populating never changes a byte: a page never touched reads as zeros either
   way, one swapped out comes back as it was, and the read then overwrites the run.
   Measured, not assumed: where faults are cheap (a bare cluster node: ~0.25 us) populating first may
   gain nothing, and it writes a large buffer's pages twice (zeroed ahead, then the data) where a fault
   zeroes each page just before its copy. So at its first read into fresh memory each process times,
   once, first-touch writes against populate-then-write on pages of its own (CD_PF_ROUNDS rounds of
   CD_PF_PAGES pages each way, the order alternating, ~1 ms), and populates only where faulting took at
   least CD_PF_GAIN times as long. COLLDIAG_PREFAULT=0 never, =1 always (no probe), auto (or unset) the
   probe decides. A rank's own memory: no collective, nothing agreed, nothing another rank sees.
   Per call: one mincore() of a page, ~0.2 us here, against a read of 1 MiB or more (a program that maps
   a fresh buffer for every time step, which glibc's malloc does for blocks over its mmap threshold,
   often at the address it just unmapped, is seen fresh each time). Under 1 MiB a warm read of 64 KiB
   takes ~5 us and the query would be 4% of it, so a run under CD_PF_RECHECK already looked at (the last
   CD_PF_SEEN of them) is not asked again: such blocks come from the heap, where glibc reuses memory it
   keeps. The HDF5 preload calls the same function before either of its
   engines, so that HDF5's path and colldiag's read into resident memory alike and are timed alike; it
   remembers the last CD_PF_SEEN buffers it looked at, since finding the run there costs HDF5 queries. */
#if defined(__linux__)
#include <sys/mman.h>
#endif
/* mincore, madvise and the MADV_ names are declared together (glibc and musl: _DEFAULT_SOURCE, which
   internal.h's _GNU_SOURCE gives unless a program included a system header before colldiag.c; not
   MAP_ANONYMOUS, which glibc 2.41 gives POSIX programs too): without them colldiag populates nothing. */
#if defined(__linux__) && defined(MADV_DONTNEED) && defined(MAP_ANONYMOUS)
#define CD_CAN_POPULATE 1
#else
#define CD_CAN_POPULATE 0
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14's value; an older kernel answers EINVAL and colldiag stops asking */
#endif
#define CD_PF_MIN ((size_t)64 << 10) /* below 16 pages the query and mincore cost about what the faults would */
#define CD_PF_SEEN 16                /* buffers remembered: h5bench reads 8 variables into 8 buffers, IOR one */
#define CD_PF_RECHECK ((size_t)1 << 20) /* runs from this size are asked every call (above) */
#define CD_PF_PAGES 8
#define CD_PF_ROUNDS 8
/* The probe's ratio (faulting's time over populating's) from which populating pays. Here 1.60-2.04 in 30
   probes of 3 processes at once (faults ~9.5 us a page, populated pages written ~5.5 us), and the reads
   ran 1.5-1.8x as fast; 1.25 leaves the probe's noise room on such a machine while one where both run
   alike (a ratio about 1) keeps faulting. */
#define CD_PF_GAIN 1.25

static int cd_pf_state;               /* 0 not decided, 1 populate, -1 never */
static double cd_pf_ratio = -1;       /* the probe's ratio; -1 not probed */
CD_MAYBE_UNUSED static uintptr_t cd_pf_seen[CD_PF_SEEN]; /* the preload's: buffers already seen, most recent at cd_pf_next - 1 */
CD_MAYBE_UNUSED static unsigned cd_pf_next;
CD_MAYBE_UNUSED static uintptr_t cd_pf_small[CD_PF_SEEN]; /* the kit's: runs under CD_PF_RECHECK already looked at */
CD_MAYBE_UNUSED static unsigned cd_pf_small_next;
static char cd_pf_note[160];          /* the decision, said once: "prefaulted: ..." / "not prefaulted: ..." */
static const char cd_pf_cannot[] = "not prefaulted: this kernel cannot populate (MADV_POPULATE_WRITE, Linux 5.14)";

#if CD_CAN_POPULATE
/* Faulting's time over populate-then-write's on fresh pages of this process's own: each way's fastest
   of CD_PF_ROUNDS rounds (a round the kernel preempted only runs slower), the order alternating round
   by round; -1 when it cannot be measured (no mapping, or madvise refused). */
static double prefault_probe(void)
{
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE), run = CD_PF_PAGES * pg;
    char *m = mmap(NULL, 2 * CD_PF_ROUNDS * run, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return -1;
    double tf = -1, tp = -1;
    int ok = 1;
    for (int k = 0; k < CD_PF_ROUNDS && ok; k++) {
        char *f = m + 2 * (size_t)k * run, *p = f + run;
        for (int w = 0; w < 2; w++) {
            const double t0 = MPI_Wtime();
            if ((w ^ k) & 1) { /* first touch, as a read's copy writes */
                memset(f, 1, run);
                const double t = MPI_Wtime() - t0;
                if (tf < 0 || t < tf) tf = t;
            } else {
                ok = madvise(p, run, MADV_POPULATE_WRITE) == 0;
                memset(p, 1, run);
                const double t = MPI_Wtime() - t0;
                if (tp < 0 || t < tp) tp = t;
            }
        }
    }
    munmap(m, 2 * CD_PF_ROUNDS * run);
    return ok && tp > 0 ? tf / tp : -1;
}
#endif

/* Whether this process populates fresh destinations: COLLDIAG_PREFAULT, else the probe (in test builds
   COLLDIAG_INJECT=prefault:RATIO gives the probe's answer). Decided once, at the first fresh run. */
CD_MAYBE_UNUSED static int prefault_decide(void)
{
    const char *e = cd_getenv("COLLDIAG_PREFAULT");
    if (e && *e && strcmp(e, "auto")) {
        cd_pf_state = strcmp(e, "0") ? 1 : -1;
        snprintf(cd_pf_note, sizeof cd_pf_note, "COLLDIAG_PREFAULT=%s", cd_pf_state > 0 ? "1" : "0");
        return cd_pf_state;
    }
#if CD_CAN_POPULATE
    cd_pf_ratio = prefault_probe();
#endif
#ifdef COLLDIAG_TESTING
    const char *inj = cd_getenv("COLLDIAG_INJECT");
    double v;
    if (inj && !strncmp(inj, "prefault:", 9) && sscanf(inj + 9, "%lf", &v) == 1) cd_pf_ratio = v;
#endif
    cd_pf_state = cd_pf_ratio >= CD_PF_GAIN ? 1 : -1;
    if (cd_pf_ratio < 0) snprintf(cd_pf_note, sizeof cd_pf_note, "%s", cd_pf_cannot);
    else snprintf(cd_pf_note, sizeof cd_pf_note, "%s: faulting took %.2fx populating's time in this process's probe (populated from %.2fx)",
                  cd_pf_state > 0 ? "prefaulted" : "not prefaulted", cd_pf_ratio, CD_PF_GAIN);
    return cd_pf_state;
}

/* Before a read into [a, a + n), which the read writes whole: its whole pages populated where they are
   fresh and this process measured that it pays (above). Returns the bytes populated (0: none). */
static uint64_t cd_prefault_run(uintptr_t a, size_t n)
{
#if CD_CAN_POPULATE
    if (cd_pf_state < 0 || !a) return 0;
    const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), from = (a + pg - 1) & ~(pg - 1), to = (a + n) & ~(pg - 1);
    if (n < CD_PF_MIN || to <= from || to - from < CD_PF_MIN) return 0;
    if (n < CD_PF_RECHECK) {
        for (unsigned i = 0; i < CD_PF_SEEN; i++)
            if (cd_pf_small[i] == a) return 0;
        cd_pf_small[cd_pf_small_next++ % CD_PF_SEEN] = a;
    }
    /* the last whole page: glibc writes a mapped block's header into its first, which says nothing */
    unsigned char in = 1;
    if (mincore((void *)(to - pg), (size_t)pg, &in) != 0 || (in & 1)) return 0; /* resident, or not a mapping mincore knows */
    if (!cd_pf_state && prefault_decide() < 0) return 0;
    if (madvise((void *)from, (size_t)(to - from), MADV_POPULATE_WRITE) != 0) {
        if (errno == EINVAL) {
            cd_pf_state = -1;
            snprintf(cd_pf_note, sizeof cd_pf_note, "%s", cd_pf_cannot);
        }
        return 0;
    }
    return (uint64_t)(to - from);
#else
    (void)a;
    (void)n;
    return 0;
#endif
}

/* A kit read's destination as one run of bytes of buf: the packed buffer (no memory selection, or one
   of all its extent, which check_args turned into none), or a hyperslab memory selection whose first
   and last elements are npoints apart (a hyperslab union holds no element twice: then it is one run).
   Points never: a list may name an element twice and skip another in the same span. */
static void prefault_read(cd_io *io)
{
    if (io->dir != DIR_READ || io->code || !io->rbuf || !io->fs || io->fs->space == SPACE_NULL) return;
    const uint64_t np = colldiag_sel_npoints(io->fs);
    uint64_t first = 0, last = 0, bytes;
    if (io->ms) {
        if (io->ms->type != SEL_HYPER || !sel_first_last(io->ms, &first, &last) || last - first + 1 != np) return;
    }
    if (np == 0 || cd_mul(np, io->mes, &bytes) || bytes > SIZE_MAX || first > UINT64_MAX / io->mes) return;
    io->x->pf_bytes = cd_prefault_run((uintptr_t)io->rbuf + (uintptr_t)(first * io->mes), (size_t)bytes);
}

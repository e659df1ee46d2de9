#define _GNU_SOURCE
#include "colldiag.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif
#include <unistd.h>

/* An internal chunk optimisation, never set by a user: HDF5 1.14's selection I/O (decision.c), which runs
   as link-chunk. */
#define COLLDIAG_MPIO_CHUNK_SELECTION_IO 100
/* An internal bit of the agreed cause word, never reported (decision.c): some rank converts under HDF5
   1.14's selection I/O. */
#define CD_CAUSE_CONVERTS_114 ((uint64_t)1 << 40)
/* ... and: some rank has no selection I/O (then no rank uses it: every rank takes the same scheme). */
#define CD_CAUSE_SEL_OFF_114 ((uint64_t)1 << 41)
/* ... and: some rank's read is not one stretch of at least x->read_stretch_bytes (decision.c,
   reads_by_stretch: the HDF5 preload's contiguous reads). */
#define CD_CAUSE_SHORT_READ ((uint64_t)1 << 42)
/* ... and: under the HDF5 preload and HDF5 1.10's rules, some rank's filtered read touches a chunk never
   written or stored with a filter skipped, which 1.10.8's collective filtered read fails on (decision.c,
   filt_hdf5_fails): HDF5 then runs the call, so the program gets HDF5's own answer. */
#define CD_CAUSE_FILT_H5_FAILS ((uint64_t)1 << 43)

/* A static function only some programs built from this file call (the HDF5 preload includes colldiag.c). */
#if defined(__GNUC__) || defined(__clang__)
#define CD_MAYBE_UNUSED __attribute__((unused))
#else
#define CD_MAYBE_UNUSED
#endif

#ifndef COLLDIAG_MALLOC
#define COLLDIAG_MALLOC(n) malloc(n)
#define COLLDIAG_CALLOC(n, s) calloc((n), (s))
#define COLLDIAG_REALLOC(p, n) realloc((p), (n))
#define COLLDIAG_FREE(p) free(p)
#endif

/* Conversion/transform staging buffer: 1 MiB, as HDF5's default type-conversion buffer, big enough to
   amortise a call per run and small enough to never matter next to the application's data. */
#define CD_DEFAULT_BUFFER ((size_t)1 << 20)
/* Staging for plain independent runs (gathering scattered memory into file order): 4 MiB keeps
   pwrite/MPI_File_write_at calls large without a selection-sized copy (never more than the collective
   buffer below, which bounds everything a call allocates for data). */
#define CD_STAGE_BYTES ((size_t)4 << 20)
/* Collective calls pack memory into file order themselves when the memory side's runs average fewer
   bytes than this: MPI-IO libraries walk a many-run memory type slower than memcpy does (B4: 5.6M
   32-byte runs, 1.8 s through the memory type against 1.0 s packed), at the price of one copy of the
   round's bytes, whose fresh pages cost more than 512-byte runs do (B1: 0.08 s unpacked, 0.12 packed). */
#ifndef COLLDIAG_PACK_RUN_BYTES
#define COLLDIAG_PACK_RUN_BYTES 256
#endif
/* MPI counts are int: no single count or block length above this, by construction. */
#define CD_MAX_INT_COUNT ((uint64_t)INT_MAX)
/* A single contiguous block in an MPI type is split into 1 GiB pieces so sizes never overflow int. */
#define CD_BIG_BLOCK ((uint64_t)1 << 30)
/* AUTO's cost model (section 7). Defaults measured on a 2-core Debian 12 box, Open MPI 4.1.4 ompio,
   3 ranks, local disk, by `make calibrate` (bench/calibrate.c), which prints the same list for any
   machine. Each can be set at compile time (-DCOLLDIAG_AUTO_LAT=1e-4) or per run through the
   environment (COLLDIAG_AUTO_LAT=1e-4); the environment wins. Every rank must see the same values:
   they decide the scheme, so they are part of the agreed settings (a disagreement is COLLDIAG_ERR_ARG
   on every rank). The choice follows their ratios, not their absolute values. */
#ifndef COLLDIAG_AUTO_LAT
#define COLLDIAG_AUTO_LAT 1.2e-4 /* s per collective MPI-IO call of a small piece (set_view + two-phase round trip) */
#endif
#ifndef COLLDIAG_AUTO_LAT_X
#define COLLDIAG_AUTO_LAT_X 7e-6   /* s per all-to-all step of the aggregation exchange */
#endif
#ifndef COLLDIAG_AUTO_RUN
#define COLLDIAG_AUTO_RUN 4e-6   /* s per file run two-phase I/O sorts and merges (B3 link: 1.4 M runs a rank ~ 7 s) */
#endif
/* RUN is not one price: what two-phase I/O costs a run grows with the runs a rank hands it (its sort
   and merge of the ranks' offset lists, then buffers past the caches). calibrate's `runs` mode, the
   same collective write of 64-byte runs at 64 to 64K runs a rank (2026-12-03, 3 ranks): 0.74-0.82 us a
   run from 256 to 4096 runs on ompio, 0.6-0.9 us on ROMIO, then 1.4-2.7 us at 16K and 3.1-3.3 us at
   64K, RUN's own count. Priced at RUN, a call of a few hundred runs looked 4-5x dearer than it ran:
   rows dealt round-robin (341 runs a rank) had link-chunk estimated at aggregation's price and it ran
   in two thirds of aggregation's time. So a run costs RUN x RUN_LOW up to RUN_KNEE runs a rank, RUN at
   65536 (COLLDIAG_RUN_FULL, where calibrate measures RUN) and beyond, and in between the geometric
   mean of the two by where the count lies on a log scale (run_price). RUN_LOW is a share of RUN so
   that setting RUN alone (older calibrate output, a test) scales every count alike. Both were
   measured on 3 ranks of 2 cores; ranks whose collective step probes slower than LAT_X's default
   (8 on the same cores: 6-7 us a run of a few hundred) have the low price raised by as much, never
   past RUN, while these constants are the defaults (decision.c, run_slow). */
#ifndef COLLDIAG_AUTO_RUN_LOW
#define COLLDIAG_AUTO_RUN_LOW 0.22 /* RUN's share a run costs at RUN_KNEE runs a rank or fewer (0.8 of 3.3-4 us, above) */
#endif
#ifndef COLLDIAG_AUTO_RUN_KNEE
#define COLLDIAG_AUTO_RUN_KNEE 4096 /* runs a rank up to which a run costs RUN x RUN_LOW (both MPI-IO layers, 3 ranks) */
#endif
#define COLLDIAG_RUN_FULL 65536.0 /* runs a rank at which a run costs RUN: calibrate's count for it */
#ifndef COLLDIAG_AUTO_MRUN
#define COLLDIAG_AUTO_MRUN 1.5e-7  /* s per memory block (>= COLLDIAG_PACK_RUN_BYTES, so not packed) MPI's datatype engine handles */
#endif
#ifndef COLLDIAG_AUTO_IND
#define COLLDIAG_AUTO_IND 4.5e-6 /* s per independent MPI-IO call (one per contiguous file stretch), a read's; a write adds IND_DIRTY */
#endif
#ifndef COLLDIAG_AUTO_IND_DIRTY
/* s a small independent *write* adds to IND for the page it dirties. Buffered writes of runs that each
   land in a page of their own (a column block, a chunk's rows) pay the kernel's page dirtying, block
   reservation and the inode lock the writers share; reads and rewrites of dirty pages do not. Measured
   by bench/calibrate.c as 64-byte writes one a fresh page (beyond the end of the file, as into a new
   dataset) less IND: 12 us a write on 3 ranks here, 34 us on 8 ranks of 2 cores, against 1-1.4 us for a
   read of a cached page. Without it the model took B3's column writes for as cheap as its reads and
   chose independent writes 3.5x slower than aggregation (make bench-nodes, 2026-11-28). */
#define COLLDIAG_AUTO_IND_DIRTY 1e-5
#endif
#ifndef COLLDIAG_AUTO_COPY
#define COLLDIAG_AUTO_COPY 6e-9   /* s per run packed or placed by aggregation */
#endif
#ifndef COLLDIAG_AUTO_BW_IO
#define COLLDIAG_AUTO_BW_IO 1.8e9  /* B/s a rank moves through collective (two-phase) I/O */
#endif
#ifndef COLLDIAG_AUTO_BW_IND
#define COLLDIAG_AUTO_BW_IND 3e9    /* B/s a rank moves with independent calls (no exchange between ranks) */
#endif
#ifndef COLLDIAG_AUTO_BW_COPY
#define COLLDIAG_AUTO_BW_COPY 1.8e10 /* B/s of memcpy */
#endif
#ifndef COLLDIAG_AUTO_BW_NET
#define COLLDIAG_AUTO_BW_NET 3e9    /* B/s per rank through the aggregation exchange, between ranks of one node */
#endif
#ifndef COLLDIAG_AUTO_BW_NET_X
/* B/s a node's link carries out of the node in the aggregation exchange (all its ranks together). The
   exchange sends a rank's pieces to their chunks' owners, spread over the ranks: with H nodes of K
   ranks (MPI_COMM_TYPE_SHARED groups, agreed once a file), a fraction (H-1)/H of a node's K*B bytes
   leaves it. Per node, not per rank, because the ranks of a node share its link whatever their number.
   Default: a 100 Gb/s link (HDR100 InfiniBand, 100 GbE), what a cluster built in the last five years
   has; on one node it plays no part. bench/calibrate.c measures it when run across nodes (sends to
   other nodes only); on a slower network the default makes aggregation look too cheap: 14x slower than
   independent reads on 200 Mbit/s links (make bench-nodes). */
#define COLLDIAG_AUTO_BW_NET_X 1.25e10
#endif
/* The constants as one list: X(NAME) -> env COLLDIAG_AUTO_<NAME>, default COLLDIAG_AUTO_<NAME>. */
#define CD_AUTO_CONSTANTS(X) X(LAT) X(LAT_X) X(RUN) X(RUN_LOW) X(RUN_KNEE) X(MRUN) X(IND) X(IND_DIRTY) X(COPY) X(BW_IO) X(BW_IND) X(BW_COPY) X(BW_NET) X(BW_NET_X)
#define CD_AUTO_ENUM(n) CD_K_##n,
enum { CD_AUTO_CONSTANTS(CD_AUTO_ENUM) CD_K_N };

/* The HDF5 preload under COLLDIAG_ACCELERATE=1 leaves to HDF5 a collective write in which every rank
   writes whole chunks of its own (no chunk shared, none written in part) once the busiest rank moves
   this many bytes: HDF5's collective path then makes the same stretches in one MPI-IO call per chunk or
   call, and colldiag's only difference is the kind of call. Measured with bench/patterns.sh, one process
   a pattern as IOR and h5bench run (Debian 12, HDF5 1.10.8, Open MPI 4.1.4 ompio, 3 ranks on 2 cores):
   IOR-like 1 MiB chunks, colldiag's independent calls ran at 0.77-0.91x HDF5's rate, not because they
   are slow (1-3 ms a MiB) but because they leave glibc's heap as MPI-IO's collective calls do not: the
   next collective call HDF5 makes (the fill of the next H5Dcreate, 8 MiB a rank) then faults its
   buffers in afresh (about 10 us a page here, 100 ms a call) where HDF5's own run reuses them. Below
   this size, per-call costs decide and colldiag's are lower: 64 KiB chunks ran 1.1-1.6x. A call that
   writes every chunk of the dataset stays colldiag's: the field's one-call-a-variable writes (VPIC-IO,
   1 MiB a rank in 256 KiB chunks, each dataset created, filled and written once) ran 0.89-0.97x left to
   HDF5 (the agreement before it is a cost of its own there) and 1.0-1.19x through colldiag. Not under
   HDF5 1.12 and later (1.14's rules), whose selection I/O writes such a call, a whole dataset too, in
   one collective call: measured in Debian 13 (HDF5 1.14.5, Open MPI 5.0.7, 3 ranks on 2 cores), the
   same VPIC-IO writes ran 0.19-0.23x through colldiag (its ranks stall each other there, busy-polling
   two cores: the cause is not pinned down) and 0.96-1.69x left to HDF5. The decision needs the
   agreement (the bytes and the sharing are every rank's): one reduction. */
#ifndef COLLDIAG_ACCEL_WHOLE_BYTES
#define COLLDIAG_ACCEL_WHOLE_BYTES ((uint64_t)256 << 10)
#endif
/* The HDF5 preload under COLLDIAG_ACCELERATE=1 reads a contiguous dataset with one independent call a
   rank when every rank reads one stretch of the file of at least this many bytes, or nothing; any other
   collective contiguous read is HDF5's. Why independent: HDF5's path is one collective MPI-IO call,
   and ROMIO's collective read itself reads independently when the ranks' parts do not interleave
   (romio_cb_read=automatic), whatever their size; ompio's always runs its two phases. One stretch a
   rank is a test of that which needs no more than colldiag's one reduction (ROMIO gathers every rank's
   extent). Measured with IOR -a HDF5 -c, one block a rank, contiguous dataset (Debian 12, Open MPI 4.1.4
   ompio, 3 ranks on 2 cores, 2026-11-28): reads of 1 KiB, 8 KiB, 64 KiB and 1 MiB a rank a call ran
   5.6x, 7.5x, 10x and 12.8x HDF5's rate; ROMIO's own collective read of 1 MiB ran at a third of its
   independent one. So no size limit by default (1 byte): a file system where small independent reads
   cost more than a collective one can set one at build time. */
#ifndef COLLDIAG_ACCEL_STRETCH_BYTES
#define COLLDIAG_ACCEL_STRETCH_BYTES ((uint64_t)1)
#endif
/* Most bytes one rank moves in one collective data call: larger transfers become several agreed rounds.
   ROMIO 3.2.1 (Open MPI 4.1's romio321) hangs on a collective request above 2 GiB per rank; 1 GiB keeps
   a margin and is still far beyond where a round's fixed cost matters. */
#ifndef COLLDIAG_COLL_MAX_BYTES
#define COLLDIAG_COLL_MAX_BYTES ((uint64_t)1 << 30)
#endif
/* The collective buffer: a collective call that packs memory into file order packs at most this many
   bytes per rank at a time, in agreed rounds, through one buffer reused by every round. 16 MiB is
   ROMIO's cb_buffer_size, the amount two-phase I/O itself moves per aggregator per cycle, so a round
   costs no more calls than MPI-IO makes anyway, and the copy stays small next to the application's data
   (B4 packed 186 MB per call into one fresh buffer before). Per transfer: colldiag_set_coll_buffer;
   env COLLDIAG_COLL_BUFFER (bytes, k/m/g suffixes). Every rank must use the same value (it decides the
   number of collective calls, so it is part of the agreed settings). */
#ifndef COLLDIAG_COLL_BUFFER_BYTES
#define COLLDIAG_COLL_BUFFER_BYTES ((uint64_t)16 << 20)
#endif
/* The MPI-IO hint cb_buffer_size that colldiag_file_open gives MPI when the caller's info names none:
   the collective buffer's 16 MiB. ROMIO's default already; Open MPI's ompio defaults to 32 MiB, which
   its two-phase write splits into two 16 MiB buffers allocated and freed in every collective call,
   and glibc hands that much back to the kernel on each free (its trim threshold follows the largest
   block freed so far), so every call faults in 8,192 fresh pages. Link's rounds make one call per 16
   MiB: B4 (178 MB per rank, 12 calls) spent 1.6 s in MPI against 0.21 s with 16 MiB (measured on this
   project's 2-core VM, where a page fault is expensive). 0: leave MPI's default. */
#ifndef COLLDIAG_CB_BUFFER_HINT
#define COLLDIAG_CB_BUFFER_HINT COLLDIAG_COLL_BUFFER_BYTES
#endif
/* Upper bound on the spans one OR may materialise: a guard against selections that would need
   gigabytes of description (the caller gets COLLDIAG_ERR_NOMEM with a message, not an abort). */
#define CD_MAX_SPANS ((uint64_t)1 << 26)
/* Nesting the run compressor tracks: enough for chunks of rank 4 described exactly, deeper patterns
   stay correct with more items. */
#define CD_MAXD 6

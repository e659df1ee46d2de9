/* colldiag.h — collective I/O you can see into.
 *
 * Drop colldiag.h and colldiag.c into your source tree, compile colldiag.c with
 * your MPI compiler wrapper (mpicc -c colldiag.c), and link it into the MPI
 * application. colldiag reads and writes N-dimensional arrays stored contiguously,
 * compactly or in chunks inside a shared file, decides like parallel HDF5 1.10
 * whether and how to do collective MPI-IO, performs it, and reports exactly what
 * it did and why.
 *
 * Conventions (read these once):
 *  - Every int-returning function returns COLLDIAG_OK (0) or a negative
 *    COLLDIAG_ERR_* code; colldiag_last_errmsg() then names the function, the
 *    argument and the MPI rank.
 *  - Every *_create / *_open / layout constructor returns an object the caller
 *    frees with the matching *_free / *_close. Input arrays are copied; colldiag
 *    never keeps a pointer to caller memory except the I/O buffer during a call.
 *  - Objects are not thread-safe: lock around shared use.
 *  - colldiag_write/read/plan are collective over the file's communicator when the
 *    transfer mode is COLLECTIVE: every rank calls them, and they either succeed
 *    on every rank or fail on every rank (COLLDIAG_ERR_PEER on the healthy ones).
 *
 * Configuration macros (define before compiling colldiag.c):
 *  - COLLDIAG_MALLOC / COLLDIAG_CALLOC / COLLDIAG_REALLOC / COLLDIAG_FREE:
 *    the allocator, so an application can account for colldiag's memory.
 *  - COLLDIAG_WITH_HDF5: compile the HDF5 bridge (needs parallel HDF5).
 */
#ifndef COLLDIAG_H
#define COLLDIAG_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#ifdef COLLDIAG_WITH_HDF5
#include <hdf5.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define COLLDIAG_VERSION_MAJOR 1
#define COLLDIAG_VERSION_MINOR 0
#define COLLDIAG_VERSION_PATCH 0
/* "MAJOR.MINOR.PATCH" of the compiled colldiag.c */
const char *colldiag_version(void);

/* Largest dataset rank, as in HDF5. */
#define COLLDIAG_MAX_RANK 32

/* ---- return codes: 0 ok, negative error ---- */
enum {
    COLLDIAG_OK = 0,
    COLLDIAG_ERR_ARG = -1,       /* bad argument on this rank */
    COLLDIAG_ERR_NOMEM = -2,
    COLLDIAG_ERR_MPI = -3,       /* an MPI call failed (message has the MPI error string) */
    COLLDIAG_ERR_IO = -4,        /* pread/pwrite or short transfer; stored bytes that do not decode */
    COLLDIAG_ERR_UNSUPPORTED = -5,
    COLLDIAG_ERR_PEER = -6       /* this rank was fine; another rank failed in the same collective call */
};
/* Static text for a return code ("unknown error code" for others). */
const char *colldiag_strerror(int code);
/* Message of the last failed colldiag call on this thread (any function, constructors included): names
   the function, the argument and the rank; "" if none failed yet; a success does not clear it. */
const char *colldiag_last_errmsg(void);

/* ---- requested settings (values 0..2 equal HDF5's H5FD_mpio_*_t) ---- */
typedef enum { COLLDIAG_MPIO_INDEPENDENT = 0, COLLDIAG_MPIO_COLLECTIVE = 1 } colldiag_xfer_mode_t;
typedef enum {
    COLLDIAG_MPIO_CHUNK_DEFAULT = 0, COLLDIAG_MPIO_CHUNK_ONE_IO = 1, COLLDIAG_MPIO_CHUNK_MULTI_IO = 2,
    COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO = 3, COLLDIAG_MPIO_ALL_CHUNK_IND_IO = 4,
    COLLDIAG_MPIO_CHUNK_MULTI_IO_NO_OPT = 5,
    COLLDIAG_MPIO_CHUNK_AGGREGATE_IO = 6,   /* colldiag's own: one owner per chunk (a rank touching it) gets
                                               the others' pieces and moves the chunk's covered bytes as
                                               long runs in collective calls, in agreed rounds that hold
                                               at most the collective buffer */
    COLLDIAG_MPIO_CHUNK_AUTO = 7            /* colldiag's own: link, multi, aggregation or all-independent by a cost model
                                               (reported as the one chosen; constants: env COLLDIAG_AUTO_*,
                                               measured by `make calibrate`); DEFAULT stays HDF5's rule */
} colldiag_chunk_opt_t;
typedef enum { COLLDIAG_MPIO_COLLECTIVE_IO = 0, COLLDIAG_MPIO_INDIVIDUAL_IO = 1 } colldiag_collective_opt_t;

/* ---- reported results (values 0..2 / 0..4 equal HDF5's H5D_mpio_actual_*_t) ---- */
typedef enum {
    COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION = 0, COLLDIAG_MPIO_LINK_CHUNK = 1, COLLDIAG_MPIO_MULTI_CHUNK = 2,
    COLLDIAG_MPIO_COLL_CHUNK_ATONCE = 3, COLLDIAG_MPIO_ALL_CHUNK_IND = 4, COLLDIAG_MPIO_MULTI_CHUNK_NO_OPT = 5,
    COLLDIAG_MPIO_CHUNK_AGGREGATE = 6       /* reported with CHUNK_COLLECTIVE on every rank */
} colldiag_actual_chunk_opt_mode_t;
typedef enum {
    COLLDIAG_MPIO_NO_COLLECTIVE = 0, COLLDIAG_MPIO_CHUNK_INDEPENDENT = 1, COLLDIAG_MPIO_CHUNK_COLLECTIVE = 2,
    COLLDIAG_MPIO_CHUNK_MIXED = 3, COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE = 4,
    /* HDF5 1.14's rules, a multi-dataset call moving chunked and contiguous datasets in one collective
       call: HDF5 reports the OR of the two bits (CHUNK_COLLECTIVE | CONTIGUOUS_COLLECTIVE), a value its
       enum does not name */
    COLLDIAG_MPIO_CHUNK_CONTIGUOUS_COLLECTIVE = 6
} colldiag_actual_io_mode_t;

/* Cause bits (values of HDF5 1.10.5+ H5D_mpio_no_collective_cause_t where HDF5 has the cause).
   One X-macro table generates these constants' phrases and names in colldiag.c, so a new bit cannot
   miss its phrase: X(NAME, VALUE, PHRASE). */
#define COLLDIAG_CAUSE_TABLE(X)                                                                                   \
    X(SET_INDEPENDENT, 0x01u, "independent I/O was requested")                                                   \
    X(DATATYPE_CONVERSION, 0x02u, "a datatype conversion was requested")                                          \
    X(DATA_TRANSFORMS, 0x04u, "a data transform was requested")                                                   \
    X(MPI_OPT_TYPES_ENV_VAR_DISABLED, 0x08u, "MPI derived types were disabled by COLLDIAG_MPI_OPT_TYPES/HDF5_MPI_OPT_TYPES") \
    X(NOT_SIMPLE_OR_SCALAR_DATASPACES, 0x10u, "the file or memory dataspace is null (not simple or scalar)")      \
    X(NOT_CONTIGUOUS_OR_CHUNKED_DATASET, 0x20u, "the dataset is neither contiguous nor chunked (compact)")        \
    X(FILTERS, 0x40u, "the dataset has filters, which colldiag cannot write")                                     \
    X(ERROR_WHILE_CHECKING, 0x80u, "a rank found an error in its arguments while checking")                       \
    X(NO_SELECTION_IO, 0x100u, "selection I/O, under which HDF5 1.14 converts and transforms collectively, is off (see the selection-I/O cause)") \
    X(SET_MPIPOSIX, 0x10000u, "the file uses the POSIX driver, which is never collective")                        \
    X(POINT_SELECTIONS, 0x20000u, "point selections (reserved, never set)")

/* cause bits: see SPEC.md section 2 for when each is set */
#define COLLDIAG_MPIO_COLLECTIVE_OK                      0x00u
#define COLLDIAG_MPIO_SET_INDEPENDENT                    0x01u
#define COLLDIAG_MPIO_DATATYPE_CONVERSION                0x02u
#define COLLDIAG_MPIO_DATA_TRANSFORMS                    0x04u
#define COLLDIAG_MPIO_MPI_OPT_TYPES_ENV_VAR_DISABLED     0x08u
#define COLLDIAG_MPIO_NOT_SIMPLE_OR_SCALAR_DATASPACES    0x10u
#define COLLDIAG_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET  0x20u
#define COLLDIAG_MPIO_FILTERS                            0x40u
#define COLLDIAG_MPIO_ERROR_WHILE_CHECKING               0x80u
#define COLLDIAG_MPIO_NO_SELECTION_IO                    0x100u    /* HDF5 1.14's rules only */
#define COLLDIAG_MPIO_SET_MPIPOSIX                       0x10000u
#define COLLDIAG_MPIO_POINT_SELECTIONS                   0x20000u  /* reserved, never set */

/* Writes "; "-joined phrases for the bits in cause into buf, snprintf-style: always NUL-terminated when
   len > 0, returns the length (without NUL) it needed; cause 0 gives "". Unknown bits are named in hex. */
size_t colldiag_cause_string(uint32_t cause, char *buf, size_t len);
/* Enum name without the COLLDIAG_MPIO_ prefix ("LINK_CHUNK", "CHUNK_MIXED", ...); "?" if out of range. */
const char *colldiag_chunk_opt_name(colldiag_actual_chunk_opt_mode_t v);
const char *colldiag_io_mode_name(colldiag_actual_io_mode_t v);

/* ---- file (collective open/close over comm) ---- */
typedef struct colldiag_file colldiag_file;
typedef enum { COLLDIAG_DRIVER_MPIO = 0, COLLDIAG_DRIVER_POSIX = 1 } colldiag_driver_t;
/* Collective. MPIO: MPI_File_open(comm, path, amode, info), adding the hint cb_buffer_size = 16 MiB
   when info names none (a copy; info itself is not changed): Open MPI's ompio otherwise allocates and
   frees 32 MiB in every collective call, which glibc returns to the kernel each time (see
   COLLDIAG_CB_BUFFER_HINT in colldiag.c; -DCOLLDIAG_CB_BUFFER_HINT=0 leaves MPI's default). POSIX:
   every rank open()s path (rank 0 creates it first when amode has MPI_MODE_CREATE); MPI is then used
   for coordination only. */
int colldiag_file_open(MPI_Comm comm, const char *path, int amode /* MPI_MODE_* */, MPI_Info info,
                       colldiag_driver_t driver, colldiag_file **out);
/* Collective. Uses an MPI_File the caller opened on comm; caller keeps ownership of fh. The view is set
   to (0, MPI_BYTE, MPI_BYTE, "native") and left so after every call. The file keeps the caller's
   hints: on Open MPI's ompio, open it with cb_buffer_size 16777216 for colldiag_file_open's speed. */
int colldiag_file_wrap(MPI_Comm comm, MPI_File fh, colldiag_file **out);
/* Collective. Closes fh only if opened by colldiag. NULL is accepted. Frees what the file kept between
   calls: aggregation's data buffers (at most 3/4 of the collective buffer, kept so that a time-step
   loop does not map fresh pages for them every call). */
int colldiag_file_close(colldiag_file *f);

/* ---- layout ---- */
typedef struct colldiag_layout colldiag_layout;
/* dims[rank] elements of elem_size bytes stored row-major at file offset addr. rank 1..32. */
int colldiag_layout_contiguous(int rank, const uint64_t *dims, size_t elem_size, MPI_Offset addr,
                               colldiag_layout **out);
/* Chunked, dense addresses: chunk k (row-major chunk-grid order) at base + k*chunk_bytes. Edge chunks take
   a full chunk of storage, as in HDF5. */
int colldiag_layout_chunked(int rank, const uint64_t *dims, const uint64_t *chunk_dims, size_t elem_size,
                            MPI_Offset base, colldiag_layout **out);
/* Replaces dense addressing by a table: addrs[k] for chunk k in row-major chunk-grid order; copied; -1 =
   not allocated (reads return zeros, writes fail). nchunks must equal the grid's chunk count. */
int colldiag_layout_set_chunk_addrs(colldiag_layout *l, uint64_t nchunks, const MPI_Offset *addrs);
/* Stored like contiguous bytes at addr, but never collective (cause NOT_CONTIGUOUS_OR_CHUNKED_DATASET). */
int colldiag_layout_compact(int rank, const uint64_t *dims, size_t elem_size, MPI_Offset addr,
                            colldiag_layout **out);
/* Marks a chunked layout as filtered: colldiag then refuses its I/O (COLLDIAG_ERR_UNSUPPORTED). */
int colldiag_layout_set_filtered(colldiag_layout *l, int filtered);
/* Whether the storage's fill value was written when it was allocated, as HDF5 does it (colldiag itself
   never writes fill values): what decides whether HDF5's own collective write of a sparse selection can
   leave process memory in the storage's holes past the end of the file (colldiag_get_bytes_at_risk).
   Defaults are parallel HDF5's: contiguous 0 (no fill unless H5D_FILL_TIME_ALLOC or a fill value is
   set), chunked 1 (unless H5D_FILL_TIME_NEVER or an undefined fill value). The HDF5 bridge sets it from
   the dataset's creation properties. */
int colldiag_layout_set_fill_written(colldiag_layout *l, int written);
void colldiag_layout_free(colldiag_layout *l);

/* ---- selections (HDF5 dataspace semantics) ---- */
typedef struct colldiag_sel colldiag_sel;
/* hyperslab/point calls check their coordinates against the space's dims at once (COLLDIAG_ERR_ARG) and
   leave the selection unchanged when they fail; duplicated points are rejected at once; a file
   selection's dims must equal the layout's dims (checked at the I/O call). Elements are transferred in
   iteration order: row-major for ALL and hyperslabs (an OR is a true union), the given order for points;
   the k-th file element pairs with the k-th memory element. */
typedef enum { COLLDIAG_SELECT_SET = 0, COLLDIAG_SELECT_OR = 1 } colldiag_seloper_t;
/* A simple dataspace of rank 1..32 with ALL selected. A dim may be 0 (no elements). */
int colldiag_sel_create(int rank, const uint64_t *dims, colldiag_sel **out);
/* A scalar space: one element, ALL selected. */
int colldiag_sel_create_scalar(colldiag_sel **out);
/* A null space: no elements; using it in I/O raises cause NOT_SIMPLE_OR_SCALAR_DATASPACES. */
int colldiag_sel_create_null(colldiag_sel **out);
int colldiag_sel_select_all(colldiag_sel *s);
int colldiag_sel_select_none(colldiag_sel *s);
/* count 0 selects nothing; block 0, stride < block (with count > 1) or a block past dims are errors.
   OR onto a point selection is an error, as in HDF5. */
int colldiag_sel_select_hyperslab(colldiag_sel *s, colldiag_seloper_t op, const uint64_t *start,
                                  const uint64_t *stride /* NULL = 1s */, const uint64_t *count,
                                  const uint64_t *block /* NULL = 1s */);
/* SET replaces the selection; OR appends to a point (or empty) selection. Order is kept. */
int colldiag_sel_select_elements(colldiag_sel *s, colldiag_seloper_t op, uint64_t npoints,
                                 const uint64_t *coords /* npoints * rank, row by row */);
/* Number of selected elements (0 for NULL). */
uint64_t colldiag_sel_npoints(const colldiag_sel *s);
void colldiag_sel_free(colldiag_sel *s);

/* ---- transfer properties and results (the DXPL) ---- */
typedef struct colldiag_xfer colldiag_xfer;
/* Defaults as in HDF5: INDEPENDENT, CHUNK_DEFAULT, num 0, ratio 60, COLLECTIVE_IO; 1 MiB buffer. */
int colldiag_xfer_create(colldiag_xfer **out);
void colldiag_xfer_free(colldiag_xfer *x);
int colldiag_set_dxpl_mpio(colldiag_xfer *x, colldiag_xfer_mode_t mode);
/* INDIVIDUAL_IO keeps the collective structure of a call but moves the data with independent calls;
   reported modes are those HDF5 reports for the same setting (the counters show the real calls). */
int colldiag_set_dxpl_mpio_collective_opt(colldiag_xfer *x, colldiag_collective_opt_t opt);
int colldiag_set_dxpl_mpio_chunk_opt(colldiag_xfer *x, colldiag_chunk_opt_t opt);
/* DEFAULT scheme: link-chunk iff floor(sum of touched chunks / nprocs) >= num. */
int colldiag_set_dxpl_mpio_chunk_opt_num(colldiag_xfer *x, unsigned num_chunk_per_proc);
/* Multi/at-once: chunk collective iff nproc(c) > max(1, floor(nprocs*percent/100)); 0 = all. 0..100. */
int colldiag_set_dxpl_mpio_chunk_opt_ratio(colldiag_xfer *x, unsigned percent_num_proc_per_chunk);
typedef enum { COLLDIAG_TO_FILE = 0, COLLDIAG_TO_MEMORY = 1 } colldiag_direction_t;
/* TO_FILE: src holds nelem memory-typed elements, dst receives file-typed ones; TO_MEMORY: the reverse.
   Return 0 on success; anything else fails the call (COLLDIAG_ERR_ARG, message names the callback).
   The transform works on file-typed elements: on write after conversion, on read before it. */
typedef int (*colldiag_convert_fn)(const void *src, void *dst, size_t nelem, colldiag_direction_t dir, void *ctx);
typedef int (*colldiag_transform_fn)(void *file_elems, size_t nelem, colldiag_direction_t dir, void *ctx);
/* Sets a conversion (fn NULL removes it); raises cause DATATYPE_CONVERSION. The buffer then holds
   mem_elem_size-byte elements. */
int colldiag_set_type_conversion(colldiag_xfer *x, size_t mem_elem_size, colldiag_convert_fn fn, void *ctx);
/* Sets a transform (fn NULL removes it); raises cause DATA_TRANSFORMS. */
int colldiag_set_data_transform(colldiag_xfer *x, colldiag_transform_fn fn, void *ctx);
int colldiag_set_buffer(colldiag_xfer *x, size_t bytes);      /* conversion buffer, default 1 MiB, >= 64 */
/* Collective buffer, default 16 MiB (ROMIO's cb_buffer_size), >= 1: a collective call moves at most
   this many bytes per rank per MPI call, in agreed rounds, and packs memory into file order (or, under
   aggregation, exchanges chunk pieces) through buffers that together hold at most this size. Every rank of a call must set the same value (a difference
   is reported like any other settings disagreement). env COLLDIAG_COLL_BUFFER overrides it. */
int colldiag_set_coll_buffer(colldiag_xfer *x, size_t bytes);

/* Which HDF5's decisions colldiag reproduces (what DEFAULT does, which causes break collective I/O, what
   is reported). 110: HDF5 1.10 (the kit's default: SPEC.md's rules). 114: HDF5 1.14, where a collective
   call goes through selection I/O unless something turns it off (see colldiag_set_selection_io): type
   conversions and data transforms then stay collective, every chunk moves in one collective call
   whatever the chunk optimisation asks (reported LINK_CHUNK, CHUNK_COLLECTIVE on every rank; a
   contiguous dataset LINK_CHUNK, CONTIGUOUS_COLLECTIVE), and where selection I/O is off a call that
   only a conversion or transform keeps independent reports cause NO_SELECTION_IO too. env
   COLLDIAG_HDF5_RULES=1.10|1.14 overrides the setting; the report's "why" line names the rules. The
   HDF5 bridge and the preload follow the HDF5 they run with (H5get_libversion) on their own. Every rank
   of a call must use the same rules. 0, or COLLDIAG_ERR_ARG for another value. */
typedef enum { COLLDIAG_HDF5_RULES_1_10 = 110, COLLDIAG_HDF5_RULES_1_14 = 114 } colldiag_hdf5_rules_t;
int colldiag_set_hdf5_rules(colldiag_xfer *x, colldiag_hdf5_rules_t rules);
/* Selection I/O under HDF5 1.14's rules, as H5Pset_selection_io (values as H5D_selection_io_mode_t):
   DEFAULT (on, unless the dataset is filtered, the file is read-only and a chunk fits HDF5's 1 MiB
   chunk cache, or a conversion's buffer would exceed the conversion buffer: colldiag_set_buffer), OFF,
   ON. Ignored under 1.10's rules. */
typedef enum { COLLDIAG_SELECTION_IO_DEFAULT = 0, COLLDIAG_SELECTION_IO_OFF = 1, COLLDIAG_SELECTION_IO_ON = 2 } colldiag_selection_io_t;
int colldiag_set_selection_io(colldiag_xfer *x, colldiag_selection_io_t mode);
/* Why this rank's last call did not use selection I/O under HDF5 1.14's rules, as
   H5Pget_no_selection_io_cause (0: it did, or 1.10's rules). Bits: */
#define COLLDIAG_SEL_IO_DISABLE_BY_API                  0x0001u
#define COLLDIAG_SEL_IO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET 0x0002u
#define COLLDIAG_SEL_IO_DATASET_FILTER                  0x0020u
#define COLLDIAG_SEL_IO_CHUNK_CACHE                     0x0040u
#define COLLDIAG_SEL_IO_TCONV_BUF_TOO_SMALL             0x0080u
int colldiag_get_no_selection_io_cause(const colldiag_xfer *x, uint32_t *cause);

/* Results of the last write/read/plan with this xfer (reset at the start of every call; causes are set
   even if the I/O then fails; modes only when it succeeded). */
int colldiag_get_mpio_actual_chunk_opt_mode(const colldiag_xfer *x, colldiag_actual_chunk_opt_mode_t *out);
int colldiag_get_mpio_actual_io_mode(const colldiag_xfer *x, colldiag_actual_io_mode_t *out);
int colldiag_get_mpio_no_collective_cause(const colldiag_xfer *x, uint32_t *local, uint32_t *global);
const char *colldiag_xfer_errmsg(const colldiag_xfer *x);    /* message of the last failed call, "" if none */

/* ---- I/O: collective over the file's communicator when the transfer mode is collective ----
   buf may be NULL when this rank's selection is empty. A wrapped MPI_File's view is left as
   (0, MPI_BYTE, MPI_BYTE, "native") after every call. Chunks whose table address is -1: a read
   returns zeros for them, a write fails (COLLDIAG_ERR_ARG). Reading or writing a filtered layout
   fails with COLLDIAG_ERR_UNSUPPORTED (writes also report cause FILTERS). Compact data is stored
   row-major at its address, like contiguous.
   One rank's bad argument (a NULL or foreign layout or selection, a NULL buffer, a selection that does
   not fit, settings that differ) fails the call on every rank, the others with COLLDIAG_ERR_PEER
   naming it. The two exceptions are f and x themselves: f carries the communicator and x whether the
   call is collective at all, so a rank passing NULL for either cannot know whether the others wait
   for it; it returns COLLDIAG_ERR_ARG at once (like an invalid file or DXPL id in HDF5). */
int colldiag_write(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel,
                   const colldiag_sel *mem_sel /* NULL = packed */, const void *buf, colldiag_xfer *x);
int colldiag_read(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel,
                  const colldiag_sel *mem_sel, void *buf, colldiag_xfer *x);
int colldiag_plan(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel,
                  const colldiag_sel *mem_sel, colldiag_xfer *x);   /* decides and reports, touches no data */
/* colldiag_plan of a read: the same, decided as colldiag_read would decide. colldiag_plan plans a
   write; AUTO may choose apart for the two (a write's many small independent calls each dirty a page,
   COLLDIAG_AUTO_IND_DIRTY), and only a write has bytes at risk. */
int colldiag_plan_read(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel,
                       const colldiag_sel *mem_sel, colldiag_xfer *x);

/* ---- many datasets in one collective call (HDF5 1.14's H5Dwrite_multi; PnetCDF's wait_all) ----
   n datasets of any mix of layouts (contiguous, compact, chunked), element sizes and selections (a
   rank may select nothing in some) move in one call: one settings agreement for all n, two
   reductions in all, and with link-chunk (or contiguous datasets) every dataset's pieces in ONE
   collective MPI call per round (one, when each rank's bytes fit the collective buffer). The scheme
   is chosen once for the call (AUTO's model over the whole call, or DEFAULT's count of chunks per
   rank over all datasets). Multi-chunk, at-once, aggregation and multi-no-opt make their per-chunk
   calls dataset by dataset. A dataset whose causes rule collective I/O out (a compact layout, a null
   selection on some rank) moves with independent calls; the others stay collective.
   layouts[i], file_sels[i] and bufs[i] describe dataset i as in colldiag_write; mem_sels NULL, or a
   NULL entry, means that dataset's buffer is packed. The datasets' storage must not overlap.
   Errors: a bad argument in any dataset on any rank fails the call on every rank before any byte
   moves; the failing rank's message names "(dataset i)", the others get COLLDIAG_ERR_PEER naming the
   rank and the dataset. Type conversion (colldiag_set_conversion) is refused (UNSUPPORTED).
   Results: the existing getters answer for the whole call (chunk opt: the scheme; io mode: the
   datasets' common mode or CHUNK_MIXED; causes: the OR over datasets); colldiag_get_dataset_mpio
   answers per dataset, as that dataset's single call would; the chunk info lists every chunked
   dataset's pieces with their dataset index (colldiag_chunk_info.dataset). The reports show every
   dataset.
   Memory: the call adds at most the collective buffer + 256 B per chunk this rank touches (over all
   datasets) + 1.25 KiB per dataset + 16 KiB, and under aggregation 128 B per rank of the file's
   communicator (the exchange's counts and displacements). The per-dataset 1.25 KiB is each dataset's
   agreement vector (480 B, twice: reduced, then kept as the dataset's agreed facts; its causes must be
   agreed as its own single call would), its results (288 B) and its context; it shows only when
   datasets touch few chunks (tests/test_memory.c measures both). */
int colldiag_write_multi(colldiag_file *f, size_t n, const colldiag_layout *const layouts[],
                         const colldiag_sel *const file_sels[], const colldiag_sel *const mem_sels[],
                         const void *const bufs[], colldiag_xfer *x);
int colldiag_read_multi(colldiag_file *f, size_t n, const colldiag_layout *const layouts[],
                        const colldiag_sel *const file_sels[], const colldiag_sel *const mem_sels[],
                        void *const bufs[], colldiag_xfer *x);
int colldiag_plan_multi(colldiag_file *f, size_t n, const colldiag_layout *const layouts[],
                        const colldiag_sel *const file_sels[], const colldiag_sel *const mem_sels[],
                        colldiag_xfer *x);
/* Datasets of the last call (1 after a single call). */
int colldiag_get_ndatasets(const colldiag_xfer *x, size_t *n);
/* Dataset i's chunk optimisation, I/O mode and causes in the last call, as its single call would
   report them (after a single call, i = 0 gives the call's own). Any output pointer may be NULL. */
int colldiag_get_dataset_mpio(const colldiag_xfer *x, size_t i, colldiag_actual_chunk_opt_mode_t *chunk_opt,
                              colldiag_actual_io_mode_t *io_mode, uint32_t *local_cause, uint32_t *global_cause);

/* ---- diagnostics beyond HDF5 ---- */
typedef struct {
    uint64_t index;                        /* row-major chunk-grid index */
    uint64_t coords[COLLDIAG_MAX_RANK];    /* chunk-grid coordinates */
    MPI_Offset addr;                       /* file address of the chunk */
    uint64_t nelem;                        /* elements this rank moved in this chunk */
    int nproc;                             /* ranks touching the chunk, -1 if the scheme did not compute it */
    int collective;                        /* 1 collective, 0 independent */
    int owner;                             /* aggregation: the rank that wrote/read the chunk; else -1 */
    int dataset;                           /* multi-dataset calls: the dataset's index in the call; else 0 */
} colldiag_chunk_info;
/* chunked layouts: every chunk this rank touched in the last call, ascending index (also when a cause
   forced independent I/O: collective = 0); contiguous/compact: none. nproc is exact for multi,
   at-once (ratio != 0) and aggregation, exact or -1 for the other schemes. The array belongs to the xfer
   and is built on the first request after a call (the call itself keeps only ~60 bytes a chunk). */
int colldiag_get_chunk_info(const colldiag_xfer *x, uint64_t *nchunks, const colldiag_chunk_info **chunks);
/* COLLDIAG_MPIO_CHUNK_AUTO: the cost model's estimated seconds for each alternative in the last call
   (colldiag_plan included; the choice is the smallest); -1 each when the last call did not run AUTO.
   Any pointer may be NULL. The model and its constants (COLLDIAG_AUTO_*) are in colldiag.c section 7. */
int colldiag_get_auto_estimates(const colldiag_xfer *x, double *link_s, double *multi_s, double *aggregate_s);
/* The same for AUTO's fourth alternative, all-independent (COLLDIAG_MPIO_ALL_CHUNK_IND_IO: every piece
   with independent calls, one per contiguous file stretch): AUTO takes it when the model says it is the
   cheapest; -1 when the last call did not run AUTO. NULL is allowed. */
int colldiag_get_auto_estimate_independent(const colldiag_xfer *x, double *independent_s);
/* The same cost model for every collective call on chunked storage, whatever scheme ran (DEFAULT,
   forced, AUTO) and for plans: est[0..3] = estimated seconds of link, multi, aggregation and
   all-independent on this call; -1 each after a contiguous, compact or independent call or a failure.
   What the HDF5 preload's advice compares ("HDF5: link-chunk, est. 5.1 s; aggregation est. 0.014 s"). */
int colldiag_get_model_estimates(const colldiag_xfer *x, double est[4]);
/* The same estimates term by term: terms[s][j] for scheme s (link, multi, aggregation,
   all-independent) and j the collective rounds' latency, the bytes moved between ranks, collective
   MPI-IO and independent I/O; est[s] is their sum. What AUTO that measures lends a scheme's error
   by, and what says whether two schemes stand on the same ground (all-independent has independent I/O
   only). The last single-dataset call's; -1 each where est is -1. 0, or COLLDIAG_ERR_ARG. */
int colldiag_get_model_terms(const colldiag_xfer *x, double terms[4][4]);
/* Aggregation in the same model, for the last call that computed it: *independent the way the model
   prices (and AUTO starts) its owners' runs, 1 independent calls, 0 one collective call, -1 no estimate;
   *collective_s its estimate by the collective call (-1 none), which model_est[2] is when the way is 0.
   Across nodes the collective call's two-phase shuffle to its aggregators crosses the link as link-chunk's
   does, and the owners hold whole chunks' covered bytes, so where independent calls are estimated
   cheaper the model takes them; on one node the way is always the collective call (SPEC.md's row), and
   the independent way only a measured try (colldiag_get_auto_aggregation_io). Aggregation's exchange is
   priced by where each chunk's ranks are (a node map agreed with the call: pieces whose chunk's ranks
   share a node do not cross the link). Either pointer may be NULL. 0, or COLLDIAG_ERR_ARG. */
int colldiag_get_model_aggregation(const colldiag_xfer *x, int *independent, double *collective_s);
/* AUTO that measures (the default; env COLLDIAG_AUTO_MODE=estimate, or this with 0, keeps the pure model):
   every call AUTO decides is timed (its slowest rank's time, agreed in the next collective call of the
   same ranks at no extra communication), kept per pattern (the call's agreed shape: storage, chunk
   shape, element size, direction, ranks, nodes, bytes, chunks, runs in buckets of a factor of 1.4), and
   from a pattern's second call on AUTO runs the scheme measured fastest, trying a scheme not measured
   yet (at most twice a pattern) only where its estimate, corrected by what the job's calls have shown
   of the model's error (colldiag_get_auto_corrected), beats the measured best: on the pattern's second
   and third calls by more than 15% once the best's fastest call ran over 4x its estimate (while its calls are
   the pattern's cold first one and at most one more: once a quarter of them did, as a cold start cost
   up to 12x a warm call here, and can last two calls), otherwise (a scheme tried
   pays its own MPI-IO set-up; and from the fourth call on: tries belong to a loop's first calls) by half,
   except that all-independent and aggregation (tried by its owners' independent way: no collective
   set-up to pay) need only 15% on the fourth and fifth calls once the best, warm, ran over 2x its
   estimate, and link-chunk and multi-chunk are tried on a tie (their corrected estimate within 10% of
   the best's fastest call, which ran within 1.4x its estimate either way, or of that estimate when the
   call ran under it, once the pattern made collective MPI-IO calls twice); once two schemes ran over 4x their
   estimates, untried estimates are raised by the smaller of those errors. Every rank decides alike. COLLDIAG_WISDOM=PATH
   saves what was measured at MPI_Finalize and loads it at the first call of a later run on the same
   ranks, nodes, MPI and file system (elsewhere it is ignored, with one line saying why). Part of the
   agreed settings. 0, or COLLDIAG_ERR_ARG. */
int colldiag_set_auto_measure(colldiag_xfer *x, int on);
/* What AUTO's last call knew of each scheme (link, multi, aggregation, all-independent): seconds[k] the
   median of the agreed times of the pattern's calls that ran it, the pattern's first call (a cold
   start) left out once its scheme has others (-1: none yet), calls[k] how many,
   *kind 0 when the model alone decided (COLLDIAG_AUTO_MODE=estimate), 1 the pattern's first call (the
   model, corrected by the job's measurements), 2 the measured best, 3 a scheme tried because its
   corrected estimate could beat the measured best (aggregation tried so moves its owners' runs by
   independent calls), 4 the measured best, aggregation, run once with its owners' runs moved the other
   way (colldiag_get_auto_aggregation_io), 5 the measured best,
   aggregation, run once with its owners' runs moved the way not kept, because the way kept slowed
   (colldiag_get_auto_aggregation_io); *chosen the scheme it
   ran (0 link .. 3 all-independent), -1 when the last call did not run AUTO. Any pointer may be NULL. */
int colldiag_get_auto_measured(const colldiag_xfer *x, double seconds[4], unsigned calls[4], int *kind, int *chosen);
/* How AUTO's last call moved aggregation's data: aggregation's owners hold whole chunks' covered bytes,
   disjoint, and move them by collective calls (as COLLDIAG_MPIO_CHUNK_AGGREGATE_IO does) or by
   independent calls (as with COLLDIAG_MPIO_INDIVIDUAL_IO). A collective call can keep owners of
   neighbouring chunks off each other's file-system locks; it can also move the owners' data between
   ranks a second time (ompio's two-phase here: 0.3-0.7x the time by independent calls). So AUTO
   measures it: once aggregation is a pattern's measured best and ran warm, one call (a try of the
   pattern's bound, *kind 4) moves the owners' runs by independent calls, and the pattern keeps that way
   when its call beat the collective calls' median by 15%. Aggregation tried as a scheme not yet
   measured (*kind 3) starts the independent way; its collective way is then tried (*kind 4) only where
   aggregation's estimate halves the independent way's fastest call. Should the way kept later run over 1.25x the
   other way's measured time (a file system that got busy, a file that grew), one call (*kind 5) moves
   them the other way, judged alike (at most 4 such calls a pattern). The modes reported stay aggregation's (as
   INDIVIDUAL_IO's do). *independent: 1 independent calls, 0 collective ones, -1 the last call did not
   run aggregation under AUTO that measures; seconds (may be NULL): the pattern's aggregation by
   collective calls (their median before the try) and the try's time, -1 both until it was tried;
   after a *kind 5 call, that call's time for the way it tried and the other way's median before it.
   0, or COLLDIAG_ERR_ARG. */
int colldiag_get_auto_aggregation_io(const colldiag_xfer *x, int *independent, double seconds[2]);
/* The estimates AUTO that measures compared for its last call (link, multi, aggregation,
   all-independent), in seconds: the model's (colldiag_get_model_estimates) corrected by the model's
   error seen in this job's calls. A scheme that ran (in any pattern of the ranks' group of the call's
   direction) is scaled by its own geometric mean of measured / estimated; one that never ran by its
   terms (collective rounds' latency, bytes between ranks, collective MPI-IO, independent I/O), each
   scaled by the errors of the schemes that ran with it, weighted by the term's share of their
   estimates, the model itself weighing as one scheme: all-independent shares no term with link or
   aggregation. The two network terms learn from reads and writes alike; a scheme's own error and the
   two file-system terms from the call's direction only (a read's error says nothing about a write's
   file system). These order AUTO's tries and
   decide whether one is worth a call; once the measured best ran over 4x its own estimate, the lower of
   this and the scheme's own estimate decides (another scheme's error alone then rules none out). The
   model's own when AUTO did not measure. 0, or COLLDIAG_ERR_ARG. */
int colldiag_get_auto_corrected(const colldiag_xfer *x, double corrected[4]);
/* The link between nodes as AUTO's model uses it, in bytes/s: probed once for f's ranks when they span
   nodes (at the first open or wrap of a file over them: the nodes' lowest ranks send 1 MiB around a
   ring; the slowest link's rate, agreed), unless COLLDIAG_AUTO_BW_NET_X is set or
   COLLDIAG_AUTO_MODE=estimate. 0 when not probed (one node, or not asked). Local. 0, or
   COLLDIAG_ERR_ARG. */
int colldiag_file_get_link_rate(const colldiag_file *f, double *bytes_per_s);
/* A collective step's latency as AUTO's model uses it (its LAT_X: what each step of multi-chunk's and
   aggregation's exchanges costs), in seconds: probed once for f's ranks at the first open or wrap of a
   file over them (three blocks of four one-int reductions, the median block's slowest rank), unless
   COLLDIAG_AUTO_LAT_X is set or COLLDIAG_AUTO_MODE=estimate. The default (7 us) is 3 ranks on 2 cores;
   8 ranks there take 25-40 times as long. A step probed slower than the default also slows a collective
   MPI-IO call's latency (LAT, measured beside that default) by the same factor, unless COLLDIAG_AUTO_LAT
   is set; a faster one leaves LAT as it is. 0 when not probed (one rank, or not asked). Local. 0, or
   COLLDIAG_ERR_ARG. */
int colldiag_file_get_step_latency(const colldiag_file *f, double *seconds);
/* Forgets every measurement this process made, the probed link and step included (local; wisdom saved at the
   end is then what is measured afterwards). For benchmarks that compare AUTO from a cold start. */
void colldiag_auto_forget(void);
/* Writes what AUTO measured to COLLDIAG_WISDOM now (world rank 0; what MPI_Finalize does anyway): for a
   program that ends without MPI_Finalize, or that wants the file before it ends. Local. */
void colldiag_auto_save_wisdom(void);

/* The bytes at risk of HDF5's own path for the last write or planned write (colldiag_plan, colldiag_h5_plan,
   colldiag_write): bytes of the file that HDF5 + MPI-IO, given this call, would not leave as the program
   wrote them. The same on every rank of a collective call (agreed in its one reduction, no extra
   communication); 0 when nothing is at risk (reads: only COLLDIAG_RISK_READS). kinds: an OR of
   - COLLDIAG_RISK_HOLES: HDF5's path is one collective MPI-IO write whose extent reaches past the end
     of the file into storage whose fill value was not written (colldiag_layout_set_fill_written): MPI-IO
     fills the gaps between the ranks' pieces by read-modify-write, and past the end the read returns
     nothing, so the gaps get whatever its buffer held (process memory). bytes: the gaps past the end of
     the file between the call's first and last selected byte, an upper bound (with several aggregators
     a gap between their domains is not written at all). colldiag's own collective writes extend the file
     first: their gaps read zeros.
   - COLLDIAG_RISK_COMPACT: compact storage lives in the object header, of which each rank changes its
     own copy, and HDF5 writes one rank's copy: every byte written is at risk unless every rank writes the
     same selection with the same bytes (an independent call cannot know: every byte it writes on a file
     of more than one rank). A plan compares the bytes only when given them (colldiag_set_plan_buffer).
   - COLLDIAG_RISK_MAYBE (with HOLES): a plan of the HDF5 bridge could not learn where HDF5 put some
     rank's chunks (HDF5's chunk lookup is local only when the file's metadata reads are, and walks the
     whole index for each chunk: colldiag_h5_plan asks it within COLLDIAG_H5_LOOKUP_BUDGET): those chunks
     are counted as if they lay past the end of the file, their bytes that rank does not select as holes.
     An estimate, never a silent 0: the bytes may be fewer (the chunks may lie inside the file, another
     rank may select them), or more (gaps between chunks are not counted).
   - COLLDIAG_RISK_READS (with MAYBE): a collective read (or its plan) on Open MPI 4.1.0-4.1.4's ompio with
     its read data sieving on, whose ranks' selections overlap: the MPI-IO layer returns zeros for the
     bytes that follow one rank's request ending inside another's (Open MPI issue #10546, fixed in 4.1.5;
     tests/mpi_read_overlap.c). bytes: the bytes read by more than one rank, at least (ranks' extents
     whose bytes add up to more than the span they cover; ranks reading the same extent are left out).
   The classes are shown with HDF5 alone by tests/h5_defects.c (docs/hdf5.md, "What HDF5 and MPI-IO get
   wrong"). Either pointer may be NULL. */
enum { COLLDIAG_RISK_HOLES = 1, COLLDIAG_RISK_COMPACT = 2, COLLDIAG_RISK_MAYBE = 4, COLLDIAG_RISK_READS = 8 };
int colldiag_get_bytes_at_risk(const colldiag_xfer *x, uint64_t *bytes, unsigned *kinds);
/* The bytes at risk in words: why, and which ranks ("holes past the end of the file ...; ranks 0, 2
   write around them"), and the change that removes them (a fill value, identical data, or colldiag
   running the call). "" when nothing is at risk. The strings belong to x, valid until its next call. */
const char *colldiag_risk_reason(const colldiag_xfer *x);
const char *colldiag_risk_advice(const colldiag_xfer *x);
/* The buffer the next colldiag_plan / colldiag_h5_plan of a write would write (the plan does not take
   one): with it, a plan of a compact write compares the ranks' bytes, not only their selections. Used
   by the next call only; NULL clears it. */
int colldiag_set_plan_buffer(colldiag_xfer *x, const void *buf);

/* Counters of the last call on this rank: bytes and MPI-IO (or POSIX) data calls. After colldiag_plan
   (and colldiag_h5_plan) the bytes and calls the planned transfer would make (independent: one call per
   chunk piece, as HDF5 1.10 makes them; multi-chunk: the collective chunks this rank touches); the
   reports say "planned". The times are the plan's own. */
typedef struct {
    uint64_t bytes_collective, bytes_independent;
    uint64_t calls_collective, calls_independent;
    double t_map, t_decide, t_io;          /* seconds: chunk mapping, decisions (incl. their communication), data movement
                                              (incl. the closing reduction, which waits for the slowest rank's data) */
} colldiag_counters;
int colldiag_get_counters(const colldiag_xfer *x, colldiag_counters *out);
/* A read into memory never touched (the last call's, this rank's): *bytes, the bytes of its destination
   colldiag populated before reading (whole pages, in one madvise(MADV_POPULATE_WRITE): Linux 5.14), 0 when
   it populated none. colldiag does that where the destination is one run of bytes the read writes whole
   (no memory selection, or a hyperslab one without gaps), its last page is not resident, and this process
   measured at its first such read that faulting pages in costs at least 1.25x populating them
   (COLLDIAG_PREFAULT=0 never, =1 always). Populating changes no byte. *why (either may be NULL): the
   process's decision in words ("prefaulted: faulting took 1.84x ..."), "" before its first fresh read;
   colldiag owns the string, which lives as long as the process. */
int colldiag_get_prefault(const colldiag_xfer *x, uint64_t *bytes, const char **why);
/* Bytes crossing nodes in the last call: the data bytes this rank's part of the aggregation exchange
   (COLLDIAG_MPIO_CHUNK_AGGREGATE_IO, or AUTO's choice of it) sent to ranks on other nodes, a node being
   a group MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) makes: its pieces to their chunks' owners (writes),
   or, as an owner, the bytes it read for the ranks that asked (reads); the records that describe them
   are not counted. *known: 1 when the call's exchange learnt the nodes (the first such call on a file
   learns them, collectively, once), 0 otherwise (another scheme, a plan, or MPI could not say). MPI-IO's
   own two-phase I/O (link-chunk, multi-chunk's collective chunks, contiguous datasets) moves bytes between
   nodes too, inside the MPI library, where colldiag cannot count them. The reports print the sum over
   the ranks and the node count ("across nodes: ..."; JSON "nodes", "bytes_off_node"). Either pointer
   may be NULL. */
int colldiag_get_bytes_off_node(const colldiag_xfer *x, uint64_t *bytes, int *known);
/* After colldiag_h5_plan of an H5Dread of filtered chunks: what HDF5 will do for it on this rank. HDF5
   (1.10's filtered multi-chunk path, 1.14's filtered collective read) reads every allocated chunk a rank
   selects from whole, as stored, and inflates it on that rank: *chunks such chunks, *stored bytes read
   as stored (compressed), *inflated bytes they inflate to (chunks x the chunk's bytes), *shared of those
   chunks selected by other ranks too (each of which reads and inflates it again). *known: 1 when counted
   (0: another call, or HDF5 could not say: a file whose metadata reads are collective is not asked).
   The run's summary sums them over ranks ("filtered: ..."). Any output pointer may be NULL. */
int colldiag_get_filtered_read(const colldiag_xfer *x, uint64_t *chunks, uint64_t *stored, uint64_t *inflated, uint64_t *shared, int *known);
/* After a read of filtered chunks that colldiag ran (a collective colldiag_h5_read, or H5Dread under the
   preload's COLLDIAG_ACCELERATE, of deflate / shuffle / Fletcher-32 chunks): the chunks this rank
   decoded as their owner, and their stored bytes. The owner of a chunk (a rank that selects from it)
   reads it whole as stored, decodes it once and sends every rank its pieces, so the sum over ranks is
   the number of allocated chunks the call touched: each decoded once, where HDF5 decodes a chunk on
   every rank that selects from it. 0 and 0 after any other call. Either pointer may be NULL. */
int colldiag_get_filtered_decoded(const colldiag_xfer *x, uint64_t *chunks, uint64_t *stored);
/* The same read in full, for a report: the chunks this rank decoded, their stored bytes, the bytes they
   decoded to (chunks x the chunk's bytes), *readers the ranks that selected from them, summed (HDF5
   has every one of those ranks read and inflate the chunk: the sum over ranks of *readers is HDF5's
   inflations, of *chunks colldiag's), and *seconds this rank spent decoding (measured around the
   filters, I/O and exchange excluded). All 0 after any other call. Any output pointer may be NULL. */
int colldiag_get_filtered_decode(const colldiag_xfer *x, uint64_t *chunks, uint64_t *stored, uint64_t *decoded, uint64_t *readers,
                                 double *seconds);
/* Why the chunk scheme was chosen, in words ("forced by setting", "avg 2 chunks/rank >= num 0", ...). */
const char *colldiag_scheme_reason(const colldiag_xfer *x);

/* Collective over the file's communicator; rank 0 prints (any rank may pass out = NULL; rank 0 then prints
   nothing): a per-rank table, cause strings, the scheme and why, every touched chunk with the reason for
   its mode, and for 1-D/2-D chunk grids a map (large grids summarised). Every rank returns 0, or every
   rank an error: x = NULL on one rank gives ERR_ARG there and ERR_PEER naming it on the others. */
int colldiag_report_print(colldiag_file *f, const colldiag_xfer *x, FILE *out);
/* Same facts as one JSON object (one line):
   {"colldiag":"1.x.y","nprocs":P,"scheme":{"chunk_opt":NAME,"reason":TEXT},
    "ranks":[{"rank":R,"chunk_opt":NAME,"io_mode":NAME,"local_cause":N,"global_cause":N,
               "bytes_collective":N,"bytes_independent":N,"calls_collective":N,"calls_independent":N,
               "chunks":[{"index":N,"coords":[..],"addr":N,"nelem":N,"nproc":N,"collective":BOOL}]}]}
   NAME = enum name without the COLLDIAG_MPIO_ prefix; more keys may be added. */
int colldiag_report_json(colldiag_file *f, const colldiag_xfer *x, FILE *out);
/* Same facts as one self-contained HTML page (no network, no external files): the call, the per-rank
   table, causes with the ranks that raised them, AUTO's estimates, and the chunk grid drawn to scale
   on a canvas (one 2-D slice at a time for rank >= 3, with a slider), each chunk coloured by what
   happened, with its coordinates, address, elements, ranks and reason on hover or click. The tables
   read without JavaScript; the grid needs it. About 16 bytes per touched chunk. Collective; rank 0
   writes. env COLLDIAG_REPORT=html:PATH appends a section per collective call to one page.
   COLLDIAG_REPORT (=1, json:PATH, html:PATH) is rank 0's: every rank of a collective call takes part
   in its report iff rank 0 has it, whatever the others see (rank 0 notes on stderr that they differ). */
int colldiag_report_html(colldiag_file *f, const colldiag_xfer *x, FILE *out);

/* ---- the run's summary ----
   With COLLDIAG_REPORT set (summary, summary:PATH, 1, json:PATH, html:PATH), every colldiag_write/read
   adds to this rank's counters, keyed by the layout (no message, no collective: Darshan's cost), and
   colldiag_summary_write(comm) combines every rank's once (collective over comm: a binomial tree that
   merges the ranks' tables, so rank 0 holds one table whatever the rank count) and rank 0 writes one
   screen: calls, bytes and seconds by engine and I/O mode, collective and independent bytes, every cause
   that broke collective I/O with its calls, bytes, time, datasets and ranks, the bytes at risk, the advice
   ranked by the time it would save (the cost model's estimates, scaled to the measured time), the top
   datasets by time (with what AUTO had measured of each scheme at a dataset's last measured call: JSON
   "measured"). Where: summary (or 1) on stdout; summary:PATH one JSON object in PATH; json:PATH one
   more JSON line (its "summary" is true); html:PATH the page's first section. Once a process (later
   calls are not counted). The HDF5 preload records every H5Dwrite/H5Dread with its file and dataset
   and writes the summary in MPI_Finalize by itself; the kit has no hook there: call this (every rank
   of comm) before MPI_Finalize. Returns 0 (the summary is a report: nothing fails for lack of it). */
int colldiag_summary_write(MPI_Comm comm);

#ifdef COLLDIAG_WITH_HDF5
/* ---- HDF5 bridge ---- */
/* A layout of the dataset's storage as it is now: contiguous (its absolute file offset), or chunked with
   every chunk's absolute file offset (-1: not allocated) and the filtered flag. Chunk addresses come
   from the chunk index read in one pass from the file (every index HDF5 1.10 writes: v1 B-tree, single
   chunk, implicit, fixed array, extensible array, v2 B-tree), so the file must be flushed (H5Fflush)
   since the dataset was created or extended; when the index cannot be read, from H5Dget_chunk_info
   (one walk of the whole index per chunk). Local: no communication. Compact, virtual: UNSUPPORTED. */
int colldiag_h5_layout(hid_t dset, colldiag_layout **out);
/* One chunk as its dataset's chunk index records it (colldiag_h5_chunk_records). */
typedef struct {
    int64_t addr;         /* absolute file offset of its stored bytes; -1: not allocated */
    uint64_t stored;      /* bytes stored: the filtered (compressed) size, or the chunk's size unfiltered; 0 unallocated */
    uint32_t filter_mask; /* bit k set: filter k of the pipeline was skipped for this chunk (H5Dwrite_chunk) */
} colldiag_chunk_record;
/* Every chunk of dset at its current extent (nchunks: the chunk grid's count, row-major by chunk
   coordinates) into out[nchunks], read from the chunk index in the file in one pass, filtered chunks
   too: HDF5 1.10 answers the same one chunk at a time (H5Dget_chunk_info walks the index for each).
   Every index HDF5 writes: v1 B-tree, single chunk (filtered or not), implicit, fixed and extensible
   arrays, v2 B-trees of types 10 and 11. The file must be open with the MPI-IO driver and flushed
   (H5Fflush) since chunks were last written; local: no communication. ARG if nchunks is not the
   dataset's count; UNSUPPORTED (with the reason) for storage that is not chunked, or an index the
   reader does not take (the caller then asks HDF5). */
int colldiag_h5_chunk_records(hid_t dset, uint64_t nchunks, colldiag_chunk_record *out);
/* A chunk's values from its stored bytes, as HDF5's pipeline reads them: stored (nstored bytes, as at
   the chunk's record: read them with MPI, or H5Dread_chunk) is left as it is; out receives the chunk's
   nout bytes, which must be the whole chunk's size (chunk dims x element size, edge chunks too), in
   the file's type. The pipeline's filters are undone last to first, each one skipped whose bit is set
   in filter_mask (the chunk's record). Deflate, shuffle and Fletcher-32 only: any other filter is
   UNSUPPORTED with its name, and so is deflate where zlib's header was missing at build time or zlib
   is not in the process (HDF5 links it: a program using HDF5 needs no -lz). IO when the bytes do not
   decode (a checksum that does not match, a stream that does not inflate to the chunk's size). Local;
   needs no file access, only the dataset's creation properties. */
int colldiag_h5_chunk_unfilter(hid_t dset, uint32_t filter_mask, const void *stored, uint64_t nstored, void *out, uint64_t nout);
/* The selection of a dataspace (its extent, and hyperslabs, points, all or none). A dataspace with an
   offset (H5Soffset_simple) is UNSUPPORTED. Local. */
int colldiag_h5_sel(hid_t space, colldiag_sel **out);
/* Plans what H5Dwrite (dir TO_FILE) or H5Dread (TO_MEMORY) with exactly these arguments will do, before
   it runs: colldiag_plan on the dataset's real storage class, shape, chunking and filters, the
   selections as HDF5 resolves them (H5S_ALL file space = the whole dataset; H5S_ALL memory space =
   the file space), every DXPL setting HDF5 1.10 reads (transfer mode, chunk_opt, num, ratio,
   collective_opt, a data transform), and a type conversion whenever mem_type differs from the
   dataset's type (H5Tequal). x receives the settings and the results (modes, causes, chunks, reason)
   as after colldiag_plan. Filtered chunks, which colldiag never moves, are planned as HDF5 1.10 runs
   them: link-chunk for writes, HDF5's filtered multi-chunk path (every chunk collective) for a
   link-chunk read and for any multi-chunk transfer. *file_out receives a plan-only file for
   colldiag_report_print/_json/_html (free
   it with colldiag_file_close; it is set even when the plan fails). Collective exactly when the
   DXPL's transfer mode is collective, over the file's communicator (call it on every rank that calls
   H5Dwrite); independent plans communicate nothing. Refused with a reason: a file not opened with the
   MPI-IO driver, virtual datasets, external storage. Chunk addresses are not read (HDF5 1.10 can only walk its whole
   chunk index for them, per chunk): the plan's chunks carry dense addresses (index x chunk bytes). */
int colldiag_h5_plan(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, colldiag_direction_t dir,
                     colldiag_xfer *x, colldiag_file **file_out);
/* colldiag_h5_plan for HDF5 1.14's H5Dwrite_multi / H5Dread_multi, in its argument order: the plan
   of count datasets of one file moved in one call, decided as the linked HDF5 would (under 1.12+ as a
   whole: any cause on any rank makes every dataset independent; with selection I/O, every dataset's
   pieces in one collective call, LINK_CHUNK; see colldiag_plan_multi). Results as after
   colldiag_plan_multi: the getters answer for the call (the io mode as HDF5 1.14 reports it, the OR
   of the datasets' kinds), colldiag_get_dataset_mpio per dataset. Collective exactly when the DXPL is
   (call it on every rank that calls H5Dwrite_multi). A dataset the plan cannot carry on some rank
   (another file, a memory type that differs from the dataset's: multi-dataset plans do not convert, a
   bad id) fails it on every rank, the message naming the dataset; count 0 or an invalid dset_ids[0],
   dxpl or x return at once. *file_out as in colldiag_h5_plan (set whenever the plan reached its
   agreement; close it with colldiag_file_close). */
int colldiag_h5_plan_multi(size_t count, const hid_t dset_ids[], const hid_t mem_type_ids[], const hid_t mem_space_ids[],
                           const hid_t file_space_ids[], hid_t dxpl, colldiag_direction_t dir, colldiag_xfer *x, colldiag_file **file_out);
/* H5Dwrite / H5Dread with the same arguments, run through colldiag's engine on the dataset's own
   storage through the file's own MPI_File: the same bytes in the file and in buf as HDF5's call, or
   COLLDIAG_ERR_UNSUPPORTED (x's message says why) before any byte moves, and then the caller runs
   HDF5's call instead. Moved: contiguous or unfiltered chunked storage in the file, every touched chunk
   allocated, no data transform, mem_type H5Tequal to the dataset's type, fixed-size elements, the file
   writable for a write, dataspaces without offsets. The scheme is x's chunk_opt, AUTO when x leaves it
   at DEFAULT; the transfer mode, collective_opt and the other HDF5 settings come from the DXPL.
   Collective exactly when the DXPL is (over the file's communicator: call it on every rank that calls
   H5Dwrite): eligibility is agreed, so every rank moves the bytes or every rank is refused. One
   rank's bad argument (mem_type, either dataspace, buf) fails the call on every rank, the others
   with COLLDIAG_ERR_PEER naming it. The exceptions are dset, dxpl and x (as f and x in
   colldiag_write): they name the communicator and whether the call is collective at all, so a rank
   with an invalid one returns at once (HDF5's own H5Dwrite would leave the others waiting too).
   Chunk addresses, on each rank alone, for the chunks a call touches (a cache of at most max(65,536,
   2 x the chunks of one call) entries of 16 bytes at half load holds those found), one of two ways:
   - HDF5's own lookup (H5Dget_chunk_info_by_coord, through HDF5's metadata cache, no flush, also in
     independent calls) while the dataset's chunks x the chunks the selection's bounding box spans
     stay within COLLDIAG_H5_LOOKUP_BUDGET (default 65,536; it walks the whole index per chunk), the
     file's metadata reads are local (no H5Pset_all_coll_metadata_ops) and known to be (after one
     collective call on the file), and the dataset does not have exactly one unlimited dimension
     other than the first (1.10.8's lookup gets those wrong). 0 turns it off.
   - Otherwise the chunk index in the file: a collective call that needs it (the first at an extent)
     flushes the file (H5Fflush, collective) and rank 0 reads where the index is and what kind (every
     index HDF5 1.10 writes) and broadcasts that (~1 KiB); calls then walk the index to their chunks,
     reading only the blocks on the way (independent reads, no communication). The flush writes all
     the metadata HDF5 holds dirty, so a small call does not pay for it: unless the largest rank moves
     COLLDIAG_H5_FETCH_BYTES (default 1 MiB) or COLLDIAG_H5_FETCH_CALLS (default 2) such calls at this
     extent already ran in HDF5, the call returns UNSUPPORTED ("needs a file flush") on every rank and
     HDF5 runs it (decided in the call's own reduction: no extra communication; both thresholds are
     rank 0's, whatever the other ranks see). FETCH_CALLS=0 reads the index at the first call.
   Work and memory follow the chunks a call touches, never the dataset's chunk count. An index block
   that cannot be read or fails its checksum refuses the call (UNSUPPORTED: HDF5 runs it), as does an
   independent call that needs the index before a collective call has read it. After a successful
   call the DXPL (not H5P_DEFAULT) holds colldiag's answers in HDF5's actual-mode properties:
   H5Pget_mpio_actual_io_mode and the causes as colldiag reports them, H5Pget_mpio_actual_chunk_opt_mode
   LINK_CHUNK or MULTI_CHUNK when colldiag ran those, NO_CHUNK_OPTIMIZATION for its own schemes
   (aggregation, at-once, all-independent). COLLDIAG_REPORT reports collective calls as colldiag_write
   does. The first collective call on a file duplicates its communicator: call colldiag_h5_forget(file)
   (collective) before H5Fclose to free it and the cache. */
int colldiag_h5_write(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf,
                      colldiag_xfer *x);
int colldiag_h5_read(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, void *buf, colldiag_xfer *x);
/* Makes HDF5's own collective H5Dwrite of a contiguous dataset safe before it runs: extends the file to
   the end of the dataset's storage, so that none of it lies past the end of the file, where MPI-IO's
   collective write fills the holes between the ranks' pieces with whatever its buffer held
   (colldiag_get_bytes_at_risk, COLLDIAG_RISK_HOLES; docs/hdf5.md). Call it on every rank before the
   H5Dwrite that colldiag_h5_write left to HDF5 (the preload does, under COLLDIAG_ACCELERATE). Collective
   over the file's communicator: nothing when the file is already known to be that long (alike on every
   rank), else one MPI_Allreduce of the ranks' file sizes and, when it must grow, MPI_File_set_size. The
   file never shrinks. *size_before, *size_after (either may be NULL): the file's size before and after.
   Under HDF5 1.14, a chunked dataset whose chunks have no written fill value (H5D_FILL_TIME_NEVER) and
   may lie past the end of the file (see colldiag_h5_flushed), in a file whose metadata reads are
   collective (netCDF-4's, where colldiag cannot flush to read the chunk index), is made safe the same
   way: H5Dchunk_iter finds the end of its chunks (every rank walks the whole index alike: O(chunks),
   once until the file is flushed). 0, or COLLDIAG_ERR_UNSUPPORTED (no storage at risk it can cover, not
   an MPI-IO file, the size unreadable) on every rank alike (the storage is the dataset's), or on the
   rank whose MPI call failed. */
int colldiag_h5_make_safe(hid_t dset, uint64_t *size_before, uint64_t *size_after);
/* HDF5 1.14's H5Dwrite_multi / H5Dread_multi on 1.10, in its argument order: count datasets of one
   file moved in one colldiag_write_multi / read_multi call (one collective data call with link-chunk),
   with the eligibility rules of colldiag_h5_write for each dataset. All or nothing: when any dataset
   is ineligible on any rank (or the datasets are in different files), every rank returns
   COLLDIAG_ERR_UNSUPPORTED before a byte moves (the failing rank's message names the dataset), and
   the caller runs HDF5's own H5Dwrite/H5Dread for each dataset. The chunk indexes the call lacks
   (where HDF5's lookup does not apply) are read together first (collective, one flush; the flush rule
   of colldiag_h5_write does not apply: a caller of this function asked for colldiag). Afterwards the DXPL's actual-mode properties hold the call's
   answers (the scheme; CHUNK_MIXED when the datasets' modes differ); colldiag_get_dataset_mpio
   answers per dataset. One rank's bad argument (an id array or bufs NULL, an invalid id past
   dset_ids[0], a count other than the other ranks') fails the call on every rank (different counts:
   COLLDIAG_ERR_ARG everywhere); count 0 or an invalid dset_ids[0], dxpl or x return at once, as in
   colldiag_h5_write. */
int colldiag_h5_write_multi(size_t count, const hid_t dset_ids[], const hid_t mem_type_ids[], const hid_t mem_space_ids[],
                            const hid_t file_space_ids[], hid_t dxpl, const void *const bufs[], colldiag_xfer *x);
int colldiag_h5_read_multi(size_t count, const hid_t dset_ids[], const hid_t mem_type_ids[], const hid_t mem_space_ids[],
                           const hid_t file_space_ids[], hid_t dxpl, void *const bufs[], colldiag_xfer *x);
/* Drops what colldiag_h5_write/read cached: for a dataset id, its chunk addresses; for a file id, every
   dataset of the file and the file's communicator (collective over it, like H5Fclose). Needed before
   H5Fclose (and so before H5close: HDF5 numbers ids and files afresh after it); harmless on an id
   colldiag never saw.
   The cache knows a dataset by its file and object address and keeps its chunk addresses while its
   extent is unchanged. It holds an entry for every dataset it has seen (written, read, or reported by
   colldiag_h5_created) until the file is forgotten: ~160 bytes plus 24 a dimension, the dataset's
   type kept once for all datasets of equal (uncommitted) types, plus the chunk addresses. Two things HDF5 does behind that: it gives a deleted dataset's object address
   to the next object created (H5Ldelete, then H5Dcreate2: the same address, other chunks), and a
   dataset shrunk by H5Dset_extent loses the chunks outside the new extent, which come back elsewhere
   when it grows again (the extent then reads as before). Writing with the old addresses would land in
   freed space, possibly another dataset's chunks. So: after shrinking a dataset, call
   colldiag_h5_forget(dset) (local); after deleting objects (H5Ldelete, H5Odecr_refcount) in a file
   written through the bridge, colldiag_h5_forget_datasets(file) (local). The preload does both.
   A shrink across a chunk (a new extent that is not a multiple of the chunk size in a shrunk
   dimension): HDF5 1.10 keeps the pruned edge chunk in its chunk cache and writes it back at the next
   flush or close, over what was written into it meanwhile (HDF5 loses those writes). A bridge call
   that sees a dataset's extent smaller than at its last call, or the preload seeing H5Dset_extent do
   it, makes every later call on that file COLLDIAG_ERR_UNSUPPORTED (HDF5 runs it, and the file ends
   as HDF5 alone leaves it) until colldiag_h5_forget(file), or under the preload until H5Fflush. */
void colldiag_h5_forget(hid_t obj);
/* Drops the cached chunk addresses of every dataset in obj's file (any id in the file); keeps the
   file's communicator. Local: no communication. */
void colldiag_h5_forget_datasets(hid_t obj);
/* Optional, for the code that creates datasets (the preload calls it after every H5Dcreate2,
   H5Dcreate_anon and H5Dcreate1): tells the bridge that dset was just created with the creation
   property list dcpl (the one passed to HDF5, unchanged since; H5P_DEFAULT for the default). The
   bridge then learns the dataset's storage from that list, so that its first colldiag_h5_write/read
   need not copy the list back from HDF5 (H5Dget_create_plist: ~30 us right after creating a large
   chunked dataset, the caches cold; most of what a dataset's first look costs). And whatever the
   bridge cached at dset's object address goes: it belonged to an object since deleted (HDF5 gives a
   deleted object's address to the next object; an anonymous dataset is deleted when closed, with no
   H5Ldelete to see). The list is trusted: another one than the dataset's makes the bridge wrong about
   its chunks. Local, no communication; a dataset of a file not opened with the MPI-IO driver is
   not cached (COLLDIAG_ERR_UNSUPPORTED). 0, or COLLDIAG_ERR_ARG when dset is not an open dataset or
   dcpl not a dataset creation list (the dataset is then learned at its first call, as without this). */
int colldiag_h5_created(hid_t dset, hid_t dcpl);
/* Optional, for the code that opens datasets (the preload calls it after every H5Dopen2 and
   H5Dopen1), on every rank that opened dset. HDF5 1.12 and later read a dataset's object header
   collectively for its creation properties when the file's metadata reads are collective
   (H5Pset_all_coll_metadata_ops, netCDF-4's files); one rank doing so alone, in an independent call,
   meets the other ranks' next collective read elsewhere and the file's metadata goes wrong, or the job
   hangs. So on such a file the bridge learns a dataset only where every rank does: here (right after
   the open, which such a file requires of every rank), in colldiag_h5_created, or in a collective
   call; an independent call or plan on a dataset not learned yet is COLLDIAG_ERR_UNSUPPORTED (HDF5
   runs it, and the reason says so). On any other file, or with HDF5 1.10, this does nothing. No
   communication of its own. 0, or COLLDIAG_ERR_ARG when dset is not an open dataset. */
int colldiag_h5_opened(hid_t dset);
/* Optional, for the code that opens files (the preload calls it after every H5Fcreate and H5Fopen):
   tells the bridge the access list fapl the program opened file with (H5P_DEFAULT: the default), so
   that it knows, without asking HDF5 later (copying an MPI-IO access list duplicates its communicator:
   collective), whether the file's metadata reads are collective (see colldiag_h5_opened). Without it
   the bridge learns that at the file's first collective colldiag_h5_write/read. Local; nothing with
   HDF5 1.10. colldiag_h5_forget(file) drops it. It also starts watching where the file's storage is
   (colldiag_h5_flushed). */
void colldiag_h5_file_opened(hid_t file, hid_t fapl);
/* Optional, for the code that creates, extends and flushes datasets (the preload calls them after every
   H5Dcreate*, growing H5Dset_extent and H5Fflush): parallel HDF5 allocates a dataset's storage when it
   creates or extends it, past the end of the file until the file's next flush, where a collective
   write's holes get MPI-IO's buffer (COLLDIAG_RISK_HOLES). A plan that cannot ask HDF5 where a
   dataset's chunks are (a file whose metadata reads are collective, as netCDF-4's) counts them as past
   the end (COLLDIAG_RISK_MAYBE) unless it knows otherwise: the file was opened or created in view
   (colldiag_h5_file_opened) and the dataset was neither created (colldiag_h5_created) nor extended
   (colldiag_h5_extended) since its last flush (colldiag_h5_flushed, any object of the file). Local;
   call them on every rank (the HDF5 calls they follow are collective). Memory: the datasets created or
   extended since the file's last flush; colldiag_h5_forget(file) drops it. */
void colldiag_h5_extended(hid_t dset);
void colldiag_h5_flushed(hid_t obj);
/* A collective write of a compact dataset (COLLDIAG_RISK_COMPACT: HDF5 keeps one rank's copy of the
   object header, where compact data lives) with every rank's bytes kept: collective over the file's
   communicator, on every rank of a collective H5Dwrite (dxpl collective), with that call's arguments.
   The ranks merge their pieces in one reduction (where two write the same element, the highest rank's
   bytes win), each lays them over its own copy of the dataset, and HDF5 writes that whole image on
   every rank (H5Dwrite with H5S_ALL and the dataset's type, the caller's dxpl): every copy then holds
   every rank's bytes. Memory: the dataset (at most 64 KiB) and a byte an element, whatever the rank
   count. 0 with *h5_ret = HDF5's return value; COLLDIAG_ERR_UNSUPPORTED on every rank when any rank
   cannot (an independent call, not compact, a data transform, a variable-length type, a selection HDF5
   would refuse): then nothing was written, and the caller runs H5Dwrite itself. x (may be NULL) gets
   the reason (colldiag_xfer_errmsg). The preload runs it under COLLDIAG_ACCELERATE=1. */
int colldiag_h5_write_compact(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf,
                              colldiag_xfer *x, int *h5_ret);
#endif

/* ---- Fortran support: what colldiag.f90 (module colldiag) binds besides the functions above ----
   colldiag_file_open / _wrap with Fortran handles (an integer of the `mpi` module, or the MPI_VAL of an
   mpi_f08 handle), converted with MPI_Comm_f2c, MPI_Info_f2c and MPI_File_f2c. Collective, as those. */
int colldiag_file_open_f(MPI_Fint comm, const char *path, int amode, MPI_Fint info, colldiag_driver_t driver,
                         colldiag_file **out);
int colldiag_file_wrap_f(MPI_Fint comm, MPI_Fint fh, colldiag_file **out);
/* colldiag_report_print to the C library's stdout, flushed after it (Fortran cannot name a FILE *).
   Collective; rank 0 prints. */
int colldiag_report_print_stdout(colldiag_file *f, const colldiag_xfer *x);

#ifdef __cplusplus
}
#endif
#endif /* COLLDIAG_H */

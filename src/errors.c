/* ====================================================================================================
 * 1. errors and small helpers
 * ==================================================================================================== */

static _Thread_local char cd_errbuf[1024];

const char *colldiag_version(void)
{
#define CD_STR2(x) #x
#define CD_STR(x) CD_STR2(x)
    return CD_STR(COLLDIAG_VERSION_MAJOR) "." CD_STR(COLLDIAG_VERSION_MINOR) "." CD_STR(COLLDIAG_VERSION_PATCH);
}

const char *colldiag_strerror(int code)
{
    switch (code) {
    case COLLDIAG_OK: return "success";
    case COLLDIAG_ERR_ARG: return "bad argument";
    case COLLDIAG_ERR_NOMEM: return "out of memory";
    case COLLDIAG_ERR_MPI: return "an MPI call failed";
    case COLLDIAG_ERR_IO: return "a POSIX I/O call failed or transferred too little, or stored bytes did not decode";
    case COLLDIAG_ERR_UNSUPPORTED: return "not supported by colldiag";
    case COLLDIAG_ERR_PEER: return "another rank failed in the same collective call";
    default: return "unknown error code";
    }
}

const char *colldiag_last_errmsg(void) { return cd_errbuf; }

/* This process's rank in MPI_COMM_WORLD for messages (-1 before MPI starts). Remembered: a process
   keeps its rank, and every call HDF5 runs under the preload's acceleration formats a reason with it
   (three MPI queries, ~1 us, each time). */
static int cd_world_rank(void)
{
    static int known = -1;
    if (known >= 0) return known;
    int init = 0, fin = 0, r = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    known = r;
    return r;
}

/* Records "FUNC: rank R: message" as the thread's last error and returns code. */
static int cd_fail(int code, const char *func, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cd_fail(int code, const char *func, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(cd_errbuf, sizeof cd_errbuf, "%s: rank %d: %s (%s)", func, cd_world_rank(), msg,
             colldiag_strerror(code));
    return code;
}

static void *cd_malloc(size_t n) { return COLLDIAG_MALLOC(n ? n : 1); }
static void *cd_calloc(size_t n, size_t s) { return COLLDIAG_CALLOC(n ? n : 1, s ? s : 1); }
static void cd_free(void *p) { if (p) COLLDIAG_FREE(p); }

/* Grows *arr (of elements of size es) to hold at least need elements. */
static int cd_grow(void **arr, uint64_t *cap, uint64_t need, size_t es)
{
    if (need <= *cap) return 0;
    uint64_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > (uint64_t)SIZE_MAX / 2 / es) return -1;
        nc *= 2;
    }
    void *p = COLLDIAG_REALLOC(*arr, (size_t)(nc * es));
    if (!p) return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

/* a*b with overflow detection: returns 0 and stores, or -1. */
static int cd_mul(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a && b > UINT64_MAX / a) return -1;
    *out = a * b;
    return 0;
}
static int cd_add(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a) return -1;
    *out = a + b;
    return 0;
}

/* Everything addressed in a file must fit a signed 64-bit MPI_Offset. */
#define CD_MAX_OFFSET ((uint64_t)INT64_MAX)

static double cd_now(void) { return MPI_Wtime(); }

static uint64_t cd_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
static uint64_t cd_hash_u64(uint64_t h, uint64_t v) { return cd_mix64(h ^ cd_mix64(v + 0x9e3779b97f4a7c15ULL)); }
static uint64_t popcount64(uint64_t x)
{
    uint64_t n = 0;
    for (; x; x &= x - 1) n++;
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* --- the environment, read once a call ---
   colldiag's variables are read at every call (a program may change them between calls): about twenty
   a call. getenv walks the whole environment for each (89 variables under mpirun: ~5 us of a 0.1 ms
   call here). So each entry point takes one snapshot: a single pass keeps pointers to the COLLDIAG_* and
   HDF5_* entries, and cd_getenv looks there. The pointers stay valid for the call: glibc's setenv never
   frees a string it handed out, and nothing in a call sets variables. Outside a call, or with more than
   CD_ENV_MAX such variables, cd_getenv is getenv. Nested entry points (the bridge calling the core) share
   the outer snapshot.
   The snapshot is kept from call to call while the environment's array is the same array, as long,
   with the same last entry, and each variable of the snapshot still in its slot: a check of a few
   pointers, not a pass over every variable's first bytes (under mpirun, 95 of them: about a third of
   the preload's 3 us a call on a one-rank file, traced with perf: IOR -F's case). A changed value is
   another string in its variable's slot (setenv and putenv never edit a string in place: they install
   another), an added variable goes at the end, a removed one shifts the slots after it and shortens
   the array: each is seen at the next call, as before. (Another variable changed in place changes
   nothing colldiag reads.) */
#ifdef __APPLE__ /* a macOS shared library cannot link environ; the same array through libSystem */
#include <crt_externs.h>
#define environ (*_NSGetEnviron())
#else
extern char **environ;
#endif
enum { CD_ENV_MAX = 64 };
static _Thread_local struct {
    int depth, over, n;
    unsigned long call;   /* counts the outermost enters: one a call of colldiag's (h5_memo) */
    const char *kv[CD_ENV_MAX];
    int slot[CD_ENV_MAX]; /* where each was in the array */
    char **env;           /* the array the snapshot was taken from (NULL: none kept) */
    int len;              /* its length then */
    const char *last;     /* its last entry then */
} cd_env;

/* The environment's array still holds the snapshot's variables in their slots, and is as long as then. */
static int cd_env_unchanged(char **env, int len, const char *last, const char *const *kv, const int *slot, int n)
{
    if (!len || env[len - 1] != last || env[len]) return 0;
    for (int i = 0; i < n; i++)
        if (env[slot[i]] != kv[i]) return 0;
    return 1;
}

static void cd_env_enter(void)
{
    __typeof__(cd_env) *ce = &cd_env; /* one thread-local lookup, not one per use */
    if (ce->depth++) return;
    ce->call++;
    char **env = environ;
    if (env && env == ce->env && !ce->over && cd_env_unchanged(env, ce->len, ce->last, ce->kv, ce->slot, ce->n)) return;
    ce->n = ce->over = ce->len = 0;
    ce->env = NULL;
    int i = 0;
    for (; env && env[i]; i++) {
        char *e = env[i];
        if ((e[0] == 'C' && !strncmp(e, "COLLDIAG_", 9)) || (e[0] == 'H' && !strncmp(e, "HDF5_", 5))) { /* most fail at a byte */
            if (ce->n < CD_ENV_MAX) { ce->slot[ce->n] = i; ce->kv[ce->n++] = e; }
            else ce->over = 1;
        }
    }
    if (env && i) { ce->env = env; ce->len = i; ce->last = env[i - 1]; }
}

static void cd_env_leave(void) { cd_env.depth--; }

static const char *cd_getenv(const char *name)
{
    if (!cd_env.depth || cd_env.over) return getenv(name);
    const size_t len = strlen(name);
    for (int i = 0; i < cd_env.n; i++)
        if (!strncmp(cd_env.kv[i], name, len) && cd_env.kv[i][len] == '=') return cd_env.kv[i] + len + 1;
    return NULL;
}

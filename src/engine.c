/* ====================================================================================================
 * 7a. engine: which engine moves an HDF5 call under COLLDIAG_ACCELERATE (the preload)
 *
 * One ordered list of rules; the first that applies decides, and docs/hdf5.md shows the same table.
 * The facts come in at three places, each with what it knows alike on every rank without talking:
 * the preload before anything (the storage class, the transfer mode, what is known of the file's
 * size, the file's communicator size from its MPI_File's group), the bridge's entry (the same size,
 * for the kit's own callers), and colldiag's agreement (its one
 * reduction: the bytes at risk, the shape of every rank's part). A fact not known yet is -1; a rule
 * that would hand the call to HDF5 on a fact not known yet answers CD_ENGINE_AGREE: the call goes on to
 * colldiag's agreement, which decides it with every fact (and from there HDF5 may still run it).
 * Correctness first: a call whose bytes HDF5's path would not leave as the program wrote them runs
 * through colldiag whenever colldiag can move it, before any question of speed; a collective write that
 * HDF5 runs while its bytes at risk are not known is made safe first (the preload extends the file to
 * HDF5's end of allocation, h5_make_safe: no storage then lies past its end, and the holes of MPI-IO's
 * collective write read zeros), or, where that cannot be done, goes on to the agreement. Pure: no MPI,
 * no HDF5.
 * ==================================================================================================== */

enum { CD_ENGINE_HDF5 = 0, CD_ENGINE_COLLDIAG = 1, CD_ENGINE_AGREE = 2 };

typedef struct {
    int all;              /* COLLDIAG_ACCELERATE=all: every call colldiag can move (to test or measure the engine) */
    int cannot;           /* colldiag cannot move the call (compact, filtered writes, conversions, ...: the bridge's reason) */
    int risk;             /* bytes at risk in HDF5's path (colldiag_get_bytes_at_risk): 1 some, 0 none, -1 not known yet */
    int can_make_safe;    /* HDF5's path can be made safe before it runs (a collective write of contiguous or chunked
                             storage: the file extended to HDF5's end of allocation) */
    int contig_write;     /* a collective write of a contiguous dataset */
    int ind_contig_read;  /* an independent read of a contiguous dataset (or a multi-dataset call's contiguous read) */
    int one_rank;         /* the file's communicator is one rank; -1 not known yet */
    int whole_chunks;     /* agreed: every rank writes whole chunks of its own, the busiest >= COLLDIAG_ACCEL_WHOLE_BYTES; -1 */
    int many_stretches;   /* agreed: a collective contiguous read in which some rank reads more than one stretch; -1 */
} cd_engine_facts;

/* The rules, in order: X(NAME, ENGINE, WHY). WHY is what the report says of a call the rule decides. */
#define CD_ENGINE_RULES(X)                                                                                                         \
    X(CANNOT, CD_ENGINE_HDF5, "colldiag cannot move it")                                                                           \
    X(AT_RISK, CD_ENGINE_COLLDIAG, "bytes at risk in HDF5's path (its file would not hold what the program wrote): colldiag "    \
                                   "writes them right")                                                                           \
    X(ALL, CD_ENGINE_COLLDIAG, "COLLDIAG_ACCELERATE=all: every call colldiag can move")                                          \
    X(CONTIG_WRITE, CD_ENGINE_HDF5, "HDF5's path is as fast here: a contiguous dataset is one MPI-IO call of the same bytes "     \
                                    "either way (COLLDIAG_ACCELERATE=all runs it through colldiag)")                              \
    X(IND_CONTIG_READ, CD_ENGINE_HDF5, "HDF5's path is as fast here: an independent read of a contiguous dataset is one MPI-IO "  \
                                       "call of the same bytes either way (COLLDIAG_ACCELERATE=all runs it through colldiag)")   \
    X(ONE_RANK, CD_ENGINE_HDF5, "HDF5's path is as fast here: the file's communicator is one rank, whose collective call MPI-IO " \
                                "runs as its own I/O (COLLDIAG_ACCELERATE=all runs it through colldiag)")                         \
    X(WHOLE_CHUNKS, CD_ENGINE_HDF5, "HDF5's path is as fast here: every rank writes whole chunks of its own, which HDF5's "      \
                                    "collective path moves in the same stretches (COLLDIAG_ACCELERATE=all runs it through "      \
                                    "colldiag)")                                                                                 \
    X(STRETCHES, CD_ENGINE_HDF5, "HDF5's path is as fast here: a rank reads the contiguous dataset in more than one stretch, "   \
                                 "which HDF5's one collective call suits (COLLDIAG_ACCELERATE=all runs it through colldiag)")     \
    X(FASTER, CD_ENGINE_COLLDIAG, "colldiag expects to be at least as fast as HDF5")

#define CD_RULE_ENUM(name, engine, why) CD_RULE_##name,
enum { CD_ENGINE_RULES(CD_RULE_ENUM) CD_RULE_N, CD_RULE_AGREE = CD_RULE_N };
#define CD_RULE_ENGINE(name, engine, why) engine,
static const int cd_rule_engine[CD_RULE_N] = {CD_ENGINE_RULES(CD_RULE_ENGINE)};
#define CD_RULE_WHY(name, engine, why) why,
static const char *const cd_rule_why[CD_RULE_N] = {CD_ENGINE_RULES(CD_RULE_WHY)};
#define CD_RULE_NAME(name, engine, why) #name,
static const char *const cd_rule_name[CD_RULE_N] = {CD_ENGINE_RULES(CD_RULE_NAME)};

/* The first rule that applies (CD_RULE_*), or CD_RULE_AGREE when the first that could apply needs a
   fact the agreement brings. The order is the list's. */
static int engine_rule(const cd_engine_facts *f)
{
    if (f->cannot) return CD_RULE_CANNOT;
    if (f->risk > 0) return CD_RULE_AT_RISK;
    if (f->all) return CD_RULE_ALL;
    /* the rules below hand the call to HDF5: only on facts known, and only when no byte is at risk or
       HDF5's path can be made safe first */
    const int hdf5_facts[] = {f->contig_write, f->ind_contig_read, f->one_rank, f->whole_chunks, f->many_stretches};
    static const int rule[] = {CD_RULE_CONTIG_WRITE, CD_RULE_IND_CONTIG_READ, CD_RULE_ONE_RANK, CD_RULE_WHOLE_CHUNKS, CD_RULE_STRETCHES};
    for (size_t i = 0; i < sizeof rule / sizeof *rule; i++) {
        if (hdf5_facts[i] < 0) return CD_RULE_AGREE; /* not known yet: it might hand the call to HDF5 */
        if (hdf5_facts[i]) return f->risk < 0 && !f->can_make_safe ? CD_RULE_AGREE : rule[i];
    }
    return CD_RULE_FASTER;
}

/* The engine of a rule (CD_ENGINE_AGREE for CD_RULE_AGREE), and its words. */
static int engine_of(int rule) { return rule < CD_RULE_N ? cd_rule_engine[rule] : CD_ENGINE_AGREE; }
static const char *engine_why(int rule) { return rule < CD_RULE_N ? cd_rule_why[rule] : "decided by colldiag's agreement"; }
static const char *engine_rule_name(int rule) { return rule < CD_RULE_N ? cd_rule_name[rule] : "AGREE"; }

/* ====================================================================================================
 * 8. datatypes
 *
 * Runs arrive in the order data must flow. A stream compresses them online into items: an item is a
 * contiguous block of len bytes repeated through up to CD_MAXD levels of (count, stride). Runs of equal
 * length at equal spacing become a vector, equal vectors at equal spacing a vector of vectors, and so
 * on, so a regular selection of any number of chunks becomes a handful of items, and one MPI type is
 * built per distinct item shape (never one per chunk). Any run sequence stays exact: what does not
 * compress stays a separate item.
 * ==================================================================================================== */

typedef struct {
    int64_t off;                 /* bytes */
    uint64_t len;                /* contiguous bytes */
    int depth;
    uint64_t cnt[CD_MAXD];
    int64_t str[CD_MAXD];
} cd_item;

typedef struct {
    cd_item *it;
    uint64_t n, cap;
    uint64_t bytes;
    int nomem;                   /* out of memory, or an MPI type failed while flushing */
    /* Bounded description (flush_at > 0, a power of two): when flush_at items are held, all but the
       last (which later runs may still extend) become one MPI type in sub, and flush_at types in sub
       become one. colldiag then holds at most flush_at items and flush_at types whatever the number of
       runs; MPI keeps the description inside its types. Irregular runs (single elements whose starts
       move from row to row) otherwise cost ~120 B of items each, far beyond the collective buffer. */
    uint64_t flush_at;
    MPI_Datatype *sub;
    uint64_t nsub;
    uint64_t ntb;                /* MPI types built while flushing (for the types_built counter) */
} cd_stream;

static int items_type(const cd_item *its, uint64_t n, MPI_Datatype *out, uint64_t *ntypes_built);

static int item_inner_equal(const cd_item *a, const cd_item *b, int depth)
{
    if (a->len != b->len) return 0;
    for (int i = 0; i < depth; i++)
        if (a->cnt[i] != b->cnt[i] || a->str[i] != b->str[i]) return 0;
    return 1;
}

/* Tries to absorb X (which follows T in the stream) into T. */
static int item_absorb(cd_item *T, const cd_item *X)
{
    if (T->depth == 0 && X->depth == 0 && X->off == T->off + (int64_t)T->len) {
        T->len += X->len;
        return 1;
    }
    if (T->depth == X->depth + 1 && item_inner_equal(T, X, X->depth)) {
        int top = T->depth - 1;
        if (T->cnt[top] < CD_MAX_INT_COUNT && X->off == T->off + (int64_t)T->cnt[top] * T->str[top]) {
            T->cnt[top]++;
            return 1;
        }
        return 0;
    }
    if (T->depth == X->depth && T->depth > 0) { /* X continues T's outermost repetition: one longer item */
        int top = T->depth - 1;
        if (item_inner_equal(T, X, top) && T->str[top] == X->str[top] && X->off == T->off + (int64_t)T->cnt[top] * T->str[top] &&
            T->cnt[top] + X->cnt[top] <= CD_MAX_INT_COUNT) {
            T->cnt[top] += X->cnt[top];
            return 1;
        }
    }
    /* A new repetition level only for a positive stride: Open MPI 4.1's datatype engine packs
       hvector(2, 1, -1) of one byte as the two bytes from the start upwards (a descending 1-byte pair
       read as contiguous: silent wrong data, tests/mpi_negative_stride.c), and descending runs are rare
       enough (points given in reverse) to stay separate items. */
    if (T->depth == X->depth && T->depth < CD_MAXD && X->off > T->off && item_inner_equal(T, X, T->depth)) {
        T->cnt[T->depth] = 2;
        T->str[T->depth] = X->off - T->off;
        T->depth++;
        return 1;
    }
    return 0;
}

/* Types in order, concatenated: one struct at displacement 0 each (their displacements are absolute). */
static int types_concat(MPI_Datatype *ty, uint64_t n, MPI_Datatype *out)
{
    if (n == 1) { *out = ty[0]; return MPI_SUCCESS; }
    int *bl = cd_calloc((size_t)n, sizeof *bl);
    MPI_Aint *dp = cd_calloc((size_t)n, sizeof *dp);
    int rc = MPI_ERR_NO_MEM;
    if (bl && dp) {
        for (uint64_t i = 0; i < n; i++) bl[i] = 1;
        rc = MPI_Type_create_struct((int)n, bl, dp, ty, out);
    }
    for (uint64_t i = 0; i < n; i++) MPI_Type_free(&ty[i]);
    cd_free(bl);
    cd_free(dp);
    return rc;
}

/* Bounded description: every item but the last into one MPI type (see cd_stream). */
static void stream_flush(cd_stream *s)
{
    if (s->n < 2 || s->nomem) return;
    if (!s->sub && !(s->sub = cd_malloc((size_t)s->flush_at * sizeof *s->sub))) { s->nomem = 1; return; }
    if (s->nsub == s->flush_at) {
        MPI_Datatype t;
        if (types_concat(s->sub, s->nsub, &t)) { s->nsub = 0; s->nomem = 1; return; }
        s->sub[0] = t;
        s->nsub = 1;
    }
    if (items_type(s->it, s->n - 1, &s->sub[s->nsub], &s->ntb)) { s->nomem = 1; return; }
    s->nsub++;
    s->it[0] = s->it[s->n - 1];
    s->n = 1;
}

/* Appends the run block [off, +len) repeated cnt times stride apart (cnt 1: a plain run) and lets the
   stream's tail absorb it. */
static void stream_push(cd_stream *s, int64_t off, uint64_t len, uint64_t cnt, int64_t stride)
{
    s->bytes += len * cnt;
    if (cnt == 1 && s->n && s->it[s->n - 1].depth == 0 && s->it[s->n - 1].off + (int64_t)s->it[s->n - 1].len == off) {
        s->it[s->n - 1].len += len; /* the common case, without building an item */
    } else {
        if (s->flush_at && s->n + 1 > s->flush_at) stream_flush(s);
        if (cd_grow((void **)&s->it, &s->cap, s->n + 1, sizeof(cd_item))) { s->nomem = 1; return; }
        cd_item *x = &s->it[s->n++];
        x->off = off;
        x->len = len;
        x->depth = cnt > 1;
        x->cnt[0] = cnt;
        x->str[0] = stride;
    }
    while (s->n >= 2 && item_absorb(&s->it[s->n - 2], &s->it[s->n - 1])) s->n--;
}

static void stream_add(cd_stream *s, int64_t off, uint64_t len)
{
    if (len == 0 || s->nomem) return;
    stream_push(s, off, len, 1, 0);
}

/* cnt runs of len bytes, stride bytes apart: one item instead of cnt additions. */
static void stream_add_strided(cd_stream *s, int64_t off, uint64_t len, uint64_t cnt, int64_t stride)
{
    if (cnt == 1 || stride == (int64_t)len) {
        stream_add(s, off, len * cnt);
        return;
    }
    if (len == 0 || s->nomem) return;
    if (cnt > CD_MAX_INT_COUNT || stride <= 0) {
        for (uint64_t c = 0; c < cnt; c++) stream_add(s, off + (int64_t)c * stride, len);
        return;
    }
    stream_push(s, off, len, cnt, stride);
}

static void stream_free(cd_stream *s)
{
    for (uint64_t i = 0; i < s->nsub; i++) MPI_Type_free(&s->sub[i]);
    cd_free(s->sub);
    cd_free(s->it);
    memset(s, 0, sizeof *s);
}

/* A type of len contiguous bytes, whatever len (split in 1 GiB blocks beyond INT_MAX). */
static int type_bytes(uint64_t len, MPI_Datatype *t)
{
    if (len <= CD_MAX_INT_COUNT) return MPI_Type_contiguous((int)len, MPI_BYTE, t);
    MPI_Datatype blk, many, rest;
    uint64_t q = len / CD_BIG_BLOCK, r = len % CD_BIG_BLOCK;
    if (q > CD_MAX_INT_COUNT) return MPI_ERR_COUNT;
    int rc = MPI_Type_contiguous((int)CD_BIG_BLOCK, MPI_BYTE, &blk);
    if (rc) return rc;
    rc = MPI_Type_contiguous((int)q, blk, &many);
    MPI_Type_free(&blk);
    if (rc || r == 0) { *t = many; return rc; }
    rc = MPI_Type_contiguous((int)r, MPI_BYTE, &rest);
    if (rc) { MPI_Type_free(&many); return rc; }
    int bl[2] = {1, 1};
    MPI_Aint dp[2] = {0, (MPI_Aint)(q * CD_BIG_BLOCK)};
    MPI_Datatype ty[2] = {many, rest};
    rc = MPI_Type_create_struct(2, bl, dp, ty, t);
    MPI_Type_free(&many);
    MPI_Type_free(&rest);
    return rc;
}

typedef struct {
    cd_item shape;   /* off ignored */
    MPI_Datatype t;
} cd_tcache_ent;

static int item_type(const cd_item *it, MPI_Datatype *out)
{
    MPI_Datatype t;
    int rc = type_bytes(it->len, &t);
    if (rc) return rc;
    for (int i = 0; i < it->depth; i++) {
        MPI_Datatype v;
        rc = MPI_Type_create_hvector((int)it->cnt[i], 1, (MPI_Aint)it->str[i], t, &v);
        MPI_Type_free(&t);
        if (rc) return rc;
        t = v;
    }
    *out = t;
    return 0;
}

/* One type for n items (displacements absolute from 0), not committed. *ntypes_built counts the MPI
   types created for item shapes (one per distinct shape, never one per chunk). */
static int items_type(const cd_item *its, uint64_t n_items, MPI_Datatype *out, uint64_t *ntypes_built)
{
    *out = MPI_DATATYPE_NULL;
    if (n_items > CD_MAX_INT_COUNT) return MPI_ERR_COUNT;
    cd_tcache_ent *tc = NULL;
    uint64_t ntc = 0, tcap = 0;
    int n = (int)n_items, rc = 0;
    int *bl = cd_malloc((size_t)n * sizeof *bl);
    MPI_Aint *dp = cd_malloc((size_t)n * sizeof *dp);
    MPI_Datatype *ty = cd_malloc((size_t)n * sizeof *ty);
    if (!bl || !dp || !ty) { rc = MPI_ERR_NO_MEM; goto done; }
    for (int i = 0; i < n && !rc; i++) {
        const cd_item *it = &its[i];
        uint64_t j;
        /* items of one stream repeat few shapes; look back over the distinct ones */
        for (j = 0; j < ntc; j++)
            if (tc[j].shape.depth == it->depth && item_inner_equal(&tc[j].shape, it, it->depth)) break;
        if (j == ntc) {
            if (cd_grow((void **)&tc, &tcap, ntc + 1, sizeof *tc)) { rc = MPI_ERR_NO_MEM; break; }
            tc[ntc].shape = *it;
            rc = item_type(it, &tc[ntc].t);
            if (rc) break;
            ntc++;
            if (ntypes_built) (*ntypes_built)++;
        }
        bl[i] = 1;
        dp[i] = (MPI_Aint)it->off;
        ty[i] = tc[j].t;
    }
    if (!rc) {
        int same = 1;
        for (int i = 1; i < n && same; i++) same = ty[i] == ty[0];
        if (same) rc = MPI_Type_create_hindexed_block(n, 1, dp, ty[0], out);
        else rc = MPI_Type_create_struct(n, bl, dp, ty, out);
    }
done:
    for (uint64_t j = 0; j < ntc; j++) MPI_Type_free(&tc[j].t);
    cd_free(tc);
    cd_free(bl);
    cd_free(dp);
    cd_free(ty);
    return rc;
}

/* One committed type for the whole stream: the flushed types, then the items still held. */
static int stream_type(const cd_stream *s, MPI_Datatype *out, uint64_t *ntypes_built)
{
    *out = MPI_DATATYPE_NULL;
    if (ntypes_built) *ntypes_built += s->ntb;
    MPI_Datatype rest = MPI_DATATYPE_NULL;
    int rc = s->n ? items_type(s->it, s->n, &rest, ntypes_built) : MPI_SUCCESS;
    if (rc) return rc;
    if (s->nsub == 0) {
        *out = rest;
    } else {
        MPI_Datatype *all = cd_malloc((size_t)(s->nsub + 1) * sizeof *all);
        if (!all) rc = MPI_ERR_NO_MEM;
        for (uint64_t i = 0; !rc && i < s->nsub; i++) rc = MPI_Type_dup(s->sub[i], &all[i]); /* the stream keeps its own */
        if (!rc) {
            uint64_t k = s->nsub;
            if (rest != MPI_DATATYPE_NULL) { all[k++] = rest; rest = MPI_DATATYPE_NULL; }
            rc = types_concat(all, k, out);
        }
        cd_free(all);
        if (rest != MPI_DATATYPE_NULL) MPI_Type_free(&rest);
    }
    if (!rc && *out != MPI_DATATYPE_NULL) rc = MPI_Type_commit(out);
    return rc;
}

/* A counting allocator for colldiag's allocator macros: include this before colldiag.c and every byte
 * the kit allocates is counted. g_live: bytes alive now; g_peak: their high-water mark (a caller sets
 * g_peak = g_live before a call and reads g_peak - g_live-before after it; g_total: bytes allocated in all). Shared by the bench and
 * tests/test_memory.c; single-threaded callers only. */
#ifndef COUNT_ALLOC_H
#define COUNT_ALLOC_H
#include <stdlib.h>
#include <string.h>

static size_t g_live, g_peak, g_total; /* g_total: every byte ever allocated (reallocation: the new size) */
static void *ca_malloc(size_t n)
{
    size_t *p = malloc(n + 16); /* 16: the size header keeps the block's alignment */
    if (!p) return NULL;
    p[0] = n;
    g_live += n;
    g_total += n;
    if (g_live > g_peak) g_peak = g_live;
    return (char *)p + 16;
}
static void *ca_calloc(size_t n, size_t s)
{
    void *p = ca_malloc(n * s);
    if (p) memset(p, 0, n * s);
    return p;
}
static void ca_free(void *q)
{
    if (!q) return;
    size_t *p = (size_t *)((char *)q - 16);
    g_live -= p[0];
    free(p);
}
static void *ca_realloc(void *q, size_t n)
{
    if (!q) return ca_malloc(n);
    size_t *p = (size_t *)((char *)q - 16), old = p[0];
    size_t *r = realloc(p, n + 16);
    if (!r) return NULL;
    r[0] = n;
    g_live = g_live - old + n;
    g_total += n;
    if (g_live > g_peak) g_peak = g_live;
    return (char *)r + 16;
}
#define COLLDIAG_MALLOC(n) ca_malloc(n)
#define COLLDIAG_CALLOC(n, s) ca_calloc((n), (s))
#define COLLDIAG_REALLOC(p, n) ca_realloc((p), (n))
#define COLLDIAG_FREE(p) ca_free(p)
#endif

/* wqueue.c: the waiting queue as an augmented treap (see wqueue.h). */
#include "wqueue.h"

#include <stdlib.h>
#include <string.h>

#define NIL SIM_WQ_NONE

static int key_less(const sim_qkey *a, const sim_qkey *b)
{
    for (int i = 0; i < SIM_QKEY_N; i++)
        if (a->k[i] != b->k[i])
            return a->k[i] < b->k[i];
    return a->seq < b->seq;
}

static uint32_t next_prio(sim_wqueue *q)
{
    /* xorshift64: the treap's shape only, never a scheduling decision */
    uint64_t x = q->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    q->rng = x;
    return (uint32_t)(x >> 32);
}

int sim_wq_init(sim_wqueue *q, uint64_t seed)
{
    memset(q, 0, sizeof *q);
    q->root = NIL;
    q->free_head = NIL;
    q->rng = seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
    if (q->rng == 0)
        q->rng = 1;
    return 0;
}

void sim_wq_free(sim_wqueue *q)
{
    free(q->nodes);
    free(q->scratch);
    free(q->scratch2);
    memset(q, 0, sizeof *q);
    q->root = NIL;
    q->free_head = NIL;
}

static void pull(sim_wqueue *q, uint32_t n)
{
    sim_wq_node *x = &q->nodes[n];
    x->size = 1;
    x->active = x->parked ? 0 : 1;
    for (int k = 0; k < DS_RES_N; k++)
        x->minreq[k] = x->parked ? INT64_MAX : x->req.v[k];
    uint32_t ch[2] = {x->left, x->right};
    for (int c = 0; c < 2; c++) {
        if (ch[c] == NIL)
            continue;
        const sim_wq_node *y = &q->nodes[ch[c]];
        x->size += y->size;
        x->active += y->active;
        for (int k = 0; k < DS_RES_N; k++)
            if (y->minreq[k] < x->minreq[k])
                x->minreq[k] = y->minreq[k];
    }
}

/* Split t into keys < key (*l) and keys >= key (*r). */
static void split(sim_wqueue *q, uint32_t t, const sim_qkey *key, uint32_t *l, uint32_t *r)
{
    if (t == NIL) {
        *l = *r = NIL;
        return;
    }
    if (key_less(&q->nodes[t].key, key)) {
        split(q, q->nodes[t].right, key, &q->nodes[t].right, r);
        *l = t;
    } else {
        split(q, q->nodes[t].left, key, l, &q->nodes[t].left);
        *r = t;
    }
    pull(q, t);
}

static uint32_t merge(sim_wqueue *q, uint32_t a, uint32_t b)
{
    if (a == NIL)
        return b;
    if (b == NIL)
        return a;
    if (q->nodes[a].prio > q->nodes[b].prio) {
        q->nodes[a].right = merge(q, q->nodes[a].right, b);
        pull(q, a);
        return a;
    }
    q->nodes[b].left = merge(q, a, q->nodes[b].left);
    pull(q, b);
    return b;
}

static int insert_node(sim_wqueue *q, sim_qkey key, uint32_t job, uint32_t task, const ds_res *req,
                       int parked, uint32_t *handle)
{
    uint32_t n;
    if (q->free_head != NIL) {
        n = q->free_head;
        q->free_head = q->nodes[n].live == 0 ? q->nodes[n].left : NIL;
    } else {
        if (q->used == q->cap) {
            uint32_t ncap = q->cap ? q->cap * 2 : 1024;
            if (ncap > (UINT32_MAX - 1) / 2 || ncap < q->cap)
                return -1;
            sim_wq_node *grown = realloc(q->nodes, (size_t)ncap * sizeof *grown);
            if (grown == NULL)
                return -1;
            q->nodes = grown;
            q->cap = ncap;
        }
        n = q->used++;
    }
    sim_wq_node *x = &q->nodes[n];
    x->key = key;
    x->req = *req;
    x->left = x->right = NIL;
    x->prio = next_prio(q);
    x->job = job;
    x->task = task;
    x->live = 1;
    x->parked = parked ? 1 : 0;
    pull(q, n);
    uint32_t l, r;
    split(q, q->root, &key, &l, &r);
    q->root = merge(q, merge(q, l, n), r);
    q->count++;
    *handle = n;
    return 0;
}

int sim_wq_insert(sim_wqueue *q, sim_qkey key, uint32_t job, uint32_t task, const ds_res *req,
                  uint32_t *handle)
{
    return insert_node(q, key, job, task, req, 0, handle);
}

static uint32_t remove_rec(sim_wqueue *q, uint32_t t, uint32_t target)
{
    if (t == NIL)
        return NIL;
    if (t == target)
        return merge(q, q->nodes[t].left, q->nodes[t].right);
    if (key_less(&q->nodes[target].key, &q->nodes[t].key))
        q->nodes[t].left = remove_rec(q, q->nodes[t].left, target);
    else
        q->nodes[t].right = remove_rec(q, q->nodes[t].right, target);
    pull(q, t);
    return t;
}

void sim_wq_remove(sim_wqueue *q, uint32_t handle)
{
    if (handle >= q->used || !q->nodes[handle].live)
        return;
    q->root = remove_rec(q, q->root, handle);
    q->nodes[handle].live = 0;
    q->nodes[handle].left = q->free_head;
    q->free_head = handle;
    q->count--;
}

/* Set the flag of `target` and re-aggregate the path from the root down to it (its key decides
 * the way). */
static void set_parked_rec(sim_wqueue *q, uint32_t t, uint32_t target, int parked)
{
    if (t == NIL)
        return;
    if (t == target)
        q->nodes[t].parked = parked ? 1 : 0;
    else if (key_less(&q->nodes[target].key, &q->nodes[t].key))
        set_parked_rec(q, q->nodes[t].left, target, parked);
    else
        set_parked_rec(q, q->nodes[t].right, target, parked);
    pull(q, t);
}

void sim_wq_set_parked(sim_wqueue *q, uint32_t handle, int parked)
{
    if (handle >= q->used || !q->nodes[handle].live || q->nodes[handle].parked == (parked != 0))
        return;
    set_parked_rec(q, q->root, handle, parked);
}

int sim_wq_reinsert(sim_wqueue *q, uint32_t *handle, sim_qkey key, int parked)
{
    const sim_wq_node *x = &q->nodes[*handle];
    uint32_t job = x->job, task = x->task;
    ds_res req = x->req;
    sim_wq_remove(q, *handle);
    return insert_node(q, key, job, task, &req, parked, handle);
}

static void post_pull(sim_wqueue *q, uint32_t t);

void sim_wq_set_parked_many(sim_wqueue *q, const uint32_t *handles, size_t n, int parked)
{
    /* One entry costs a path from the root (about 2 log2(size) nodes in a treap); past
     * size / path entries, setting the flags and pulling the whole tree once costs less. */
    size_t path = 2;
    for (size_t s = q->count; s > 1; s >>= 1)
        path += 2;
    if (n * path < q->count) {
        for (size_t i = 0; i < n; i++)
            sim_wq_set_parked(q, handles[i], parked);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (handles[i] < q->used && q->nodes[handles[i]].live)
            q->nodes[handles[i]].parked = parked ? 1 : 0;
    post_pull(q, q->root);
}

uint32_t sim_wq_first_active(const sim_wqueue *q)
{
    uint32_t t = q->root;
    while (t != NIL && q->nodes[t].active > 0) {
        const sim_wq_node *x = &q->nodes[t];
        if (x->left != NIL && q->nodes[x->left].active > 0)
            t = x->left;
        else if (!x->parked)
            return t;
        else
            t = x->right;
    }
    return NIL;
}

size_t sim_wq_active(const sim_wqueue *q)
{
    return q->root == NIL ? 0 : q->nodes[q->root].active;
}

static int fits_min(const int64_t *minreq, const ds_res *free_)
{
    for (int k = 0; k < DS_RES_N; k++)
        if (minreq[k] > 0 && minreq[k] > free_->v[k])
            return 0;
    return 1;
}

static uint32_t first_fit_rec(const sim_wqueue *q, uint32_t t, const ds_res *free_)
{
    while (t != NIL) {
        const sim_wq_node *x = &q->nodes[t];
        if (x->active == 0 || !fits_min(x->minreq, free_))
            return NIL;
        uint32_t r = first_fit_rec(q, x->left, free_);
        if (r != NIL)
            return r;
        if (!x->parked && ds_res_fits(&x->req, free_))
            return t;
        t = x->right; /* tail position: iterate */
    }
    return NIL;
}

uint32_t sim_wq_first_fit(const sim_wqueue *q, const ds_res *free_)
{
    return first_fit_rec(q, q->root, free_);
}

static uint32_t subtree_size(const sim_wqueue *q, uint32_t t)
{
    return t == NIL ? 0 : q->nodes[t].size;
}

/* base: queue position of the first entry of subtree t. */
static uint32_t first_fit_from_rec(const sim_wqueue *q, uint32_t t, const ds_res *free_,
                                   size_t start, size_t base)
{
    while (t != NIL) {
        const sim_wq_node *x = &q->nodes[t];
        if (base + x->size <= start || x->active == 0 || !fits_min(x->minreq, free_))
            return NIL;
        size_t left = subtree_size(q, x->left);
        if (base + left > start) {
            uint32_t r = first_fit_from_rec(q, x->left, free_, start, base);
            if (r != NIL)
                return r;
        }
        if (base + left >= start && !x->parked && ds_res_fits(&x->req, free_))
            return t;
        base += left + 1;
        t = x->right;
    }
    return NIL;
}

uint32_t sim_wq_first_fit_from(const sim_wqueue *q, const ds_res *free_, size_t start)
{
    return first_fit_from_rec(q, q->root, free_, start, 0);
}

size_t sim_wq_rank(const sim_wqueue *q, uint32_t handle)
{
    size_t rank = 0;
    uint32_t t = q->root;
    const sim_qkey *key = &q->nodes[handle].key;
    while (t != NIL) {
        const sim_wq_node *x = &q->nodes[t];
        size_t left = x->left == NIL ? 0 : q->nodes[x->left].size;
        if (t == handle)
            return rank + left;
        if (key_less(key, &x->key)) {
            t = x->left;
        } else {
            rank += left + 1;
            t = x->right;
        }
    }
    return rank;
}

size_t sim_wq_count_before(const sim_wqueue *q, const sim_qkey *key)
{
    size_t n = 0;
    uint32_t t = q->root;
    while (t != NIL) {
        const sim_wq_node *x = &q->nodes[t];
        if (key_less(&x->key, key)) {
            n += (x->left == NIL ? 0 : q->nodes[x->left].size) + 1;
            t = x->right;
        } else {
            t = x->left;
        }
    }
    return n;
}

size_t sim_wq_size(const sim_wqueue *q)
{
    return q->count;
}

void sim_wq_set_key(sim_wqueue *q, uint32_t handle, sim_qkey key)
{
    q->nodes[handle].key = key;
}

static size_t collect_rec(const sim_wqueue *q, uint32_t t, uint32_t *out, size_t pos)
{
    while (t != NIL) {
        pos = collect_rec(q, q->nodes[t].left, out, pos);
        out[pos++] = t;
        t = q->nodes[t].right;
    }
    return pos;
}

size_t sim_wq_collect(const sim_wqueue *q, uint32_t *out)
{
    return collect_rec(q, q->root, out, 0);
}

static size_t collect_first_rec(const sim_wqueue *q, uint32_t t, uint32_t *out, size_t pos,
                                size_t k)
{
    while (t != NIL && pos < k) {
        pos = collect_first_rec(q, q->nodes[t].left, out, pos, k);
        if (pos >= k)
            break;
        out[pos++] = t;
        t = q->nodes[t].right;
    }
    return pos;
}

size_t sim_wq_collect_first(const sim_wqueue *q, uint32_t *out, size_t k)
{
    return collect_first_rec(q, q->root, out, 0, k);
}

int sim_wq_before(const sim_wqueue *q, uint32_t a, uint32_t b)
{
    return key_less(&q->nodes[a].key, &q->nodes[b].key);
}

static void post_pull(sim_wqueue *q, uint32_t t)
{
    if (t == NIL)
        return;
    post_pull(q, q->nodes[t].left);
    post_pull(q, q->nodes[t].right);
    pull(q, t);
}

int sim_wq_rebuild(sim_wqueue *q)
{
    size_t n = q->count;
    if (n == 0) {
        q->root = NIL;
        return 0;
    }
    if (q->scratch_cap < n) {
        uint32_t *a = realloc(q->scratch, n * sizeof *a);
        if (a == NULL)
            return -1;
        q->scratch = a;
        uint32_t *b = realloc(q->scratch2, n * sizeof *b);
        if (b == NULL)
            return -1;
        q->scratch2 = b;
        q->scratch_cap = (uint32_t)n;
    }
    /* Live entries (the tree order is stale, but its node set is right). */
    size_t m = 0;
    for (uint32_t i = 0; i < q->used; i++)
        if (q->nodes[i].live)
            q->scratch[m++] = i;
    /* Bottom-up merge sort by the new keys. */
    uint32_t *src = q->scratch, *dst = q->scratch2;
    for (size_t width = 1; width < m; width *= 2) {
        for (size_t lo = 0; lo < m; lo += 2 * width) {
            size_t mid = lo + width < m ? lo + width : m;
            size_t hi = lo + 2 * width < m ? lo + 2 * width : m;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] =
                    key_less(&q->nodes[src[j]].key, &q->nodes[src[i]].key) ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        uint32_t *tmp = src;
        src = dst;
        dst = tmp;
    }
    /* Cartesian tree on the sorted sequence with the nodes' heap priorities (a stack). */
    uint32_t *stack = dst;
    size_t top = 0;
    for (size_t i = 0; i < m; i++) {
        uint32_t x = src[i];
        q->nodes[x].left = q->nodes[x].right = NIL;
        uint32_t last = NIL;
        while (top > 0 && q->nodes[stack[top - 1]].prio < q->nodes[x].prio)
            last = stack[--top];
        q->nodes[x].left = last;
        if (top > 0)
            q->nodes[stack[top - 1]].right = x;
        stack[top++] = x;
    }
    q->root = stack[0];
    post_pull(q, q->root);
    return 0;
}

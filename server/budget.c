/* server/budget.c -- see budget.h. */
#include "server/budget.h"

void srv_budget_init(srv_budget *b, size_t max)
{
    b->max = max;
    atomic_init(&b->used, 0);
    atomic_init(&b->refused, 0);
    atomic_init(&b->slow, 0);
}

/* 1 when more bytes fit on top of cur within max. */
static int fits(const srv_budget *b, size_t cur, size_t more)
{
    return more <= b->max && cur <= b->max - more;
}

int srv_budget_fits(const srv_budget *b, size_t more, size_t *seen)
{
    size_t cur = atomic_load(&b->used);
    if (fits(b, cur, more))
        return 0;
    if (seen)
        *seen = cur;
    return -1;
}

int srv_budget_hold(srv_budget *b, size_t *held, size_t want, size_t *seen)
{
    if (want <= *held) {
        if (want < *held)
            atomic_fetch_sub(&b->used, *held - want);
        *held = want;
        return 0;
    }
    size_t more = want - *held;
    size_t cur = atomic_load(&b->used);
    do {
        if (!fits(b, cur, more)) {
            if (seen)
                *seen = cur;
            return -1;
        }
    } while (!atomic_compare_exchange_weak(&b->used, &cur, cur + more));
    *held = want;
    return 0;
}

size_t srv_budget_used(const srv_budget *b)
{
    return atomic_load(&b->used);
}

void srv_budget_note_refused(srv_budget *b)
{
    atomic_fetch_add_explicit(&b->refused, 1, memory_order_relaxed);
}

uint64_t srv_budget_refused(const srv_budget *b)
{
    return atomic_load_explicit(&b->refused, memory_order_relaxed);
}

void srv_budget_note_slow(srv_budget *b)
{
    atomic_fetch_add_explicit(&b->slow, 1, memory_order_relaxed);
}

uint64_t srv_budget_slow(const srv_budget *b)
{
    return atomic_load_explicit(&b->slow, memory_order_relaxed);
}

/*
 * tests/server/check_budget.c -- server/budget: the request-body budget (max_inflight_bytes). Holds
 * grow only within the maximum and a refusal changes nothing (and reports what was held); shrinking
 * always works; 8 threads holding and releasing at random (started together, next to a holder
 * that keeps 6000 of 10000 bytes) never see the total pass the maximum, and it is 0 when they
 * are done.
 */
#include <check.h>
#include <pthread.h>
#include <stdint.h>

#include "server/budget.h"

START_TEST(test_hold_and_refuse)
{
    srv_budget b;
    srv_budget_init(&b, 1000);
    size_t a = 0, c = 0, seen = 12345;
    ck_assert_int_eq(srv_budget_hold(&b, &a, 600, &seen), 0);
    ck_assert_uint_eq(a, 600);
    ck_assert_uint_eq(seen, 12345); /* untouched on success */
    ck_assert_int_eq(srv_budget_hold(&b, &c, 401, &seen), -1);
    ck_assert_uint_eq(c, 0);
    ck_assert_uint_eq(seen, 600);
    ck_assert_uint_eq(srv_budget_used(&b), 600);
    ck_assert_int_eq(srv_budget_hold(&b, &c, 400, NULL), 0); /* exactly full */
    ck_assert_uint_eq(srv_budget_used(&b), 1000);
    ck_assert_int_eq(srv_budget_hold(&b, &a, 601, &seen), -1); /* growing by one more */
    ck_assert_uint_eq(a, 600);
    ck_assert_int_eq(srv_budget_hold(&b, &a, 100, NULL), 0); /* shrink */
    ck_assert_uint_eq(srv_budget_used(&b), 500);
    ck_assert_int_eq(srv_budget_hold(&b, &c, SIZE_MAX, &seen), -1); /* no overflow */
    ck_assert_int_eq(srv_budget_hold(&b, &a, 0, NULL), 0);
    ck_assert_int_eq(srv_budget_hold(&b, &c, 0, NULL), 0);
    ck_assert_uint_eq(srv_budget_used(&b), 0);
    ck_assert_uint_eq(srv_budget_refused(&b), 0);
    srv_budget_note_refused(&b);
    ck_assert_uint_eq(srv_budget_refused(&b), 1);
}
END_TEST

#define N_THREADS 8
#define ROUNDS 20000
#define MAX_BYTES 10000

static pthread_barrier_t go;

typedef struct {
    srv_budget *b;
    unsigned seed;
    int over;     /* the total seen above the maximum */
    long refused; /* holds refused */
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    size_t held = 0;
    pthread_barrier_wait(&go);
    for (int i = 0; i < ROUNDS; i++) {
        w->seed = w->seed * 1103515245u + 12345u;
        size_t want = (w->seed >> 8) % 6000;
        if (srv_budget_hold(w->b, &held, want, NULL) != 0)
            w->refused++;
        if (srv_budget_used(w->b) > MAX_BYTES)
            w->over = 1;
    }
    srv_budget_hold(w->b, &held, 0, NULL);
    return NULL;
}

START_TEST(test_threads)
{
    srv_budget b;
    srv_budget_init(&b, MAX_BYTES);
    size_t mine = 0; /* 4000 bytes stay free: a single worker asking for more is refused */
    ck_assert_int_eq(srv_budget_hold(&b, &mine, 6000, NULL), 0);
    ck_assert_int_eq(pthread_barrier_init(&go, NULL, N_THREADS), 0);
    pthread_t th[N_THREADS];
    worker w[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        w[i] = (worker){&b, (unsigned)i * 7919u + 1u, 0, 0};
        ck_assert_int_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    long refused = 0;
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(th[i], NULL);
        ck_assert_int_eq(w[i].over, 0);
        refused += w[i].refused;
    }
    pthread_barrier_destroy(&go);
    ck_assert_uint_eq(srv_budget_used(&b), 6000);
    ck_assert_int_gt(refused, 0); /* the bound was reached */
    srv_budget_hold(&b, &mine, 0, NULL);
    ck_assert_uint_eq(srv_budget_used(&b), 0);
}
END_TEST

Suite *budget_suite(void)
{
    Suite *s = suite_create("budget");
    TCase *tc = tcase_create("budget");
    tcase_add_test(tc, test_hold_and_refuse);
    tcase_add_test(tc, test_threads);
    suite_add_tcase(s, tc);
    return s;
}

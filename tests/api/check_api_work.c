/*
 * tests/api/check_api_work.c -- the compute budget max_work (api/req.h): a request whose
 * computation would exceed it gets a 422 limit-exceeded naming the field, before anything is
 * computed; the same request within the budget is answered. Work units: multiply-add 1, sin/cos/exp
 * API_WORK_TRIG (32).
 */
#include <check.h>
#include <string.h>

#include "tests/lib/api_util.h"

/* Asserts a 422 limit-exceeded at ptr whose message names max_work. */
static void expect_over(api_handler h, const char *body_sq, const char *ptr)
{
    au_expect_422_msg(h, body_sq, ptr, "max_work");
}

START_TEST(test_attention_budget)
{
    /* T = 2, d = 2, no v, one head: work = T² (2d + dv + 32) = 4 × 36 = 144 units. */
    const char *req = "{'q': [[1, 0], [0, 1]], 'k': [[1, 0], [0, 1]]}";
    au_lim.max_work = 144;
    json_decref(au_ok(api_attention, req));
    au_lim.max_work = 143;
    expect_over(api_attention, req, "/q");
}
END_TEST

START_TEST(test_sinusoidal_budget)
{
    /* 3 positions × d_model 4, one sin or cos each: 12 × 32 = 384 units. */
    const char *req = "{'d_model': 4, 'seq_len': 3}";
    au_lim.max_work = 384;
    json_decref(au_ok(api_sinusoidal, req));
    au_lim.max_work = 383;
    expect_over(api_sinusoidal, req, "/d_model");
}
END_TEST

START_TEST(test_rope_decay_budget)
{
    /* head_dim 8 (n = 4 pairs), no positions: decay over 100 distances costs
     * 100 × 4 × 2 × 32 = 25,600 units, over a budget of 20,000 (and within 30,000). */
    au_lim.max_work = 30000;
    json_decref(au_ok(api_rope, "{'head_dim': 8, 'include': ['decay'], 'distances': [0, 1]}"));
    au_lim.max_work = 20000;
    expect_over(api_rope,
                "{'head_dim': 8, 'include': ['decay'], 'distances': [" /* 100 distances */
                "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,"
                "30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,"
                "56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,"
                "82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99]}",
                "/distances");
}
END_TEST

START_TEST(test_alibi_budget)
{
    /* q, k 2×2 (d = 2), 8 heads, no v: q·kᵀ 4 × 2 = 8, then 8 heads × 4 × 32 = 1024: 1032. */
    const char *req = "{'num_heads': 8, 'q': [[1, 0], [0, 1]], 'k': [[1, 0], [0, 1]]}";
    au_lim.max_work = 1032;
    json_decref(au_ok(api_alibi, req));
    au_lim.max_work = 1031;
    au_expect_422_msg(api_alibi, req, "/q", "max_work");
}
END_TEST

Suite *api_work_suite(void)
{
    Suite *s = suite_create("api_work");
    TCase *tc = tcase_create("max_work");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_attention_budget);
    tcase_add_test(tc, test_sinusoidal_budget);
    tcase_add_test(tc, test_rope_decay_budget);
    tcase_add_test(tc, test_alibi_budget);
    suite_add_tcase(s, tc);
    return s;
}

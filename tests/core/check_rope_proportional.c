/*
 * tests/core/check_rope_proportional.c -- Gemma 4's `proportional` RoPE (core PE_ROPE_PROPORTIONAL
 * and the scaling type of POST /rope), against values derived by hand from Hugging Face's
 * _compute_proportional_rope_parameters (modeling_rope_utils.py):
 *   rope_angles = int(proportion * d // 2); inv_freq[j] = base^(-2j/d) for j < rope_angles, else
 *   0; every entry / factor; attention factor 1; the rotation spans the whole head (rotate_half
 *   over d), so a zero pair keeps its two dims (j, j + d/2) unchanged.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "api/api.h"
#include "core/rope.h"
#include "tests/lib/api_util.h"

static pe_rope_params prop(size_t d, double proportion, double factor)
{
    pe_rope_params p;
    pe_rope_params_init(&p);
    p.rotary_dim = d;
    p.base = 10000.0;
    p.type = PE_ROPE_PROPORTIONAL;
    p.proportion = proportion;
    p.factor = factor;
    return p;
}

/* d 8, proportion 0.5, factor 2: rope_angles = floor(0.5 * 8 / 2) = 2; pairs 0, 1 are
 * 10000^0 / 2 = 0.5 and 10000^(-1/4) / 2 = 0.1 / 2 = 0.05; pairs 2, 3 are 0. proportion 0.3:
 * 0.3 * 8 = 2.4, // 2 -> 1 pair (Python's float floor, not round). Gemma 4's full layers: d 512,
 * proportion 0.25 -> 64 pairs, pair 64 is the first 0. */
START_TEST(test_proportional_hand)
{
    double inv[256], att = 0.0;
    pe_rope_params p = prop(8, 0.5, 2.0);
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    ck_close(inv[0], 0.5, 0.0, 1e-15);
    ck_close(inv[1], 0.05, 0.0, 1e-15);
    ck_assert(inv[2] == 0.0 && inv[3] == 0.0 && att == 1.0);
    p = prop(8, 0.3, 1.0);
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    ck_assert(inv[0] == 1.0 && inv[1] == 0.0);
    p = prop(512, 0.25, 1.0);
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    ck_close(inv[63], 1.0 / pow(10000.0, 126.0 / 512.0), 0.0, 1e-15);
    ck_assert(inv[63] > 0.0 && inv[64] == 0.0 && inv[255] == 0.0);
    /* proportion 1: plain RoPE over d, bit for bit */
    p = prop(8, 1.0, 1.0);
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    for (size_t j = 0; j < 4; j++)
        ck_assert(inv[j] == pe_rope_base_freq(10000.0, 8, j));
    /* domains: proportion in (0, 1], factor > 0 */
    p = prop(8, 0.0, 1.0);
    ck_assert_int_eq(pe_rope_params_check(&p), PE_ERR_ARG);
    p = prop(8, 1.5, 1.0);
    ck_assert_int_eq(pe_rope_params_check(&p), PE_ERR_ARG);
    p = prop(8, 0.5, 0.0);
    ck_assert_int_eq(pe_rope_params_check(&p), PE_ERR_ARG);
}
END_TEST

/* POST /rope with the scaling type: q = e_1 (dim 1 of 8) at position 3 rotates with pair 1
 * (angle 3 x 0.1 = 0.3: dims 1 and 5 become cos 0.3, sin 0.3); q = e_2 (pair 2, frequency 0)
 * stays e_2. A rotary dim below head_dim is a 422 at /rotary_dim (the type spans the head). */
START_TEST(test_proportional_route)
{
    int st = 0;
    char *resp = au_send(api_rope,
                         "{\"head_dim\": 8, \"scaling\": {\"type\": \"proportional\", "
                         "\"partial_rotary_factor\": 0.5}, \"positions\": [3], "
                         "\"q\": [[0, 1, 0, 0, 0, 0, 0, 0]], \"k\": [[0, 0, 1, 0, 0, 0, 0, 0]]}",
                         &st);
    ck_assert_msg(st == 200, "%s", resp);
    json_t *j = au_parse(resp);
    free(resp);
    ck_close(au_num(j, "inv_freq", 1, -1, -1), 0.1, 0.0, 1e-15);
    ck_assert(au_num(j, "inv_freq", 2, -1, -1) == 0.0);
    ck_close(au_num(j, "q_rotated", 0, 1, -1), cos(0.3), 1e-15, 0.0);
    ck_close(au_num(j, "q_rotated", 0, 5, -1), sin(0.3), 1e-15, 0.0);
    ck_assert(au_num(j, "k_rotated", 0, 2, -1) == 1.0);
    ck_assert(au_num(j, "k_rotated", 0, 6, -1) == 0.0);
    json_decref(j);
    au_expect_422_msg(api_rope,
                      "{'head_dim': 8, 'rotary_dim': 4, 'scaling': {'type': 'proportional'}}",
                      "/rotary_dim", "whole head");
    au_expect_422(api_rope,
                  "{'head_dim': 8, 'scaling': {'type': 'proportional', "
                  "'partial_rotary_factor': 1.5}}",
                  "/scaling/partial_rotary_factor", NULL);
}
END_TEST

Suite *rope_proportional_suite(void)
{
    Suite *s = suite_create("rope_proportional");
    TCase *tc = tcase_create("proportional");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_proportional_hand);
    tcase_add_test(tc, test_proportional_route);
    suite_add_tcase(s, tc);
    return s;
}

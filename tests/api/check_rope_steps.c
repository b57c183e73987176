/*
 * tests/api/check_rope_steps.c -- the parse and run steps of POST /rope on their own
 * (api/rope_req.h): api_rope_parse fills api_rope_req, api_rope_run fills api_rope_res, and
 * api_rope_eval with api_rope_direct (the /attention entry point) reads positions and q / k given
 * as numbers. Expected values derived by hand in the comments.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "api/rope_req.h"
#include "tests/lib/api_util.h"

/* Parses body (JSON text) with the default limits; the caller frees r and json. */
static int parse(const char *body, api_rope_req *r, api_problem *pb, json_t **json)
{
    json_error_t e;
    *json = json_loads(body, 0, &e);
    ck_assert_ptr_nonnull(*json);
    api_problem_init(pb);
    return api_rope_parse(pb, &au_lim, *json, NULL, r);
}

START_TEST(test_parse_one_d)
{
    /* rotary dim = floor(8 x 0.5) = 4 (HF int(head_dim * factor)); base from the alias
     * rope_theta; linear factor 2; q a plain vector at positions 0 and 3, so L = 3 + 1 = 4. */
    api_rope_req r;
    api_problem pb;
    json_t *j;
    int rc = parse("{\"head_dim\": 8, \"partial_rotary_factor\": 0.5, \"rope_theta\": 500000,"
                   " \"scaling\": {\"type\": \"linear\", \"factor\": 2}, \"positions\": [0, 3],"
                   " \"q\": [1, 0, 0, 0, 0, 0, 0, 0]}",
                   &r, &pb, &j);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(r.axes, 0);
    ck_assert_int_eq(r.head_dim, 8);
    ck_assert_int_eq(r.rotary_dim, 4);
    ck_assert_str_eq(r.rotary_o.ptr, "/partial_rotary_factor");
    ck_assert_double_eq(r.base, 500000.0);
    ck_assert_str_eq(r.base_o.ptr, "/rope_theta");
    ck_assert_int_eq(r.sc.type, PE_ROPE_LINEAR);
    ck_assert_double_eq(r.sc.num[API_RS_FACTOR], 2.0);
    ck_assert_int_eq(r.L, 4);
    ck_assert_int_eq(r.want_q, 1);
    ck_assert_int_eq(r.want_k, 0);
    ck_assert_uint_eq(r.qpos.n, 2);
    ck_assert_int_eq(r.qpos.v[1], 3);
    ck_assert_str_eq(r.qpos.src, "positions");
    ck_assert_int_eq(r.q_vec, 1);
    ck_assert_uint_eq(r.q_rows, 1);
    api_rope_req_free(&r);
    json_decref(j);
}
END_TEST

START_TEST(test_parse_config)
{
    /* head_dim = hidden_size / num_attention_heads = 4096 / 32 = 128; model_type gptj rotates
     * interleaved pairs (HF modeling_gptj.py); rope_theta from the config. */
    api_rope_req r;
    api_problem pb;
    json_t *j;
    int rc = parse("{\"config\": {\"hidden_size\": 4096, \"num_attention_heads\": 32,"
                   " \"rope_theta\": 500000, \"model_type\": \"gptj\"}}",
                   &r, &pb, &j);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(r.has_config, 1);
    ck_assert_int_eq(r.head_dim, 128);
    ck_assert_str_eq(r.head_dim_o.ptr, "/config/hidden_size");
    ck_assert_str_eq(r.head_dim_o.src, "config.hidden_size / config.num_attention_heads");
    ck_assert_int_eq(r.layout, PE_ROPE_INTERLEAVED);
    ck_assert_str_eq(r.layout_o.ptr, "/config/model_type");
    ck_assert_double_eq(r.base, 500000.0);
    ck_assert_str_eq(r.base_o.src, "config.rope_theta");
    api_rope_req_free(&r);
    json_decref(j);
}
END_TEST

START_TEST(test_parse_errors_in_field_order)
{
    /* head_dim 7 is odd (dims stop there), then base 1 (must be > 1), then the layout: three
     * errors in the order the fields are read. */
    api_rope_req r;
    api_problem pb;
    json_t *j;
    int rc = parse("{\"layout\": \"diagonal\", \"base\": 1, \"head_dim\": 7}", &r, &pb, &j);
    ck_assert_int_eq(rc, -1);
    ck_assert_uint_eq(pb.n_errors, 3);
    ck_assert_str_eq(pb.errors[0].pointer, "/head_dim");
    ck_assert_str_eq(pb.errors[0].message, "head_dim must be even, got 7");
    ck_assert_str_eq(pb.errors[1].pointer, "/base");
    ck_assert_str_eq(pb.errors[2].pointer, "/layout");
    api_rope_req_free(&r);
    json_decref(j);
}
END_TEST

START_TEST(test_parse_multiaxis)
{
    /* mrope, head_dim 4: n = 2 pairs, 1-D frequencies 10000^(-2j/4) = 1 and 0.01; sections
     * [1, 1] give pair 0 to axis 0 and pair 1 to axis 1, so F = [[1, 0], [0, 0.01]]. The plain
     * position 5 is the tuple [5, 5]. */
    api_rope_req r;
    api_problem pb;
    json_t *j;
    int rc = parse("{\"head_dim\": 4, \"axes\": {\"type\": \"mrope\", \"sections\": [1, 1]},"
                   " \"positions\": [[2, 3], 5]}",
                   &r, &pb, &j);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(r.axes, 1);
    ck_assert_uint_eq(r.A, 2);
    ck_assert_uint_eq(r.sections[0], 1);
    ck_assert_uint_eq(r.sections[1], 1);
    ck_assert_double_eq_tol(r.F[0], 1.0, 1e-15);
    ck_assert_double_eq(r.F[1], 0.0);
    ck_assert_double_eq(r.F[2], 0.0);
    ck_assert_double_eq_tol(r.F[3], 0.01, 1e-17);
    ck_assert_int_eq(r.pair_axis[1], 1);
    ck_assert_uint_eq(r.pos.n, 2);
    ck_assert_int_eq(r.pos.v[2], 5);
    ck_assert_int_eq(r.pos.v[3], 5);
    ck_assert_int_eq(r.L, 6); /* largest coordinate 5, + 1 */
    api_rope_req_free(&r);
    json_decref(j);
}
END_TEST

START_TEST(test_run_one_d)
{
    /* head_dim 4, base 10000: inv_freq = [1, 0.01]. Half layout pairs (x0, x2), (x1, x3).
     * q = [1, 1, 0, 0] at position 2: (x0, x2) turns by 2 rad -> (cos 2, sin 2), (x1, x3) by
     * 0.02 rad -> (cos 0.02, sin 0.02). k = [1, 0, 0, 0] at position 0 stays; the score is
     * q_rot . k_rot = cos 2. */
    api_rope_req r;
    api_rope_res res;
    api_problem pb;
    json_t *j;
    ck_assert_int_eq(parse("{\"head_dim\": 4, \"q_positions\": [2], \"k_positions\": [0],"
                           " \"q\": [1, 1, 0, 0], \"k\": [1, 0, 0, 0]}",
                           &r, &pb, &j),
                     0);
    ck_assert_int_eq(api_rope_run(au_ctx.cache, &r, &res, &pb), 0);
    ck_assert_double_eq(res.inv_freq[0], 1.0);
    ck_assert_double_eq_tol(res.inv_freq[1], 0.01, 1e-17);
    ck_assert_double_eq(res.attention_factor, 1.0);
    ck_assert_double_eq(res.softmax_scale_factor, 1.0);
    ck_assert_double_eq_tol(res.q_rot[0], cos(2.0), 1e-15);
    ck_assert_double_eq_tol(res.q_rot[1], cos(0.02), 1e-15);
    ck_assert_double_eq_tol(res.q_rot[2], sin(2.0), 1e-15);
    ck_assert_double_eq_tol(res.q_rot[3], sin(0.02), 1e-15);
    ck_assert_double_eq(res.k_rot[0], 1.0);
    ck_assert_double_eq_tol(res.scores[0], cos(2.0), 1e-15);
    ck_assert_int_eq(api_rope_res_finite(&r, &res), 1);
    api_rope_res_free(&res);
    api_rope_req_free(&r);
    json_decref(j);
}
END_TEST

START_TEST(test_run_multiaxis)
{
    /* F = [[1, 0], [0, 0.01]] (test_parse_multiaxis); q = [1, 1, 0, 0] at [2, 3]: pair 0 turns
     * by 2 x 1 = 2 rad, pair 1 by 3 x 0.01 = 0.03 rad; attention factor 1. */
    api_rope_req r;
    api_rope_res res;
    api_problem pb;
    json_t *j;
    ck_assert_int_eq(
        parse("{\"head_dim\": 4, \"axes\": {\"type\": \"mrope\", \"sections\": [1, 1]},"
              " \"positions\": [[2, 3]], \"q\": [1, 1, 0, 0]}",
              &r, &pb, &j),
        0);
    ck_assert_int_eq(api_rope_run(au_ctx.cache, &r, &res, &pb), 0);
    ck_assert_double_eq_tol(res.q_rot[0], cos(2.0), 1e-15);
    ck_assert_double_eq_tol(res.q_rot[1], cos(0.03), 1e-15);
    ck_assert_double_eq_tol(res.q_rot[2], sin(2.0), 1e-15);
    ck_assert_double_eq_tol(res.q_rot[3], sin(0.03), 1e-15);
    ck_assert_double_eq_tol(res.inv_freq[1], 0.01, 1e-17);
    ck_assert_ptr_null(res.k_rot);
    api_rope_res_free(&res);
    api_rope_req_free(&r);
    json_decref(j);
}
END_TEST

START_TEST(test_eval_direct)
{
    /* The /attention entry point: no head_dim in the object, so head_dim = the rows' width 2;
     * one pair at 0.5 rad per position (inv_freq). q rows (1, 0) at positions 4 and 5 turn by 2
     * and 2.5 rad: (cos 2, sin 2) and (cos 2.5, sin 2.5). */
    static const int64_t pos[2] = {4, 5};
    static const double q[4] = {1, 0, 1, 0}, k[4] = {0, 1, 0, 1};
    api_rope_direct dir = {
        .positions = pos, .n_pos = 2, .q = q, .k = k, .rows = 2, .cols = 2, .head_dim = 2};
    json_t *obj = json_loads("{\"inv_freq\": [0.5]}", 0, NULL);
    api_rope_req r;
    api_rope_res res;
    api_problem pb;
    api_problem_init(&pb);
    ck_assert_int_eq(api_rope_eval(&au_ctx, obj, &dir, &r, &res, &pb), 0);
    ck_assert_int_eq(r.head_dim, 2);
    ck_assert_str_eq(r.head_dim_o.ptr, "/head_dim");
    ck_assert_double_eq_tol(res.q_rot[0], cos(2.0), 1e-15);
    ck_assert_double_eq_tol(res.q_rot[1], sin(2.0), 1e-15);
    ck_assert_double_eq_tol(res.q_rot[2], cos(2.5), 1e-15);
    ck_assert_double_eq_tol(res.q_rot[3], sin(2.5), 1e-15);
    /* k (0, 1) at 4 turns to (-sin 2, cos 2) */
    ck_assert_double_eq_tol(res.k_rot[0], -sin(2.0), 1e-15);
    ck_assert_double_eq_tol(res.k_rot[1], cos(2.0), 1e-15);
    api_rope_res_free(&res);
    api_rope_req_free(&r);

    /* rows of 2 numbers against a head_dim of 4 from the object: the error a JSON matrix gets */
    json_decref(obj);
    obj = json_loads("{\"head_dim\": 4}", 0, NULL);
    api_problem_init(&pb);
    ck_assert_int_eq(api_rope_eval(&au_ctx, obj, &dir, &r, &res, &pb), -1);
    ck_assert_str_eq(pb.errors[0].pointer, "/q/0");
    ck_assert_str_eq(pb.errors[0].message, "must have 4 numbers, got 2");
    ck_assert_str_eq(pb.errors[1].pointer, "/k/0");
    api_rope_res_free(&res);
    api_rope_req_free(&r);
    json_decref(obj);
}
END_TEST

Suite *rope_steps_suite(void)
{
    Suite *s = suite_create("rope_steps");
    TCase *tc = tcase_create("steps");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_parse_one_d);
    tcase_add_test(tc, test_parse_config);
    tcase_add_test(tc, test_parse_errors_in_field_order);
    tcase_add_test(tc, test_parse_multiaxis);
    tcase_add_test(tc, test_run_one_d);
    tcase_add_test(tc, test_run_multiaxis);
    tcase_add_test(tc, test_eval_direct);
    suite_add_tcase(s, tc);
    return s;
}

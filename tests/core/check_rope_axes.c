/*
 * tests/core/check_rope_axes.c -- multi-axis RoPE: core/rope_axes.h and POST /rope with `axes`
 * through api_handle(api_rope) (pure, no sockets). Definitions:
 * docs/conventions.md#multi-axis-rope. Covered: the frequency matrix of every type against numbers
 * copied from tests/vectors/rope2d (case ids named next to them); the properties of the doc -- 2-D
 * axial scores depend only on (drow, dcol) and (1, 2) != (2, 1); mrope with equal coordinates is
 * 1-D RoPE bit for bit; pixtral on the diagonal is 1-D RoPE with its pairs permuted; mixed with
 * freqs
 * [[m, 0], [0, m]] is axial; golden cases by id (every rope2d file, the pasted Qwen2-VL config);
 * and every 422 rule of the doc with its pointer.
 * Tolerances: ck_assert_double_eq is exact (0: the same double operations, or values copied
 * from a case that came from the same formula); ck_assert_double_eq_tol states its own.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "api/api.h"
#include "core/rope.h"
#include "core/rope_axes.h" /* core/ (first on the include path) */
#include "tests/lib/api_util.h"

/* ---- core ----------------------------------------------------------------------------------- */

/* rope2d-axial-ropevit-hd8-base100-grid3x3: F = [[1, 0.1, 0, 0], [0, 0, 1, 0.1]] (100^(-2k/4):
 * pow(100, 0.5) = 10 exactly), pair_axis [0, 0, 1, 1]; cos/sin at [x, y] = [2, 1]. */
START_TEST(test_axial_ropevit_hd8)
{
    double F[8];
    int64_t pa[4];
    const size_t sec[] = {2, 2};
    ck_assert_int_eq(pe_rope_axes_freqs(PE_AXES_AXIAL, 8, 100.0, sec, 2, F, pa), PE_OK);
    const double wantF[8] = {1, 0.1, 0, 0, 0, 0, 1, 0.1};
    const int64_t wantA[4] = {0, 0, 1, 1};
    for (int e = 0; e < 8; e++)
        ck_assert_double_eq(F[e], wantF[e]);
    for (int j = 0; j < 4; j++)
        ck_assert_int_eq(pa[j], wantA[j]);
    const int64_t p[2] = {2, 1};
    double c[4], s[4];
    ck_assert_int_eq(pe_rope_axes_cos_sin(F, 2, 4, p, 1, c, s, NULL), PE_OK);
    const double wc[4] = {-0.4161468365471424, 0.9800665778412416, 0.5403023058681398,
                          0.9950041652780258};
    const double ws[4] = {0.9092974268256817, 0.19866933079506122, 0.8414709848078965,
                          0.09983341664682815};
    for (int j = 0; j < 4; j++) {
        ck_assert_double_eq_tol(c[j], wc[j], 1e-15);
        ck_assert_double_eq_tol(s[j], ws[j], 1e-15);
    }
}
END_TEST

/* rope2d-axial-wan21-3d-hd128-sections-22-21-21: each axis restarts at frequency 1;
 * F[0][21] = 10000^(-21/22), F[1][22] = 1, F[1][23] = 10000^(-1/21); at [1, 2, 3]: cos of pairs
 * 0, 1, 22, 23 and sin of pairs 43, 44 (the first two column pairs). */
START_TEST(test_axial_wan21_sections)
{
    static double F[3 * 64];
    int64_t pa[64];
    const size_t sec[] = {22, 21, 21};
    ck_assert_int_eq(pe_rope_axes_freqs(PE_AXES_AXIAL, 128, 10000.0, sec, 3, F, pa), PE_OK);
    ck_assert_double_eq_tol(F[0 * 64 + 21], 0.0001519911082952933, 1e-19);
    ck_assert_double_eq(F[1 * 64 + 22], 1.0);
    ck_assert_double_eq_tol(F[1 * 64 + 23], 0.6449466771037624, 1e-16);
    ck_assert_double_eq(F[0 * 64 + 22], 0.0); /* every other entry is 0 */
    ck_assert_int_eq(pa[21], 0);
    ck_assert_int_eq(pa[22], 1);
    ck_assert_int_eq(pa[42], 1);
    ck_assert_int_eq(pa[43], 2);
    const int64_t p[3] = {1, 2, 3};
    double c[64], s[64];
    ck_assert_int_eq(pe_rope_axes_cos_sin(F, 3, 64, p, 1, c, s, NULL), PE_OK);
    ck_assert_double_eq_tol(c[0], 0.5403023058681398, 1e-15);
    ck_assert_double_eq_tol(c[1], 0.7912577181377854, 1e-15);
    ck_assert_double_eq_tol(c[22], -0.4161468365471424, 1e-15);
    ck_assert_double_eq_tol(c[23], 0.2772233424973307, 1e-15);
    ck_assert_double_eq_tol(s[43], 0.1411200080598672, 1e-15);
    ck_assert_double_eq_tol(s[44], 0.934464682982283, 1e-15);
}
END_TEST

/* mrope with all coordinates equal is exactly 1-D RoPE (Qwen2-VL-7B: d 128, base 1e6, sections
 * [16, 24, 24]): the nonzero entry of column j is the 1-D inv_freq and cos/sin agree bit for bit,
 * also at Qwen2.5-VL-size absolute-time ids (32000) and at 131071. */
START_TEST(test_mrope_equal_coords_is_1d)
{
    static double F[3 * 64], c[64], s[64], c1[64], s1[64], inv[64];
    int64_t pa[64];
    const size_t sec[] = {16, 24, 24};
    ck_assert_int_eq(pe_rope_axes_freqs(PE_AXES_MROPE, 128, 1e6, sec, 3, F, pa), PE_OK);
    pe_rope_params p;
    pe_rope_params_init(&p);
    p.rotary_dim = 128;
    p.base = 1e6;
    double af = 0.0;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &af, NULL), PE_OK);
    for (size_t j = 0; j < 64; j++) {
        ck_assert_int_eq(pa[j], j < 16 ? 0 : j < 40 ? 1 : 2);
        ck_assert_double_eq(F[(size_t)pa[j] * 64 + j], inv[j]);
    }
    const int64_t pos[] = {0, 1, 7, 4095, 32000, 131071};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        const int64_t t[3] = {pos[i], pos[i], pos[i]};
        ck_assert_int_eq(pe_rope_axes_cos_sin(F, 3, 64, t, 1, c, s, NULL), PE_OK);
        pe_rope_cos_sin(inv, 64, &pos[i], 1, c1, s1);
        for (size_t j = 0; j < 64; j++) {
            ck_assert_double_eq(c[j], c1[j]);
            ck_assert_double_eq(s[j], s1[j]);
        }
    }
    /* unequal coordinates do move the pairs of the other axes */
    const int64_t t[3] = {5, 6, 7};
    const int64_t five = 5;
    ck_assert_int_eq(pe_rope_axes_cos_sin(F, 3, 64, t, 1, c, s, NULL), PE_OK);
    pe_rope_cos_sin(inv, 64, &five, 1, c1, s1);
    ck_assert_double_eq(c[15], c1[15]);
    ck_assert(c[16] != c1[16]);
}
END_TEST

/* pixtral: rows get the even-indexed 1-D frequencies, columns the odd ones
 * (rope2d-pixtral-hf-hd16-grid3x4 inv_freq / pair_axis), so on the diagonal (p, p) pair j is 1-D
 * pair 2j (j < 4) or 2(j - 4) + 1 (j >= 4), bit for bit. */
START_TEST(test_pixtral_permutation)
{
    double F[16], inv[8], c[8], s[8], c1[8], s1[8];
    int64_t pa[8];
    ck_assert_int_eq(pe_rope_axes_freqs(PE_AXES_PIXTRAL, 16, 10000.0, NULL, 2, F, pa), PE_OK);
    const double want[8] = {1.0,
                            0.1,
                            0.01,
                            0.001,
                            0.31622776601683794,
                            0.03162277660168379,
                            0.003162277660168379,
                            0.00031622776601683794};
    for (size_t j = 0; j < 8; j++) {
        ck_assert_int_eq(pa[j], j < 4 ? 0 : 1);
        ck_assert_double_eq_tol(F[(size_t)pa[j] * 8 + j], want[j], 1e-16 * want[j]);
        ck_assert_double_eq(F[(size_t)(1 - pa[j]) * 8 + j], 0.0);
    }
    pe_rope_params p;
    pe_rope_params_init(&p);
    p.rotary_dim = 16;
    double af;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &af, NULL), PE_OK);
    const int64_t pos = 37, t[2] = {37, 37};
    ck_assert_int_eq(pe_rope_axes_cos_sin(F, 2, 8, t, 1, c, s, NULL), PE_OK);
    pe_rope_cos_sin(inv, 8, &pos, 1, c1, s1);
    for (size_t j = 0; j < 8; j++) {
        size_t k = j < 4 ? 2 * j : 2 * (j - 4) + 1;
        ck_assert_double_eq(c[j], c1[k]);
        ck_assert_double_eq(s[j], s1[k]);
    }
    ck_assert_int_eq(pe_rope_axes_check(PE_AXES_PIXTRAL, 6, 10000.0, NULL, 2), PE_ERR_ARG);
}
END_TEST

/* mixed with F = [[m, 0], [0, m]] (m the axial list) gives the axial angles exactly. */
START_TEST(test_mixed_equals_axial_core)
{
    double Fa[8], c[4], s[4], ca[4], sa[4];
    const size_t sec[] = {2, 2};
    ck_assert_int_eq(pe_rope_axes_freqs(PE_AXES_AXIAL, 8, 100.0, sec, 2, Fa, NULL), PE_OK);
    const double Fm[8] = {1.0, 0.1, 0.0, 0.0, 0.0, 0.0, 1.0, 0.1}; /* as a client sends it */
    for (int64_t x = 0; x < 14; x += 3) {
        for (int64_t y = 0; y < 14; y += 5) {
            const int64_t p[2] = {x, y};
            ck_assert_int_eq(pe_rope_axes_cos_sin(Fm, 2, 4, p, 1, c, s, NULL), PE_OK);
            ck_assert_int_eq(pe_rope_axes_cos_sin(Fa, 2, 4, p, 1, ca, sa, NULL), PE_OK);
            for (int j = 0; j < 4; j++) {
                ck_assert_double_eq(c[j], ca[j]);
                ck_assert_double_eq(s[j], sa[j]);
            }
        }
    }
}
END_TEST

START_TEST(test_core_rejects)
{
    const size_t bad_sum[] = {1, 2}, zero[] = {2, 0, 2}, ok3[] = {1, 1, 2};
    ck_assert_int_eq(pe_rope_axes_check(PE_AXES_AXIAL, 8, 10000.0, bad_sum, 2), PE_ERR_ARG);
    ck_assert_int_eq(pe_rope_axes_check(PE_AXES_AXIAL, 8, 10000.0, zero, 3), PE_ERR_ARG);
    ck_assert_int_eq(pe_rope_axes_check(PE_AXES_MROPE, 8, 10000.0, ok3, 3), PE_OK);
    ck_assert_int_eq(pe_rope_axes_check(PE_AXES_MROPE, 8, 1.0, ok3, 3), PE_ERR_ARG);
    ck_assert_int_eq(pe_rope_axes_check(PE_AXES_MROPE, 7, 10000.0, ok3, 3), PE_ERR_ARG);
    ck_assert_int_eq(pe_rope_axes_check(PE_AXES_MIXED, 8, 10000.0, NULL, 2), PE_ERR_ARG);
    /* an angle that overflows (only possible with huge mixed frequencies) */
    const double F[2] = {1e308, 0.5};
    const int64_t p[2] = {1, 10};
    double c[1], s[1];
    size_t bad = 99;
    ck_assert_int_eq(pe_rope_axes_cos_sin(F, 1, 1, p, 2, c, s, &bad), PE_ERR_NONFINITE);
    ck_assert_uint_eq(bad, 1);
    /* phi sums the axes in order: 3 * 0.1 + 5 * 0.2 */
    const double G[2] = {0.1, 0.2};
    const int64_t q[2] = {3, 5};
    ck_assert_double_eq(pe_rope_axes_angle(G, 2, 1, q, 0), 3.0 * 0.1 + 5.0 * 0.2);
}
END_TEST

/* ---- POST /rope with axes through api_handle --------------------------------------------------
 */

/* Every request goes to POST /rope; request bodies are written with ' for " (api_util.h). */
static json_t *ok(const char *body_sq)
{
    return au_ok(api_rope, body_sq);
}

static void expect_422(const char *body_sq, const char *ptr, const char *code)
{
    au_expect_422(api_rope, body_sq, ptr, code);
}

/* Runs one golden case from tests/vectors/rope2d/<file> (the oracle README tolerance rule:
 * |a - e| <= abs + rel |e| with the case's own budget; fields in tolerance.exact compared at 0). */
static void oracle_case(const char *file, const char *id)
{
    char path[128];
    snprintf(path, sizeof path, "tests/vectors/rope2d/%s", file);
    au_oracle_case(api_rope, path, id);
}

START_TEST(test_oracle_cases)
{
    oracle_case("axial.json", "rope2d-axial-ropevit-hd8-base100-grid3x3");
    oracle_case("axial.json", "rope2d-axial-ropevit-hd64-base100-deit-s-14x14");
    oracle_case("axial.json", "rope2d-axial-ropevit-relative-invariance-hd16");
    oracle_case("axial.json", "rope2d-axial-qwen2vl-vision-hd16-grid4x4-merge2");
    oracle_case("axial.json", "rope2d-axial-wan21-3d-hd128-sections-22-21-21");
    oracle_case("mrope.json", "rope2d-mrope-qwen2vl-hd128-text-image-text");
    oracle_case("mrope.json", "rope2d-mrope-hd16-sections-2-3-3-video-scalar-text");
    oracle_case("mrope.json", "rope2d-mrope-text-only-equals-1d-scalars");
    oracle_case("mrope.json", "rope2d-mrope-relative-invariance-hd32");
    oracle_case("pixtral.json", "rope2d-pixtral-hf-hd16-grid3x4");
    oracle_case("pixtral.json", "rope2d-pixtral-hf-hd64-pixtral12b-corners");
    oracle_case("pixtral.json", "rope2d-pixtral-mistral-interleaved-hd16");
    oracle_case("mixed.json", "rope2d-mixed-ropevit-hd8-init-theta10-grid3x3");
    oracle_case("mixed.json", "rope2d-mixed-relative-invariance-hd8");
    oracle_case("errors.json", "rope2d-err-tuple-wrong-length");
    oracle_case("errors.json", "rope2d-err-axes-with-yarn");
}
END_TEST

/* A pasted Qwen2-VL-7B config (rope_scaling {type: mrope, mrope_section}) resolves to axes mrope:
 * rope2d-mrope-config-paste-qwen2vl-7b; the v5 spelling (rope_parameters with rope_type default)
 * resolves the same way. */
START_TEST(test_config_paste)
{
    oracle_case("mrope.json", "rope2d-mrope-config-paste-qwen2vl-7b");
    json_t *j = ok("{'config': {'hidden_size': 64, 'num_attention_heads': 8, 'rope_parameters': "
                   "{'rope_type': 'default', 'rope_theta': 1000000.0, 'mrope_section': [1, 1, 2]}},"
                   " 'positions': [[1, 2, 3]]}");
    json_t *res = json_object_get(j, "resolved");
    json_t *ax = json_object_get(res, "axes");
    ck_assert_str_eq(json_string_value(json_object_get(ax, "type")), "mrope");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(ax, "sections"), 2)), 2);
    ck_assert_double_eq(json_number_value(json_object_get(res, "base")), 1e6);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(j, "pair_axis"), 3)), 2);
    json_decref(j);
    /* the request's own axes win (with a warning) */
    j = ok("{'config': {'head_dim': 8, 'rope_scaling': {'type': 'mrope', 'mrope_section': [1, 1, "
           "2]}}, 'axes': {'type': 'axial'}}");
    ax = json_object_get(json_object_get(j, "resolved"), "axes");
    ck_assert_str_eq(json_string_value(json_object_get(ax, "type")), "axial");
    ck_assert_int_eq(json_array_size(json_object_get(j, "warnings")), 1);
    json_decref(j);
}
END_TEST

/*
 * Closed form of one score of the half layout, head_dim 8, axial base 100 (pairs 0, 1 on axis 0
 * with w = 1, 0.1; pairs 2, 3 on axis 1 with w = 1, 0.1): for pair j with q = (a, b) (dims j,
 * j+4), k = (c, e), q.R(phi)k = (ac + be) cos(phi) + (bc - ae) sin(phi), phi = (k - q coordinates)
 * . F[:, j] = (ddx, ddy) . F[:, j].
 */
static double axial_score(const double *q, const double *k, double ddx, double ddy)
{
    const double w[4] = {1.0, 0.1, 1.0, 0.1};
    double acc = 0.0;
    for (int j = 0; j < 4; j++) {
        double a = q[j], b = q[j + 4], c = k[j], e = k[j + 4];
        double phi = (j < 2 ? ddx : ddy) * w[j];
        acc += (a * c + b * e) * cos(phi) + (b * c - a * e) * sin(phi);
    }
    return acc;
}

/*
 * 2-D axial scores depend only on (drow, dcol), and (1, 2) != (2, 1): one q and one k vector;
 * query/key pairs 0..2 have query - key = (2, 1) at different absolute places, pair 3 has (1, 2).
 * Each diagonal score matches the closed form above to 1e-13 (|score| ~ 2.5); the two closed
 * forms differ by 0.93.
 */
START_TEST(test_axial_relative)
{
    const double q[8] = {1, 0.5, 0, 0.3, 0, -1, 0, 0.2};
    const double k[8] = {1, -1.1, 0.9, 0.6, 0, 1.5, 0.8, -0.7};
    json_t *j = ok("{'head_dim': 8, 'base': 100, 'axes': {'type': 'axial'}, "
                   "'q_positions': [[2, 1], [7, 5], [12, 12], [1, 2]], "
                   "'k_positions': [[0, 0], [5, 4], [10, 11], [0, 0]], "
                   "'q': [1, 0.5, 0, 0.3, 0, -1, 0, 0.2], "
                   "'k': [1, -1.1, 0.9, 0.6, 0, 1.5, 0.8, -0.7]}");
    double s21 = axial_score(q, k, -2.0, -1.0), s12 = axial_score(q, k, -1.0, -2.0);
    for (size_t i = 0; i < 3; i++)
        ck_assert_double_eq_tol(au_num(j, "scores", i, i, -1), s21, 1e-13);
    ck_assert_double_eq_tol(au_num(j, "scores", 3, 3, -1), s12, 1e-13);
    ck_assert(fabs(s21 - s12) > 0.5);
    /* positions are echoed as tuples */
    ck_assert_int_eq(
        json_integer_value(json_array_get(json_array_get(json_object_get(j, "q_positions"), 2), 1)),
        12);
    json_decref(j);
}
END_TEST

/* mixed with freqs [[m, 0], [0, m]] equals axial number for number (m = 100^(-4k/8) = 1, 0.1),
 * and a plain integer position p means p on every axis. */
START_TEST(test_mixed_equals_axial_api)
{
    const char *tail = "'layout': 'interleaved', 'positions': [[0, 0], [3, 1], [2, 7]], "
                       "'q': [1.6243, -0.6118, -0.5282, -1.073, 0.8654, -2.3015, 1.7448, "
                       "-0.7612], 'k': [-0.4168, -0.0563, -2.1362, 1.6403, -1.7934, -0.8417, "
                       "0.5029, -1.2453], 'include': ['cos_sin']}";
    char a[1024], m[1024];
    snprintf(a, sizeof a, "{'head_dim': 8, 'base': 100, 'axes': {'type': 'axial'}, %s", tail);
    snprintf(m, sizeof m,
             "{'head_dim': 8, 'axes': {'type': 'mixed', 'freqs': [[1, 0.1, 0, 0], "
             "[0, 0, 1, 0.1]]}, %s",
             tail);
    json_t *ja = ok(a), *jm = ok(m);
    static const char *const KEYS[] = {"q_rotated", "k_rotated", "scores", "cos", "sin"};
    for (size_t k = 0; k < 5; k++)
        au_same(ja, jm, KEYS[k]);
    ck_assert_ptr_null(json_object_get(jm, "inv_freq")); /* not for mixed */
    ck_assert_ptr_null(json_object_get(jm, "pair_axis"));
    ck_assert(json_is_null(json_object_get(json_object_get(jm, "resolved"), "base")));
    json_decref(ja);
    json_decref(jm);

    json_t *p1 = ok("{'head_dim': 8, 'axes': {'type': 'mrope', 'sections': [1, 1, 2]}, "
                    "'positions': [5, 9], 'include': ['cos_sin']}");
    json_t *p2 = ok("{'head_dim': 8, 'axes': {'type': 'mrope', 'sections': [1, 1, 2]}, "
                    "'positions': [[5, 5, 5], [9, 9, 9]], 'include': ['cos_sin']}");
    au_same(p1, p2, "cos");
    au_same(p1, p2, "positions");
    json_decref(p1);
    json_decref(p2);
}
END_TEST

/* resolved.axes fills in the default sections; cos/sin rows without `positions` are the sorted
 * union of q and k tuples; seq_len alone means (i, i) for i < seq_len. */
START_TEST(test_resolved_and_rows)
{
    json_t *j = ok("{'head_dim': 8, 'axes': {'type': 'axial'}, 'q_positions': [[1, 2], [0, 5]], "
                   "'k_positions': [[1, 2], [0, 0]], 'q': [1, 0, 0, 0, 0, 0, 0, 0], "
                   "'k': [0, 1, 0, 0, 0, 0, 0, 0], 'include': ['cos_sin']}");
    json_t *ax = json_object_get(json_object_get(j, "resolved"), "axes");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(ax, "sections"), 0)), 2);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(ax, "sections"), 1)), 2);
    json_t *rows = json_object_get(j, "positions");
    ck_assert_uint_eq(json_array_size(rows), 3); /* (0,0), (0,5), (1,2) */
    ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(rows, 1), 1)), 5);
    ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(rows, 2), 0)), 1);
    ck_assert_double_eq(au_num(j, "cos", 0, 0, -1), 1.0); /* (0, 0): no turn */
    json_decref(j);
    j = ok("{'head_dim': 4, 'axes': {'type': 'axial'}, 'seq_len': 3, 'include': ['cos_sin']}");
    rows = json_object_get(j, "positions");
    ck_assert_uint_eq(json_array_size(rows), 3);
    ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(rows, 2), 1)), 2);
    /* (2, 2) with F = [[1, 0], [0, 1]]: both pairs turn by 2 */
    ck_assert_double_eq(au_num(j, "cos", 2, 0, -1), cos(2.0));
    ck_assert_double_eq(au_num(j, "cos", 2, 1, -1), cos(2.0));
    json_decref(j);
}
END_TEST

/*
 * Interleaved M-RoPE from a pasted config (Qwen3-VL: rope_scaling.mrope_interleaved with
 * mrope_section), by HF's apply_interleaved_mrope: pair j takes axis h when j % 3 == 1 and
 * j < 3 s_1, w when j % 3 == 2 and j < 3 s_2, else t. head_dim 8, sections [2, 1, 1]: pairs 0..3
 * -> t, h, w, t; frequencies 10000^(-2j/8) = 10^-j. Position (t, h, w) = (1, 2, 3): angles
 * 1 x 1, 2 x 0.1, 3 x 0.01, 1 x 0.001. The same through axes {"type": "mrope_interleaved"}.
 */
START_TEST(test_mrope_interleaved)
{
    static const char *const BODIES[] = {
        "{'config': {'head_dim': 8, 'rope_scaling': {'rope_type': 'default', 'mrope_section': [2,"
        " 1, 1], 'mrope_interleaved': true}}, 'positions': [[1, 2, 3]], 'include': ['cos_sin']}",
        "{'head_dim': 8, 'axes': {'type': 'mrope_interleaved', 'sections': [2, 1, 1]},"
        " 'positions': [[1, 2, 3]], 'include': ['cos_sin']}"};
    const double phi[] = {1.0, 2 * 0.1, 3 * 0.01, 1 * 0.001};
    const int64_t axis[] = {0, 1, 2, 0};
    for (size_t b = 0; b < 2; b++) {
        json_t *j = ok(BODIES[b]);
        const json_t *c = json_array_get(json_object_get(j, "cos"), 0);
        const json_t *pa = json_object_get(j, "pair_axis");
        for (size_t k = 0; k < 4; k++) {
            ck_assert_int_eq(json_integer_value(json_array_get(pa, k)), axis[k]);
            ck_close(au_number(json_array_get(c, k)), cos(phi[k]), 1e-15, 0);
        }
        const json_t *ax = json_object_get(json_object_get(j, "resolved"), "axes");
        ck_assert_str_eq(json_string_value(json_object_get(ax, "type")), "mrope_interleaved");
        json_decref(j);
    }
}
END_TEST

START_TEST(test_errors)
{
    /* the doc's combinations */
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial'}, 'scaling': {'type': 'linear', "
               "'factor': 2}, 'positions': [[0, 0]]}",
               "/scaling", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial'}, 'rope_scaling': {'rope_type': "
               "'mrope'}, 'positions': [[0, 0]]}",
               "/rope_scaling", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial'}, 'inv_freq': [1, 1, 1, 1]}", "/inv_freq",
               "invalid-field");
    expect_422("{'head_dim': 8, 'rope_theta': 100, 'axes': {'type': 'mixed', 'freqs': "
               "[[1, 0, 0, 0]]}}",
               "/rope_theta", "invalid-field");
    expect_422("{'head_dim': 10, 'axes': {'type': 'pixtral'}}", "/head_dim", "invalid-field");
    expect_422("{'head_dim': 16, 'rotary_dim': 10, 'axes': {'type': 'pixtral'}}", "/rotary_dim",
               "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial', 'freq': []}}", "/axes/freq",
               "unknown-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial'}, 'positions': [[0, 0]], "
               "'include': ['cos_sin', 'decay'], 'distances': [1]}",
               "/distances", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial'}, 'positions': [[0, 0]], "
               "'include': ['cos_sin', 'bands']}",
               "/include/1", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'pixtral', 'sections': [2, 2]}}", "/axes/sections",
               "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial', 'freqs': [[1, 1, 1, 1]]}}", "/axes/freqs",
               "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {}}", "/axes/type", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'mrope', 'sections': [2, 0, 2]}}",
               "/axes/sections/1", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'mixed', 'freqs': [[1, 0, 0, 0], [0, 0, 1]]}}",
               "/axes/freqs/1", "invalid-field");
    /* positions */
    expect_422("{'head_dim': 8, 'positions': [[0, 1]]}", "/positions/0", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial'}, 'positions': [[0, -1]]}",
               "/positions/0/1", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial'}, 'q_positions': [[0, 0], 'x']}",
               "/q_positions/1", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial'}, 'positions': [[0, 4]], 'seq_len': 4}",
               "/seq_len", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'axial'}, 'positions': [[0, 4]], "
               "'q': [[1, 0, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0]]}",
               "/q", "invalid-field");
    /* a config with context-extension scaling next to mrope_section */
    expect_422("{'config': {'head_dim': 8, 'rope_scaling': {'type': 'yarn', 'factor': 2, "
               "'mrope_section': [1, 1, 2]}}}",
               "/config/rope_scaling/type", "invalid-field");
    expect_422("{'config': {'head_dim': 8, 'rope_scaling': {'rope_type': 'default', "
               "'mrope_section': [2, 2], 'mrope_interleaved': true}}}",
               "/config/rope_scaling/mrope_section", "invalid-field");
    expect_422("{'head_dim': 8, 'axes': {'type': 'mrope_interleaved'}}", "/axes/sections",
               "invalid-field");
    expect_422("{'config': {'head_dim': 8, 'rope_scaling': {'type': 'mrope', "
               "'mrope_section': [1, 1, 1]}}}",
               "/config/rope_scaling/mrope_section", "invalid-field");
    /* an overflowing mixed angle names the frequencies */
    expect_422("{'head_dim': 2, 'axes': {'type': 'mixed', 'freqs': [[1e308]]}, "
               "'positions': [[10]], 'include': ['cos_sin']}",
               "/axes/freqs", "invalid-field");
}
END_TEST

Suite *rope_axes_suite(void)
{
    Suite *s = suite_create("rope_axes");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_axial_ropevit_hd8);
    tcase_add_test(core, test_axial_wan21_sections);
    tcase_add_test(core, test_mrope_equal_coords_is_1d);
    tcase_add_test(core, test_pixtral_permutation);
    tcase_add_test(core, test_mixed_equals_axial_core);
    tcase_add_test(core, test_core_rejects);
    suite_add_tcase(s, core);
    TCase *api = tcase_create("api");
    tcase_add_checked_fixture(api, au_setup, au_teardown);
    tcase_add_test(api, test_oracle_cases);
    tcase_add_test(api, test_config_paste);
    tcase_add_test(api, test_axial_relative);
    tcase_add_test(api, test_mixed_equals_axial_api);
    tcase_add_test(api, test_resolved_and_rows);
    tcase_add_test(api, test_mrope_interleaved);
    tcase_add_test(api, test_errors);
    suite_add_tcase(s, api);
    return s;
}

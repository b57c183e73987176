/*
 * tests/core/check_t5.c -- core/t5: T5 relative position buckets (HF `_relative_position_bucket`),
 * bidirectional and causal, default and other sizes, the exact-integer boundary trap, huge
 * distances and the parameter checks.
 *
 * Expected values: oracle cases named in the comments (tests/vectors/t5/<name>.json; buckets are
 * compared exactly, as the oracle states) and hand derivations.
 */
#include <check.h>
#include <stdint.h>

#include "core/t5.h"

Suite *t5_suite(void);

static pe_t5_params t5p(int bidirectional, size_t num_buckets, size_t max_distance)
{
    pe_t5_params p;
    pe_t5_params_init(&p);
    p.bidirectional = bidirectional;
    p.num_buckets = num_buckets;
    p.max_distance = max_distance;
    return p;
}

/* clang-format off */
/* ---- oracle data (from tests/vectors/t5/<name>.json; case ids in the comments) ---- */

/* t5-bidir-small (buckets_bidirectional.json)
 * bidirectional True, num_buckets 32, max_distance 128 */
static const int64_t R_0[] = {
    -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9,
    -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3,
    4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20,
};
static const size_t X_0[] = {
    10, 10, 10, 10, 10, 9, 9, 9, 9, 8, 8, 8, 8, 7, 6, 5,
    4, 3, 2, 1, 0, 17, 18, 19, 20, 21, 22, 23, 24, 24, 24, 24,
    25, 25, 25, 25, 26, 26, 26, 26, 26,
};
/* t5-bidir-full (buckets_bidirectional.json)
 * bidirectional True, num_buckets 32, max_distance 128 */
static const int64_t R_1[] = {
    -200, -199, -198, -197, -196, -195, -194, -193, -192, -191, -190, -189,
    -188, -187, -186, -185, -184, -183, -182, -181, -180, -179, -178, -177,
    -176, -175, -174, -173, -172, -171, -170, -169, -168, -167, -166, -165,
    -164, -163, -162, -161, -160, -159, -158, -157, -156, -155, -154, -153,
    -152, -151, -150, -149, -148, -147, -146, -145, -144, -143, -142, -141,
    -140, -139, -138, -137, -136, -135, -134, -133, -132, -131, -130, -129,
    -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117,
    -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105,
    -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93,
    -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81,
    -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69,
    -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57,
    -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45,
    -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33,
    -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21,
    -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9,
    -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3,
    4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
    28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
    40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
    64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75,
    76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87,
    88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99,
    100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111,
    112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123,
    124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135,
    136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147,
    148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159,
    160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171,
    172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183,
    184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195,
    196, 197, 198, 199, 200,
};
static const size_t X_1[] = {
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 14, 14,
    14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,
    14, 14, 14, 14, 14, 14, 14, 14, 14, 13, 13, 13, 13, 13, 13, 13,
    13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 11, 11, 11, 11, 11, 11, 11,
    11, 11, 10, 10, 10, 10, 10, 10, 10, 9, 9, 9, 9, 8, 8, 8,
    8, 7, 6, 5, 4, 3, 2, 1, 0, 17, 18, 19, 20, 21, 22, 23,
    24, 24, 24, 24, 25, 25, 25, 25, 26, 26, 26, 26, 26, 26, 26, 27,
    27, 27, 27, 27, 27, 27, 27, 27, 28, 28, 28, 28, 28, 28, 28, 28,
    28, 28, 28, 28, 28, 28, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29,
    29, 29, 29, 29, 29, 29, 29, 29, 30, 30, 30, 30, 30, 30, 30, 30,
    30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
    30, 30, 30, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31,
};
/* t5-bidir-nb16-md64 (buckets_bidirectional.json)
 * bidirectional True, num_buckets 16, max_distance 64 */
static const int64_t R_2[] = {
    -70, -67, -64, -61, -58, -55, -52, -49, -46, -43, -40, -37,
    -34, -31, -28, -25, -22, -19, -16, -13, -10, -7, -4, -1,
    2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35,
    38, 41, 44, 47, 50, 53, 56, 59, 62, 65, 68,
};
static const size_t X_2[] = {
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 6, 6, 6,
    6, 6, 6, 5, 5, 4, 4, 1, 10, 12, 13, 13, 13, 14, 14, 14,
    14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
};
/* t5-bidir-huge (buckets_bidirectional.json)
 * bidirectional True, num_buckets 32, max_distance 128 */
static const int64_t R_3[] = {
    -100000, -1000, -129, 129, 1000, 100000,
};
static const size_t X_3[] = {
    15, 15, 15, 31, 31, 31,
};
/* t5-causal-small (buckets_causal.json)
 * bidirectional False, num_buckets 32, max_distance 128 */
static const int64_t R_4[] = {
    -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9,
    -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3,
    4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20,
};
static const size_t X_4[] = {
    17, 17, 16, 16, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5,
    4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0,
};
/* t5-causal-selection (buckets_causal.json)
 * bidirectional False, num_buckets 32, max_distance 128 */
static const int64_t R_5[] = {
    -200, -150, -129, -128, -127, -91, -90, -65, -64, -63, -46, -45,
    -33, -32, -31, -23, -22, -17, -16, -15, -12, -11, -9, -8,
    -7, -2, -1, 0, 1, 2, 7, 8, 9, 11, 12, 15,
    16, 17, 22, 23, 31, 32, 33, 45, 46, 63, 64, 65,
    90, 91, 127, 128, 129, 150, 200,
};
static const size_t X_5[] = {
    31, 31, 31, 31, 31, 29, 29, 26, 26, 26, 24, 23, 21, 21, 21, 18,
    18, 16, 16, 15, 12, 11, 9, 8, 7, 2, 1, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0,
};
/* t5-causal-nb64-md256 (buckets_causal.json)
 * bidirectional False, num_buckets 64, max_distance 256 */
static const int64_t R_6[] = {
    -300, -256, -255, -200, -128, -100, -64, -63, -40, -33, -32, -31,
    -1, 0, 5,
};
static const size_t X_6[] = {
    63, 63, 63, 60, 53, 49, 42, 42, 35, 32, 32, 31, 1, 0, 0,
};
/* t5-matrix-bidir-q3-k20 (buckets_matrix.json) */
static const int64_t Q_7[] = {0, 1, 2};
static const int64_t K_7[] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 19,
};
static const size_t X_7[] = {
    0, 17, 18, 19, 20, 21, 22, 23, 24, 24, 24, 24, 25, 25, 25, 25, 26, 26, 26, 26,
    1, 0, 17, 18, 19, 20, 21, 22, 23, 24, 24, 24, 24, 25, 25, 25, 25, 26, 26, 26,
    2, 1, 0, 17, 18, 19, 20, 21, 22, 23, 24, 24, 24, 24, 25, 25, 25, 25, 26, 26,
};
/* t5-matrix-bidir-q100-k-spread (buckets_matrix.json) */
static const int64_t Q_8[] = {100};
static const int64_t K_8[] = {
    0, 20, 36, 52, 68, 84, 92, 99, 100, 101, 108, 116, 132, 164, 228, 300,
};
static const size_t X_8[] = {
    15, 14, 14, 13, 12, 10, 8, 1, 0, 17, 24, 26, 28, 30, 31, 31,
};
/* clang-format on */

typedef struct {
    const char *id;
    int bidirectional;
    size_t num_buckets, max_distance;
    const int64_t *rel;
    size_t n;
    const size_t *expected;
} list_case;

/* clang-format off */
#define LIST(id, bi, nb, md, r, x) {id, bi, nb, md, r, sizeof r / sizeof r[0], x}
static const list_case LIST_CASES[] = {
    LIST("t5-bidir-small", 1, 32, 128, R_0, X_0),
    LIST("t5-bidir-full", 1, 32, 128, R_1, X_1),
    LIST("t5-bidir-nb16-md64", 1, 16, 64, R_2, X_2),
    LIST("t5-bidir-huge", 1, 32, 128, R_3, X_3),
    LIST("t5-causal-small", 0, 32, 128, R_4, X_4),
    LIST("t5-causal-selection", 0, 32, 128, R_5, X_5),
    LIST("t5-causal-nb64-md256", 0, 64, 256, R_6, X_6),
};
/* clang-format on */

START_TEST(test_oracle_lists)
{
    for (size_t c = 0; c < sizeof LIST_CASES / sizeof LIST_CASES[0]; c++) {
        const list_case *tc = &LIST_CASES[c];
        pe_t5_params p = t5p(tc->bidirectional, tc->num_buckets, tc->max_distance);
        size_t out[512];
        ck_assert_uint_le(tc->n, 512);
        ck_assert_int_eq(pe_t5_buckets(&p, tc->rel, tc->n, out), PE_OK);
        for (size_t e = 0; e < tc->n; e++)
            ck_assert_msg(out[e] == tc->expected[e], "%s: r = %lld -> %zu, want %zu", tc->id,
                          (long long)tc->rel[e], out[e], tc->expected[e]);
    }
}
END_TEST

/* buckets_matrix.json: out[a][b] = bucket(key[b] - query[a]), defaults. */
START_TEST(test_oracle_matrix)
{
    pe_t5_params p;
    pe_t5_params_init(&p);
    size_t out[64];
    ck_assert_int_eq(pe_t5_bucket_matrix(&p, Q_7, 3, K_7, 20, out), PE_OK);
    for (size_t e = 0; e < 60; e++)
        ck_assert_msg(out[e] == X_7[e], "t5-matrix-bidir-q3-k20 [%zu]: %zu want %zu", e, out[e],
                      X_7[e]);
    ck_assert_int_eq(pe_t5_bucket_matrix(&p, Q_8, 1, K_8, 16, out), PE_OK);
    for (size_t e = 0; e < 16; e++)
        ck_assert_msg(out[e] == X_8[e], "t5-matrix-bidir-q100-k-spread [%zu]: %zu want %zu", e,
                      out[e], X_8[e]);
}
END_TEST

/*
 * Default bidirectional table (docs/conventions.md#t5-buckets): B = 16, E = 8, past keys (r = -n):
 * n = 0..7 -> n; then the first n of buckets 8..15 are 8, 12, 16, 23, 32, 46, 64, 91
 * (n >= ceil(8 * 16^(t/8)) for bucket 8 + t). Future keys (r = +n) add 16 (r = +1 -> 17).
 * Checked for every n up to 5000.
 * Causal default (B = 32, E = 16): n < 16 -> n; bucket 16 + t starts at ceil(16 * 8^(t/16)):
 * 16, 19, 21, 24, 27, 31, 35, 40, 46, 52, 59, 67, 77, 87, 99, 113; every future key -> 0.
 */
static size_t from_starts(uint64_t n, const uint64_t *starts, size_t n_starts, size_t first)
{
    if (n < first)
        return (size_t)n;
    size_t t = 0;
    while (t + 1 < n_starts && n >= starts[t + 1])
        t++;
    return first + t;
}

START_TEST(test_default_tables)
{
    static const uint64_t bi[8] = {8, 12, 16, 23, 32, 46, 64, 91};
    static const uint64_t ca[16] = {16, 19, 21, 24, 27, 31, 35, 40,
                                    46, 52, 59, 67, 77, 87, 99, 113};
    pe_t5_params p;
    pe_t5_params_init(&p);
    pe_t5_params c = t5p(0, 32, 128);
    for (int64_t n = 0; n <= 5000; n++) {
        size_t want = from_starts((uint64_t)n, bi, 8, 8);
        ck_assert_msg(pe_t5_bucket(&p, -n) == want, "bidirectional r = %lld", (long long)-n);
        if (n > 0)
            ck_assert_msg(pe_t5_bucket(&p, n) == want + 16, "bidirectional r = %lld", (long long)n);
        ck_assert_msg(pe_t5_bucket(&c, -n) == from_starts((uint64_t)n, ca, 16, 16),
                      "causal r = %lld", (long long)-n);
        ck_assert_msg(pe_t5_bucket(&c, n) == 0, "causal future r = %lld", (long long)n);
    }
    ck_assert_uint_eq(pe_t5_bucket(&p, 1), 17);
    ck_assert_uint_eq(pe_t5_bucket(&p, 0), 0);
    ck_assert_uint_eq(pe_t5_bucket(&c, 0), 0);
    ck_assert_uint_eq(pe_t5_bucket(&c, -18), 16);
    ck_assert_uint_eq(pe_t5_bucket(&c, -112), 30);
    ck_assert_uint_eq(pe_t5_bucket(&c, -113), 31);
}
END_TEST

/*
 * The boundary trap. Defaults: n = 16, 32, 64 give ln(n/8)/ln(16) * 8 = 2, 4, 6 exactly ->
 * buckets 10, 12, 14 (and 26, 28, 30 for future keys); n - 1 stays in the bucket below.
 * Non-default sizes where a plain float64 evaluation lands one ulp below the integer (found by a
 * search; the plain result is given in brackets):
 *   bidirectional, 18 buckets, max_distance 128: B = 9, E = 4, B - E = 5;
 *     n = 8:  ln 2 / ln 32 * 5 = 1 [0.9999999999999999] -> bucket 5;
 *     n = 16: ln 4 / ln 32 * 5 = 2 [1.9999999999999998] -> 6;
 *     n = 64: ln 16 / ln 32 * 5 = 4 [3.9999999999999996] -> 8; n - 1 -> 4, 5, 7.
 *   causal, 9 buckets, max_distance 128: the same B, E -> the same buckets.
 *   causal, 19 buckets, max_distance 16: B = 19, E = 9, n = 12:
 *     ln(4/3) / ln(16/9) * 10 = 5 [4.999999999999999] -> 14; n = 11: 3.49 -> 12.
 */
START_TEST(test_boundary_trap)
{
    pe_t5_params p;
    pe_t5_params_init(&p);
    ck_assert_uint_eq(pe_t5_bucket(&p, -16), 10);
    ck_assert_uint_eq(pe_t5_bucket(&p, -32), 12);
    ck_assert_uint_eq(pe_t5_bucket(&p, -64), 14);
    ck_assert_uint_eq(pe_t5_bucket(&p, 16), 26);
    ck_assert_uint_eq(pe_t5_bucket(&p, 32), 28);
    ck_assert_uint_eq(pe_t5_bucket(&p, 64), 30);
    ck_assert_uint_eq(pe_t5_bucket(&p, -15), 9);
    ck_assert_uint_eq(pe_t5_bucket(&p, -31), 11);
    ck_assert_uint_eq(pe_t5_bucket(&p, -63), 13);
    pe_t5_params b18 = t5p(1, 18, 128);
    pe_t5_params c9 = t5p(0, 9, 128);
    static const int64_t n[6] = {8, 16, 64, 7, 15, 63};
    static const size_t want[6] = {5, 6, 8, 4, 5, 7};
    for (int i = 0; i < 6; i++) {
        ck_assert_uint_eq(pe_t5_bucket(&b18, -n[i]), want[i]);
        ck_assert_uint_eq(pe_t5_bucket(&b18, n[i]), want[i] + 9);
        ck_assert_uint_eq(pe_t5_bucket(&c9, -n[i]), want[i]);
    }
    pe_t5_params c19 = t5p(0, 19, 16);
    ck_assert_uint_eq(pe_t5_bucket(&c19, -12), 14);
    ck_assert_uint_eq(pe_t5_bucket(&c19, -11), 12);
}
END_TEST

/* Distances up to the int64 limits: no overflow, last bucket of each side. */
START_TEST(test_huge)
{
    pe_t5_params p;
    pe_t5_params_init(&p);
    pe_t5_params c = t5p(0, 32, 128);
    ck_assert_uint_eq(pe_t5_bucket(&p, INT64_MIN), 15);
    ck_assert_uint_eq(pe_t5_bucket(&p, INT64_MAX), 31);
    ck_assert_uint_eq(pe_t5_bucket(&p, -INT64_C(2147483647)), 15);
    ck_assert_uint_eq(pe_t5_bucket(&p, INT64_C(2147483647)), 31);
    ck_assert_uint_eq(pe_t5_bucket(&p, -128), 15);
    ck_assert_uint_eq(pe_t5_bucket(&p, -127), 15); /* >= 91 already */
    ck_assert_uint_eq(pe_t5_bucket(&c, INT64_MIN), 31);
    ck_assert_uint_eq(pe_t5_bucket(&c, INT64_MAX), 0);
    static const int64_t q[1] = {INT64_C(2147483646)};
    static const int64_t k[2] = {0, INT64_C(2147483646)};
    size_t out[2];
    ck_assert_int_eq(pe_t5_bucket_matrix(&p, q, 1, k, 2, out), PE_OK);
    ck_assert_uint_eq(out[0], 15);
    ck_assert_uint_eq(out[1], 0);
    /* a difference that does not fit in int64 */
    static const int64_t qn[1] = {-2};
    static const int64_t kx[1] = {INT64_MAX};
    ck_assert_int_eq(pe_t5_bucket_matrix(&p, qn, 1, kx, 1, out), PE_ERR_RANGE);
    static const int64_t qx[1] = {INT64_MAX};
    static const int64_t kn[1] = {-2};
    ck_assert_int_eq(pe_t5_bucket_matrix(&p, qx, 1, kn, 1, out), PE_ERR_RANGE);
}
END_TEST

/* Parameter checks: E = B/2 >= 1 and max_distance > E. */
START_TEST(test_check)
{
    pe_t5_params p;
    ck_assert_int_eq(pe_t5_check(NULL), PE_ERR_ARG);
    p = t5p(1, 0, 128);
    ck_assert_int_eq(pe_t5_check(&p), PE_ERR_ARG);
    p = t5p(1, 3, 128); /* B = 1, E = 0 */
    ck_assert_int_eq(pe_t5_check(&p), PE_ERR_ARG);
    p = t5p(1, 4, 128);
    ck_assert_int_eq(pe_t5_check(&p), PE_OK);
    p = t5p(0, 1, 128);
    ck_assert_int_eq(pe_t5_check(&p), PE_ERR_ARG);
    p = t5p(0, 2, 128);
    ck_assert_int_eq(pe_t5_check(&p), PE_OK);
    p = t5p(1, 32, 8); /* E = 8: ln(max_distance/E) = 0 */
    ck_assert_int_eq(pe_t5_check(&p), PE_ERR_ARG);
    p = t5p(1, 32, 9);
    ck_assert_int_eq(pe_t5_check(&p), PE_OK);
    size_t out[1] = {77};
    static const int64_t r[1] = {5};
    p = t5p(1, 2, 128);
    ck_assert_int_eq(pe_t5_buckets(&p, r, 1, out), PE_ERR_ARG);
    ck_assert_int_eq(pe_t5_bucket_matrix(&p, r, 1, r, 1, out), PE_ERR_ARG);
    ck_assert_uint_eq(out[0], 77);
    /* smallest causal configuration: B = 2, E = 1, max_distance 2: n 0 -> 0, n >= 1 -> 1 */
    p = t5p(0, 2, 2);
    ck_assert_uint_eq(pe_t5_bucket(&p, 0), 0);
    ck_assert_uint_eq(pe_t5_bucket(&p, -1), 1);
    ck_assert_uint_eq(pe_t5_bucket(&p, -1000), 1);
}
END_TEST

Suite *t5_suite(void)
{
    Suite *s = suite_create("t5");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_oracle_lists);
    tcase_add_test(tc, test_oracle_matrix);
    tcase_add_test(tc, test_default_tables);
    tcase_add_test(tc, test_boundary_trap);
    tcase_add_test(tc, test_huge);
    tcase_add_test(tc, test_check);
    suite_add_tcase(s, tc);
    return s;
}

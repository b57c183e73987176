/*
 * tests/core/check_learned.c -- core/learned: the three extend rules on hand-derived positions, the
 * exact source coordinate of interpolation, and the documented demo-512x64 generator.
 * Tolerances: row copies and on-grid interpolation are exact (ck_assert_double_eq / memcmp);
 * off-grid rows mix entries that are small integers, so (1-f)a + fb with f = 1/2 is exact too.
 * The generator is compared at 1e-17 absolute (values ~0.02; glibc libm on both sides).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/learned.h"

#define ROWS 512
#define COLS 4

static double *table; /* entry [r][c] = 1000 r + c: every row distinct, every value exact */

static void setup(void)
{
    table = malloc(ROWS * COLS * sizeof *table);
    ck_assert_ptr_nonnull(table);
    for (size_t r = 0; r < ROWS; r++)
        for (size_t c = 0; c < COLS; c++)
            table[r * COLS + c] = 1000.0 * (double)r + (double)c;
}

static void teardown(void)
{
    free(table);
}

static pe_learned_params params(pe_learned_extend ext, uint64_t target)
{
    pe_learned_params p = {table, ROWS, COLS, ext, target};
    return p;
}

START_TEST(test_error)
{
    pe_learned_params p = params(PE_LEARNED_ERROR, 0);
    ck_assert_int_eq(pe_learned_check(&p), PE_OK);
    ck_assert_uint_eq(pe_learned_limit(&p), 512);
    double row[COLS], sentinel[COLS] = {-1, -1, -1, -1};
    ck_assert_int_eq(pe_learned_row(&p, 511, row), PE_OK);
    ck_assert_double_eq(row[3], 511003.0);
    memcpy(row, sentinel, sizeof row);
    ck_assert_int_eq(pe_learned_row(&p, 512, row), PE_ERR_RANGE); /* the learned table's limit */
    ck_assert_int_eq(memcmp(row, sentinel, sizeof row), 0);       /* untouched */
    ck_assert_int_eq(pe_learned_row(&p, -1, row), PE_ERR_RANGE);
}
END_TEST

/* copy: row p = table[p mod 512]; 600 - 512 = 88, 1024 = 2 * 512 → row 0, 4095 → 4095 - 3584 = 511.
 */
START_TEST(test_copy)
{
    pe_learned_params p = params(PE_LEARNED_COPY, 0);
    ck_assert_uint_eq(pe_learned_limit(&p), UINT64_MAX);
    double row[COLS];
    static const struct {
        int64_t pos;
        size_t src;
    } CASES[] = {{600, 88}, {1024, 0}, {4095, 511}, {88, 88}, {INT64_MAX, 511}};
    /* INT64_MAX = 2^63 - 1 ≡ -1 ≡ 511 (mod 512) */
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        ck_assert_int_eq(pe_learned_row(&p, CASES[i].pos, row), PE_OK);
        ck_assert_int_eq(memcmp(row, table + CASES[i].src * COLS, sizeof row), 0);
    }
}
END_TEST

/*
 * interpolate, 512 rows → L = 1023: x = i (512-1)/(1023-1) = i * 511/1022 = i/2. So position
 * 2 sits exactly on table row 1 (x = 1), position 1022 on row 511 (the last), and position 3
 * halfway between rows 1 and 2: 0.5 (1000 + c) + 0.5 (2000 + c) = 1500 + c.
 */
START_TEST(test_interpolate_1023)
{
    pe_learned_params p = params(PE_LEARNED_INTERPOLATE, 1023);
    ck_assert_int_eq(pe_learned_check(&p), PE_OK);
    ck_assert_uint_eq(pe_learned_limit(&p), 1023);
    double row[COLS];
    ck_assert_int_eq(pe_learned_row(&p, 2, row), PE_OK);
    ck_assert_int_eq(memcmp(row, table + 1 * COLS, sizeof row), 0); /* bit for bit */
    ck_assert_int_eq(pe_learned_row(&p, 1022, row), PE_OK);
    ck_assert_int_eq(memcmp(row, table + 511 * COLS, sizeof row), 0);
    ck_assert_int_eq(pe_learned_row(&p, 3, row), PE_OK);
    for (size_t c = 0; c < COLS; c++)
        ck_assert_double_eq(row[c], 1500.0 + (double)c);
    ck_assert_int_eq(pe_learned_row(&p, 1023, row), PE_ERR_RANGE);
    size_t j;
    double f;
    pe_learned_source(&p, 3, &j, &f);
    ck_assert_uint_eq(j, 1);
    ck_assert_double_eq(f, 0.5);
}
END_TEST

/*
 * Other grids: L = rows is the identity (x = i); 512 → 1024 gives x = i 511/1023, so i = 1023 is
 * the last row and i = 1 sits at 511/1023 of the way from row 0 to row 1:
 * 1000 * 511/1023 + c (to 1 ulp, the rounding of f and of the sum). L = 2 takes rows 0 and 511.
 */
START_TEST(test_interpolate_grids)
{
    double row[COLS];
    pe_learned_params p = params(PE_LEARNED_INTERPOLATE, ROWS);
    for (int64_t i = 0; i < ROWS; i += 37) {
        ck_assert_int_eq(pe_learned_row(&p, i, row), PE_OK);
        ck_assert_int_eq(memcmp(row, table + i * COLS, sizeof row), 0);
    }
    p = params(PE_LEARNED_INTERPOLATE, 1024);
    ck_assert_int_eq(pe_learned_row(&p, 1023, row), PE_OK);
    ck_assert_int_eq(memcmp(row, table + 511 * COLS, sizeof row), 0);
    ck_assert_int_eq(pe_learned_row(&p, 1, row), PE_OK);
    ck_assert_double_eq_tol(row[0], 1000.0 * 511.0 / 1023.0, 1e-12);
    ck_assert_double_eq_tol(row[2], 1000.0 * 511.0 / 1023.0 + 2.0, 1e-12);
    p = params(PE_LEARNED_INTERPOLATE, 2);
    ck_assert_int_eq(pe_learned_row(&p, 0, row), PE_OK);
    ck_assert_double_eq(row[1], 1.0);
    ck_assert_int_eq(pe_learned_row(&p, 1, row), PE_OK);
    ck_assert_double_eq(row[1], 511001.0);
    /* a 1-row table resampled: every position is that row */
    double one[2] = {0.25, -0.5}, out[2];
    pe_learned_params q = {one, 1, 2, PE_LEARNED_INTERPOLATE, 9};
    ck_assert_int_eq(pe_learned_row(&q, 8, out), PE_OK);
    ck_assert_double_eq(out[0], 0.25);
    ck_assert_double_eq(out[1], -0.5);
}
END_TEST

/* i (rows-1) beyond 64 bits takes the long double path: with rows = L = 2^40 + 1, x = i. */
START_TEST(test_source_large)
{
    uint64_t big = (1ULL << 40) + 1;
    pe_learned_params p = {table, (size_t)big, 1, PE_LEARNED_INTERPOLATE, big};
    size_t j;
    double f;
    uint64_t i = (1ULL << 30) + 3; /* i * 2^40 > 2^64 */
    pe_learned_source(&p, i, &j, &f);
    ck_assert_uint_eq(j, i);
    ck_assert_double_eq(f, 0.0);
    pe_learned_source(&p, big - 1, &j, &f);
    ck_assert_uint_eq(j, big - 1);
    ck_assert_double_eq(f, 0.0);
}
END_TEST

START_TEST(test_check)
{
    pe_learned_params p = params(PE_LEARNED_INTERPOLATE, 1);
    ck_assert_int_eq(pe_learned_check(&p), PE_ERR_ARG); /* L >= 2 */
    double row[COLS];
    ck_assert_int_eq(pe_learned_row(&p, 0, row), PE_ERR_ARG);
    p = params(PE_LEARNED_ERROR, 0);
    p.rows = 0;
    ck_assert_int_eq(pe_learned_check(&p), PE_ERR_ARG);
    p = params(PE_LEARNED_ERROR, 0);
    p.cols = 0;
    ck_assert_int_eq(pe_learned_check(&p), PE_ERR_ARG);
    p = params(PE_LEARNED_ERROR, 0);
    p.data = NULL;
    ck_assert_int_eq(pe_learned_check(&p), PE_ERR_ARG);
    p = params((pe_learned_extend)7, 0);
    ck_assert_int_eq(pe_learned_check(&p), PE_ERR_ARG);
    ck_assert_int_eq(pe_learned_check(NULL), PE_ERR_ARG);
}
END_TEST

/*
 * demo-512x64: the first four values, computed independently (Python 3, the same splitmix64 and
 * Box-Muller, seed 0x706F73656E63, as documented in learned.h), and the sample's spread.
 */
START_TEST(test_demo_generator)
{
    double *x = malloc(512 * 64 * sizeof *x);
    ck_assert_ptr_nonnull(x);
    pe_learned_demo_fill(x, 512 * 64, PE_LEARNED_DEMO_SEED, 0.02);
    ck_assert_double_eq_tol(x[0], -0.013736620321007715, 1e-17);
    ck_assert_double_eq_tol(x[1], 0.01596713336266005, 1e-17);
    ck_assert_double_eq_tol(x[2], 0.003080420063703369, 1e-17);
    ck_assert_double_eq_tol(x[3], 0.038524045554766635, 1e-17);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < 512 * 64; i++) {
        ck_assert(isfinite(x[i]));
        sum += x[i];
        sq += x[i] * x[i];
    }
    double n = 512.0 * 64.0, mean = sum / n, sd = sqrt(sq / n - mean * mean);
    /* 32768 draws of N(0, 0.02^2): mean within 5 standard errors (5 * 0.02/181), sd within 3 % */
    ck_assert_double_eq_tol(mean, 0.0, 5.0 * 0.02 / 181.0);
    ck_assert_double_eq_tol(sd, 0.02, 0.0006);
    /* deterministic: a second fill is identical; another seed is not */
    double *y = malloc(512 * 64 * sizeof *y);
    ck_assert_ptr_nonnull(y);
    pe_learned_demo_fill(y, 512 * 64, PE_LEARNED_DEMO_SEED, 0.02);
    ck_assert_int_eq(memcmp(x, y, 512 * 64 * sizeof *x), 0);
    pe_learned_demo_fill(y, 3, 1, 0.02); /* odd n: the last sine is dropped, nothing overrun */
    ck_assert(y[0] != x[0]);
    free(x);
    free(y);
}
END_TEST

Suite *learned_suite(void)
{
    Suite *s = suite_create("learned");
    TCase *tc = tcase_create("rows");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_error);
    tcase_add_test(tc, test_copy);
    tcase_add_test(tc, test_interpolate_1023);
    tcase_add_test(tc, test_interpolate_grids);
    tcase_add_test(tc, test_source_large);
    tcase_add_test(tc, test_check);
    tcase_add_test(tc, test_demo_generator);
    suite_add_tcase(s, tc);
    return s;
}

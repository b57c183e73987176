/*
 * tests/api/check_api_learned.c -- POST /learned and the /attention method "learned" through
 * api_handle (pure, no sockets), with a fake table source in api_ctx.tables: lookups under the
 * three extend rules (hand-derived rows), every 422 with its pointer, and balanced
 * acquire/release on every path.
 * Tolerances: rows are copied or interpolated on the grid or at f = 1/2 between small binary
 * fractions, so every comparison is exact (ck_assert_double_eq).
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* ---- a fake table source: "t512" (512 x 8, [r][c] = r + c/8) and "small" (3 x 2) ---------- */

static double t512[512 * 8];
static const double small_data[6] = {0.5, -0.5, 0.25, 0.75, 1.0, 1.0};
static const store_table T512 = {512, 8, t512};
static const store_table SMALL = {3, 2, small_data};
static int acquired, released;

static const store_table *fake_acquire(void *self, const char *name)
{
    (void)self;
    const store_table *t = strcmp(name, "t512") == 0    ? &T512
                           : strcmp(name, "small") == 0 ? &SMALL
                                                        : NULL;
    acquired += t != NULL;
    return t;
}

static void fake_release(void *self, const store_table *t)
{
    (void)self;
    (void)t;
    released++;
}

static const store_source SOURCE = {NULL, fake_acquire, fake_release};

static void setup(void)
{
    for (size_t r = 0; r < 512; r++)
        for (size_t c = 0; c < 8; c++)
            t512[r * 8 + c] = (double)r + (double)c / 8.0;
    au_open(1 << 20, 1024);
    au_ctx.tables = &SOURCE;
    acquired = released = 0;
}

static void teardown(void)
{
    au_teardown();
    ck_assert_int_eq(acquired, released); /* every acquired table was given back */
}

static double m_at(json_t *j, size_t i, size_t c)
{
    return au_num(j, "matrix", (int)i, (int)c, -1);
}

/* ---- POST /learned ------------------------------------------------------------------------- */

START_TEST(test_lookup)
{
    json_t *j = au_ok(api_learned, "{'table': 't512', 'positions': [0, 511, 7]}");
    json_t *shape = json_object_get(j, "shape");
    ck_assert_int_eq(json_integer_value(json_array_get(shape, 0)), 3);
    ck_assert_int_eq(json_integer_value(json_array_get(shape, 1)), 8);
    ck_assert_double_eq(m_at(j, 0, 0), 0.0);
    ck_assert_double_eq(m_at(j, 1, 7), 511.875);
    ck_assert_double_eq(m_at(j, 2, 4), 7.5);
    json_t *res = json_object_get(j, "resolved");
    ck_assert_str_eq(json_string_value(json_object_get(res, "table")), "t512");
    ck_assert_str_eq(json_string_value(json_object_get(res, "extend")), "error");
    ck_assert_int_eq(json_integer_value(json_object_get(res, "rows")), 512);
    ck_assert_ptr_null(json_object_get(res, "target_length"));
    json_decref(j);
    /* seq_len + offset: positions 509, 510, 511 */
    j = au_ok(api_learned, "{'table': 't512', 'seq_len': 3, 'offset': 509}");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(j, "positions"), 2)), 511);
    ck_assert_double_eq(m_at(j, 0, 1), 509.125);
    json_decref(j);
}
END_TEST

/* 600 positions of a 512-row table: the first one past the end is 512. */
START_TEST(test_extend_error)
{
    au_expect_422_msg(api_learned, "{'table': 't512', 'seq_len': 600}", "/seq_len", "position 512");
    au_expect_422_msg(api_learned, "{'table': 't512', 'seq_len': 600}", "/seq_len", "512 rows");
    au_expect_422_msg(api_learned, "{'table': 't512', 'positions': [0, 5, 600, 700]}",
                      "/positions/2", "position 600 is beyond table \"t512\", which has 512 rows");
    au_expect_422_msg(api_learned, "{'table': 't512', 'seq_len': 2, 'offset': 512}", "/offset",
                      "position 512");
    au_expect_422_msg(api_learned, "{'table': 'small', 'extend': 'error', 'positions': [3]}",
                      "/positions/0", "3 rows (positions 0 .. 2)");
}
END_TEST

/* copy: row p = table[p mod 512]: 600 → 88, 1024 → 0. */
START_TEST(test_extend_copy)
{
    json_t *j =
        au_ok(api_learned, "{'table': 't512', 'positions': [600, 88, 1024], 'extend': 'copy'}");
    for (size_t c = 0; c < 8; c++) {
        ck_assert_double_eq(m_at(j, 0, c), 88.0 + (double)c / 8.0);
        ck_assert_double_eq(m_at(j, 0, c), m_at(j, 1, c));
        ck_assert_double_eq(m_at(j, 2, c), (double)c / 8.0);
    }
    json_decref(j);
}
END_TEST

/*
 * interpolate to L = 1023: row i at x = i 511/1022 = i/2 (see check_learned.c), so position 2 is
 * table row 1 exactly, position 3 the midpoint of rows 1 and 2 (1.5 + c/8), position 1022 the
 * last row; 1023 is past L.
 */
START_TEST(test_extend_interpolate)
{
    json_t *j = au_ok(api_learned, "{'table': 't512', 'positions': [2, 3, 1022], 'extend': "
                                   "'interpolate', 'target_length': 1023}");
    for (size_t c = 0; c < 8; c++) {
        ck_assert_double_eq(m_at(j, 0, c), 1.0 + (double)c / 8.0);
        ck_assert_double_eq(m_at(j, 1, c), 1.5 + (double)c / 8.0);
        ck_assert_double_eq(m_at(j, 2, c), 511.0 + (double)c / 8.0);
    }
    json_t *res = json_object_get(j, "resolved");
    ck_assert_int_eq(json_integer_value(json_object_get(res, "target_length")), 1023);
    ck_assert_str_eq(json_string_value(json_object_get(res, "extend")), "interpolate");
    json_decref(j);
    au_expect_422_msg(
        api_learned,
        "{'table': 't512', 'positions': [1023], 'extend': 'interpolate', 'target_length': 1023}",
        "/positions/0", "beyond target_length 1023");
}
END_TEST

START_TEST(test_field_errors)
{
    au_expect_422_msg(api_learned, "{'table': 'nope', 'seq_len': 2}", "/table",
                      "no table named \"nope\"");
    au_expect_422_msg(api_learned, "{'table': '../etc', 'seq_len': 2}", "/table",
                      "must be a table name");
    au_expect_422_msg(api_learned, "{'table': 5, 'seq_len': 2}", "/table", NULL);
    au_expect_422_msg(api_learned, "{'seq_len': 2}", "/table", "table is required");
    au_expect_422_msg(api_learned, "{'table': 't512'}", "/positions", NULL);
    au_expect_422_msg(api_learned, "{'table': 't512', 'seq_len': 2, 'extend': 'wrap'}", "/extend",
                      NULL);
    au_expect_422_msg(api_learned, "{'table': 't512', 'seq_len': 2, 'target_length': 9}",
                      "/target_length", "goes with extend \"interpolate\"");
    au_expect_422_msg(api_learned, "{'table': 't512', 'seq_len': 2, 'extend': 'interpolate'}",
                      "/target_length", "needs target_length");
    au_expect_422_msg(
        api_learned, "{'table': 't512', 'seq_len': 2, 'extend': 'interpolate', 'target_length': 1}",
        "/target_length", NULL);
    au_expect_422_msg(api_learned, "{'table': 't512', 'seq_len': 2, 'colour': 1}", "/colour", NULL);
    au_lim.max_output_elements = 15; /* 2 rows x 8 = 16 numbers */
    au_expect_422_msg(api_learned, "{'table': 't512', 'seq_len': 2}", "/seq_len",
                      "max_output_elements");
    au_ctx.tables = NULL; /* no store at all: every name is unknown */
    au_expect_422_msg(api_learned, "{'table': 't512', 'seq_len': 1}", "/table", "no table named");
}
END_TEST

/* ---- /attention method "learned": errors (values: check_api_attention_methods.c) ---------- */

START_TEST(test_attention_errors)
{
    /* every body is {q, k, <fields>} with 2 x 2 q and k rows (d = 2) */
    static const struct {
        const char *fields, *ptr, *needle;
    } CASES[] = {
        {"'method': 'learned', 'learned': {'table': 't512'}", "/learned/table",
         "has 8 columns, but the q and k rows have d = 2"},
        {"'method': 'learned'", "/learned", NULL},
        {"'method': 'learned', 'learned': {}", "/learned/table", "table is required"},
        {"'method': 'learned', 'learned': {'table': 'nope'}", "/learned/table", "no table named"},
        {"'method': 'learned', 'learned': {'table': 'small', 'tabel': 1}", "/learned/tabel", NULL},
        /* 3 rows: offset 2 + T 2 reaches position 3 */
        {"'method': 'learned', 'learned': {'table': 'small', 'offset': 2}", "/q",
         "position 3 is beyond table \"small\", which has 3 rows"},
        {"'method': 'learned', 'learned': {'table': 'small', 'offset': 5}", "/learned/offset",
         "position 5"},
        {"'method': 'learned', 'learned': {'table': 'small', 'target_length': 4}",
         "/learned/target_length", NULL},
        {"'method': 'learned', 'learned': {'table': 'small', 'extend': 'interpolate', "
         "'target_length': 4, 'offset': 3}",
         "/q", "beyond target_length 4"},
        /* the object of another method is a mistake */
        {"'method': 'none', 'learned': {'table': 'small'}", "/learned", NULL},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char b[512];
        snprintf(b, sizeof b, "{'q': [[1, 0], [0, 1]], 'k': [[1, 0], [0, 1]], %s}",
                 CASES[i].fields);
        au_expect_422_msg(api_attention, b, CASES[i].ptr, CASES[i].needle);
    }
}
END_TEST

Suite *api_learned_suite(void)
{
    Suite *s = suite_create("api_learned");
    TCase *tc = tcase_create("learned");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_lookup);
    tcase_add_test(tc, test_extend_error);
    tcase_add_test(tc, test_extend_copy);
    tcase_add_test(tc, test_extend_interpolate);
    tcase_add_test(tc, test_field_errors);
    tcase_add_test(tc, test_attention_errors);
    suite_add_tcase(s, tc);
    return s;
}

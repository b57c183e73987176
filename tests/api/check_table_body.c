/*
 * tests/api/check_table_body.c -- the JSON body of PUT /tables/{name} (api/table_body.c): values,
 * shapes, every refusal with its problem code and pointer, the max_table_bytes bound.
 */
#include <check.h>
#include <string.h>

#include "api/table_body.h"

/* The first field error's message (or the detail) of pb. */
static const char *pb_msg(const api_problem *pb)
{
    return pb->n_errors ? pb->errors[0].message : pb->detail;
}

#define ASSERT_FAILS_WITH(pb, code_, needle)                                                       \
    do {                                                                                           \
        ck_assert_msg((pb).code == (code_), "code %d, want %d (%s)", (int)(pb).code, (int)(code_), \
                      pb_msg(&(pb)));                                                              \
        ck_assert_msg(strstr(pb_msg(&(pb)), (needle)) != NULL, "message \"%s\" lacks \"%s\"",      \
                      pb_msg(&(pb)), (needle));                                                    \
    } while (0)

/* Default limits with max_table_bytes = max_table (one static copy: tests run one at a time). */
static const api_limits *tlim(size_t max_table)
{
    static api_limits lim;
    api_limits_default(&lim);
    lim.max_table_bytes = max_table;
    return &lim;
}

START_TEST(test_json_ok)
{
    api_problem pb;
    api_problem_init(&pb);
    wire_tensor t;
    const char *body = "{\"data\": [[1, 2.5, -3], [4e-3, 5, 1e300]]}";
    ck_assert_int_eq(api_table_json_parse(body, strlen(body), tlim(1 << 20), &t, &pb), 0);
    ck_assert_uint_eq(t.rows, 2);
    ck_assert_uint_eq(t.cols, 3);
    ck_assert_double_eq(t.data[1], 2.5);
    ck_assert_double_eq(t.data[3], 4e-3);
    ck_assert_double_eq(t.data[5], 1e300);
    ck_assert_int_eq(t.dtype, WIRE_DT_F64);
    wire_tensor_free(&t);
    ck_assert_ptr_null(t.data);
    /* an integer beyond int64 is read as the nearest double, not refused */
    body = "{\"data\": [[123456789012345678901234567890]]}";
    ck_assert_int_eq(api_table_json_parse(body, strlen(body), tlim(1 << 20), &t, &pb), 0);
    ck_assert_double_eq(t.data[0], 123456789012345678901234567890.0);
    wire_tensor_free(&t);
}
END_TEST

START_TEST(test_json_errors)
{
    static const struct {
        const char *body;
        api_problem_code code;
        const char *ptr; /* NULL: no pointer expected (400) */
    } CASES[] = {
        {"{\"data\": [[1, 2], [3]]}", API_PB_INVALID_FIELD, "/data/1"},
        {"{\"data\": [[1, \"2\"]]}", API_PB_INVALID_FIELD, "/data/0/1"},
        {"{\"data\": []}", API_PB_INVALID_FIELD, "/data"},
        {"{\"data\": [[]]}", API_PB_INVALID_FIELD, "/data/0"},
        {"{\"data\": [1, 2]}", API_PB_INVALID_FIELD, "/data"},
        {"{\"rows\": [[1]]}", API_PB_UNKNOWN_FIELD, "/rows"},
        {"{}", API_PB_INVALID_FIELD, "/data"},
        {"[[1, 2]]", API_PB_INVALID_FIELD, ""},
        {"{\"data\": [[1, 2]], \"data\": [[3]]}", API_PB_MALFORMED_JSON, NULL},
        {"{\"data\": [[1, 2]]", API_PB_MALFORMED_JSON, NULL},
        {"{\"data\": [[1e999]]}", API_PB_MALFORMED_JSON, NULL}, /* overflow: never Inf */
        {"{\"data\": [[NaN]]}", API_PB_MALFORMED_JSON, NULL},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        api_problem pb;
        api_problem_init(&pb);
        wire_tensor t;
        int rc = api_table_json_parse(CASES[i].body, strlen(CASES[i].body), tlim(1 << 20), &t, &pb);
        ck_assert_msg(rc == -1 && pb.code == CASES[i].code, "%s: rc %d code %d", CASES[i].body, rc,
                      (int)pb.code);
        ck_assert_ptr_null(t.data);
        if (CASES[i].ptr)
            ck_assert_msg(pb.n_errors > 0 && strcmp(pb.errors[0].pointer, CASES[i].ptr) == 0,
                          "%s: pointer %s", CASES[i].body,
                          pb.n_errors ? pb.errors[0].pointer : "-");
    }
    /* 3 x 2 x 8 = 48 bytes > 40: limit-exceeded naming max_table_bytes */
    api_problem pb;
    api_problem_init(&pb);
    wire_tensor t;
    const char *body = "{\"data\": [[1, 2], [3, 4], [5, 6]]}";
    ck_assert_int_eq(api_table_json_parse(body, strlen(body), tlim(40), &t, &pb), -1);
    ASSERT_FAILS_WITH(pb, API_PB_LIMIT_EXCEEDED, "max_table_bytes is 40");
    ck_assert_str_eq(pb.errors[0].pointer, "/data");
    api_problem_init(&pb);
    ck_assert_int_eq(api_table_json_parse(body, strlen(body), tlim(48), &t, &pb),
                     0); /* exactly 48 */
    wire_tensor_free(&t);
}
END_TEST

Suite *table_body_suite(void)
{
    Suite *s = suite_create("table_body");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, test_json_ok);
    tcase_add_test(tc, test_json_errors);
    suite_add_tcase(s, tc);
    return s;
}

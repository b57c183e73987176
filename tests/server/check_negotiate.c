/*
 * tests/server/check_negotiate.c -- server/negotiate.h: the one Accept parser of every route and
 * the Content-Type rules.
 */
#include <check.h>

#include "server/negotiate.h"

/* RFC 9110 §12.5.1: the highest q wins, q=0 means "not acceptable"; JSON is the default and wins a
 * tie with application/ * or * / * (only .npy named with a q at least JSON's gives .npy). */
/* .npz against .npy and JSON: q decides, a tie goes to .npz (the superset), q=0 refuses. */
/* What a binary-tensors answer (npz or npy, no JSON) may be: bit 0 npy, bit 1 npz. */
START_TEST(test_accept_binary)
{
    ck_assert_uint_eq(srv_accept_binary(NULL), 3);
    ck_assert_uint_eq(srv_accept_binary(" "), 3);
    ck_assert_uint_eq(srv_accept_binary("*/*"), 3);
    ck_assert_uint_eq(srv_accept_binary("application/json"), 0);
    ck_assert_uint_eq(srv_accept_binary("application/json, */*;q=0"), 0);
    ck_assert_uint_eq(srv_accept_binary("application/x-npz;q=0, */*"), 1);
    ck_assert_uint_eq(srv_accept_binary("application/x-npy"), 1);
    ck_assert_uint_eq(srv_accept_binary("application/x-npz"), 2);
    ck_assert_uint_eq(srv_accept_binary("application/json, application/*;q=0.1"), 3);
}
END_TEST

START_TEST(test_accept_npz)
{
    ck_assert_int_eq(srv_accept_answer(NULL), SRV_ACCEPT_JSON);
    ck_assert_int_eq(srv_accept_answer("*/*"), SRV_ACCEPT_JSON);
    ck_assert_int_eq(srv_accept_answer("application/x-npz"), SRV_ACCEPT_NPZ);
    ck_assert_int_eq(srv_accept_answer("Application/X-NPZ"), SRV_ACCEPT_NPZ);
    ck_assert_int_eq(srv_accept_answer("application/x-npy"), SRV_ACCEPT_NPY);
    ck_assert_int_eq(srv_accept_answer("application/x-npy, application/x-npz"), SRV_ACCEPT_NPZ);
    ck_assert_int_eq(srv_accept_answer("application/x-npy, application/x-npz;q=0.5"),
                     SRV_ACCEPT_NPY);
    ck_assert_int_eq(srv_accept_answer("application/x-npz;q=0"), SRV_ACCEPT_JSON);
    ck_assert_int_eq(srv_accept_answer("application/json, application/x-npz;q=0.9"),
                     SRV_ACCEPT_JSON);
    ck_assert_int_eq(srv_accept_answer("application/json;q=0.5, application/x-npz"),
                     SRV_ACCEPT_NPZ);
    /* the table route's rule ignores .npz */
    ck_assert_int_eq(srv_accept_npy("application/x-npz"), 0);
}
END_TEST

START_TEST(test_accept_rules)
{
    ck_assert_int_eq(srv_accept_npy(NULL), 0);
    ck_assert_int_eq(srv_accept_npy(""), 0);
    ck_assert_int_eq(srv_accept_npy("*/*"), 0);
    ck_assert_int_eq(srv_accept_npy("application/json"), 0);
    ck_assert_int_eq(srv_accept_npy("application/x-npy"), 1);
    ck_assert_int_eq(srv_accept_npy("Application/X-NPY"), 1);
    ck_assert_int_eq(srv_accept_npy("application/x-npy, */*"), 1);
    ck_assert_int_eq(srv_accept_npy("application/x-npy;q=0"), 0);
    ck_assert_int_eq(srv_accept_npy("application/json, application/x-npy;q=0.5"), 0);
    ck_assert_int_eq(srv_accept_npy("application/json;q=0.4, application/x-npy;q=0.5"), 1);
    ck_assert_int_eq(srv_accept_npy("text/html,application/x-npy; q=0.9 ,*/*;q=0.8"), 1);
    ck_assert_int_eq(srv_accept_npy("application/x-npyz"), 0);
    /* issue 14: the table route's old parser took any mention of x-npy as a yes */
    ck_assert_int_eq(srv_accept_npy("application/json, application/x-npy;q=0"), 0);
    ck_assert_int_eq(srv_accept_npy("application/x-npy;q=0.5, application/json"), 0);
    ck_assert_int_eq(srv_accept_npy("application/x-npy;q=0.5, */*;q=0.5"), 1); /* a tie: .npy */
    ck_assert_int_eq(srv_accept_npy("application/x-npy;q=x"), 0); /* malformed q counts as 0 */
}
END_TEST

/* Accept-Encoding (RFC 9110 §12.5.3) for the precompressed static files: the highest q > 0 among
 * the stored codings; ties prefer br, then gzip; q=0 refuses; an unnamed coding takes "*"'s q, else
 * 0 (identity: 1); nothing acceptable → identity (the RFC's "send it without a coding"). */
START_TEST(test_accept_encoding)
{
    const unsigned both = (1u << SRV_ENC_GZIP) | (1u << SRV_ENC_BR);
    const unsigned gz = 1u << SRV_ENC_GZIP;
    ck_assert_int_eq(srv_pick_encoding(NULL, both), SRV_ENC_IDENTITY);
    ck_assert_int_eq(srv_pick_encoding("", both), SRV_ENC_IDENTITY);
    ck_assert_int_eq(srv_pick_encoding("gzip, deflate, br, zstd", both), SRV_ENC_BR); /* Chromium */
    ck_assert_int_eq(srv_pick_encoding("gzip, deflate, br, zstd", gz), SRV_ENC_GZIP);
    ck_assert_int_eq(srv_pick_encoding("gzip, deflate, br", 0), SRV_ENC_IDENTITY);
    ck_assert_int_eq(srv_pick_encoding("gzip", both), SRV_ENC_GZIP);
    ck_assert_int_eq(srv_pick_encoding("X-GZIP", both), SRV_ENC_GZIP);
    ck_assert_int_eq(srv_pick_encoding("gzip;q=1, br;q=0.5", both), SRV_ENC_GZIP);
    ck_assert_int_eq(srv_pick_encoding("br;q=0, gzip", both), SRV_ENC_GZIP);
    ck_assert_int_eq(srv_pick_encoding("br;q=0, gzip;q=0", both), SRV_ENC_IDENTITY);
    ck_assert_int_eq(srv_pick_encoding("br;q=0, *", both), SRV_ENC_GZIP);
    ck_assert_int_eq(srv_pick_encoding("*", both), SRV_ENC_BR);
    ck_assert_int_eq(srv_pick_encoding("*;q=0", both), SRV_ENC_IDENTITY); /* nothing: identity */
    ck_assert_int_eq(srv_pick_encoding("identity", both), SRV_ENC_IDENTITY);
    ck_assert_int_eq(srv_pick_encoding("identity;q=0.5, gzip;q=0.4", both), SRV_ENC_IDENTITY);
    ck_assert_int_eq(srv_pick_encoding("identity;q=0, gzip;q=0.1", both), SRV_ENC_GZIP);
    ck_assert_int_eq(srv_pick_encoding("identity;q=0", gz), SRV_ENC_IDENTITY);
    ck_assert_int_eq(srv_pick_encoding(" br ; q=0.9 , gzip ; q=0.8", both), SRV_ENC_BR);
    ck_assert_int_eq(srv_pick_encoding("gzip;q=x, br;q=0.001", both),
                     SRV_ENC_BR); /* malformed q: 0 */
    ck_assert_int_eq(srv_pick_encoding("brotli, gzipx", both),
                     SRV_ENC_IDENTITY); /* not our names */
}
END_TEST

START_TEST(test_body_encoding)
{
    ck_assert_int_eq(srv_body_encoding_ok(NULL), 1);
    ck_assert_int_eq(srv_body_encoding_ok(""), 1);
    ck_assert_int_eq(srv_body_encoding_ok("identity"), 1);
    ck_assert_int_eq(srv_body_encoding_ok(" Identity "), 1);
    ck_assert_int_eq(srv_body_encoding_ok("gzip"), 0);
    ck_assert_int_eq(srv_body_encoding_ok("identity, gzip"), 0);
    ck_assert_int_eq(srv_body_encoding_ok("br"), 0);
}
END_TEST

START_TEST(test_content_types)
{
    ck_assert_int_eq(srv_json_content_type("application/json"), 1);
    ck_assert_int_eq(srv_json_content_type("Application/JSON; charset=UTF-8"), 1);
    ck_assert_int_eq(srv_json_content_type("application/json; charset=\"utf-8\""), 1);
    ck_assert_int_eq(srv_json_content_type("application/json; charset=latin1"), 0);
    ck_assert_int_eq(srv_json_content_type("application/jsonx"), 0);
    ck_assert_int_eq(srv_json_content_type(NULL), 0);
    ck_assert_int_eq(srv_media_is("application/x-npy ; x=1", "application/x-npy"), 1);
    ck_assert_int_eq(srv_media_is("application/x-npyz", "application/x-npy"), 0);
    ck_assert_int_eq(srv_table_format("application/json"), API_TABLE_JSON);
    ck_assert_int_eq(srv_table_format("application/x-npy"), API_TABLE_NPY);
    ck_assert_int_eq(srv_table_format("application/x-safetensors"), API_TABLE_SAFETENSORS);
    ck_assert_int_eq(srv_table_format("application/octet-stream"), API_TABLE_SAFETENSORS);
    ck_assert_int_eq(srv_table_format("text/csv"), API_TABLE_UNSUPPORTED);
    ck_assert_int_eq(srv_table_format(NULL), API_TABLE_UNSUPPORTED);
}
END_TEST

Suite *negotiate_suite(void)
{
    Suite *s = suite_create("negotiate");
    TCase *tc = tcase_create("negotiate");
    tcase_add_test(tc, test_accept_rules);
    tcase_add_test(tc, test_accept_npz);
    tcase_add_test(tc, test_accept_binary);
    tcase_add_test(tc, test_content_types);
    tcase_add_test(tc, test_body_encoding);
    tcase_add_test(tc, test_accept_encoding);
    suite_add_tcase(s, tc);
    return s;
}

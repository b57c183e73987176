/*
 * tests/wire/check_multipart.c -- the multipart/form-data reader (wire/multipart.h): parts and
 * their bytes come out the same whatever the pieces the body arrives in (every split point),
 * data that holds a prefix of the delimiter is data, the boundary parameter is read as RFC 2046
 * says, and each malformed body is refused.
 */
#include <check.h>
#include <string.h>

#include "wire/multipart.h"

typedef struct {
    char names[256];
    char data[256];
    size_t n;
    int ends;
} rec;

static int on_begin(void *cls, const char *name, const char *ct)
{
    (void)ct;
    rec *r = cls;
    strcat(r->names, name); /* test code: sizes known */
    strcat(r->names, ";");
    return 0;
}

static int on_data(void *cls, const unsigned char *b, size_t n)
{
    rec *r = cls;
    ck_assert_uint_le(r->n + n, sizeof r->data);
    memcpy(r->data + r->n, b, n);
    r->n += n;
    return 0;
}

static int on_end(void *cls)
{
    rec *r = cls;
    r->ends++;
    return 0;
}

static const wire_mp_cb CB = {on_begin, on_data, on_end};

/* A body whose part "a" holds "\r\n--bXz": the whole delimiter followed by text, which RFC 2046
 * forbids (a boundary must not occur in the data): refused. */
static const char BODY[] = "preamble\r\n--bX\r\n"
                           "Content-Disposition: form-data; name=\"a\"\r\n\r\n"
                           "x\r\n--b y\r\n-\r\r\n--bXz\r"
                           "\r\n--bX  \r\n"
                           "content-disposition: FORM-DATA; name=b; filename=\"f.npy\"\r\n"
                           "Content-Type: application/octet-stream\r\n\r\n"
                           "\r\n--bX--\r\nepilogue";

/* A preamble-free body: part "a" whose data holds prefixes of the delimiter ("\r\n--b",
 * "\r\n-", "\r\r\n--b") and ends in CRs, part "b" with an empty body (headers in mixed case,
 * transport padding after the delimiter), an epilogue; fed in three pieces cut everywhere. */
START_TEST(test_every_split)
{
    const char *body = "--bX\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n"
                       "x\r\n--b y\r\n-\r\r\n--b\r\r"
                       "\r\n--bX  \r\n"
                       "content-disposition: FORM-DATA; name=b; filename=\"f.npy\"\r\n"
                       "Content-Type: application/octet-stream\r\n\r\n"
                       "\r\n--bX--\r\nepilogue";
    const char *want = "x\r\n--b y\r\n-\r\r\n--b\r\r";
    size_t len = strlen(body);
    for (size_t cut = 0; cut <= len; cut++) {
        for (size_t cut2 = cut; cut2 <= len; cut2 += 5) {
            rec r = {0};
            wire_mp m;
            wire_mp_init(&m, "bX", &CB, &r);
            ck_assert_int_eq(wire_mp_feed(&m, body, cut), 0);
            ck_assert_int_eq(wire_mp_feed(&m, body + cut, cut2 - cut), 0);
            ck_assert_int_eq(wire_mp_feed(&m, body + cut2, len - cut2), 0);
            ck_assert_int_eq(wire_mp_finish(&m), 0);
            ck_assert_str_eq(r.names, "a;b;");
            ck_assert_uint_eq(r.n, strlen(want));
            ck_assert_int_eq(memcmp(r.data, want, r.n), 0);
            ck_assert_int_eq(r.ends, 2);
        }
    }
}
END_TEST

START_TEST(test_refusals)
{
    const char *bad[] = {
        BODY, /* "\r\n--bXz": the boundary followed by text */
        "--bX\r\nContent-Type: text/plain\r\n\r\nx\r\n--bX--",                /* no disposition */
        "--bX\r\nContent-Disposition: form-data\r\n\r\nx\r\n--bX--",          /* no name */
        "--bX\r\nContent-Disposition: attachment; name=a\r\n\r\nx\r\n--bX--", /* not form-data */
        "--bX\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--bX",    /* no close */
        "--bX\r\nContent-Disposition: form-data; name=a\r\n folded\r\n\r\nx\r\n--bX--",
        "--bX\r\nno colon\r\n\r\nx\r\n--bX--",
        /* name given twice: readers differ on which one counts (Python's last, ours the first) */
        "--bX\r\nContent-Disposition: form-data; name=\"k\"; name=\"q\"\r\n\r\nx\r\n--bX--",
        "--bX-x", /* a single '-' */
        "",       /* nothing */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rec r = {0};
        wire_mp m;
        wire_mp_init(&m, "bX", &CB, &r);
        int rc = wire_mp_feed(&m, bad[i], strlen(bad[i]));
        if (rc == 0)
            rc = wire_mp_finish(&m);
        ck_assert_msg(rc < 0, "body %zu accepted", i);
        ck_assert_int_eq(m.err.status, WIRE_EINVALID);
        ck_assert(m.err.detail[0] != '\0');
    }
}
END_TEST

START_TEST(test_boundary_param)
{
    char b[WIRE_MP_MAX_BOUNDARY + 1];
    ck_assert_int_eq(wire_mp_boundary("multipart/form-data; boundary=abc", b, sizeof b), 3);
    ck_assert_str_eq(b, "abc");
    ck_assert_int_eq(
        wire_mp_boundary("Multipart/Form-Data ; charset=x; BOUNDARY=\"a b;c\"", b, sizeof b), 5);
    ck_assert_str_eq(b, "a b;c");
    ck_assert_int_eq(wire_mp_boundary("application/json", b, sizeof b), 0);
    ck_assert_int_eq(wire_mp_boundary("multipart/form-dataX; boundary=a", b, sizeof b), 0);
    ck_assert_int_eq(wire_mp_boundary("multipart/form-data", b, sizeof b), -1);
    ck_assert_int_eq(wire_mp_boundary("multipart/form-data; boundary=", b, sizeof b), -1);
    ck_assert_int_eq(wire_mp_boundary("multipart/form-data; boundary=\"a\rb\"", b, sizeof b), -1);
    char long_b[120] = "multipart/form-data; boundary=";
    memset(long_b + strlen(long_b), 'x', 71); /* 71 characters: one too many */
    ck_assert_int_eq(wire_mp_boundary(long_b, b, sizeof b), -1);
}
END_TEST

Suite *multipart_suite(void)
{
    Suite *s = suite_create("multipart");
    TCase *tc = tcase_create("multipart");
    tcase_add_test(tc, test_every_split);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_boundary_param);
    suite_add_tcase(s, tc);
    return s;
}

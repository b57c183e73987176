/*
 * tests/wire/check_multipart.c -- the multipart/form-data reader (wire/multipart.h): parts and
 * their bytes come out the same whatever the pieces the body arrives in (every split point),
 * data that holds a prefix of the delimiter is data, the boundary parameter is read as RFC 2046
 * says, and each malformed body is refused; and the sampled delimiter search (multipart.c) finds
 * what a byte-by-byte search finds, at every offset, for boundaries of 1 to 70 characters.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/multipart.h"

typedef struct {
    char names[256];
    char data[4096];
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

/* A deterministic generator (xorshift64*), so a failure names a body that can be made again. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* The sampled search against the definition: one part whose data (random bytes, CR, LF and '-'
 * frequent, and the delimiter's own prefixes and the boundary without its CRLF planted at random
 * offsets) holds the whole delimiter once at offset at. RFC 2046: the part ends there, so the
 * data is the at bytes before it (and the text after it is refused, as in test_refusals). With
 * no delimiter planted the part's data is the whole of it. Boundaries of 1 to 70 characters, the
 * delimiter at every offset 0..120 and further out, fed whole, in 7-byte and in 1-byte pieces. */
START_TEST(test_sampled_search_finds_every_delimiter)
{
    uint64_t seed = 16;
    for (size_t blen = 1; blen <= WIRE_MP_MAX_BOUNDARY; blen++) {
        char bnd[WIRE_MP_MAX_BOUNDARY + 1];
        for (size_t j = 0; j < blen; j++)
            bnd[j] = "ab-09xyz"[rng_next(&seed) % 8];
        bnd[blen] = '\0';
        char delim[WIRE_MP_MAX_BOUNDARY + 5] = "\r\n--";
        memcpy(delim + 4, bnd, blen);
        size_t L = 4 + blen;
        for (size_t at = 0; at <= 1200; at += at < 120 ? 1 : 97) {
            unsigned char data[1400];
            size_t n = at + L + 40; /* the delimiter then 40 bytes of text */
            for (size_t j = 0; j < n; j++)
                data[j] = "\r\n-ab0x\x93"[rng_next(&seed) % 8];
            for (int k = 0; k < 6; k++) { /* plant prefixes and the bare boundary */
                size_t len = k == 0 ? blen + 2 : 1 + rng_next(&seed) % (L - 1);
                size_t off = rng_next(&seed) % n;
                if (off + len <= n)
                    memcpy(data + off, k == 0 ? delim + 2 : delim, len);
            }
            /* the data before at must not hold the delimiter by chance: this body's delimiter is
             * the planted one (a chance occurrence would only move "at", checked below) */
            size_t first = n;
            memcpy(data + at, delim, L);
            for (size_t j = 0; j + L <= n && first == n; j++)
                if (memcmp(data + j, delim, L) == 0)
                    first = j;
            unsigned char body[1600];
            size_t h =
                (size_t)snprintf((char *)body, sizeof body,
                                 "--%s\r\nContent-Disposition: form-data; name=a\r\n\r\n", bnd);
            memcpy(body + h, data, n);
            size_t len = h + n;
            static const size_t pieces[] = {0, 7, 1};
            for (size_t pc = 0; pc < 3; pc++) {
                rec r = {0};
                wire_mp m;
                wire_mp_init(&m, bnd, &CB, &r);
                size_t piece = pieces[pc] ? pieces[pc] : len;
                for (size_t o = 0; o < len; o += piece)
                    if (wire_mp_feed(&m, body + o, len - o < piece ? len - o : piece) < 0)
                        break;
                ck_assert_msg(r.ends == 1 && r.n == first,
                              "boundary %zu chars, delimiter at %zu (first %zu), pieces %zu: "
                              "%d ends, %zu data bytes",
                              blen, at, first, piece, r.ends, r.n);
                ck_assert_int_eq(memcmp(r.data, data, first), 0);
            }
        }
    }
}
END_TEST

/* Part data without any delimiter, one piece at a time of 1 to 200 bytes: every byte comes out,
 * in order, and nothing ends (a partial delimiter at a piece's end is held back, then given out
 * when the next piece shows it was data). */
START_TEST(test_no_delimiter_passes_through)
{
    uint64_t seed = 7;
    const char *bnd = "posenc-0123456789abcdef0123456789abcdef";
    unsigned char data[4000];
    for (size_t j = 0; j < sizeof data; j++)
        data[j] = "\r\n-pos0123\x0d"[rng_next(&seed) % 10];
    for (size_t k = 0; k + 40 < sizeof data; k += 331) /* the delimiter without its last byte */
        memcpy(data + k, "\r\n--posenc-0123456789abcdef0123456789abcde", 42);
    for (size_t piece = 1; piece <= 200; piece++) {
        rec r = {0};
        wire_mp m;
        wire_mp_init(&m, bnd, &CB, &r);
        char head[128];
        int h = snprintf(head, sizeof head,
                         "--%s\r\nContent-Disposition: form-data; name=q\r\n\r\n", bnd);
        ck_assert_int_eq(wire_mp_feed(&m, head, (size_t)h), 0);
        for (size_t o = 0; o < sizeof data; o += piece)
            ck_assert_int_eq(
                wire_mp_feed(&m, data + o, sizeof data - o < piece ? sizeof data - o : piece), 0);
        ck_assert_int_eq(wire_mp_feed(&m, "\r\n--", 4), 0);
        ck_assert_int_eq(wire_mp_feed(&m, bnd, strlen(bnd)), 0);
        ck_assert_int_eq(wire_mp_feed(&m, "--\r\n", 4), 0);
        ck_assert_int_eq(wire_mp_finish(&m), 0);
        ck_assert_int_eq(r.ends, 1);
        ck_assert_uint_eq(r.n, sizeof data);
        ck_assert_int_eq(memcmp(r.data, data, sizeof data), 0);
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
    tcase_add_test(tc, test_sampled_search_finds_every_delimiter);
    tcase_add_test(tc, test_no_delimiter_passes_through);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_boundary_param);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * tests/wire/check_numfmt.c -- the number writer (wire_fmt_double: Dragonbox through
 * wire/numfmt.cc, laid out as ECMAScript Number::toString) and the writer's fast paths.
 *
 * Layout: ECMAScript Number::toString (what node prints), except integers of 18+ digits, which
 * take an exponent so that int64-only readers (jansson) accept every number: checked below.
 * Round trip: 10^6 random doubles (uniform over bit patterns, so every binade incl. subnormals),
 * 2x10^5 random subnormals, 2x10^5 short decimals (k / 10^j), every power of two and of ten in
 * range, and the extremes (+-0, +-DBL_MAX, +-DBL_MIN, +-denorm min, 1 +- ulp) must each print as a
 * valid JSON number (RFC 8259 §6 grammar, checked by a small recogniser below) that strtod reads
 * back to the identical bits. Shortest: for a sample, no decimal with one digit less reads back
 * to the same double (checked with the correctly rounded shorter candidate, away from exact
 * powers of two where the rounding interval is lopsided). Layout: for 10^6 doubles that reach every
 * branch of the layout with every digit count (and every decimal exponent n from -8 to 21), the
 * text is compared byte for byte with a slow reference (ref_format: Dragonbox's digits printed with
 * snprintf and laid out with string operations, step by step as ECMAScript Number::toString), and
 * for 2x10^5 more through wire_jw_doubles (the row fast path, which scribbles past each number).
 * About 1 s in all on the build machine.
 */
#include <check.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "wire/jw.h"
#include "wire/numfmt.h"

/* xorshift64*: reproducible bit patterns (seeded per test). */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

static double from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static uint64_t to_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* RFC 8259 §6: number = [ minus ] int [ frac ] [ exp ]; int = zero / ( digit1-9 *DIGIT ). */
static int json_number(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return 0;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

/* Formats x, checks grammar, length and exact round trip; returns the number of failures (0/1). */
static int check_one(double x, char *out)
{
    memset(out, 'Z', 32);
    size_t n = wire_fmt_double(out, x);
    if (n > 25 || strlen(out) != n || !json_number(out)) {
        fprintf(stderr, "numfmt: %a -> \"%s\" (%zu bytes) is not a valid JSON number\n", x, out, n);
        return 1;
    }
    double back = strtod(out, NULL);
    uint64_t want = x == 0.0 ? 0 : to_bits(x); /* -0 prints as "0" */
    if (to_bits(back) != want) {
        fprintf(stderr, "numfmt: %a -> \"%s\" reads back as %a\n", x, out, back);
        return 1;
    }
    return 0;
}

/* Significant digits of the printed number (digits before any exponent, without leading zeros). */
static int sig_digits(const char *s)
{
    int n = 0, started = 0, trailing_zeros = 0;
    for (const char *p = s; *p && *p != 'e'; p++) {
        if (*p < '0' || *p > '9')
            continue;
        if (*p != '0')
            started = 1;
        if (!started)
            continue;
        n++;
        trailing_zeros = *p == '0' ? trailing_zeros + 1 : 0;
    }
    return n - trailing_zeros; /* "100" has 1 significant digit */
}

START_TEST(test_known_strings)
{
    /* Expected texts: ECMAScript Number::toString (what node prints) for the same doubles, except
     * integral values from 10^17 up (exponent form, see jw.h). */
    static const struct {
        double x;
        const char *s;
    } CASES[] = {
        {0.0, "0"},
        {-0.0, "0"},
        {1.0, "1"},
        {-2.5, "-2.5"},
        {0.1, "0.1"},
        {0.3, "0.3"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1e-6, "0.000001"},
        {1e-7, "1e-7"},
        {1.5e-7, "1.5e-7"},
        {123456.789, "123456.789"},
        {1e16, "10000000000000000"},
        {99999999999999984.0, "99999999999999980"}, /* largest double below 1e17 */
        {1e17, "1e+17"},                            /* ECMAScript: "100000000000000000" */
        {1e20, "1e+20"},
        {1e21, "1e+21"},
        {1.2345678901234568e20, "1.2345678901234568e+20"},
        {-9.2233720368547758e18, "-9.223372036854776e+18"}, /* INT64_MIN: not plain */
        {10000.0, "10000"},
        {0.0625, "0.0625"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {-DBL_MAX, "-1.7976931348623157e+308"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {4.9406564584124654e-324, "5e-324"},
        {-4.9406564584124654e-324, "-5e-324"},
        {0.8414709848078965, "0.8414709848078965"},
        {9.323271902181513e-4, "0.0009323271902181513"},
        {6.103515625e-05, "0.00006103515625"},
        {1.52587890625e-05, "0.0000152587890625"},
        {3.068925988914511e-07, "3.068925988914511e-7"},
    };
    char out[32];
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        wire_fmt_double(out, CASES[i].x);
        ck_assert_msg(strcmp(out, CASES[i].s) == 0, "%a: got \"%s\", want \"%s\"", CASES[i].x, out,
                      CASES[i].s);
    }
    static const struct {
        int64_t v;
        const char *s;
    } INTS[] = {{0, "0"},
                {7, "7"},
                {-42, "-42"},
                {1000000, "1000000"},
                {INT64_MAX, "9223372036854775807"},
                {INT64_MIN, "-9223372036854775808"}};
    for (size_t i = 0; i < sizeof INTS / sizeof INTS[0]; i++) {
        ck_assert_uint_eq(wire_fmt_int(out, INTS[i].v), strlen(INTS[i].s));
        ck_assert_str_eq(out, INTS[i].s);
    }
}
END_TEST

START_TEST(test_round_trip_extremes)
{
    char out[32];
    int bad = 0;
    const double ext[] = {0.0,
                          -0.0,
                          DBL_MAX,
                          -DBL_MAX,
                          DBL_MIN,
                          -DBL_MIN,
                          4.9406564584124654e-324,
                          -4.9406564584124654e-324,
                          nextafter(DBL_MIN, 0.0),
                          nextafter(0.0, 1.0) * 3,
                          nextafter(1.0, 2.0),
                          nextafter(1.0, 0.0),
                          nextafter(DBL_MAX, 0.0),
                          9007199254740993.0,
                          9007199254740992.0,
                          1e23,
                          5e-324 * 123456789};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        bad += check_one(ext[i], out);
    for (int e = -1074; e <= 1023; e++) {
        bad += check_one(ldexp(1.0, e), out);
        bad += check_one(-ldexp(1.0, e), out);
    }
    for (int e = -323; e <= 308; e++) {
        char t[32];
        snprintf(t, sizeof t, "1e%d", e);
        bad += check_one(strtod(t, NULL), out);
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(test_round_trip_random)
{
    char out[32];
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    int bad = 0;
    size_t tested = 0;
    /* 10^6 random bit patterns (NaN and infinities skipped: the writer never formats them) */
    while (tested < 1000000) {
        double x = from_bits(rng_next(&s));
        if (!isfinite(x))
            continue;
        bad += check_one(x, out);
        tested++;
        if (bad > 5)
            break;
    }
    /* subnormals: exponent bits 0 */
    for (int i = 0; i < 200000 && bad <= 5; i++) {
        uint64_t b = rng_next(&s) & 0x800FFFFFFFFFFFFFULL;
        bad += check_one(from_bits(b), out);
    }
    /* short decimals k / 10^j, as users type them */
    for (int i = 0; i < 200000 && bad <= 5; i++) {
        uint64_t r = rng_next(&s);
        double k = (double)(r % 1000000);
        int j = (int)((r >> 32) % 30);
        char t[40];
        snprintf(t, sizeof t, "%.0fe-%d", k, j);
        double x = strtod(t, NULL);
        bad += check_one(x, out);
        /* and they come back as typed (shortest): k/10^j prints with at most 6 digits */
        if (k != 0.0 && sig_digits(out) > 6) {
            fprintf(stderr, "numfmt: %s printed as %s\n", t, out);
            bad++;
        }
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(test_shortest)
{
    /* No decimal with one significant digit less reads back to x (sampled). */
    char out[32], shorter[48];
    uint64_t s = 12345;
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        double x = from_bits(rng_next(&s) & 0x7FFFFFFFFFFFFFFFULL);
        if (!isfinite(x) || x == 0.0 || (to_bits(x) & 0x000FFFFFFFFFFFFFULL) == 0)
            continue; /* exact powers of two: lopsided interval, see the header */
        wire_fmt_double(out, x);
        int k = sig_digits(out);
        if (k <= 1)
            continue;
        snprintf(shorter, sizeof shorter, "%.*e", k - 2, x); /* k-1 significant digits */
        if (strtod(shorter, NULL) == x) {
            fprintf(stderr, "numfmt: %a printed as %s but %s is shorter\n", x, out, shorter);
            bad++;
        }
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(test_jansson_reads_everything)
{
    /* jansson parses integer literals as int64 ("too big integer" beyond): every number we print
     * must come back through it, as the same double (JSON_DECODE_ANY: a bare number). */
    char out[32];
    uint64_t s = 777;
    int bad = 0;
    double fixed[] = {1e16,
                      1e17,
                      1e18,
                      9.2233720368547758e18,
                      1e19,
                      1e20,
                      1e21,
                      1e22,
                      1e300,
                      DBL_MAX,
                      -DBL_MAX,
                      123456789012345678.0,
                      4.9406564584124654e-324};
    for (int i = 0; i < 200000 + (int)(sizeof fixed / sizeof fixed[0]) && bad <= 5; i++) {
        double x;
        if (i < (int)(sizeof fixed / sizeof fixed[0]))
            x = fixed[i];
        else if (i % 2)
            x = from_bits(rng_next(&s));
        else /* integral values of every size up to 2^64 */
            x = (double)(rng_next(&s) >> (rng_next(&s) % 64));
        if (!isfinite(x))
            continue;
        wire_fmt_double(out, x);
        json_error_t err;
        json_t *j = json_loads(out, JSON_DECODE_ANY, &err);
        if (j == NULL || json_number_value(j) != x) {
            fprintf(stderr, "numfmt: jansson reads \"%s\" as %s\n", out,
                    j ? "another number" : err.text);
            bad++;
        }
        json_decref(j);
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(test_writer_fast_paths)
{
    /* doubles, ints and a matrix with a mask through the writer; non-finite -> null + flag. */
    wire_jw w;
    wire_jw_init(&w, 1u << 20);
    double x[] = {0.5, -1e-7, 1e21, 3};
    int64_t v[] = {-1, 0, 1234567890123LL};
    double m[] = {1, 2, 3, 4};
    unsigned char mask[] = {0, 1, 0, 0};
    wire_jw_obj_begin(&w);
    wire_jw_key(&w, "x");
    wire_jw_doubles(&w, x, 4);
    wire_jw_key(&w, "v");
    wire_jw_ints(&w, v, 3);
    wire_jw_key(&w, "m");
    wire_jw_matrix(&w, m, mask, 2, 2);
    wire_jw_key(&w, "e");
    wire_jw_doubles(&w, x, 0);
    wire_jw_obj_end(&w);
    ck_assert(!w.nonfinite);
    size_t len = 0;
    char *s = wire_jw_take(&w, &len);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, "{\"x\":[0.5,-1e-7,1e+21,3],\"v\":[-1,0,1234567890123],"
                        "\"m\":[[1,null],[3,4]],\"e\":[]}");
    ck_assert_uint_eq(len, strlen(s));
    free(s);

    wire_jw_init(&w, 1u << 20);
    double bad[] = {1, NAN, INFINITY};
    wire_jw_doubles(&w, bad, 3);
    ck_assert(w.nonfinite);
    s = wire_jw_take(&w, &len);
    ck_assert_str_eq(s, "[1,null,null]");
    free(s);

    /* the cap is exact also on the fast path: "[0.5,0.5]" is 9 bytes */
    wire_jw_init(&w, 9);
    wire_jw_doubles(&w, x, 1);
    ck_assert(wire_jw_ok(&w));
    wire_jw_free(&w);
    wire_jw_init(&w, 8);
    double two[] = {0.5, 0.5};
    wire_jw_doubles(&w, two, 2);
    ck_assert(!wire_jw_ok(&w));
    wire_jw_free(&w);
    wire_jw_init(&w, 9);
    wire_jw_doubles(&w, two, 2);
    ck_assert(wire_jw_ok(&w));
    s = wire_jw_take(&w, &len);
    ck_assert_str_eq(s, "[0.5,0.5]");
    free(s);
}
END_TEST

/* ---- layout against a slow reference --------------------------------------------------------- */

/* Layout branches of ECMAScript Number::toString as posenc applies them (ref_format). */
enum { REF_ZERO, REF_INT, REF_POINT, REF_SMALL, REF_EXP, REF_BRANCHES };
static const char *const REF_NAMES[REF_BRANCHES] = {"zero", "integer ddd000", "ddd.ddd", "0.000ddd",
                                                    "d.ddde+X"};

/* Appends n copies of c to the NUL-terminated string s (room is the caller's concern). */
static void ref_fill(char *s, char c, int n)
{
    size_t l = strlen(s);
    memset(s + l, c, (size_t)n);
    s[l + (size_t)n] = '\0';
}

/* Appends the n bytes at t to s. */
static void ref_add(char *s, const char *t, size_t n)
{
    size_t l = strlen(s);
    memcpy(s + l, t, n);
    s[l + n] = '\0';
}

/*
 * The text wire_fmt_double must give for finite x, written into out (>= 64 bytes) the slow and
 * obvious way: ECMAScript Number::toString(x), step by step (step numbers of ECMA-262 5.1 §9.8.1,
 * the same up to ES2022 §6.1.6.1.20), with the digits s (k of them) and n such that x = s *
 * 10^(n-k) taken from wire_numfmt_decimal and printed by snprintf, and posenc's one exception
 * (jw.h): the plain integer form only up to n = 17 (ECMAScript: 21). Returns the branch (REF_*);
 * *k_out and *n_out get k and n (0 for zero).
 */
static int ref_format(double x, char *out, int *k_out, int *n_out)
{
    out[0] = '\0';
    *k_out = *n_out = 0;
    if (x == 0.0) { /* step 2: +0 and -0 are "0" */
        ref_add(out, "0", 1);
        return REF_ZERO;
    }
    uint64_t sig;
    int e;
    if (wire_numfmt_decimal(x, &sig, &e)) /* step 3: "-" and the text of -x */
        ref_add(out, "-", 1);
    char s[32];
    int k = snprintf(s, sizeof s, "%" PRIu64, sig); /* step 5: s, k, n */
    int n = k + e;
    *k_out = k;
    *n_out = n;
    if (k <= n && n <= 17) { /* step 6 (ECMAScript: n <= 21): the digits, n-k zeros */
        ref_add(out, s, (size_t)k);
        ref_fill(out, '0', n - k);
        return REF_INT;
    }
    if (0 < n && n < k) { /* step 7 (0 < n <= 21, where ECMAScript has n < k): n digits, '.',
                           * the other k-n; integers of 18..21 digits go on to the exponent form */
        ref_add(out, s, (size_t)n);
        ref_add(out, ".", 1);
        ref_add(out, s + n, (size_t)(k - n));
        return REF_POINT;
    }
    if (-6 < n && n <= 0) { /* step 8: "0.", -n zeros, the digits */
        ref_add(out, "0.", 2);
        ref_fill(out, '0', -n);
        ref_add(out, s, (size_t)k);
        return REF_SMALL;
    }
    /* steps 9-10: one digit, then ".", the other k-1 when k > 1, then "e", the sign, |n-1| */
    ref_add(out, s, 1);
    if (k > 1) {
        ref_add(out, ".", 1);
        ref_add(out, s + 1, (size_t)(k - 1));
    }
    char ex[16];
    int m = snprintf(ex, sizeof ex, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
    ref_add(out, ex, (size_t)m);
    return REF_EXP;
}

/* Generated doubles: which families, how many (each family is a case of the generator below). */
#define EQ_RANDOM_BITS 300000 /* uniform bit patterns: every binade, mostly the exponent form */
#define EQ_UNIT 200000        /* uniform in (-1, 1) with 53-bit mantissas, like sines */
#define EQ_INTS 100000        /* integral values of every magnitude below 2^64, both signs */
#define EQ_PER_CELL 600       /* per digit count 1..17 and decimal exponent n -8..21, both signs */
#define EQ_SUBNORMAL 100000   /* exponent bits 0 */

typedef struct {
    long hits[REF_BRANCHES][18]; /* [branch][k] */
    long n_hits[30];             /* n = -8..21 */
    long tested, bad;
    char first_bad[3][320];
} eq_stats;

/* Formats x both ways and compares; also appends x to the row buffer for the writer check. */
static void eq_check(eq_stats *st, double x)
{
    char want[64], got[64];
    int k, n;
    int br = ref_format(x, want, &k, &n);
    memset(got, 'Z', sizeof got);
    size_t len = wire_fmt_double(got, x);
    st->tested++;
    st->hits[br][k]++;
    if (n >= -8 && n <= 21)
        st->n_hits[n + 8]++;
    if (len != strlen(want) || strcmp(got, want) != 0) {
        if (st->bad < 3)
            snprintf(st->first_bad[st->bad], sizeof st->first_bad[0],
                     "%a (%s, k=%d n=%d): got \"%s\", want \"%s\"", x, REF_NAMES[br], k, n, got,
                     want);
        st->bad++;
    }
}

/* A double with the k significant digits of the random r (first and last digit non-zero) and
 * decimal exponent n (x = 0.d1d2..dk * 10^n), read by strtod; its shortest form may be shorter. */
static double eq_digits(uint64_t r, int k, int n)
{
    char d[24];
    for (int i = 0; i < k; i++) {
        d[i] = (char)('0' + r % 10);
        r /= 10;
    }
    if (d[0] == '0')
        d[0] = '7';
    if (d[k - 1] == '0')
        d[k - 1] = '3';
    d[k] = '\0';
    char t[48];
    snprintf(t, sizeof t, "%se%d", d, n - k);
    return strtod(t, NULL);
}

START_TEST(test_layout_reference)
{
    static eq_stats st;
    memset(&st, 0, sizeof st);
    uint64_t s = 0xC0FFEE1234567ULL;
    double fixed[] = {0.0,
                      -0.0,
                      DBL_MAX,
                      -DBL_MAX,
                      DBL_MIN,
                      -DBL_MIN,
                      5e-324,
                      -5e-324,
                      1e16,
                      1e17,
                      99999999999999984.0,
                      1e21,
                      1e-6,
                      1e-7,
                      0.1,
                      123456.789,
                      0.30000000000000004,
                      -1e-7,
                      1.5,
                      9007199254740993.0};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        eq_check(&st, fixed[i]);
    for (int e = -30; e <= 30; e++) { /* powers of ten 1e-30 .. 1e30 */
        char t[16];
        snprintf(t, sizeof t, "1e%d", e);
        eq_check(&st, strtod(t, NULL));
        eq_check(&st, -strtod(t, NULL));
    }
    for (long i = 0; i < EQ_RANDOM_BITS;) {
        double x = from_bits(rng_next(&s));
        if (!isfinite(x))
            continue;
        eq_check(&st, x);
        i++;
    }
    for (long i = 0; i < EQ_UNIT; i++)
        eq_check(&st, (double)(rng_next(&s) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    for (long i = 0; i < EQ_INTS; i++) {
        double v = (double)(rng_next(&s) >> (rng_next(&s) % 64));
        eq_check(&st, i % 2 ? -v : v);
    }
    for (int k = 1; k <= 17; k++) {
        for (int n = -8; n <= 21; n++) {
            for (int j = 0; j < EQ_PER_CELL; j++) {
                double x = eq_digits(rng_next(&s), k, n);
                eq_check(&st, j % 2 ? -x : x);
            }
        }
    }
    for (long i = 0; i < EQ_SUBNORMAL; i++)
        eq_check(&st, from_bits(rng_next(&s) & 0x800FFFFFFFFFFFFFULL));
    for (long i = 0; i < st.bad && i < 3; i++)
        fprintf(stderr, "numfmt reference: %s\n", st.first_bad[i]);
    ck_assert_msg(st.bad == 0, "%ld of %ld doubles differ from the reference layout", st.bad,
                  st.tested);
    ck_assert_int_ge(st.tested, 1000000);
    /* every branch with every digit count it can have, and every n from -8 to 21 */
    ck_assert_int_gt(st.hits[REF_ZERO][0], 0);
    for (int k = 1; k <= 17; k++) {
        ck_assert_msg(st.hits[REF_INT][k] > 0, "no integer with %d digits", k);
        ck_assert_msg(k == 1 || st.hits[REF_POINT][k] > 0, "no ddd.ddd with %d digits", k);
        ck_assert_msg(st.hits[REF_SMALL][k] > 0, "no 0.000ddd with %d digits", k);
        ck_assert_msg(st.hits[REF_EXP][k] > 0, "no exponent form with %d digits", k);
    }
    for (int n = -8; n <= 21; n++)
        ck_assert_msg(st.n_hits[n + 8] > 0, "no number with n = %d", n);
}
END_TEST

START_TEST(test_layout_reference_rows)
{
    /* The same layout through wire_jw_doubles, whose fast path lets each number scribble past its
     * end (WIRE_JW_NUM_SLACK) before the next one overwrites it: rows of 1000 mixed doubles must
     * equal "[" + the reference texts joined by "," + "]". */
    enum { COLS = 1000, ROWS = 200 };
    static double x[COLS];
    static char want[COLS * 32 + 8];
    uint64_t s = 4242;
    long bad = 0;
    for (int r = 0; r < ROWS && bad < 3; r++) {
        size_t wl = 0;
        want[wl++] = '[';
        for (int c = 0; c < COLS; c++) {
            uint64_t b = rng_next(&s);
            switch (b % 4) {
            case 0: /* any bit pattern */
                x[c] = from_bits(rng_next(&s));
                if (!isfinite(x[c]))
                    x[c] = 0.0;
                break;
            case 1: /* (-1, 1) */
                x[c] = (double)(rng_next(&s) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
                break;
            case 2: /* k digits at decimal exponent n */
                x[c] =
                    eq_digits(rng_next(&s), 1 + (int)((b >> 8) % 17), -8 + (int)((b >> 16) % 30));
                break;
            default: /* integers */
                x[c] = (double)(rng_next(&s) >> (b >> 8) % 64);
                break;
            }
            if (c)
                want[wl++] = ',';
            int k, n;
            ref_format(x[c], want + wl, &k, &n);
            wl += strlen(want + wl);
        }
        want[wl++] = ']';
        want[wl] = '\0';
        wire_jw w;
        wire_jw_init(&w, (size_t)1 << 20);
        wire_jw_doubles(&w, x, COLS);
        size_t len = 0;
        char *got = wire_jw_take(&w, &len);
        ck_assert_ptr_nonnull(got);
        if (len != wl || strcmp(got, want) != 0) {
            size_t i = 0;
            while (got[i] == want[i])
                i++;
            fprintf(stderr,
                    "numfmt rows: row %d differs at byte %zu: got \"%.40s\", want \"%.40s\"\n", r,
                    i, got + (i > 20 ? i - 20 : 0), want + (i > 20 ? i - 20 : 0));
            bad++;
        }
        free(got);
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

Suite *numfmt_suite(void)
{
    Suite *s = suite_create("numfmt");
    TCase *tc = tcase_create("numfmt");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_known_strings);
    tcase_add_test(tc, test_round_trip_extremes);
    tcase_add_test(tc, test_round_trip_random);
    tcase_add_test(tc, test_shortest);
    tcase_add_test(tc, test_jansson_reads_everything);
    tcase_add_test(tc, test_writer_fast_paths);
    tcase_add_test(tc, test_layout_reference);
    tcase_add_test(tc, test_layout_reference_rows);
    suite_add_tcase(s, tc);
    return s;
}

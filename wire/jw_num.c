/* wire/jw_num.c -- the JSON writer's numbers: integers, the shortest round-trip doubles (Dragonbox
 * through wire/numfmt.h) and whole rows at once (jw.h wire_fmt_int, wire_fmt_double; jw_priv.h
 * wire_jw_fmt_row). */
#include <math.h>
#include <string.h>

#include "wire/jw_priv.h"
#include "wire/numfmt.h"

/* ---- numbers --------------------------------------------------------------------------------- */

static const char DIGITS2[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                              "34353637383940414243444546474849505152535455565758596061626364656667"
                              "6869707172737475767778798081828384858687888990919293949596979899";

/* Writes the decimal digits of v so that they end just before `end`; returns their start. */
static char *u64_digits_before(char *end, uint64_t v)
{
    char *p = end;
    while (v >= 100) {
        uint64_t q = v / 100;
        unsigned r = (unsigned)(v - q * 100);
        p -= 2;
        memcpy(p, DIGITS2 + 2 * r, 2);
        v = q;
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, DIGITS2 + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    return p;
}

size_t wire_fmt_int(char *out, int64_t v)
{
    char tmp[24];
    char *end = tmp + sizeof tmp;
    /* the magnitude as unsigned: -(INT64_MIN) does not fit in int64 */
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *p = u64_digits_before(end, m);
    size_t n = 0;
    if (v < 0)
        out[n++] = '-';
    memcpy(out + n, p, (size_t)(end - p));
    n += (size_t)(end - p);
    out[n] = '\0';
    return n;
}

/* Writes exactly 8 digits of v (v < 10^8) into p: one 64-bit product gives v / 10^6 as a 48-bit
 * fixed-point number, and each further product by 100 shifts the next two digits into the integer
 * part (the "jeaiii" scheme; checked for every v < 10^8 when this was written). */
static void write8(char *p, uint32_t v)
{
    uint64_t y = (uint64_t)v * 281474977u; /* ceil(2^48 / 10^6) */
    memcpy(p, DIGITS2 + 2 * (y >> 48), 2);
    y = (y & 0xFFFFFFFFFFFFu) * 100u;
    memcpy(p + 2, DIGITS2 + 2 * (y >> 48), 2);
    y = (y & 0xFFFFFFFFFFFFu) * 100u;
    memcpy(p + 4, DIGITS2 + 2 * (y >> 48), 2);
    y = (y & 0xFFFFFFFFFFFFu) * 100u;
    memcpy(p + 6, DIGITS2 + 2 * (y >> 48), 2);
}

/* Writes the 17 digits of v (v < 10^17), with leading zeros, into p[0..17). */
static void write17(char *p, uint64_t v)
{
    uint64_t hi = v / 100000000u; /* < 10^9 */
    uint32_t lo = (uint32_t)(v - hi * 100000000u);
    uint32_t top = (uint32_t)(hi / 100000000u);
    uint32_t mid = (uint32_t)(hi - (uint64_t)top * 100000000u);
    p[0] = (char)('0' + top);
    write8(p + 1, mid);
    write8(p + 9, lo);
}

/* Number of decimal digits of v (v >= 1). */
static int digit_count(uint64_t v)
{
    static const uint64_t P10[20] = {1u,
                                     10u,
                                     100u,
                                     1000u,
                                     10000u,
                                     100000u,
                                     1000000u,
                                     10000000u,
                                     100000000u,
                                     1000000000u,
                                     10000000000u,
                                     100000000000u,
                                     1000000000000u,
                                     10000000000000u,
                                     100000000000000u,
                                     1000000000000000u,
                                     10000000000000000u,
                                     100000000000000000u,
                                     1000000000000000000u,
                                     10000000000000000000u};
    /* log10 v, or one more (Bit Twiddling Hacks) */
    int t = ((64 - __builtin_clzll(v)) * 1233) >> 12;
    return t - (v < P10[t]) + 1;
}

/* The layout of a finite non-zero x = (-1)^neg * sig * 10^e (Dragonbox's shortest digits), without
 * the NUL: ECMAScript Number::toString, steps 5-10, with the k digits s and n such that
 * x = s * 10^(n-k), except that integers take the plain form only below 10^17 (ECMAScript: 10^21),
 * so that no number looks like an integer beyond int64. The digits are made in tmp[7..24) (48
 * bytes; the caller has set tmp[24..48) to '0' once, they are only read here) and moved with
 * fixed-size copies (inlined), so out[0..32) may be written beyond the returned length (callers
 * leave WIRE_JW_NUM_SLACK bytes of room). */
static size_t fmt_decimal_raw(char *out, int neg, uint64_t sig, int e, char *tmp)
{
    /* The sign without a branch: with signs at random (half of a sine table) a branch mispredicts
     * on every other number (about 1.3 ns of 23 per number measured). For x > 0 the digits
     * overwrite the '-'. */
    out[0] = '-';
    char *p = out + neg;
    int k = digit_count(sig);
    int n = k + e;
    if (-6 < n && n <= 0 && k - n >= 15) {
        /* 0.000ddd with 15 or more characters after "0." (most numbers in (-1, 1)): the 17
         * zero-padded digits go straight to where they end, p + 2 - n + k, starting at or after
         * p, over "0.000000"; then "0." again (the padding may have covered the '.'). Only
         * stores: nothing just written is read back, which costs a store-forwarding stall. */
        memcpy(p, "0.000000", 8);
        write17(p + 2 - n + k - 17, sig);
        memcpy(p, "0.", 2);
        return (size_t)(p + 2 - n + k - out);
    }
    write17(tmp + 7, sig); /* Dragonbox gives at most 17 digits */
    const char *d = tmp + 24 - k;
    if (k <= n && n <= 17) { /* integer below 10^17: digits, then n-k zeros (from tmp) */
        memcpy(p, d, 24);
        p += n;
    } else if (0 < n && n < k) { /* ddd.ddd */
        memcpy(p, d, 16);        /* the n <= 16 integer digits */
        if (n <= 14) { /* the k - n <= 16 fraction digits in one copy, within the 32 bytes */
            memcpy(p + n + 1, d + n, 16);
        } else {
            for (int i = n; i < k; i++)
                p[i + 1] = d[i];
        }
        p[n] = '.';
        p += k + 1;
    } else if (-6 < n && n <= 0) { /* 0.000ddd */
        memcpy(p, "0.000000", 8);
        memcpy(p + 2 - n, d, 20);
        p += 2 - n + k;
    } else { /* d.ddde+X */
        p[0] = d[0];
        p[1] = '.';
        memcpy(p + 2, d + 1, 16);
        p += k > 1 ? k + 1 : 1;
        *p++ = 'e';
        int x10 = n - 1;
        *p++ = x10 < 0 ? '-' : '+';
        unsigned a = (unsigned)(x10 < 0 ? -x10 : x10);
        if (a >= 100) {
            *p++ = (char)('0' + a / 100);
            a %= 100;
            memcpy(p, DIGITS2 + 2 * a, 2);
            p += 2;
        } else if (a >= 10) {
            memcpy(p, DIGITS2 + 2 * a, 2);
            p += 2;
        } else {
            *p++ = (char)('0' + a);
        }
    }
    return (size_t)(p - out);
}

/* fmt_decimal_raw for one finite x (0 and -0 give "0"). */
static size_t fmt_double_raw(char *out, double x)
{
    if (x == 0.0) {
        out[0] = '0'; /* also -0, as JSON.stringify prints it (README: .npy keeps the sign) */
        return 1;
    }
    uint64_t sig;
    int e;
    int neg = wire_numfmt_decimal(x, &sig, &e);
    char tmp[48];
    memset(tmp + 24, '0', 24);
    return fmt_decimal_raw(out, neg, sig, e, tmp);
}

size_t wire_fmt_double(char *out, double x)
{
    size_t n = fmt_double_raw(out, x);
    out[n] = '\0';
    return n;
}

/* fmt_double_raw's result is at most 25 bytes: WIRE_JW_NUM_MAX (26) covers one number and its
 * comma; it may scribble up to 32 bytes past where a number starts (WIRE_JW_NUM_SLACK). */

size_t wire_jw_fmt_row(char *out, const double *x, size_t n, int masked, int *nonfinite)
{
    enum { BLOCK = 64 }; /* numbers per Dragonbox call (wire_numfmt_decimals) */
    char *p = out;
    *p++ = '[';
    uint64_t sig[BLOCK];
    int ex[BLOCK];
    char tmp[48];
    memset(tmp + 24, '0', 24);
    for (size_t b = 0; b < n; b += BLOCK) {
        size_t m = n - b < BLOCK ? n - b : BLOCK;
        wire_numfmt_decimals(x + b, m, sig, ex);
        for (size_t j = 0; j < m; j++) {
            size_t i = b + j;
            if (i)
                *p++ = ',';
            double v = x[i];
            if (sig[j] != 0) {
                p += fmt_decimal_raw(p, signbit(v) != 0, sig[j], ex[j], tmp);
            } else if (v == 0.0) {
                *p++ = '0';
            } else {
                if (!(masked && v == -INFINITY))
                    *nonfinite = 1;
                memcpy(p, "null", 4);
                p += 4;
            }
        }
    }
    *p++ = ']';
    return (size_t)(p - out);
}

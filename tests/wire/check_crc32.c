/*
 * tests/wire/check_crc32.c -- CRC-32 (wire/crc32.h): the published check values of the ZIP / gzip
 * CRC-32 (the "check" of the CRC catalogue for CRC-32/ISO-HDLC, and the examples every CRC-32
 * implementation quotes), and long buffers (where libdeflate takes its folding path) against the
 * definition computed bit by bit here, whole and in pieces.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "wire/crc32.h"

/* The definition: reflected polynomial 0xEDB88320, register preset to all ones, one bit at a time,
 * final complement (ISO 3309). */
static uint32_t crc32_bitwise(const unsigned char *p, size_t n)
{
    uint32_t r = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        r ^= p[i];
        for (int b = 0; b < 8; b++)
            r = (r >> 1) ^ (0xEDB88320u & (0u - (r & 1u)));
    }
    return r ^ 0xFFFFFFFFu;
}

START_TEST(test_check_values)
{
    ck_assert_uint_eq(wire_crc32(0, "123456789", 9), 0xCBF43926u);
    ck_assert_uint_eq(wire_crc32(0, "", 0), 0);
    ck_assert_uint_eq(wire_crc32(0, NULL, 0), 0);
    ck_assert_uint_eq(wire_crc32(0, "a", 1), 0xE8B7BE43u);
    ck_assert_uint_eq(wire_crc32(0, "abc", 3), 0x352441C2u);
    const char *fox = "The quick brown fox jumps over the lazy dog";
    ck_assert_uint_eq(wire_crc32(0, fox, strlen(fox)), 0x414FA339u);
    /* 32 zero bytes (the iSCSI / RFC 3720 B.4 buffer, here under the ZIP polynomial) */
    static const unsigned char zeros[32];
    ck_assert_uint_eq(wire_crc32(0, zeros, 32), 0x190A55ADu);
    /* running: "1234" then "56789" */
    ck_assert_uint_eq(wire_crc32(wire_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
}
END_TEST

START_TEST(test_long_and_in_pieces)
{
    enum { N = 300001 }; /* odd, past every block size of the folding code */
    static unsigned char buf[N];
    uint32_t x = 16;
    for (size_t i = 0; i < N; i++) {
        x = x * 1664525u + 1013904223u; /* Numerical Recipes' LCG: any fixed bytes do */
        buf[i] = (unsigned char)(x >> 24);
    }
    uint32_t want = crc32_bitwise(buf, N);
    ck_assert_uint_eq(wire_crc32(0, buf, N), want);
    const size_t cuts[] = {1, 15, 16, 63, 64, 65, 4096, 131072, 299999};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        uint32_t crc = wire_crc32(0, buf, cuts[c]);
        ck_assert_uint_eq(wire_crc32(crc, buf + cuts[c], N - cuts[c]), want);
    }
    for (size_t off = 1; off < 8; off++) /* unaligned starts */
        ck_assert_uint_eq(wire_crc32(0, buf + off, N - off), crc32_bitwise(buf + off, N - off));
}
END_TEST

Suite *crc32_suite(void)
{
    Suite *s = suite_create("crc32");
    TCase *tc = tcase_create("crc32");
    tcase_add_test(tc, test_check_values);
    tcase_add_test(tc, test_long_and_in_pieces);
    suite_add_tcase(s, tc);
    return s;
}

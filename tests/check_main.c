/*
 * tests/check_main.c -- the single libcheck runner (one summary line for CI).
 * Every `Suite *NAME_suite(void)` in tests/check_*.c is registered through the generated
 * suites.inc, so adding a suite needs no edit here.
 */
#include <check.h>
#include <stdlib.h>

#define PE_SUITE(name) Suite *name##_suite(void);
#include "suites.inc"
#undef PE_SUITE

int main(void)
{
    SRunner *sr = srunner_create(NULL);
#define PE_SUITE(name) srunner_add_suite(sr, name##_suite());
#include "suites.inc"
#undef PE_SUITE
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

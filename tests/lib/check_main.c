/*
 * tests/lib/check_main.c -- the libcheck runner, built twice: check_unit (tests/core, wire, store,
 * api, server: no daemon) and check_http (tests/http: a live posencd). Every
 * `Suite *NAME_suite(void)` of the runner's suites is registered through the generated suites.inc,
 * so adding a suite needs no edit here. One summary line for CI.
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

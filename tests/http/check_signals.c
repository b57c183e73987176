/*
 * tests/http/check_signals.c -- which signals stop posencd. Only SIGTERM and SIGINT drain and stop
 * it; SIGHUP, SIGUSR1 and SIGUSR2 (sent by log rotators, process managers, a stray `kill -HUP`)
 * are noted and ignored. Before they were taken in server/main.c, each killed the daemon at once
 * with no drain, cutting the responses in flight.
 */
#include <check.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/http_util.h"

START_TEST(test_hup_usr1_usr2_ignored)
{
    static const int SIGS[] = {SIGHUP, SIGUSR1, SIGUSR2};
    th_server s;
    ck_assert_int_eq(th_server_start(&s, NULL), 0);
    for (size_t i = 0; i < sizeof SIGS / sizeof SIGS[0]; i++) {
        ck_assert_int_eq(kill(s.pid, SIGS[i]), 0);
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
        int st;
        ck_assert_msg(waitpid(s.pid, &st, WNOHANG) == 0, "signal %d stopped the daemon", SIGS[i]);
        th_resp r;
        ck_assert_int_eq(th_request(&s, "GET", "/healthz", NULL, NULL, 0, 0, &r), 0);
        ck_assert_int_eq(r.status, 200);
        th_resp_free(&r);
    }
    ck_assert_int_eq(th_server_stop(&s), 0); /* SIGTERM still drains and exits 0 */
}
END_TEST

Suite *signals_suite(void)
{
    Suite *s = suite_create("signals");
    TCase *tc = tcase_create("live");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_hup_usr1_usr2_ignored);
    suite_add_tcase(s, tc);
    return s;
}

/*
 * server/sched.c -- a short scheduler slice for the HTTP threads (see sched.h).
 */
#include "server/sched.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The slice asked for: the kernel's minimum for a fair task (0.1 ms). The HTTP threads' work per
 * wake-up (read a header, queue an answer, copy a 64 KiB piece of a body) is shorter. */
#define SRV_HTTP_SLICE_NS 100000ULL

/* The kernel's struct sched_attr up to sched_period (SCHED_ATTR_SIZE_VER0, 48 bytes); glibc 2.36
 * has no wrapper for sched_setattr. */
struct srv_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

void srv_sched_short_slice(void)
{
#ifdef SYS_sched_setattr
    static _Thread_local int done;
    if (done)
        return;
    done = 1;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)tid); /* kept: the operator's `nice` stays */
    if (nice == -1 && errno != 0)
        return;
    struct srv_sched_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.sched_policy = 0; /* SCHED_OTHER */
    a.sched_nice = nice;
    a.sched_runtime = SRV_HTTP_SLICE_NS;
    (void)syscall(SYS_sched_setattr, tid, &a, 0U);
#endif
}

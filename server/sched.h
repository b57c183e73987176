/*
 * server/sched.h -- how the daemon's threads ask the Linux scheduler for short wake-up latency.
 */
#ifndef SRV_SCHED_H
#define SRV_SCHED_H

/*
 * Asks the scheduler for a short time slice (SRV_HTTP_SLICE_NS) for the calling thread, keeping
 * its policy (SCHED_OTHER) and nice value. Since Linux 6.12 (EEVDF, sched_attr.sched_runtime for
 * fair tasks) a waking thread with a shorter slice than the running one preempts it at once
 * instead of waiting for the end of that thread's slice (~3 ms). The HTTP threads call it once
 * each, so that /healthz, headers and streamed bodies are served within ~0.1 ms of their arrival
 * while the CPUs compute. Older kernels refuse or ignore the request: only the preference is lost.
 * Idempotent and cheap after the first call on a thread (a thread-local flag). Never fails.
 */
void srv_sched_short_slice(void);

#endif

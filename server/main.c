/*
 * server/main.c -- posencd: configuration, the frequency-table cache, the HTTP daemon and signals.
 * The only file with process-wide state (docs/style.md#s4): signals are blocked before the daemon
 * starts so its threads inherit the mask, and main waits for SIGTERM/SIGINT with sigwait, then
 * drains.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/cache.h"
#include "server/config.h"
#include "server/http.h"
#include "server/routes.h"

/* Reads a whole small regular file; NULL when it cannot (a FIFO or device is refused without
 * blocking: opened O_NONBLOCK, checked with fstat). */
static char *read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        close(fd);
        return NULL;
    }
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && n < (64L << 20) && fseek(f, 0, SEEK_SET) == 0) {
            buf = malloc((size_t)n + 1);
            if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
                buf[n] = '\0';
                *len = (size_t)n;
            } else {
                free(buf);
                buf = NULL;
            }
        }
    }
    fclose(f);
    return buf;
}

/* --healthcheck: GET /healthz on 127.0.0.1:port; 0 when it answers 200 within 3 s. */
static int healthcheck(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 1;
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char buf[64] = {0};
    int ok = 0;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
        const char req[] = "GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n";
        if (write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1) &&
            read(fd, buf, sizeof buf - 1) > 12)
            ok = strncmp(buf + 8, " 200", 4) == 0;
    }
    close(fd);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    /* Buffers of 4 MiB and more (large request bodies, tables, big arrays) are mmapped: freed,
     * they go back to the kernel, and a body buffer that doubles past 4 MiB grows with mremap,
     * without a copy. Smaller blocks (responses of a few MB come and go) stay in the process:
     * freed memory is kept up to the trim threshold, so RSS stays flat under load (the soak test
     * measured 22-30 MB swings with glibc's defaults, flat at ~35 MB with a fixed threshold). */
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
    /* One malloc arena for every thread: memory a thread frees is reused by any other, so the
     * daemon's footprint follows what all requests hold together (the budgets and the memory
     * ceiling, server/memory.h) rather than each thread's own peak. With an arena per thread, 3 x
     * 16 MiB amplification bodies and 8 x 16 MiB table uploads at once reached a VmHWM of 593 MB
     * here, 382 MB with one arena, at the same speed (jansson's many small allocations go to the
     * per-request arenas of api/arena.h, not to malloc). */
    mallopt(M_ARENA_MAX, 1);
    srv_config cfg;
    int rc = srv_config_load(&cfg, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (cfg.healthcheck)
        return healthcheck(cfg.port);

    /* SIGTERM and SIGINT drain and stop; SIGHUP, SIGUSR1 and SIGUSR2 are taken too, so that their
     * default action (terminate at once, cutting responses short) never runs: the logs go to
     * stdout/stderr, so there is nothing to reopen, and they are only noted. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    srv_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.cfg = &cfg;
    ctx.api.lim = &cfg.lim;
    srv_budget_init(&ctx.budget, cfg.lim.max_inflight_bytes);
    ctx.api.cache = pe_cache_create(cfg.cache_bytes, cfg.cache_positions);
    const char *labels[32];
    size_t n_labels = srv_route_labels(labels, sizeof labels / sizeof labels[0]);
    ctx.metrics = srv_metrics_create(labels, n_labels);
    ctx.store = store_open(cfg.data_dir, cfg.lim.max_table_bytes, stderr);
    if (ctx.store) {
        store_set_limits(ctx.store, cfg.lim.max_tables, cfg.lim.max_store_bytes,
                         cfg.table_cache_bytes);
        ctx.api.tables = store_as_source(ctx.store);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ctx.id_salt = ((unsigned long long)ts.tv_nsec * 2654435761ULL) ^ (unsigned long long)getpid();
    ctx.spec = read_file(cfg.spec_path, &ctx.spec_len);
    if (ctx.api.cache == NULL || ctx.metrics == NULL || ctx.store == NULL) {
        fprintf(stderr, "posencd: out of memory at start-up\n");
        return 1;
    }
    if (ctx.spec == NULL)
        fprintf(stderr, "posencd: warning: cannot read %s; /openapi.yaml will answer 404\n",
                cfg.spec_path);

    unsigned port = 0;
    struct MHD_Daemon *d = srv_http_start(&ctx, &port);
    if (d == NULL)
        return 1;
    if (!srv_writes_open(&cfg))
        fprintf(stderr,
                "posencd: PUT and DELETE /tables answer 403: listening on %s without a write "
                "token (--write-token-file, POSENC_TOKEN) or --allow-unauthenticated-writes\n",
                cfg.bind);
    printf("posencd %s listening on http://%s:%u\n", POSENC_VERSION, cfg.bind, port);
    fflush(stdout);

    int sig = 0;
    for (;;) {
        if (sigwait(&set, &sig) != 0)
            continue;
        if (sig == SIGTERM || sig == SIGINT)
            break;
        fprintf(stderr, "posencd: signal %d ignored (only SIGTERM and SIGINT stop the daemon)\n",
                sig);
    }
    fprintf(stderr, "posencd: signal %d: draining (up to %u s)\n", sig, cfg.drain_seconds);
    srv_http_drain_and_stop(&ctx, d);
    pe_cache_destroy(ctx.api.cache);
    srv_metrics_destroy(ctx.metrics);
    store_close(ctx.store);
    free(ctx.spec);
    fprintf(stderr, "posencd: stopped\n");
    return 0;
}

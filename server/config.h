/*
 * server/config.h -- daemon configuration: one table of options (docs/style.md#s17). Each option is
 * a flag
 * `--name` and an environment variable `POSENC_NAME`; flags win over the environment, which wins
 * over the default. `--help` is generated from the table. A bad or unknown value stops start-up
 * with a message naming the option.
 */
#ifndef SRV_CONFIG_H
#define SRV_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "api/req.h"

typedef struct {
    unsigned port;               /* TCP port (8080) */
    char bind[64];               /* listen address (0.0.0.0) */
    unsigned threads;            /* worker threads of the epoll pool (>= 2; 0 given = CPUs) */
    unsigned compute_threads;    /* threads that run computations (0 given = CPUs) */
    char web_dir[512];           /* static demo files ("" = none) */
    char data_dir[512];          /* learned tables ("" = none) */
    char spec_path[512];         /* openapi.yaml served at /openapi.yaml */
    char cors_origins[512];      /* Access-Control-Allow-Origin value ("" = CORS off) */
    char log_format[16];         /* "text" or "json" */
    unsigned connection_timeout; /* idle seconds before a connection is closed */
    unsigned connection_limit;   /* simultaneous connections */
    size_t min_upload_rate;      /* a body must arrive at >= this many bytes/s over each window of
                                  * upload_window seconds (408 below; 0 = no bound; http.c) */
    unsigned upload_window;      /* seconds of that window (the first one is the grace period) */
    size_t connection_memory;    /* per-connection buffer for headers, bytes */
    size_t cache_bytes;          /* frequency-table cache bound, bytes */
    size_t cache_positions;      /* positions tabulated per cache entry at most */
    size_t table_cache_bytes;    /* stored tables kept in memory after use (LRU bound), bytes */
    unsigned drain_seconds;      /* graceful drain deadline after SIGTERM */
    unsigned max_queue_depth;    /* compute requests waiting for a compute thread (503 above) */
    size_t inline_work;          /* tiny requests within this many work units run on the HTTP
                                  * thread, not the compute pool, when nothing else computes
                                  * (0 = never; server/http.c) */
    unsigned stuck_seconds;      /* /healthz fails while a computation has run longer than this */
    int healthcheck;             /* --healthcheck: GET /healthz on 127.0.0.1:port and exit */
    char write_token_file[512];  /* file holding the write token ("" = none; server/auth.c) */
    char write_token[256];       /* the write token: from write_token_file, else POSENC_TOKEN */
    int allow_unauthenticated_writes; /* write routes without a token on a non-loopback bind */
    char spool_dir[512];              /* binary tensors wait here ("" = $TMPDIR, else /tmp) */
    size_t spool_quota;               /* bytes of tensors in the spool at once (507 above) */
    size_t sendfile_min_bytes; /* binary answers of at least this many bytes go out by sendfile
                                * (respond.c); 0 = never */
    api_limits lim;            /* request limits (docs/api.md#limits) */
} srv_config;

/* Fills cfg from defaults, the environment, then argv. Returns 0 to run, 1 when --help/--version
 * printed something (exit 0), -1 on a bad option (message printed to stderr, exit 2). */
int srv_config_load(srv_config *cfg, int argc, char **argv);

/*
 * The CPUs this process may use, as its cgroup's CPU quota says: ceil(quota / period) from
 * <root>/cpu.max (cgroup v2: "max 100000" = no quota, "250000 100000" = 2.5 CPUs) or, when that
 * file is absent, from cpu.cfs_quota_us and cpu.cfs_period_us in <root>/cpu or <root>/cpu,cpuacct
 * (cgroup v1; quota -1 = none), clamped to [1, ncpu]. ncpu (the online CPUs) when no quota is set
 * or nothing can be read. root is "/sys/fs/cgroup" in the daemon, where a container runtime
 * mounts the container's own cgroup (in Kubernetes: resources.limits.cpu); a fake tree in tests.
 * srv_config_load uses it for --threads and --compute-threads when they are 0 (not given).
 */
unsigned srv_cpu_quota(const char *root, unsigned ncpu);

/* Prints `--help` (generated from the option table) to stdout. */
void srv_config_usage(const char *prog);

#endif

/* server/config.c -- the option table and its parser. See config.h. */
#include "server/config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum { OPT_UINT, OPT_SIZE, OPT_I64, OPT_STR, OPT_FLAG } opt_kind;

typedef struct {
    const char *name; /* flag without "--"; env is POSENC_ + upper-case with '_' */
    opt_kind kind;
    size_t offset;      /* into srv_config */
    size_t str_size;    /* OPT_STR buffer size */
    const char *def;    /* default as text */
    long long min, max; /* numeric bounds */
    const char *help;
} opt_row;

#define OFF(f) offsetof(srv_config, f)
#define STR(f) OFF(f), sizeof(((srv_config *)0)->f)

static const opt_row OPTS[] = {
    {"port", OPT_UINT, OFF(port), 0, "8080", 0, 65535, "TCP port to listen on (0 = any free port)"},
    {"bind", OPT_STR, STR(bind), "0.0.0.0", 0, 0, "IPv4 address to listen on"},
    {"threads", OPT_UINT, OFF(threads), 0, "0", 0, 256,
     "worker threads in the epoll pool (0 = CPUs by the cgroup CPU quota, at least 2)"},
    {"compute-threads", OPT_UINT, OFF(compute_threads), 0, "0", 0, 256,
     "threads that run computations, so HTTP threads stay free (0 = CPUs by the cgroup CPU "
     "quota, else the number of CPUs)"},
    {"web-dir", OPT_STR, STR(web_dir), "web", 0, 0,
     "directory of the demo served at / (\"\" = none)"},
    {"data-dir", OPT_STR, STR(data_dir), "data", 0, 0, "directory for stored learned tables"},
    {"spec", OPT_STR, STR(spec_path), "openapi.yaml", 0, 0, "OpenAPI file served at /openapi.yaml"},
    {"cors-origins", OPT_STR, STR(cors_origins), "*", 0, 0,
     "Access-Control-Allow-Origin value (\"\" turns CORS off)"},
    {"log-format", OPT_STR, STR(log_format), "text", 0, 0, "access log format: text or json"},
    {"connection-timeout", OPT_UINT, OFF(connection_timeout), 0, "30", 1, 3600,
     "seconds an idle or stalled connection is kept"},
    {"min-upload-rate", OPT_SIZE, OFF(min_upload_rate), 0, "1024", 0, 1LL << 40,
     "a request body must arrive at this many bytes a second at least, measured over each "
     "--upload-window seconds (408 below; 0 = no bound)"},
    {"upload-window", OPT_UINT, OFF(upload_window), 0, "10", 1, 3600,
     "seconds over which --min-upload-rate is measured (the first window is the grace period)"},
    {"connection-limit", OPT_UINT, OFF(connection_limit), 0, "1000", 4, 100000,
     "simultaneous connections (more are refused)"},
    {"connection-memory", OPT_SIZE, OFF(connection_memory), 0, "65536", 8192, 16777216,
     "per-connection buffer for request headers, bytes (larger headers get 431)"},
    {"cache-bytes", OPT_SIZE, OFF(cache_bytes), 0, "67108864", 0, 1LL << 40,
     "bound of the RoPE frequency-table cache, bytes"},
    {"cache-positions", OPT_SIZE, OFF(cache_positions), 0, "65536", 0, 1LL << 24,
     "positions tabulated per cached configuration at most"},
    {"drain-seconds", OPT_UINT, OFF(drain_seconds), 0, "10", 0, 3600,
     "after SIGTERM, seconds to finish in-flight requests"},
    {"inline-work", OPT_SIZE, OFF(inline_work), 0, "0", 0, 1048576,
     "answer a compute request of at most 16 KiB needing at most this many work units on the "
     "HTTP thread instead of the compute pool when nothing else computes (0 = never; "
     "docs/performance.md)"},
    {"max-queue-depth", OPT_UINT, OFF(max_queue_depth), 0, "256", 1, 1000000,
     "compute requests that may wait for a compute thread (503 overloaded above)"},
    {"stuck-seconds", OPT_UINT, OFF(stuck_seconds), 0, "60", 1, 86400,
     "/healthz answers 503 while one computation has run longer than this"},
    {"max-body-bytes", OPT_SIZE, OFF(lim.max_body_bytes), 0, "16777216", 64, 1LL << 34,
     "largest request body, bytes (413 above)"},
    {"max-table-bytes", OPT_SIZE, OFF(lim.max_table_bytes), 0, "268435456", 64, 1LL << 36,
     "largest stored table, bytes"},
    {"max-output-elements", OPT_SIZE, OFF(lim.max_output_elements), 0, "4194304", 1, 1LL << 32,
     "numbers in one response (422 above)"},
    {"max-dim", OPT_SIZE, OFF(lim.max_dim), 0, "65536", 2, 1LL << 24, "largest d_model / head_dim"},
    {"max-heads", OPT_SIZE, OFF(lim.max_heads), 0, "1024", 1, 1LL << 20, "largest num_heads"},
    {"max-positions", OPT_SIZE, OFF(lim.max_positions), 0, "1000000", 1, 1LL << 32,
     "positions in one request"},
    {"max-position", OPT_I64, OFF(lim.max_position), 0, "2147483647", 1, 1LL << 53,
     "positions must be below this"},
    {"max-work", OPT_SIZE, OFF(lim.max_work), 0, "1073741824", 1024, 1LL << 50,
     "compute budget of one request in work units (multiply-add 1, sin/cos/exp 32; 422 above)"},
    {"max-inflight-bytes", OPT_SIZE, OFF(lim.max_inflight_bytes), 0, "268435456", 64, 1LL << 40,
     "request bodies held in memory by all requests at once, bytes (>= max-body-bytes and "
     "max-table-bytes; 503 overloaded above)"},
    {"max-parse-bytes", OPT_SIZE, OFF(lim.max_parse_bytes), 0, "134217728", 65536, 1LL << 40,
     "the parsed JSON tree of one request body, bytes (413 above); one tree per computing thread"},
    {"write-token-file", OPT_STR, STR(write_token_file), "", 0, 0,
     "file holding the bearer token PUT and DELETE /tables need (e.g. a mounted Secret); without "
     "it the token is POSENC_TOKEN (\"\" = none)"},
    {"allow-unauthenticated-writes", OPT_FLAG, OFF(allow_unauthenticated_writes), 0, "0", 0, 1,
     "allow PUT and DELETE /tables without a token on a non-loopback --bind"},
    {"max-tables", OPT_SIZE, OFF(lim.max_tables), 0, "100000", 1, 1LL << 32,
     "stored tables in the data directory, counted from it (507 above)"},
    {"max-store-bytes", OPT_SIZE, OFF(lim.max_store_bytes), 0, "17179869184", 1024, 1LL << 50,
     "bytes of stored table files in the data directory, counted from it (507 above)"},
    {"table-cache-bytes", OPT_SIZE, OFF(table_cache_bytes), 0, "268435456", 0, 1LL << 40,
     "stored tables kept in memory after use, bytes of data (least recently used out)"},
    {"max-tensor-bytes", OPT_SIZE, OFF(lim.max_tensor_bytes), 0, "2147483648", 64, 1LL << 44,
     "the .npy data (q and k) of one binary request, bytes (413 above); it waits in the spool, "
     "so only the windows being rotated count in max-inflight-bytes"},
    {"spool-dir", OPT_STR, STR(spool_dir), "", 0, 0,
     "directory where binary tensors wait while they are rotated (\"\" = $TMPDIR, else /tmp); "
     "files are unlinked at once"},
    {"spool-quota", OPT_SIZE, OFF(spool_quota), 0, "8589934592", 0, 1LL << 50,
     "bytes of binary tensors in the spool at once, all requests (507 above)"},
    {"sendfile-min-bytes", OPT_SIZE, OFF(sendfile_min_bytes), 0, "0", 0, 1LL << 50,
     "a binary answer of at least this many bytes is sent from its spool file by sendfile, which "
     "then gives its pages up (0 = never: read and sent, slower to a loopback client here; "
     "docs/performance.md, \"sendfile\")"},
    {"healthcheck", OPT_FLAG, OFF(healthcheck), 0, "0", 0, 1,
     "GET /healthz on 127.0.0.1:PORT, exit 0 when healthy (for container health checks)"},
};
#define N_OPTS (sizeof OPTS / sizeof OPTS[0])

static void env_name(const char *name, char *out, size_t n)
{
    size_t len = (size_t)snprintf(out, n, "POSENC_");
    for (const char *p = name; *p && len + 1 < n; p++)
        out[len++] = (*p == '-') ? '_' : (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    out[len] = '\0';
}

static int set_opt(srv_config *cfg, const opt_row *o, const char *val, const char *from)
{
    char *base = (char *)cfg;
    if (o->kind == OPT_STR) {
        if (strlen(val) >= o->str_size) {
            fprintf(stderr, "posencd: %s: value too long (max %zu bytes)\n", from, o->str_size - 1);
            return -1;
        }
        memcpy(base + o->offset, val, strlen(val) + 1);
        return 0;
    }
    if (o->kind == OPT_FLAG) {
        *(int *)(void *)(base + o->offset) = (strcmp(val, "0") != 0 && strcmp(val, "false") != 0);
        return 0;
    }
    errno = 0;
    char *end = NULL;
    long long v = strtoll(val, &end, 10);
    if (errno != 0 || end == val || *end != '\0' || v < o->min || v > o->max) {
        fprintf(stderr, "posencd: %s: \"%s\" is not an integer in [%lld, %lld]\n", from, val,
                o->min, o->max);
        return -1;
    }
    switch (o->kind) {
    case OPT_UINT:
        *(unsigned *)(void *)(base + o->offset) = (unsigned)v;
        break;
    case OPT_SIZE:
        *(size_t *)(void *)(base + o->offset) = (size_t)v;
        break;
    case OPT_I64:
        *(int64_t *)(void *)(base + o->offset) = (int64_t)v;
        break;
    default:
        break;
    }
    return 0;
}

/* max_inflight_bytes must cover the most that one request may hold: a body buffer of
 * max_body_bytes, or the table a streamed .safetensors upload keeps (max_table_bytes). Then every
 * request within its own limits fits an idle server, and a 503 overloaded is always worth a retry.
 */
static int check_inflight(const api_limits *l)
{
    const char *other = NULL;
    size_t need = 0;
    if (l->max_inflight_bytes < l->max_body_bytes) {
        other = "max-body-bytes";
        need = l->max_body_bytes;
    } else if (l->max_inflight_bytes < l->max_table_bytes) {
        other = "max-table-bytes";
        need = l->max_table_bytes;
    }
    if (other == NULL) {
        /* an answer holds 8 bytes per streamed number while it is sent (server/respond.c): one
         * of max_output_elements numbers must fit too, or it can only ever be a 503 */
        if (l->max_output_elements > l->max_inflight_bytes / 8)
            fprintf(stderr,
                    "posencd: warning: --max-inflight-bytes (%zu) cannot hold an answer of "
                    "--max-output-elements (%zu) numbers (8 bytes each): such answers get 503 "
                    "overloaded\n",
                    l->max_inflight_bytes, l->max_output_elements);
        return 0;
    }
    fprintf(stderr,
            "posencd: --max-inflight-bytes (POSENC_MAX_INFLIGHT_BYTES) is %zu, below --%s (%zu): "
            "the budget for request bodies held in memory must hold at least one request's; "
            "raise it to %zu or more, or lower --%s\n",
            l->max_inflight_bytes, other, need, need, other);
    return -1;
}

/* Reads up to two integers from the first line of root/dir/name ("max" reads as -1); returns how
 * many were read. */
static int read_ints(const char *root, const char *dir, const char *name, long long v[2])
{
    char path[1024], line[128];
    snprintf(path, sizeof path, "%s%s%s/%s", root, dir[0] ? "/" : "", dir, name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int n = 0;
    if (fgets(line, sizeof line, f) != NULL) {
        char *p = line;
        while (n < 2) {
            char *end = NULL;
            errno = 0;
            long long x = strncmp(p, "max", 3) == 0 ? -1 : strtoll(p, &end, 10);
            if (x == -1 && end == NULL)
                end = p + 3;
            if (errno != 0 || end == p)
                break;
            v[n++] = x;
            p = end;
        }
    }
    fclose(f);
    return n;
}

unsigned srv_cpu_quota(const char *root, unsigned ncpu)
{
    long long v[2] = {-1, 0}, period[2] = {0, 0};
    int got = read_ints(root, "", "cpu.max", v) == 2;
    static const char *const V1[] = {"cpu", "cpu,cpuacct"};
    for (size_t i = 0; !got && i < sizeof V1 / sizeof V1[0]; i++) {
        if (read_ints(root, V1[i], "cpu.cfs_quota_us", v) == 1 &&
            read_ints(root, V1[i], "cpu.cfs_period_us", period) == 1) {
            v[1] = period[0];
            got = 1;
        }
    }
    if (ncpu < 1)
        ncpu = 1;
    if (!got || v[0] <= 0 || v[1] <= 0) /* no quota ("max", -1) or unreadable */
        return ncpu;
    long long cpus = (v[0] + v[1] - 1) / v[1];
    return cpus < 1 ? 1 : cpus > (long long)ncpu ? ncpu : (unsigned)cpus;
}

/* The write token: the first line of --write-token-file (a regular file; trailing whitespace and
 * the newline dropped; it must not be empty), else POSENC_TOKEN ("" = none). Visible ASCII only,
 * up to 255 bytes. 0, or -1 with a message. */
static int load_token(srv_config *cfg)
{
    char buf[sizeof cfg->write_token + 2] = {0};
    const char *src = "POSENC_TOKEN";
    if (cfg->write_token_file[0]) {
        src = cfg->write_token_file;
        int fd = open(cfg->write_token_file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        struct stat st;
        ssize_t n = -1;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
            n = read(fd, buf, sizeof buf - 1);
        if (fd >= 0)
            close(fd);
        if (n < 0) {
            fprintf(stderr, "posencd: --write-token-file %s: cannot read a regular file\n", src);
            return -1;
        }
        buf[n] = '\0';
        buf[strcspn(buf, "\r\n")] = '\0';
    } else {
        const char *e = getenv("POSENC_TOKEN");
        snprintf(buf, sizeof buf, "%s", e ? e : "");
    }
    size_t n = strlen(buf);
    while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
        buf[--n] = '\0';
    if (n >= sizeof cfg->write_token) {
        fprintf(stderr, "posencd: %s: the write token is longer than %zu bytes\n", src,
                sizeof cfg->write_token - 1);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (buf[i] <= ' ' || buf[i] > '~') {
            fprintf(stderr, "posencd: %s: the write token must be visible ASCII\n", src);
            return -1;
        }
    }
    if (n == 0 && cfg->write_token_file[0]) {
        fprintf(stderr, "posencd: --write-token-file %s is empty\n", src);
        return -1;
    }
    memcpy(cfg->write_token, buf, n + 1);
    return 0;
}

void srv_config_usage(const char *prog)
{
    printf("usage: %s [options]\n\nposencd serves transformer positional encodings over HTTP.\n"
           "Every option is also read from the environment variable shown; flags win.\n\n",
           prog);
    for (size_t i = 0; i < N_OPTS; i++) {
        char env[64];
        env_name(OPTS[i].name, env, sizeof env);
        char flag[64];
        snprintf(flag, sizeof flag, "--%s%s", OPTS[i].name, OPTS[i].kind == OPT_FLAG ? "" : " V");
        printf("  %-26s %s\n  %-26s [env %s, default \"%s\"]\n", flag, OPTS[i].help, "", env,
               OPTS[i].def);
    }
    printf("  %-26s %s\n  %-26s %s\n", "--help", "print this help", "--version",
           "print the version");
}

int srv_config_load(srv_config *cfg, int argc, char **argv)
{
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < N_OPTS; i++) {
        if (set_opt(cfg, &OPTS[i], OPTS[i].def, OPTS[i].name) < 0)
            return -1;
    }
    for (size_t i = 0; i < N_OPTS; i++) {
        char env[64];
        env_name(OPTS[i].name, env, sizeof env);
        const char *v = getenv(env);
        if (v != NULL && set_opt(cfg, &OPTS[i], v, env) < 0)
            return -1;
    }
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            srv_config_usage(argv[0]);
            return 1;
        }
        if (strcmp(arg, "--version") == 0) {
            printf("posencd %s (%s)\n", POSENC_VERSION, POSENC_GIT_REV);
            return 1;
        }
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "posencd: unexpected argument \"%s\" (see --help)\n", arg);
            return -1;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const opt_row *o = NULL;
        for (size_t i = 0; i < N_OPTS; i++) {
            if (strlen(OPTS[i].name) == nlen && strncmp(OPTS[i].name, name, nlen) == 0)
                o = &OPTS[i];
        }
        if (o == NULL) {
            fprintf(stderr, "posencd: unknown option \"%s\" (see --help)\n", arg);
            return -1;
        }
        const char *val;
        if (o->kind == OPT_FLAG) {
            val = eq ? eq + 1 : "1";
        } else if (eq) {
            val = eq + 1;
        } else if (a + 1 < argc) {
            val = argv[++a];
        } else {
            fprintf(stderr, "posencd: option --%s needs a value\n", o->name);
            return -1;
        }
        if (set_opt(cfg, o, val, arg) < 0)
            return -1;
    }
    if (strcmp(cfg->log_format, "text") != 0 && strcmp(cfg->log_format, "json") != 0) {
        fprintf(stderr, "posencd: --log-format must be text or json\n");
        return -1;
    }
    if (cfg->threads == 0 || cfg->compute_threads == 0) { /* not given: the pod's CPU limit */
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        unsigned cpus = srv_cpu_quota("/sys/fs/cgroup", n > 0 ? (unsigned)n : 1);
        if (cfg->threads == 0)
            cfg->threads = cpus;
        if (cfg->compute_threads == 0)
            cfg->compute_threads = cpus;
        if (n > 0 && cpus < (unsigned)n && !cfg->healthcheck)
            fprintf(stderr,
                    "posencd: the cgroup CPU quota allows %u of %ld CPUs: --threads and "
                    "--compute-threads default to %u\n",
                    cpus, n, cpus);
    }
    if (load_token(cfg) < 0)
        return -1;
    return check_inflight(&cfg->lim);
}

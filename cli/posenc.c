/*
 * cli/posenc.c -- `posenc ROUTE [FILE|-]`: one compute request answered in process, no daemon.
 *
 * The CLI links the same layers as posencd below server/ (api/, store/, wire/, core/) and calls
 * the daemon's own route table and driver: api_route_named("/" ROUTE) and api_handle_route(), with
 * the daemon's default limits (api_limits_default) and a frequency-table cache of the daemon's
 * default size. So for the same request bytes its output is byte for byte the daemon's body:
 * JSON, or with --npy the .npy that `Accept: application/x-npy` gives, and the same problem+json
 * for errors (tests/cli/run.sh checks this over every case of tests/vectors/).
 *
 * Exit status: 0 for a 2xx answer (body on stdout or in -o FILE), 1 for a 4xx-class problem, 3 for
 * a 5xx-class one (the problem+json on stderr, nothing written to -o), 2 for a usage error or a
 * file that cannot be read or written.
 *
 * --config FILE sends a model's config.json as {"config": ...} together with the request's other
 * fields (see merge_config below for the precedence). Contract of the answers: openapi.yaml.
 */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api.h"
#include "api/problem.h"
#include "api/req.h"
#include "core/cache.h"
#include "store/store.h"

/* posencd's defaults for --cache-bytes and --cache-positions: the cache only saves work, so its
 * size never changes an answer; these keep one run's cost like one daemon request's. */
#define CLI_CACHE_BYTES ((size_t)64 << 20)
#define CLI_CACHE_POSITIONS ((size_t)65536)

/* Exit statuses (documented in --help). */
enum { EXIT_OK = 0, EXIT_CLIENT = 1, EXIT_USAGE = 2, EXIT_SERVER = 3 };

/* What the command line asked for. Strings borrow argv. */
typedef struct {
    const char *route;      /* route name as given ("rope", "t5/buckets", "/alibi") */
    const char *input;      /* request file, "-" = stdin, NULL = none given */
    const char *config;     /* --config FILE or NULL */
    const char *output;     /* -o FILE or NULL (stdout) */
    const char *data_dir;   /* --data-dir DIR or NULL (the built-in table only) */
    const char *request_id; /* --request-id ID: the problem's "instance", as X-Request-Id */
    int npy;                /* --npy */
    int npz;                /* --npz */
    const char *array;      /* --array NAMES: the daemon's ?array= */
    api_limits lim;         /* api_limits_default, then the --max-* flags */
} cli_args;

/* A --max-* flag: the api_limits member it sets and its bounds (those of posencd's flags). */
typedef struct {
    const char *flag;
    size_t offset;
    int is_i64;
    long long min, max;
    const char *help;
} cli_limit_flag;

#define LIM(f) offsetof(api_limits, f)
static const cli_limit_flag LIMIT_FLAGS[] = {
    {"--max-body-bytes", LIM(max_body_bytes), 0, 64, 1LL << 34,
     "largest request (after --config merging), bytes (413 above)"},
    {"--max-output-elements", LIM(max_output_elements), 0, 1, 1LL << 32,
     "numbers in one answer (422 above)"},
    {"--max-positions", LIM(max_positions), 0, 1, 1LL << 32, "positions in one request"},
    {"--max-position", LIM(max_position), 1, 1, 1LL << 53, "positions must be below this"},
    {"--max-dim", LIM(max_dim), 0, 2, 1LL << 24, "largest d_model / head_dim"},
    {"--max-heads", LIM(max_heads), 0, 1, 1LL << 20, "largest num_heads"},
    {"--max-work", LIM(max_work), 0, 1024, 1LL << 50,
     "compute budget in work units (multiply-add 1, sin/cos/exp 32; 422 above)"},
    {"--max-table-bytes", LIM(max_table_bytes), 0, 64, 1LL << 36,
     "largest learned table read from --data-dir, bytes"},
};
#define N_LIMIT_FLAGS (sizeof LIMIT_FLAGS / sizeof LIMIT_FLAGS[0])

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: posenc ROUTE [FILE|-] [options]\n"
        "\n"
        "Answers one posenc compute request in this process (no daemon), exactly as posencd\n"
        "answers POST /ROUTE: the same JSON body, the same .npy, the same problem+json.\n"
        "\n"
        "ROUTE   sinusoidal, rope, alibi, attention, t5/buckets, learned, model/method (the\n"
        "        daemon's paths; a leading '/' is accepted)\n"
        "FILE    the request, a JSON object as in openapi.yaml; '-' reads stdin. Without FILE\n"
        "        the request is read from stdin, or is {} when --config is given.\n"
        "\n"
        "options:\n"
        "  --config FILE      a model's config.json, sent as {\"config\": <FILE>} with the\n"
        "                     request's other fields. Precedence: fields of the request win;\n"
        "                     members of a \"config\" object in the request override the same\n"
        "                     members of FILE (a shallow merge); and, as in the daemon,\n"
        "                     explicit top-level fields (head_dim, rope_theta, rope_scaling,\n"
        "                     ...) win over the values the config gives.\n"
        "  -o, --output FILE  write the answer to FILE instead of stdout (only on success)\n"
        "  --npy              the route's main array as a NumPy .npy file (as the daemon's\n"
        "                     Accept: application/x-npy); \"dtype\": \"float32\" in the request\n"
        "                     makes it '<f4'\n"
        "  --npz              every array of the answer in one NumPy .npz file (as the daemon's\n"
        "                     Accept: application/x-npz; numpy.load reads it)\n"
        "  --array NAMES      the arrays of a --npy / --npz answer (the daemon's ?array=):\n"
        "                     one name for --npy (sin), comma-separated for --npz\n"
        "  --data-dir DIR     learned tables for the learned route (a posencd --data-dir; read\n"
        "                     only here). The built-in table demo-512x64 is always there.\n"
        "  --request-id ID    put ID in a problem's \"instance\" (as the daemon's X-Request-Id)\n");
    for (size_t i = 0; i < N_LIMIT_FLAGS; i++)
        fprintf(f, "  %-18s %s\n", LIMIT_FLAGS[i].flag, LIMIT_FLAGS[i].help);
    fprintf(
        f, "                     (every limit defaults to posencd's; see `posencd --help`)\n"
           "  -h, --help         this help\n"
           "  --version          the version and git revision\n"
           "\n"
           "exit status: 0 success; 1 a 4xx-class problem (problem+json on stderr); 3 a\n"
           "5xx-class problem (e.g. out of memory: 503); 2 usage error or unreadable file.\n"
           "\n"
           "examples:\n"
           "  echo '{\"head_dim\":128,\"rope_theta\":500000}' | posenc rope\n"
           "  posenc rope --config Llama-3.1-8B/config.json            # inv_freq of the model\n"
           "  echo '{\"seq_len\":8192,\"include\":[\"cos_sin\"]}' | posenc rope - \\\n"
           "      --config config.json --npy -o cos.npy                 # np.load('cos.npy')\n"
           "  posenc alibi req.json --npy -o bias.npy\n"
           "  echo '{\"d_model\":512,\"seq_len\":2048}' | posenc sinusoidal --npy > pe.npy\n"
           "  echo '{\"table\":\"demo-512x64\",\"positions\":[0,1,2]}' | posenc learned\n"
           "  posenc learned req.json --data-dir /var/lib/posenc     # tables stored by posencd\n");
}

/* Parses a decimal integer in [min, max]; 0 on success. */
static int parse_limit(const char *s, long long min, long long max, long long *out)
{
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* The value of option argv[*i] ("--flag V" or "--flag=V"); NULL (message printed) when missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *flag)
{
    const char *a = argv[*i];
    size_t n = strlen(flag);
    if (a[n] == '=')
        return a + n + 1;
    if (*i + 1 < argc)
        return argv[++*i];
    fprintf(stderr, "posenc: option %s needs a value (see --help)\n", flag);
    return NULL;
}

/* 1 when argv word a is the option flag, alone or as "flag=..." */
static int is_opt(const char *a, const char *flag)
{
    size_t n = strlen(flag);
    return strncmp(a, flag, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

/* A --max-* flag at argv[*i]: 1 handled, 0 not one, -1 bad value (printed). */
static int parse_limit_flag(cli_args *a, int argc, char **argv, int *i)
{
    for (size_t k = 0; k < N_LIMIT_FLAGS; k++) {
        const cli_limit_flag *f = &LIMIT_FLAGS[k];
        if (!is_opt(argv[*i], f->flag))
            continue;
        const char *v = opt_value(argc, argv, i, f->flag);
        long long x = 0;
        if (v == NULL)
            return -1;
        if (parse_limit(v, f->min, f->max, &x) < 0) {
            fprintf(stderr, "posenc: %s: \"%s\" is not an integer in [%lld, %lld]\n", f->flag, v,
                    f->min, f->max);
            return -1;
        }
        char *base = (char *)&a->lim;
        if (f->is_i64)
            *(int64_t *)(void *)(base + f->offset) = (int64_t)x;
        else
            *(size_t *)(void *)(base + f->offset) = (size_t)x;
        return 1;
    }
    return 0;
}

/* Fills a from argv. Returns -1 to exit EXIT_USAGE, 1 to exit 0 (help/version), 0 to run. */
static int parse_args(cli_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    api_limits_default(&a->lim);
    const char **named[] = {&a->config,   &a->output,     &a->output,
                            &a->data_dir, &a->request_id, &a->array};
    static const char *const NAMED[] = {"--config",   "--output",     "-o",
                                        "--data-dir", "--request-id", "--array"};
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            usage(stdout);
            return 1;
        }
        if (strcmp(s, "--version") == 0) {
            printf("posenc %s (%s)\n", POSENC_VERSION, POSENC_GIT_REV);
            return 1;
        }
        if (strcmp(s, "--npy") == 0) {
            a->npy = 1;
            continue;
        }
        if (strcmp(s, "--npz") == 0) {
            a->npz = 1;
            continue;
        }
        int done = 0;
        for (size_t k = 0; k < sizeof NAMED / sizeof NAMED[0] && !done; k++) {
            if (!is_opt(s, NAMED[k]))
                continue;
            if ((*named[k] = opt_value(argc, argv, &i, NAMED[k])) == NULL)
                return -1;
            done = 1;
        }
        if (done)
            continue;
        int lf = parse_limit_flag(a, argc, argv, &i);
        if (lf < 0)
            return -1;
        if (lf > 0)
            continue;
        if (s[0] == '-' && s[1] != '\0') {
            fprintf(stderr, "posenc: unknown option \"%s\" (see --help)\n", s);
            return -1;
        }
        if (a->route == NULL)
            a->route = s;
        else if (a->input == NULL)
            a->input = s;
        else {
            fprintf(stderr, "posenc: unexpected argument \"%s\" (see --help)\n", s);
            return -1;
        }
    }
    if (a->route == NULL) {
        fprintf(stderr, "posenc: no ROUTE given\n\n");
        usage(stderr);
        return -1;
    }
    if ((a->npy || a->npz) && a->output == NULL && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "posenc: --%s writes a binary file: give -o FILE or redirect stdout\n",
                a->npz ? "npz" : "npy");
        return -1;
    }
    return 0;
}

/* The route for a name ("rope", "/rope", "t5/buckets"); NULL with the known names printed. */
static const api_route *find_route(const char *name)
{
    char path[64];
    snprintf(path, sizeof path, "%s%s", name[0] == '/' ? "" : "/", name);
    const api_route *r = api_route_named(path);
    if (r != NULL)
        return r;
    fprintf(stderr, "posenc: unknown route \"%s\"; routes:", name);
    for (size_t i = 0; api_route_path(i) != NULL; i++)
        fprintf(stderr, " %s", api_route_path(i) + 1);
    fprintf(stderr, "\n");
    return NULL;
}

/* Reads all of path ("-" = stdin) into a malloc'd buffer, up to max bytes. Returns 0 with *buf and
 * *len; 1 when the input is longer than max (*len = its size); -1 when it cannot be read
 * (message printed). */
static int read_all(const char *path, size_t max, char **buf, size_t *len)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    *len = 0;
    if (f == NULL) {
        fprintf(stderr, "posenc: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (!is_stdin && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        (unsigned long long)st.st_size > max) {
        fclose(f);
        *len = (size_t)st.st_size;
        return 1;
    }
    size_t cap = 0, n = 0;
    char *b = NULL;
    int rc = 0;
    for (;;) {
        if (n == cap) {
            if (cap > max) { /* over max: count the rest, for the 413's message */
                size_t got;
                while ((got = fread(b, 1, cap, f)) > 0)
                    n += got;
                *len = n;
                rc = 1;
                break;
            }
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = realloc(b, ncap);
            if (nb == NULL) {
                rc = -1;
                break;
            }
            b = nb;
            cap = ncap;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    if (rc == 0 && ferror(f))
        rc = -1;
    if (rc == 0 && n > max) {
        *len = n;
        rc = 1;
    }
    if (rc < 0)
        fprintf(stderr, "posenc: cannot read %s: %s\n", path, strerror(errno));
    if (!is_stdin)
        fclose(f);
    if (rc != 0) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return 0;
}

/*
 * The request with the --config file merged in: {"config": FILE, ...the request's fields}. When
 * the request has a "config" object too, its members override FILE's (json_object_update); a
 * "config" that is not an object is left for the handler to reject (422 at /config). A request
 * that is not a JSON object is returned unchanged, so the handler reports it exactly as the
 * daemon would. Returns 0 with *body and *len replaced (the old buffer freed), or -1 with pb filled
 * (the file is not JSON, not an object, or memory ran out).
 */
static int merge_config(const char *cfg_text, size_t cfg_len, const char *cfg_path, char **body,
                        size_t *len, api_problem *pb)
{
    json_error_t err;
    json_t *cfg = json_loadb(cfg_text, cfg_len, JSON_REJECT_DUPLICATES, &err);
    if (cfg == NULL) {
        api_problem_set(pb, API_PB_MALFORMED_JSON,
                        "--config %s: malformed JSON at line %d, column %d: %s", cfg_path, err.line,
                        err.column, err.text);
        return -1;
    }
    if (!json_is_object(cfg)) {
        json_decref(cfg);
        api_problem_field(pb, API_PB_INVALID_FIELD, "/config",
                          "--config %s must hold a JSON object (a model's config.json)", cfg_path);
        return -1;
    }
    json_t *req = *len == 0
                      ? json_object()
                      : json_loadb(*body, *len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    if (req == NULL || !json_is_object(req)) { /* the handler reports it, as the daemon does */
        json_decref(req);
        json_decref(cfg);
        return 0;
    }
    json_t *given = json_object_get(req, "config");
    int rc = 0;
    if (given == NULL || json_is_null(given) || json_is_object(given)) {
        if (json_is_object(given))
            rc = json_object_update(cfg, given);
        if (rc == 0)
            rc = json_object_set(req, "config", cfg);
    }
    char *text = rc == 0 ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    json_decref(cfg);
    if (text == NULL) {
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while merging --config %s",
                        cfg_path);
        return -1;
    }
    free(*body);
    *body = text;
    *len = strlen(text);
    return 0;
}

/* A 413 for a body of size bytes over max_body_bytes, worded as posencd's. */
static void too_large(const cli_args *a, size_t size, api_response *out)
{
    char d[160];
    snprintf(d, sizeof d, "the body of %zu bytes exceeds max_body_bytes (%zu)", size,
             a->lim.max_body_bytes);
    api_simple_problem(API_PB_TOO_LARGE, d, a->request_id, out);
}

/* Builds the request body (FILE, stdin or {} and --config) into *body and *len. Returns 0, or 1
 * when out holds the problem to report, or -1 (usage/file error, printed). */
static int build_request(const cli_args *a, char **body, size_t *len, api_response *out)
{
    const char *in = a->input ? a->input : (a->config ? NULL : "-");
    *body = NULL;
    *len = 0;
    if (in != NULL) {
        int rc = read_all(in, a->lim.max_body_bytes, body, len);
        if (rc != 0) {
            if (rc > 0)
                too_large(a, *len, out);
            return rc;
        }
    }
    if (a->config == NULL)
        return 0;
    char *cfg = NULL;
    size_t cfg_len = 0;
    int rc = read_all(a->config, a->lim.max_body_bytes, &cfg, &cfg_len);
    if (rc != 0) {
        free(*body);
        *body = NULL;
        if (rc > 0)
            too_large(a, cfg_len, out);
        return rc;
    }
    api_problem pb;
    api_problem_init(&pb);
    rc = merge_config(cfg, cfg_len, a->config, body, len, &pb);
    free(cfg);
    if (rc == 0 && *len > a->lim.max_body_bytes)
        too_large(a, *len, out);
    else if (rc < 0)
        api_problem_response(&pb, a->request_id, out);
    else
        return 0;
    free(*body);
    *body = NULL;
    return 1;
    return 0;
}

/* Writes a 2xx answer (body or stream) to -o FILE or stdout. Returns an exit status. */
static int write_answer(const cli_args *a, api_response *r)
{
    FILE *f = a->output ? fopen(a->output, "wb") : stdout;
    if (f == NULL) {
        fprintf(stderr, "posenc: cannot write %s: %s\n", a->output, strerror(errno));
        return EXIT_USAGE;
    }
    int ok = 1;
    if (r->stream == NULL) {
        ok = fwrite(r->body, 1, r->len, f) == r->len;
    } else {
        static char buf[1 << 16];
        size_t n;
        while (ok && (n = wire_stream_read(r->stream, buf, sizeof buf)) > 0)
            ok = fwrite(buf, 1, n, f) == n;
        if (wire_stream_failed(r->stream)) {
            fprintf(stderr, "posenc: out of memory while writing the answer\n");
            if (a->output)
                fclose(f);
            if (a->output)
                remove(a->output);
            return EXIT_SERVER;
        }
    }
    if (fflush(f) != 0)
        ok = 0;
    if (r->warnings != NULL) /* a .npy / .npz answer's warnings (the daemon's header) */
        fprintf(stderr, "posenc: warnings: %s\n", r->warnings);
    if (a->output && fclose(f) != 0)
        ok = 0;
    if (!ok) {
        fprintf(stderr, "posenc: cannot write %s: %s\n", a->output ? a->output : "stdout",
                strerror(errno));
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Reports a problem answer on stderr (its body, then a newline) and maps its status. */
static int report_problem(const api_response *r)
{
    fwrite(r->body, 1, r->len, stderr);
    if (r->len == 0 || r->body[r->len - 1] != '\n')
        fputc('\n', stderr);
    return r->status >= 500 ? EXIT_SERVER : EXIT_CLIENT;
}

/* Opens the table store: DIR must exist (the CLI never creates it); NULL = the built-in only. */
static store_dir *open_store(const cli_args *a)
{
    const char *dir = a->data_dir ? a->data_dir : "";
    struct stat st;
    if (dir[0] != '\0' && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "posenc: --data-dir %s: not a directory\n", dir);
        return NULL;
    }
    store_dir *s = store_open(dir, a->lim.max_table_bytes, stderr);
    if (s == NULL)
        fprintf(stderr, "posenc: out of memory opening the table store\n");
    return s;
}

int main(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc != 0)
        return rc > 0 ? EXIT_OK : EXIT_USAGE;
    const api_route *route = find_route(a.route);
    if (route == NULL)
        return EXIT_USAGE;
    if (a.npy && route->npy == NULL) { /* /model/method answers JSON only */
        fprintf(stderr, "posenc: %s has no array to write as .npy; drop --npy\n", a.route);
        return EXIT_USAGE;
    }
    api_response resp;
    memset(&resp, 0, sizeof resp);
    char *body = NULL;
    size_t len = 0;
    rc = build_request(&a, &body, &len, &resp);
    if (rc < 0)
        return EXIT_USAGE;
    if (rc > 0) {
        rc = report_problem(&resp);
        api_response_free(&resp);
        return rc;
    }
    store_dir *store = open_store(&a);
    pe_cache *cache = store ? pe_cache_create(CLI_CACHE_BYTES, CLI_CACHE_POSITIONS) : NULL;
    if (cache == NULL) {
        free(body);
        store_close(store);
        return a.data_dir && store == NULL ? EXIT_USAGE : EXIT_SERVER;
    }
    api_ctx ctx = {&a.lim, cache, store_as_source(store)};
    api_opts opts = {.npy = a.npy, .npz = a.npz, .array = a.array, .stream = 1};
    api_handle_route(&ctx, route, body ? body : "", len, a.request_id, &opts, &resp);
    free(body);
    rc = resp.status >= 200 && resp.status < 300 ? write_answer(&a, &resp) : report_problem(&resp);
    api_response_free(&resp);
    pe_cache_destroy(cache);
    store_close(store);
    return rc;
}

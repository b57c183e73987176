/* server/bench_floor.c -- the bench build's transport floor (bench_floor.h). */
#include "server/bench_floor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOOR_MAX_BYTES ((size_t)64 << 20)

static char *answer; /* read once before the daemon starts; read-only afterwards */
static size_t answer_len;

int srv_bench_floor_load(void)
{
    const char *path = getenv("POSENC_BENCH_FLOOR_ANSWER");
    if (path == NULL || path[0] == '\0') {
        fprintf(stderr, "posencd (bench build): set POSENC_BENCH_FLOOR_ANSWER to the file of the "
                        "answer POST /bench/floor sends\n");
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "posencd (bench build): cannot open %s\n", path);
        return -1;
    }
    char *buf = malloc(FLOOR_MAX_BYTES);
    size_t n = buf ? fread(buf, 1, FLOOR_MAX_BYTES, f) : 0;
    int bad = buf == NULL || ferror(f) || n == FLOOR_MAX_BYTES;
    fclose(f);
    if (bad) {
        fprintf(stderr, "posencd (bench build): cannot read %s whole (at most %zu bytes)\n", path,
                FLOOR_MAX_BYTES - 1);
        free(buf);
        return -1;
    }
    answer = buf;
    answer_len = n;
    return 0;
}

int srv_bench_floor_is(const char *url, const char *method)
{
    return strcmp(url, "/bench/floor") == 0 && strcmp(method, "POST") == 0;
}

enum MHD_Result srv_bench_floor_send(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(answer_len, answer, MHD_RESPMEM_PERSISTENT);
    if (resp == NULL)
        return MHD_NO;
    MHD_add_response_header(resp, "Vary", "Accept");
    rq->resp_bytes = answer_len;
    return srv_send_resp(ctx, c, rq, 200, resp, "application/json");
}

/*
 * server/bench_floor.h -- the transport floor of `make bench` (bench/run.sh): POST /bench/floor
 * reads its JSON body exactly as POST /rope does (the same header checks, the same buffer within
 * the same budget) and answers with a prebuilt copy of an answer, so that its requests per second
 * are what the daemon's HTTP path can carry for that request and answer with no JSON parsing, no
 * computing and no number formatting.
 *
 * Compiled only into the bench build of the daemon (`make build/bench/posencd`:
 * -DPOSENC_BENCH_FLOOR and this file), never into the product binary build/posencd, which answers
 * /bench/floor like any unknown path.
 */
#ifndef SRV_BENCH_FLOOR_H
#define SRV_BENCH_FLOOR_H

#include "server/request.h"

/* Reads the prebuilt answer (the bytes of the file named by the environment variable
 * POSENC_BENCH_FLOOR_ANSWER, at most 64 MiB) once, at start-up. 0, or -1 with a message on stderr
 * (the bench daemon then does not start). */
int srv_bench_floor_load(void);

/* 1 when method and url name the floor (POST /bench/floor), else 0. */
int srv_bench_floor_is(const char *url, const char *method);

/* Queues 200 application/json with the prebuilt answer (not copied), with the headers of a compute
 * answer (X-Request-Id, CORS, Vary: Accept). */
enum MHD_Result srv_bench_floor_send(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq);

#endif

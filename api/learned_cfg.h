/*
 * api/learned_cfg.h -- the learned-table configuration shared by POST /learned and the
 * /attention method "learned": {table, extend, target_length} parsing, table lookup through
 * api_ctx.tables, and the messages both give. Numbers from core/learned.h.
 */
#ifndef API_LEARNED_CFG_H
#define API_LEARNED_CFG_H

#include <jansson.h>
#include <stdint.h>

#include "api/api.h"
#include "core/learned.h"
#include "wire/tensor_io.h"

/* "error", "copy", "interpolate" (NULL-terminated; index = pe_learned_extend). */
extern const char *const API_LEARNED_EXTENDS[];

/* A validated {table, extend, target_length}. */
typedef struct {
    char table[STORE_NAME_MAX + 1]; /* a valid table name */
    pe_learned_extend extend;       /* default PE_LEARNED_ERROR */
    uint64_t target_length;         /* L >= 2 with interpolate, else 0 */
} api_learned_cfg;

/*
 * Reads table (required; a valid name), extend (error | copy | interpolate) and target_length
 * (an integer 2 .. max_position; required by interpolate, refused with the others) from obj at
 * pointer base. Every broken rule → 422 at its field. Returns 0 or -1 (pb filled).
 */
int api_learned_cfg_parse(api_problem *pb, const json_t *obj, const char *base,
                          const api_limits *lim, api_learned_cfg *cfg);

/*
 * Acquires the table cfg->table from ctx->tables and fills *p for core/learned.h. Returns the
 * table (give it back with ctx->tables->release) or NULL with a 422 at ptr ("no table named").
 */
const store_table *api_learned_acquire(api_problem *pb, const api_ctx *ctx, const char *ptr,
                                       const api_learned_cfg *cfg, pe_learned_params *p);

/* Records the 422 for position pos at or past pe_learned_limit(p), at ptr: it names the position
 * and the table's row count (or target_length for interpolate). */
void api_learned_range_error(api_problem *pb, const char *ptr, const api_learned_cfg *cfg,
                             const pe_learned_params *p, int64_t pos);

/* Writes table, rows, cols, extend and (interpolate) target_length as members of an open object. */
void api_learned_resolved(wire_jw *out, const api_learned_cfg *cfg, const pe_learned_params *p);

#endif

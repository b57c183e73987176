/*
 * api/rope_parse.h -- the parse helpers of POST /rope shared by its files (api/rope_fields.c,
 * rope_parse.c, rope_positions.c, rope_multiaxis.c, rope_multiaxis_pos.c); not used outside
 * api/rope*.c. Conventions as api/req.h: errors are recorded in pb with the JSON pointer of the
 * field as the client spelled it; "returns -1" means an error was recorded.
 */
#ifndef API_ROPE_PARSE_H
#define API_ROPE_PARSE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "api/rope_req.h"

/*
 * The layout of a /rope request: its own `layout` ("half" | "interleaved", a 422 at /layout
 * otherwise), else the pasted config's (cfg may be NULL), else half. *o says where it came from.
 * Shared by the 1-D and the multi-axis modes.
 */
void api_rope_layout_resolve(api_problem *pb, const json_t *req, const api_rope_config *cfg,
                             pe_rope_layout *layout, api_rc_origin *o);

/* ---- request fields both modes read the same way (api/rope_fields.c) ----------------------------
 * The 1-D parse (api/rope_parse.c) and the multi-axis one (api/rope_multiaxis.c) call these and
 * keep at the call site what differs between them: the range checks of head_dim and of an
 * explicit rotary_dim (worded per mode), base with axes type "mixed" (refused there, so not
 * read), and whether the pasted config's scaling is read. Errors name top-level pointers
 * ("/head_dim") or the config origin's ("/config/head_dim"). cfg is the resolved pasted config,
 * NULL when the request has none.
 */

/* Each top-level member of req that POST /rope does not know -> 422 unknown-field at its
 * pointer. One list for both modes (the multi-axis one refuses the 1-D-only fields with a 422
 * of its own). Returns 0 when all are known, -1 otherwise (as api_check_fields). */
int api_rope_check_fields(api_problem *pb, const json_t *req);

/* The API_RC_SKIP_* bits for api_rope_config_resolve that follow from req's own non-null
 * head_dim, rotary_dim / partial_rotary_factor, base / rope_theta and layout (they win over the
 * pasted config, which is then not read for them). Never API_RC_SKIP_SCALING: when the config's
 * scaling is skipped is each mode's rule. Pure; never fails. */
unsigned api_rope_config_skip(const json_t *req);

/*
 * head_dim: the request's `head_dim` (any integer; a 422 at /head_dim when it is not one), else
 * the config's, else a 422 at /head_dim "head_dim is required" (naming the config keys looked
 * for when cfg != NULL). given > 0 stands for a request member "head_dim": given when req has
 * neither a head_dim nor a config member (api_rope_direct.head_dim; 0: none). Range, evenness and
 * max_dim are the caller's, blaming o->ptr. Returns 1 with *head_dim and *o set, -1 with the error
 * recorded in pb (never 0: the field is required).
 */
int api_rope_head_dim_resolve(api_problem *pb, const json_t *req, const api_rope_config *cfg,
                              int64_t given, int64_t *head_dim, api_rc_origin *o);

/*
 * The rotary dim, once head_dim (valid, origin head_dim_o) is known: the request's `rotary_dim`
 * (any integer) or `partial_rotary_factor` (in (0, 1]; both given -> 422 at
 * /partial_rotary_factor), else the config's rotary_dim, else its partial rotary factor, else
 * head_dim (all dims rotate; origin pointer head_dim_o->ptr). A factor f gives
 * floor(head_dim x f), which must be even and >= 2 (else a 422 at the factor's pointer).
 * Returns 1 when it is an explicit rotary_dim (request or config): *rotary_dim is NOT checked;
 * the caller checks even, >= 2 and <= head_dim, blaming o->ptr. Returns 0 when it is derived
 * (factor or head_dim): *rotary_dim is valid. *o is set in both cases. Returns -1 with the error
 * recorded in pb (*rotary_dim untouched).
 */
int api_rope_rotary_dim_resolve(api_problem *pb, const json_t *req, const api_rope_config *cfg,
                                int64_t head_dim, const api_rc_origin *head_dim_o,
                                int64_t *rotary_dim, api_rc_origin *o);

/*
 * base: the request's `base` or its alias `rope_theta` (a number > 1, else a 422 at the spelling
 * used; both with different values -> 422 at /rope_theta), else the config's, else 10000
 * ("default"). *base and *o are always set (10000 / "default" when the request's value is
 * invalid). Returns 1 when taken from the request, 0 from the config or the default, -1 when the
 * request's value is invalid (error recorded in pb). After an alias conflict (recorded in pb) the
 * config's base or the default is used and 0 returned: callers check api_problem_failed.
 */
int api_rope_base_resolve(api_problem *pb, const json_t *req, const api_rope_config *cfg,
                          double *base, api_rc_origin *o);

/* The name of include kind k (bit 1 << k of API_ROPE_INC_*): "cos_sin", "bands", "decay",
 * "float32_error"; or API_ROPE_KIND_COS_SIN_HF: "cos_sin_hf". Never NULL. */
const char *api_rope_include_name(int k);
/* The kind of include "cos_sin_hf": no bit of its own (it is cos_sin plus api_rope_req.cos_sin_hf,
 * 1-D only). */
#define API_ROPE_KIND_COS_SIN_HF 4
/* Entry i of the `include` array inc: its kind k (0 .. 3, or API_ROPE_KIND_COS_SIN_HF), or -1 with
 * a 422 at /include/i when it is not one of the names. ptr (may be NULL; n bytes) gets
 * "/include/i". */
int api_rope_include_kind(api_problem *pb, const json_t *inc, size_t i, char *ptr, size_t n);

/* head_dim of r (api_rope_head_dim_resolve with r's config, into r->head_dim and its origin):
 * the pointer to blame for it ("/head_dim" for a default), or NULL after an error. */
const char *api_rope_head_dim_read(api_problem *pb, const json_t *req, int64_t given,
                                   api_rope_req *r);
/* r->head_dim <= max_dim, else a 422 limit-exceeded at hp. Returns 0 or -1. */
int api_rope_head_dim_fits(api_problem *pb, const api_rope_req *r, const char *hp);
/* The rotary dim of r once its head_dim is valid: api_rope_rotary_dim_resolve with r's config,
 * origin into r->rotary_o, the value into *rd (1 explicit, unchecked; 0 derived; -1 error). */
int api_rope_rotary_read(api_problem *pb, const json_t *req, api_rope_req *r, int64_t *rd);

/* Which inputs r rotates: q and k of req (borrowed into r->q_j, r->k_j), or both with dir. */
void api_rope_inputs(const json_t *req, const api_rope_direct *dir, api_rope_req *r);

/*
 * The input `q` or `k` (key names it; v is its value, NULL when absent): one vector of head_dim
 * numbers, or a matrix of one row of head_dim numbers per position of that side (n_pos
 * positions, which came from pos_ptr; "" is said as /positions), at most max_elems numbers.
 * Errors at /<key> and below. *out is malloc'd (NULL after
 * an error; the caller frees it), *rows gets the rows and *is_vec 1 for a plain vector. Returns
 * 1, 0 when v is NULL (nothing touched), or -1 with the error recorded in pb.
 */
int api_rope_vectors_parse(api_problem *pb, const json_t *v, const char *key, size_t n_pos,
                           const char *pos_ptr, size_t head_dim, size_t max_elems, double **out,
                           size_t *rows, int *is_vec);

/* api_rope_vectors_parse for a matrix given as numbers (api_rope_direct): x [rows][cols], read as
 * if it were the JSON matrix at /<key>, with the same errors in the same order. Returns 1 or -1. */
int api_rope_vectors_direct(api_problem *pb, const double *x, size_t rows, size_t cols,
                            const char *key, size_t n_pos, const char *pos_ptr, size_t head_dim,
                            size_t max_elems, double **out, size_t *out_rows, int *is_vec);

/* ---- positions shared by both modes (api/rope_positions.c) ----------------------------------- */

/* Largest coordinate + 1 over the n tuples of A coordinates of ps (0 when empty). */
int64_t api_rope_pos_max(const api_rope_pos *ps, size_t A);

/* Copies src (n tuples of A coordinates, its ptr and src) into dst. Returns 0, or -1 (503). */
int api_rope_pos_copy(api_problem *pb, api_rope_pos *dst, const api_rope_pos *src, size_t A);

/* The sorted (lexicographic), de-duplicated union of the tuples of x and y into dst (the rows of
 * cos/sin when only q and k positions were given); dst->ptr is x's (y's when x is empty), dst->src
 * "union of q and k positions". Returns 0, or -1 (503). */
int api_rope_pos_union(api_problem *pb, api_rope_pos *dst, const api_rope_pos *x,
                       const api_rope_pos *y, size_t A);

/* q and k of r (JSON, or dir's numbers when dir != NULL) against their sides' positions: into
 * r->q / r->k. Errors at /q, /k and below. */
void api_rope_parse_vectors(api_problem *pb, const api_rope_direct *dir, api_rope_req *r);

/* ---- positions of both modes, 1-D rules (api/rope_positions.c) ------------------------------ */

/* seq_len, positions (or dir's), q_positions | query_positions, k_positions | key_positions, in
 * both modes (as 1-D lists, or as api_rope_axes_coords when r->axes). */
void api_rope_parse_positions(api_problem *pb, const json_t *req, const api_rope_direct *dir,
                              api_rope_req *r);
/* The sequence length and the positions of every output (docs/api.md: positions, else 0 ..
 * seq_len-1; q_positions / k_positions override). Returns 0 or -1. */
int api_rope_resolve_positions(api_problem *pb, api_rope_req *r);
/* The whole response size (max_output_elements) and the work (max_work), before allocating.
 * Returns 0 or -1 (422 limit-exceeded). */
int api_rope_check_sizes(api_problem *pb, const api_rope_req *r);

/* ---- multi-axis (api/rope_multiaxis.c, api/rope_multiaxis_pos.c) ---------------------------- */

/* 1 when req is multi-axis: a non-null `axes`, or a `config` object whose `rope_scaling` (else
 * `rope_parameters`) object has a non-null `mrope_section` (Qwen2-VL config.json). Pure. */
int api_rope_axes_wanted(const json_t *req);

/* api_rope_parse for a multi-axis request (rope-multiaxis rules: every one a 422 naming its
 * field). Returns 0 or -1. */
int api_rope_axes_parse(api_problem *pb, const json_t *req, const api_rope_direct *dir,
                        api_rope_req *r);

/* One multi-axis list of positions (v at ptr; rope_multiaxis_pos.c): each entry a plain integer
 * p (p on every axis, [p, .., p]) or a list of r->A integers, in [0, max_position); at most
 * max_positions entries and max_output_elements coordinates. Into out (out->ptr = ptr); 0 or -1. */
int api_rope_axes_coords(api_problem *pb, const json_t *v, const char *ptr, const api_rope_req *r,
                         api_rope_pos *out);
/* api_rope_axes_coords for plain positions given as numbers v [len] (api_rope_direct), with the
 * same limits and errors. Returns 0 or -1. */
int api_rope_axes_coords_direct(api_problem *pb, const int64_t *v, size_t len, const char *ptr,
                                const api_rope_req *r, api_rope_pos *out);
/* The sequence length (seq_len must exceed every coordinate) and the tuples of every output.
 * Returns 0 or -1. */
int api_rope_axes_resolve_positions(api_problem *pb, api_rope_req *r);
/* Response size and work of a multi-axis request. Returns 0 or -1. */
int api_rope_axes_check_sizes(api_problem *pb, const api_rope_req *r);

#endif

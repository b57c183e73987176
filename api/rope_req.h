/*
 * api/rope_req.h -- POST /rope in three steps, for 1-D and multi-axis RoPE alike:
 *
 *   parse  (api_rope_parse, api/rope_parse.c): a JSON request -> api_rope_req, every value
 *          validated and resolved (every broken rule a 422 naming its field, the response size
 *          and the work checked against the limits before anything is allocated for the answer);
 *   run    (api_rope_run, api/rope_run.c): api_rope_req -> api_rope_res, numbers from core/ only
 *          (the frequency-table cache for 1-D, core/rope_axes.h for multi-axis);
 *   write  (api_rope_write, api/rope_write.c): api_rope_res -> the response object (wire_jw).
 *
 * The /rope handler (api_rope, api/rope.c) is the three in a row. /attention's rope method calls
 * api_rope_eval (parse + run) with its own positions and q / k given as numbers
 * (api_rope_direct) and uses the rotated rows directly: no JSON is built or re-read.
 *
 * Contract: openapi.yaml, POST /rope (fields, the config mapping, multi-axis `axes`). Formulas:
 * docs (RoPE variants, multi-axis RoPE); semantics of Hugging Face transformers
 * modeling_rope_utils.py.
 */
#ifndef API_ROPE_REQ_H
#define API_ROPE_REQ_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "api/api.h"
#include "api/model_layers.h"
#include "api/rope_config.h"
#include "core/cache.h"
#include "core/rope.h"
#include "core/rope_axes.h"
#include "core/rope_explain.h"

/* The `include` kinds of a 1-D request, as bits of api_rope_req.include (multi-axis: cos_sin). */
enum {
    API_ROPE_INC_COS_SIN = 1,
    API_ROPE_INC_BANDS = 2,
    API_ROPE_INC_DECAY = 4,
    API_ROPE_INC_F32 = 8
};

/*
 * One side's positions: n entries of A coordinates each, row-major (A = 1 for 1-D RoPE, the
 * number of axes for multi-axis RoPE; a plain integer p given to a multi-axis request is stored
 * as [p, .., p]). Values in [0, max_position). `ptr` is the pointer errors about them name
 * ("/positions", "/q_positions", "/seq_len"), `src` says where they came from for `resolved`
 * ("positions", "q_positions", "seq_len", "union of q and k positions"; static text).
 */
typedef struct {
    int64_t *v; /* [n][A], owned (NULL when n == 0) */
    size_t n;
    char ptr[API_RC_PTR];
    const char *src;
} api_rope_pos;

/* A position key of a pasted config that cannot change a number of the answer, and why. */
#define API_ROPE_MAX_IGNORED 24
typedef struct {
    size_t n, n_dropped;
    struct {
        char key[2 * API_RC_PTR]; /* dotted path: "config.text_config.sliding_window" */
        const char *why;          /* static text, citing the HF code that shows it */
    } k[API_ROPE_MAX_IGNORED];
} api_rope_ignored;

/*
 * Everything validated from one /rope request (1-D or multi-axis). Filled by api_rope_parse,
 * freed by api_rope_req_free. JSON values are borrowed from the request, which must outlive the
 * struct. Every value with an api_rc_origin says where it came from (request, pasted config,
 * default) and which pointer errors about it name.
 */
typedef struct {
    const api_limits *lim; /* borrowed */
    int axes;              /* 1: multi-axis RoPE (`axes`, or a config with mrope_section) */
    api_rc_warnings warn;
    int has_config;
    api_rope_config cfg; /* the pasted config, resolved (when has_config) */
    /* per-layer answers (api/rope_layers.c): the config's layers and their kinds */
    api_ml_plan plan; /* n_kinds 0: no config, or layers not said / not readable */
    int forced_kind;  /* the kind to answer for, set by the caller (-1: from the request) */
    int kind;         /* the kind answered (`layer` / `layer_type`), -1: the config as a whole */
    int kinds_listed; /* 1: several kinds and none chosen; the answer lists them (layer_kinds) */

    int64_t head_dim; /* even, 2 .. max_dim */
    api_rc_origin head_dim_o;
    int64_t rotary_dim; /* even, 2 .. head_dim; n = rotary_dim / 2 pairs */
    api_rc_origin rotary_o;
    double base; /* > 1 (10000 by default; unused with inv_freq or axes type mixed) */
    api_rc_origin base_o;
    pe_rope_layout layout;
    api_rc_origin layout_o;

    /* 1-D only */
    api_rope_scaling sc;      /* the scaling used (request's, else the config's) */
    double *lists[2];         /* longrope short_factor / long_factor [n] (owned) */
    const json_t *inv_freq_j; /* the request's inv_freq (borrowed) or NULL */
    double *inv_freq;         /* explicit frequencies [n], rad per position (owned) or NULL */
    unsigned include;         /* API_ROPE_INC_* bits */
    int cos_sin_hf;           /* include "cos_sin_hf" (1-D; implies cos_sin): cos_hf, sin_hf */
    int include_idx[4];       /* index in `include` of each kind (-1 absent), for pointers */
    int64_t *dist;            /* distances of include decay [n_dist] (owned) */
    size_t n_dist;

    /* multi-axis only: from the request's `axes`, or from a pasted config's mrope_section */
    pe_axes_type type;
    char axes_ptr[API_RC_PTR];      /* "/axes" or "/config/rope_scaling" */
    char sections_ptr[API_RC_PTR];  /* "/axes/sections" or ".../mrope_section" */
    char axes_src[API_RC_PTR + 64]; /* "request" or "config.rope_scaling.mrope_section" */
    char axes_il[API_RC_PTR + 64];  /* "config.rope_scaling.mrope_interleaved" or "" */
    const json_t *sections_j;       /* borrowed */
    const json_t *freqs_j;          /* borrowed */
    size_t A;                       /* axes (1 for 1-D) */
    size_t *sections;               /* [A] pairs per axis, axial / mrope (owned) */
    double *F;                      /* [A][n] frequency of pair j on axis a, rad (owned) */
    int64_t *pair_axis;             /* [n] the axis owning pair j, except mixed (owned) */

    /* positions */
    int has_seq_len;
    int64_t seq_len;              /* as given */
    int64_t max_req;              /* largest explicit position + 1 (0 when none; 1-D) */
    int64_t L;                    /* sequence length used: seq_len, else max_req (0: none) */
    api_rope_pos pos, qpos, kpos; /* positions, q_positions, k_positions (q/k: resolved) */
    api_rope_pos tpos;            /* rows of cos/sin and float32_error */
    int has_pos, has_qpos, has_kpos;

    /* keys of the pasted config that concern positions but are not used (resolved.ignored) */
    api_rope_ignored ign;
    /* /attention only: where its scale and attn_logit_softcapping came from (written in
     * resolved.sources as "scale" and "attn_logit_softcapping" when not empty) */
    char scale_src[768], softcap_src[640];

    /* inputs to rotate */
    int want_q, want_k;    /* q / k given */
    const json_t *q_j;     /* borrowed, NULL with api_rope_direct */
    const json_t *k_j;     /* borrowed, NULL with api_rope_direct */
    double *q, *k;         /* [q_rows][head_dim] / [k_rows][head_dim] (owned) */
    size_t q_rows, k_rows; /* 1 for a plain vector (applied at every position of its side) */
    int q_vec, k_vec;      /* 1: a plain vector */
} api_rope_req;

/*
 * What a caller gives as numbers instead of the JSON members `positions`, `q` and `k` (the
 * /attention rope method): the request is parsed exactly as if it held "positions": positions,
 * "q": q and "k": k (matrices of rows x cols), and "head_dim": head_dim when it has neither
 * head_dim nor config (0: never). Errors name the pointers such a request would ("/positions",
 * "/q/0", "/head_dim"). The request's members are not checked against /rope's list: the caller
 * has checked them against its own (which may add fields /rope ignores, as `offset`). All
 * borrowed.
 */
typedef struct {
    const int64_t *positions; /* [n_pos] */
    size_t n_pos;
    const double *q, *k; /* [rows][cols] each */
    size_t rows, cols;
    int64_t head_dim;
} api_rope_direct;

/*
 * The numbers of one evaluated request (api_rope_run), freed by api_rope_res_free. n = rotary_dim
 * / 2. Arrays are NULL when not asked for. Angles in radians, frequencies in rad per position.
 */
typedef struct {
    /* 1-D: the cache's table (held until api_rope_res_free) and the core parameters */
    pe_cache *cache;
    const pe_freq_table *table;
    pe_rope_params p;
    double low_freq_wavelen, high_freq_wavelen; /* llama3: L0 / low_freq_factor, L0 / high */

    const double *inv_freq;      /* [n] (1-D: the table's; multi-axis: inv_freq_axes or NULL) */
    double *inv_freq_axes;       /* multi-axis except mixed: [n] F[pair_axis[j]][j] (owned) */
    double attention_factor;     /* multiplies the rotated part (1 for multi-axis) */
    double softmax_scale_factor; /* extra logit factor (DeepSeek-style yarn; else 1) */
    /* 1 when a pasted config's yarn factor would scale the softmax but the model's HF attention
     * does not (not the DeepSeek family): softmax_scale_factor is then 1 and the answer warns */
    int softmax_not_applied;
    double *q_scale;       /* [q positions] Ministral 3's query scale (with q), else NULL */
    double *t_scale;       /* [tpos.n] the same at the cos/sin positions, else NULL */
    double *q_rot, *k_rot; /* [q positions][head_dim], [k positions][head_dim] */
    double *scores;        /* [q positions][k positions] q_rot . k_rot (scale 1) */
    double *cos, *sin;     /* [tpos.n][n] */
    /* include cos_sin_hf: [tpos.n][rotary_dim] as Hugging Face's rotary embedding returns them,
     * attention_factor applied; half layout: [cos, cos] (torch.cat((freqs, freqs))); interleaved:
     * each value twice in a row (GPT-J's repeat_interleave) */
    double *cos_hf, *sin_hf;
    pe_rope_band *bands;        /* [n] (1-D include bands) */
    pe_rope_decay_point *decay; /* [n_dist] (1-D include decay) */
    pe_rope_f32_error f32;      /* 1-D include float32_error */
} api_rope_res;

/*
 * Parses and validates the /rope request req (a JSON object, borrowed; NULL reads as {}) into
 * *r, with limits lim. dir: NULL for a /rope body, else the positions and q / k as numbers (see
 * api_rope_direct; req then holds only configuration fields). Multi-axis when req has a non-null
 * `axes` or a config whose rope_scaling (else rope_parameters) has a non-null mrope_section.
 * Errors: 422 (invalid-field, unknown-field, limit-exceeded) naming their JSON pointers, in the
 * order the fields are read; 503 when out of memory. Returns 0, or -1 with pb filled. *r is
 * initialised either way: free it with api_rope_req_free.
 */
int api_rope_parse(api_problem *pb, const api_limits *lim, const json_t *req,
                   const api_rope_direct *dir, api_rope_req *r);

/* api_rope_parse for kind `kind` of the pasted config's layers (r->plan of a first parse of the
 * same request), as if the request had chosen a layer of that kind. kind -1: api_rope_parse. */
int api_rope_parse_kind(api_problem *pb, const api_limits *lim, const json_t *req,
                        const api_rope_direct *dir, int kind, api_rope_req *r);

/*
 * Reads `layer` / `layer_type` of req and plans the layers of the pasted config cfg (NULL: none)
 * into r->plan; sets r->kind and r->kinds_listed. forced >= 0 chooses that kind; direct: the
 * caller rotates (/attention), so several kinds need a choice. Returns the kind to resolve the
 * config for, or NULL (the config as a whole, or an error: 422 at /layer or /layer_type naming
 * the choices; check pb).
 */
const api_ml_kind *api_rope_layer_select(api_problem *pb, const json_t *req, const json_t *cfg,
                                         int forced, int direct, api_rope_req *r);

/*
 * The 422 of a rotation asked of a config whose layers differ in RoPE with no layer chosen
 * (r->kinds_listed after a parse, plan p): at /layer, naming every kind and its layers. Both
 * the JSON path's q / k and the binary path (api/bin_plan.c) answer it: a rotation is always
 * for one kind of layer.
 */
void api_rope_kinds_unchosen(api_problem *pb, const api_ml_plan *p);

/*
 * The request's `config` (an object, else absent), resolved for the kind of layer the request
 * chooses (api_rope_layer_select) with the API_RC_SKIP_* bits skip, into r->cfg. *cfg_out (may
 * be NULL) gets the config. Returns 1 when a config was read (its own errors recorded in pb, the
 * parse goes on to report more), 0 without one, -1 when `layer` / `layer_type` failed (stop).
 */
int api_rope_read_config(api_problem *pb, const json_t *req, int direct, unsigned skip,
                         api_rope_req *r, const json_t **cfg_out);

/* 1 when a config key concerns positions (rope*, rotary*, mrope*, partial_rotary*, alibi*,
 * sliding_window*, no_rope*, max_position*, position_*, layer_types, attn_temperature_tuning,
 * llama_4_scaling_beta, n_positions, ...): the keys api_rope_account_keys accounts for. */
int api_rope_position_key(const char *k);

/*
 * No silent drops: after the parse of a request with the pasted config cfg (skip: the
 * API_RC_SKIP_* bits the request set), every position key of the text config and of the scaling
 * object read that resolved.sources does not name is put in r->ign with the reason it cannot
 * change a number of this answer (attention window, layer structure, a context length the
 * scaling type does not read, the request's own value winning, a wrapper's key, ...), or is a
 * 422 at its pointer when it could (an unknown position key, ALiBi, a non-RoPE
 * position_embedding_type, a query scale by position with q given). Returns 0 or -1.
 */
int api_rope_account_keys(api_problem *pb, const json_t *cfg, unsigned skip, api_rope_req *r);

/* Frees the owned arrays of r (from api_rope_parse); r itself is the caller's. */
void api_rope_req_free(api_rope_req *r);

/*
 * Computes the numbers of a parsed request r into *res (initialised here; free it with
 * api_rope_res_free, also after an error). 1-D: every configuration goes through cache (the
 * frequency table; cos/sin rows it does not hold are computed with pe_rope_cos_sin on its
 * inv_freq, bit-identical); multi-axis: pe_rope_axes_cos_sin on r->F. Errors: 422 at the field
 * most likely at fault when the configuration gives non-finite values or the rotations / scores
 * overflow float64, 503 out of memory. Returns 0, or -1 with pb filled.
 */
int api_rope_run(pe_cache *cache, const api_rope_req *r, api_rope_res *res, api_problem *pb);

/* cos / sin rows [np][n] of positions pos[0..np) into c, s: from table t where it holds the
 * position, else pe_rope_cos_sin on its inv_freq (bit-identical either way). The JSON path's
 * rotations and the binary path's windows (api/bin_rotate.c) both take them from here. */
void api_rope_rows_cos_sin(const pe_freq_table *t, const int64_t *pos, size_t np, double *c,
                           double *s);

/* Releases res's buffers and its hold on the cache's table. */
void api_rope_res_free(api_rope_res *res);

/*
 * 1 when every number the response of (r, res) holds is finite (a /rope answer with a non-finite
 * one is refused by api_handle; /attention refuses it too). Pure.
 */
int api_rope_res_finite(const api_rope_req *r, const api_rope_res *res);

/* The warnings of a run (a 1-D request): r's from resolving, plus what the run found (the
 * DeepSeek-only softmax factor not applied), into out: the response's `warnings` member, and a
 * binary answer's X-Posenc-Warnings header. */
void api_rope_warnings(const api_rope_req *r, const api_rope_res *res, api_rc_warnings *out);
/*
 * Writes the /rope response object of (r, res) into out. 1-D: {inv_freq, attention_factor,
 * softmax_scale_factor, warnings?, q_positions?, q_rotated?, k_positions?, k_rotated?, scores?,
 * positions?, cos?, sin?, bands?, decay?, float32_error?, resolved}; multi-axis: {inv_freq?,
 * axis_freqs, pair_axis?, attention_factor 1, softmax_scale_factor 1, warnings?, q_positions?,
 * q_rotated?, k_positions?, k_rotated?, scores?, positions?, cos?, sin?, resolved}. Never fails
 * (the writer records its own errors).
 */
void api_rope_write(wire_jw *out, const api_rope_req *r, const api_rope_res *res);

/* api_rope_write without the closing brace of the response object (its caller adds members,
 * as /rope's layer_kinds, and closes it). With a kind chosen, ends with layer_kind. */
void api_rope_write_open(wire_jw *out, const api_rope_req *r, const api_rope_res *res);

/* Writes kind k of plan p as {"kind", "method" ("rope" | "none"), "layer_types"?, "layers",
 * "why"?, "query_scale"? (Llama 4's no-RoPE kinds: rule, attn_scale, floor_scale)} (the members
 * of layer_kind and of each layer_kinds entry), object left open. */
void api_rope_write_kind_open(wire_jw *out, const api_ml_plan *p, int k);

/* api_rope_write_kind_open, closed. */
void api_rope_write_kind(wire_jw *out, const api_ml_plan *p, int k);

/* Writes "query_scale": {"rule", "attn_scale", "floor_scale"}, Llama 4's query temperature on its
 * no-RoPE layers (modeling_llama4.py): q x (log1p(floor((pos + 1) / floor_scale)) x attn_scale +
 * 1), the rule's text followed by `where` (which code applies it). */
void api_rope_write_query_scale(wire_jw *out, double attn_scale, double floor_scale,
                                const char *where);

/* Writes the members of `resolved` (head_dim, rotary_dim, layout, ..., sources) into an open
 * object: /rope nests them under "resolved", /attention under "resolved.rope". */
void api_rope_write_resolved(wire_jw *out, const api_rope_req *r, const api_rope_res *res);

/*
 * Parse and run in one call: the struct-level entry point (/attention's rope method). ctx gives
 * the limits and the cache; req, dir as api_rope_parse. Returns 0, or -1 with pb filled; *r and
 * *res are initialised either way (free both).
 */
int api_rope_eval(const api_ctx *ctx, const json_t *req, const api_rope_direct *dir,
                  api_rope_req *r, api_rope_res *res, api_problem *pb);

#endif

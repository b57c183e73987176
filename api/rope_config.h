/*
 * api/rope_config.h -- /rope configuration parsing that does not need the service context:
 * the scaling object (`scaling` / `rope_scaling`, also a pasted config's `rope_scaling`), the
 * resolver of a pasted model `config` (a Hugging Face config.json). The request fields the 1-D
 * and the multi-axis modes read alike (layout, head_dim, rotary dim, base, q and k) are in
 * api/rope_parse.h (api/rope_fields.c).
 *
 * Contract: docs/api.md#rope (field names, the per-field config mapping) and
 * "Conventions" (aliases, strictness). Semantics: Hugging Face transformers v5
 * src/transformers/modeling_rope_utils.py (rope types and their fields), configuration_phi3.py
 * (`su` / `yarn` mean longrope for model_type phi3), configuration_deepseek_v3.py
 * (rope_interleave defaults to true), modeling_gptj.py / modeling_codegen.py (interleaved pairs).
 *
 * Everything here is pure: no globals, no allocation, no I/O; inputs are borrowed jansson values,
 * outputs go into caller-owned structs, and errors are recorded in the caller's api_problem with a
 * JSON pointer naming the field as the client spelled it. Thread-safe. Suitable for fuzzing.
 */
#ifndef API_ROPE_CONFIG_H
#define API_ROPE_CONFIG_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "api/problem.h"
#include "core/rope.h"

#define API_RC_PTR 160 /* bytes of a JSON pointer (as api_field_error.pointer) */
#define API_RC_SRC 112 /* bytes of a provenance text */

/*
 * Where one resolved value came from. `set` is 1 when the value is present. `ptr` is the JSON
 * pointer into the request that errors about the value must name ("/head_dim",
 * "/config/hidden_size", "/scaling/factor"; "" for defaults). `src` says it for humans and for
 * `resolved.sources`: "request", "default", "config.rope_theta",
 * "config.hidden_size / config.num_attention_heads", ...
 */
typedef struct {
    int set;
    char ptr[API_RC_PTR];
    char src[API_RC_SRC];
} api_rc_origin;

/* Sets o (set = 1) from a pointer and a printf-style provenance text. */
void api_rc_origin_set(api_rc_origin *o, const char *ptr, const char *src_fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The pointer to blame for a value of origin o: o->ptr, or fallback when the value is a default
 * (o not set, or set with the empty pointer ""). */
const char *api_rc_blame(const api_rc_origin *o, const char *fallback);

/* Warnings collected while resolving (docs/api.md: `warnings`, strings). Extra ones are dropped;
 * a text longer than API_RC_WARNING_LEN - 1 bytes ends in "..." where it was cut. */
#define API_RC_MAX_WARNINGS 8
#define API_RC_WARNING_LEN 512
typedef struct {
    char text[API_RC_MAX_WARNINGS][API_RC_WARNING_LEN];
    size_t n;         /* kept */
    size_t n_dropped; /* further warnings not kept (the response says how many) */
} api_rc_warnings;

/* Appends a warning (printf-style); counted in n_dropped when the list is full. */
void api_rc_warn(api_rc_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The texts of w for an answer, in order, into out (API_RC_MAX_WARNINGS + 1 pointers): the kept
 * ones, then, when some were dropped, "(N more warnings omitted)" written into more (>= 64
 * bytes). Returns how many (0: none). */
size_t api_rc_warn_list(const api_rc_warnings *w, const char **out, char *more, size_t more_len);

/* The fields of a scaling object other than its type (docs/api.md#rope, docs/conventions.md#rope).
 */
typedef enum {
    API_RS_FACTOR = 0,            /* > 0: linear, dynamic, yarn, longrope, llama3 */
    API_RS_ORIGINAL_MAX_POSITION, /* integer >= 1: dynamic, yarn, longrope, llama3 */
    API_RS_BETA_FAST,             /* >= 0 (0 = HF default 32): yarn */
    API_RS_BETA_SLOW,             /* >= 0 (0 = HF default 1): yarn */
    API_RS_MSCALE,                /* >= 0: yarn */
    API_RS_MSCALE_ALL_DIM,        /* >= 0: yarn */
    API_RS_ATTENTION_FACTOR,      /* > 0: yarn, longrope */
    API_RS_TRUNCATE,              /* bool (stored 0/1): yarn */
    API_RS_LOW_FREQ_FACTOR,       /* > 0: llama3 */
    API_RS_HIGH_FREQ_FACTOR,      /* > 0: llama3 */
    API_RS_ALPHA,                 /* > 0: ntk (posenc's static NTK-aware) */
    API_RS_SHORT_FACTOR,          /* array of rotary_dim/2 numbers > 0: longrope */
    API_RS_LONG_FACTOR,           /* array of rotary_dim/2 numbers > 0: longrope */
    API_RS_PROPORTION,            /* (0, 1]: proportional's partial_rotary_factor (rotated share
                                   * of the pairs; the rotary dim stays head_dim) */
    API_RS_SHORT_MSCALE,          /* > 0: longrope, Phi-3.5-MoE's cos/sin multiplier while
                                   * seq_len <= original_max_position_embeddings */
    API_RS_LONG_MSCALE,           /* > 0: longrope, the same beyond it (modular_phimoe.py) */
    API_RS__COUNT
} api_rs_field;

/* The field's JSON name ("factor", "original_max_position_embeddings", ...). Never NULL. */
const char *api_rs_field_name(api_rs_field f);

/*
 * A parsed scaling object. num[f] holds numeric fields (truncate as 0/1); origin[f].set says
 * which fields are present. The two lists are borrowed JSON arrays (only checked to be arrays:
 * their length depends on rotary_dim, so the caller validates them with origin[f].ptr).
 */
typedef struct {
    int present;          /* 1 when a non-null scaling object was given */
    pe_rope_type type;    /* canonical type (su -> longrope) */
    char type_given[24];  /* the spelling given ("su", "yarn" for phi3, ...) */
    char ptr[API_RC_PTR]; /* pointer of the object: "/scaling", "/rope_scaling",
                           * "/config/rope_scaling" */
    api_rc_origin type_origin;
    double num[API_RS__COUNT];
    api_rc_origin origin[API_RS__COUNT];
    const json_t *list[2]; /* [0] short_factor, [1] long_factor (borrowed), or NULL */
} api_rope_scaling;

/* Canonical API name of a type ("default", "linear", "dynamic", "yarn", "longrope", "llama3",
 * "ntk", "proportional"). Never NULL. */
const char *api_rope_type_name(pe_rope_type t);

/* How api_rope_scaling_parse treats fields it does not use. */
typedef enum {
    API_RS_STRICT = 0, /* request objects: unknown field -> 422 unknown-field; a field of another
                        * type -> 422 invalid-field (a typo never falls back silently) */
    API_RS_LENIENT     /* a pasted config's rope_scaling: such fields are ignored with a warning */
} api_rs_mode;

/* Resets out to "no scaling" (type default, nothing set) at pointer ptr. */
void api_rope_scaling_init(api_rope_scaling *out, const char *ptr);

/*
 * Parses the scaling object obj (borrowed JSON object) found at pointer `ptr`. src_prefix names
 * the origin of its fields in `resolved.sources` ("request" for the request's own object, else
 * e.g. "config.rope_scaling", giving "config.rope_scaling.factor"). phi3: map `su` and `yarn` to
 * longrope, as HF's Phi3Config does. skip: NULL-terminated field names to pass over silently
 * (e.g. rope_theta inside a v5 `rope_parameters`), may be NULL.
 *
 * Rules: `type` and its alias `rope_type` (equal values fine, different -> 422 on /rope_type);
 * a missing type is `default` for an empty object and a 422 otherwise; unknown types -> 422
 * listing the known ones; `mrope` or an `mrope_section` -> 422 (multi-axis RoPE goes in `axes`);
 * each field's domain as listed in api_rs_field. A factor below 1 adds a warning (HF only warns).
 * Required fields are NOT checked here (the config resolver may still fill factor and L0).
 * Returns 0, or -1 with errors recorded in pb. out is fully initialised either way.
 */
int api_rope_scaling_parse(api_problem *pb, const json_t *obj, const char *ptr,
                           const char *src_prefix, api_rs_mode mode, int phi3,
                           const char *const *skip, api_rope_scaling *out, api_rc_warnings *w);

/* What api_rope_config_resolve may skip because explicit request fields win over the config. */
#define API_RC_SKIP_HEAD_DIM 1u /* request gave head_dim */
#define API_RC_SKIP_ROTARY 2u   /* request gave rotary_dim or partial_rotary_factor */
#define API_RC_SKIP_BASE 4u     /* request gave base / rope_theta */
#define API_RC_SKIP_LAYOUT 8u   /* request gave layout */
#define API_RC_SKIP_SCALING 16u /* request gave scaling / rope_scaling */

/*
 * A pasted config, resolved (docs/api.md#rope-config). Each value carries its origin; values the
 * config does not determine have origin.set == 0. Integers are checked to be integers >= 1 here;
 * evenness and limits are the caller's (with the origin's pointer).
 */
typedef struct {
    int64_t head_dim; /* qk_rope_head_dim | head_dim | hidden_size / heads */
    api_rc_origin head_dim_o;
    int64_t rotary_dim; /* GPT-J / CodeGen rotary_dim */
    api_rc_origin rotary_dim_o;
    double partial_rotary_factor; /* partial_rotary_factor | rotary_pct (GPT-NeoX) */
    api_rc_origin partial_o;
    double base; /* rope_theta | rotary_emb_base | rope_parameters.rope_theta */
    api_rc_origin base_o;
    pe_rope_layout layout;           /* rope_interleave, else model_type, else half */
    api_rc_origin layout_o;          /* always set (src "default" when nothing said) */
    api_rope_scaling scaling;        /* rope_scaling (or v5 rope_parameters); scaling.present */
    int64_t max_position_embeddings; /* 0 when absent */
    char model_type[48];             /* the text model's (else its wrapper's); "" when absent */
    char text_src[160];              /* where the text model's fields are: "config",
                                      * "config.text_config", ... (api/model_config.h) */
    /* Ministral 3's query scale by position (core/rope_qscale.h): beta and its length, from
     * the scaling object's llama_4_scaling_beta / original_max_position_embeddings */
    int has_qscale;
    double qscale_beta;
    int64_t qscale_l0;
    api_rc_origin qscale_beta_o, qscale_l0_o;
    int softmax_mscale; /* 1 when HF's attention for model_type scales the softmax
                         * by mscale_all_dim (DeepSeek family) or model_type is absent */
} api_rope_config;

/*
 * Resolves the config object `config` (borrowed, at pointer `ptr`, normally "/config"). Unknown
 * fields of the config are ignored; fields it reads must have the right JSON type, else 422 with
 * their pointer. skip: API_RC_SKIP_* bits for parts the request overrides (not read at all).
 *
 * Mapping (docs/api.md#rope-config): rotary dims from qk_rope_head_dim (DeepSeek), else head_dim,
 * else hidden_size / num_attention_heads (also n_embd / n_head, GPT-J; must divide exactly);
 * partial rotary from partial_rotary_factor, else rotary_pct (GPT-NeoX), else rotary_dim (GPT-J);
 * base from rope_theta, else rotary_emb_base (GPT-NeoX), else rope_parameters.rope_theta (v5);
 * scaling from rope_scaling (or v5 rope_parameters), lenient, phi3's su/yarn = longrope; its
 * original length for dynamic is always max_position_embeddings, otherwise top-level
 * original_max_position_embeddings (Phi-3), else rope_scaling.original_max_position_embeddings,
 * else max_position_embeddings; a missing yarn/longrope factor = max_position_embeddings /
 * original length; layout interleaved when rope_interleave is true or, when rope_interleave is
 * absent, model_type is gptj, codegen, deepseek_v2 or deepseek_v3 (HF's DeepseekV3Config
 * defaults rope_interleave to true; DeepSeek-V2 rotates complex pairs), else half.
 * mrope / mrope_section -> 422 at <ptr>/rope_scaling (multi-axis RoPE is `axes`).
 * Multimodal wrappers are unwrapped first (api_model_text_find: text_config, llm_config, ...):
 * every pointer and source then names the nested path ("/config/text_config/rope_theta",
 * "config.text_config.rope_theta"). Model-type facts (api/model_config.h): a head_dim or
 * rope_theta the file omits takes the HF config class's default (source "default of <class>");
 * model types whose code always rotates adjacent pairs are interleaved whatever rope_interleave
 * says; a `dynamic` scaling with `alpha` is HunYuan's alpha NTK (type ntk) for the HunYuan types
 * and a 422 at its pointer for any other; llama3 accepts low_freq_factor == high_freq_factor.
 * Returns 0, or -1 with errors in pb. out is fully initialised either way.
 */
int api_rope_config_resolve(api_problem *pb, const json_t *config, const char *ptr, unsigned skip,
                            api_rope_config *out, api_rc_warnings *w);

struct api_ml_kind_s; /* api/model_layers.h */

/*
 * api_rope_config_resolve for one kind of layer of the config (kind from api_ml_plan_layers;
 * NULL: as api_rope_config_resolve). Gemma 3's sliding layers take rope_local_base_freq (else the
 * class default) and no scaling; per-layer-type rope_parameters take the kind's entry (pointers
 * "/config/rope_parameters/sliding_attention/...", sources "config.rope_parameters.
 * sliding_attention...."); the layer-structure warnings (rope_local_base_freq, no_rope_layers,
 * layer_types) are not given, the kind answering them.
 */
int api_rope_config_resolve_kind(api_problem *pb, const json_t *config, const char *ptr,
                                 unsigned skip, const struct api_ml_kind_s *kind,
                                 api_rope_config *out, api_rc_warnings *w);

#endif

/*
 * tests/api/check_api_rope.c -- POST /rope's JSON layer (api/rope.c, api/rope_config.c), pure:
 * every request goes through api_handle with a real frequency-table cache, no sockets.
 *
 * Covered: every 422 rule with its exact pointer (errors[0].pointer), aliases (equal spellings
 * fine, different -> 422), integral reals, the teaching text's worked example, oracle cases (ids
 * named next to the numbers, copied verbatim from tests/vectors/rope/), dynamic below L0 = plain
 * RoPE, cache keying across requests, the longrope list switch at L0, yarn's attention factors,
 * Llama 3.1 bands, decay, float32_error, warnings, output limits, cos/sin beyond the cached rows.
 * Tolerances: oracle numbers with the oracle's budgets (inv_freq abs 1e-15 + rel 1e-12;
 * rotations and scores 1e-11), else stated at each check.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* Every request goes to POST /rope. The bodies here are plain JSON (no ', so the ' -> "
 * conversion of api_util.h leaves them as they are). */

/* POSTs body, asserts 200, returns the parsed response. */
static json_t *ok(const char *body)
{
    return au_ok(api_rope, body);
}

/* POSTs body, asserts a 422 whose first error has pointer ptr and a message (and code, when
 * non-NULL). */
static void bad(const char *body, const char *ptr, const char *code)
{
    au_expect_422(api_rope, body, ptr, code);
}

/* j[key][i] */
static double at(const json_t *j, const char *key, int i)
{
    return au_num(j, key, i, -1, -1);
}

/* j[key][i][k] */
static double at2(const json_t *j, const char *key, int i, int k)
{
    return au_num(j, key, i, k, -1);
}

/* j["resolved"]["scaling"][key] */
static const json_t *rscal(const json_t *j, const char *key)
{
    return json_object_get(json_object_get(json_object_get(j, "resolved"), "scaling"), key);
}

/* ---- 422s, one per rule, with the pointer naming the field as spelled -------------------- */

typedef struct {
    const char *body;
    const char *ptr;
    const char *code; /* NULL = invalid-field */
} bad_case;

static const bad_case BAD[] = {
    /* head_dim: required, integer, even, 2 .. max_dim */
    {"{}", "/head_dim", NULL},
    {"{\"head_dim\": 7, \"positions\": [0, 1]}", "/head_dim", NULL}, /* err-rope-head-dim-odd */
    {"{\"head_dim\": 0}", "/head_dim", NULL},
    {"{\"head_dim\": 4.5}", "/head_dim", NULL},
    {"{\"head_dim\": \"8\"}", "/head_dim", NULL},
    {"{\"head_dim\": 65538}", "/head_dim", "limit-exceeded"},
    /* rotary_dim / partial_rotary_factor */
    {"{\"head_dim\": 8, \"rotary_dim\": 16}", "/rotary_dim", NULL},
    {"{\"head_dim\": 8, \"rotary_dim\": 3}", "/rotary_dim", NULL},
    {"{\"head_dim\": 8, \"rotary_dim\": 0}", "/rotary_dim", NULL},
    {"{\"head_dim\": 10, \"partial_rotary_factor\": 0.5}", "/partial_rotary_factor", NULL},
    {"{\"head_dim\": 8, \"partial_rotary_factor\": 0}", "/partial_rotary_factor", NULL},
    {"{\"head_dim\": 8, \"partial_rotary_factor\": 1.5}", "/partial_rotary_factor", NULL},
    {"{\"head_dim\": 8, \"partial_rotary_factor\": 0.1}", "/partial_rotary_factor", NULL},
    {"{\"head_dim\": 8, \"rotary_dim\": 4, \"partial_rotary_factor\": 0.5}",
     "/partial_rotary_factor", NULL},
    /* base / rope_theta */
    {"{\"head_dim\": 8, \"base\": 1}", "/base", NULL},
    {"{\"head_dim\": 8, \"rope_theta\": 0.5}", "/rope_theta", NULL},
    {"{\"head_dim\": 64, \"base\": 10000, \"rope_theta\": 500000}", "/rope_theta", NULL},
    {"{\"head_dim\": 8, \"layout\": \"diagonal\"}", "/layout", NULL},
    /* scaling object */
    {"{\"head_dim\": 8, \"scaling\": 2}", "/scaling", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"linear\", \"factor\": 2},"
     " \"rope_scaling\": {\"type\": \"linear\", \"factor\": 4}}",
     "/rope_scaling", NULL},
    {"{\"head_dim\": 64, \"scaling\": {\"type\": \"quadratic\", \"factor\": 2.0}}", "/scaling/type",
     NULL},
    {"{\"head_dim\": 64, \"rope_scaling\": {\"rope_type\": \"quadratic\"}}",
     "/rope_scaling/rope_type", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"linear\", \"rope_type\": \"dynamic\","
     " \"factor\": 2}}",
     "/scaling/rope_type", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"factor\": 2}}", "/scaling/type", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"mrope\"}}", "/scaling/type", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"default\", \"mrope_section\": [1, 1, 2]}}",
     "/scaling/mrope_section", NULL},
    {"{\"head_dim\": 64, \"scaling\": {\"type\": \"yarn\", \"factor\": 4.0,"
     " \"orignal_max_position_embeddings\": 4096}}",
     "/scaling/orignal_max_position_embeddings", "unknown-field"},
    {"{\"head_dim\": 64, \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 4.0,"
     " \"original_max_position_embeddings\": 4096, \"beta_fastt\": 4}}",
     "/rope_scaling/beta_fastt", "unknown-field"},
    /* a field valid for another type is not silently dropped */
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"linear\", \"factor\": 2, \"beta_fast\": 32}}",
     "/scaling/beta_fast", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"default\", \"factor\": 2}}", "/scaling/factor",
     NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"yarn\", \"factor\": 2,"
     " \"original_max_position_embeddings\": 64, \"alpha\": 2}}",
     "/scaling/alpha", NULL},
    /* per-type values and required fields */
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"linear\", \"factor\": 0}}", "/scaling/factor",
     NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"linear\", \"factor\": -2}}", "/scaling/factor",
     NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"linear\"}}", "/scaling/factor", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"yarn\", \"factor\": 4}}",
     "/scaling/original_max_position_embeddings", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"yarn\","
     " \"original_max_position_embeddings\": 4096}}",
     "/scaling/factor", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"yarn\", \"factor\": 4,"
     " \"original_max_position_embeddings\": 4096.5}}",
     "/scaling/original_max_position_embeddings", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"yarn\", \"factor\": 4,"
     " \"original_max_position_embeddings\": 4096, \"truncate\": \"no\"}}",
     "/scaling/truncate", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"yarn\", \"factor\": 4,"
     " \"original_max_position_embeddings\": 4096, \"attention_factor\": 0}}",
     "/scaling/attention_factor", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"yarn\", \"factor\": 4,"
     " \"original_max_position_embeddings\": 4096, \"beta_fast\": -1}}",
     "/scaling/beta_fast", NULL},
    /* dynamic and ntk divide by d - 2 */
    {"{\"head_dim\": 2, \"seq_len\": 10, \"scaling\": {\"type\": \"dynamic\", \"factor\": 2,"
     " \"original_max_position_embeddings\": 8}}",
     "/head_dim", NULL},
    {"{\"head_dim\": 8, \"rotary_dim\": 2, \"seq_len\": 10, \"scaling\": {\"type\": \"dynamic\","
     " \"factor\": 2, \"original_max_position_embeddings\": 8}}",
     "/rotary_dim", NULL},
    {"{\"head_dim\": 2, \"scaling\": {\"type\": \"ntk\", \"alpha\": 2}}", "/head_dim", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"ntk\"}}", "/scaling/alpha", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"ntk\", \"alpha\": 0}}", "/scaling/alpha", NULL},
    /* dynamic / longrope need a sequence length */
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"dynamic\", \"factor\": 2,"
     " \"original_max_position_embeddings\": 8}}",
     "/seq_len", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"longrope\", \"factor\": 32,"
     " \"original_max_position_embeddings\": 4096, \"short_factor\": [1, 1, 1, 1],"
     " \"long_factor\": [1, 2, 3, 4]}}",
     "/seq_len", NULL},
    /* longrope lists: rotary_dim/2 numbers > 0, both required */
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"longrope\", \"factor\": 32.0,"
     " \"original_max_position_embeddings\": 4096, \"short_factor\": [1.0, 1.05, 1.2],"
     " \"long_factor\": [1.0, 1.9, 5.3, 14.0]}, \"seq_len\": 1000}",
     "/scaling/short_factor", NULL}, /* err-rope-longrope-short-factor-length */
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"longrope\", \"factor\": 32.0,"
     " \"original_max_position_embeddings\": 4096, \"short_factor\": [1, 1, 1, 1],"
     " \"long_factor\": [1, 2, 3, 4, 5]}, \"seq_len\": 1000}",
     "/scaling/long_factor", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"longrope\", \"factor\": 32.0,"
     " \"original_max_position_embeddings\": 4096, \"short_factor\": [1, 0, 1, 1],"
     " \"long_factor\": [1, 2, 3, 4]}, \"seq_len\": 1000}",
     "/scaling/short_factor/1", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"longrope\", \"factor\": 32.0,"
     " \"original_max_position_embeddings\": 4096, \"short_factor\": [1, 1, 1, 1]},"
     " \"seq_len\": 1000}",
     "/scaling/long_factor", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"su\", \"factor\": 32.0,"
     " \"original_max_position_embeddings\": 4096, \"short_factor\": \"1\","
     " \"long_factor\": [1, 2, 3, 4]}, \"seq_len\": 1000}",
     "/scaling/short_factor", NULL},
    /* llama3 */
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"llama3\", \"factor\": 8,"
     " \"original_max_position_embeddings\": 8192, \"low_freq_factor\": 5,"
     " \"high_freq_factor\": 4}}",
     "/scaling/high_freq_factor", NULL},
    {"{\"head_dim\": 8, \"scaling\": {\"type\": \"llama3\", \"factor\": 8,"
     " \"original_max_position_embeddings\": 8192, \"high_freq_factor\": 4}}",
     "/scaling/low_freq_factor", NULL},
    /* seq_len */
    {"{\"head_dim\": 8, \"positions\": [0, 5, 10], \"seq_len\": 4}", "/seq_len", NULL},
    {"{\"head_dim\": 8, \"seq_len\": 0}", "/seq_len", NULL},
    {"{\"head_dim\": 8, \"q_positions\": [0, 9], \"seq_len\": 9}", "/seq_len", NULL},
    {"{\"head_dim\": 8, \"seq_len\": 2000000, \"q\": [1, 0, 0, 0, 0, 0, 0, 0]}", "/seq_len",
     "limit-exceeded"},
    {"{\"head_dim\": 8, \"offset\": 3, \"seq_len\": 4}", "/offset", "unknown-field"},
    /* inv_freq: rotary_dim/2 finite numbers, never with base or scaling */
    {"{\"head_dim\": 4, \"inv_freq\": [0.5]}", "/inv_freq", NULL},
    {"{\"head_dim\": 2, \"inv_freq\": [\"0.5\"]}", "/inv_freq/0", NULL},
    {"{\"head_dim\": 2, \"inv_freq\": 0.5}", "/inv_freq", NULL},
    {"{\"head_dim\": 2, \"inv_freq\": [0.5], \"base\": 10000}", "/base", NULL},
    {"{\"head_dim\": 2, \"inv_freq\": [0.5], \"rope_theta\": 10000}", "/rope_theta", NULL},
    {"{\"head_dim\": 2, \"inv_freq\": [0.5], \"rope_scaling\": {\"type\": \"linear\","
     " \"factor\": 2}}",
     "/rope_scaling", NULL},
    /* positions and vectors */
    {"{\"head_dim\": 8, \"positions\": [0, -1]}", "/positions/1", NULL},
    {"{\"head_dim\": 8, \"positions\": [0, 4.5]}", "/positions/1", NULL},
    {"{\"head_dim\": 8, \"positions\": [2147483647]}", "/positions/0", NULL},
    {"{\"head_dim\": 8, \"q_positions\": [1], \"query_positions\": [2]}", "/query_positions", NULL},
    {"{\"head_dim\": 8, \"k_positions\": [1], \"key_positions\": [2]}", "/key_positions", NULL},
    {"{\"head_dim\": 8, \"positions\": [0, 1], \"q\": [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]}", "/q", NULL},
    {"{\"head_dim\": 2, \"positions\": [0, 1, 2], \"q\": [[1, 0], [0, 1]]}", "/q", NULL},
    {"{\"head_dim\": 2, \"positions\": [0, 1], \"k\": [[1, 0], [0, 1, 2]]}", "/k/1", NULL},
    {"{\"head_dim\": 2, \"positions\": [0, 1], \"k\": [[1, 0, 3], [0, 1, 2]]}", "/k/0", NULL},
    {"{\"head_dim\": 2, \"positions\": [0], \"k\": [1, \"x\"]}", "/k/1", NULL},
    {"{\"head_dim\": 2, \"q\": [1, 0]}", "/positions", NULL},
    {"{\"head_dim\": 2, \"q_positions\": [1], \"k\": [1, 0]}", "/positions", NULL},
    {"{\"head_dim\": 2, \"positions\": [0], \"q\": [1e308, 1e308], \"k\": [1e308, 1e308]}", "/q",
     NULL},
    /* include / distances */
    {"{\"head_dim\": 8, \"include\": [\"bands\", \"colors\"]}", "/include/1", NULL},
    {"{\"head_dim\": 8, \"include\": \"bands\"}", "/include", NULL},
    {"{\"head_dim\": 8, \"include\": [\"decay\"]}", "/distances", NULL},
    {"{\"head_dim\": 8, \"distances\": [1, 2]}", "/distances", NULL},
    {"{\"head_dim\": 8, \"include\": [\"decay\"], \"distances\": [-1]}", "/distances/0", NULL},
    {"{\"head_dim\": 8, \"include\": [\"cos_sin\"]}", "/positions", NULL},
    {"{\"head_dim\": 8, \"include\": [\"float32_error\"]}", "/positions", NULL},
    /* strictness and later features */
    {"{\"head_dim\": 8, \"rope_thetta\": 10000}", "/rope_thetta", "unknown-field"},
    /* config paste */
    {"{\"config\": 3}", "/config", NULL},
    {"{\"config\": {\"model_type\": \"llama\"}}", "/head_dim", NULL},
    {"{\"config\": {\"hidden_size\": 100, \"num_attention_heads\": 3}}", "/config/hidden_size",
     NULL},
    {"{\"config\": {\"head_dim\": 7}}", "/config/head_dim", NULL},
    {"{\"config\": {\"head_dim\": \"64\"}}", "/config/head_dim", NULL},
    {"{\"config\": {\"head_dim\": 64, \"rope_theta\": 0.5}}", "/config/rope_theta", NULL},
    {"{\"config\": {\"head_dim\": 64, \"partial_rotary_factor\": 0.3}}",
     "/config/partial_rotary_factor", NULL},
    {"{\"config\": {\"n_embd\": 4096, \"n_head\": 16, \"rotary_dim\": 512}}", "/config/rotary_dim",
     NULL},
    /* mrope without its sections is not multi-axis-capable: a 1-D 422 naming the object */
    {"{\"config\": {\"head_dim\": 128, \"rope_scaling\": {\"type\": \"mrope\"}}}",
     "/config/rope_scaling", NULL},
    {"{\"config\": {\"head_dim\": 128, \"rope_scaling\": {\"rope_type\": \"default\","
     " \"mrope_interleaved\": true}}}",
     "/config/rope_scaling", NULL},
    {"{\"config\": {\"head_dim\": 128, \"rope_scaling\": {\"type\": \"linear\","
     " \"rope_type\": \"dynamic\", \"factor\": 2}}}",
     "/config/rope_scaling/rope_type", NULL},
    {"{\"config\": {\"head_dim\": 64, \"rope_parameters\": {\"full_attention\":"
     " {\"rope_type\": \"default\", \"rope_theta\": 1e6}, \"sliding_attention\":"
     " {\"rope_type\": \"default\", \"rope_theta\": 1e4}}}}",
     "/config/rope_parameters", NULL},
    {"{\"config\": {\"head_dim\": 128, \"rope_scaling\": {\"type\": \"turbo\"}}}",
     "/config/rope_scaling/type", NULL},
    {"{\"config\": {\"head_dim\": 128, \"rope_scaling\": {\"type\": \"yarn\"}}}",
     "/config/rope_scaling/factor", NULL},
    {"{\"config\": {\"head_dim\": 128, \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2}},"
     " \"seq_len\": 10}",
     "/config/max_position_embeddings", NULL},
    {"{\"config\": {\"head_dim\": 128, \"rope_scaling\": {\"type\": \"linear\", \"factor\": 0}}}",
     "/config/rope_scaling/factor", NULL},
    {"{\"config\": {\"head_dim\": 128, \"rope_scaling\": {\"type\": \"longrope\", \"factor\": 4,"
     " \"original_max_position_embeddings\": 8, \"short_factor\": [1], \"long_factor\": [1]}},"
     " \"seq_len\": 10}",
     "/config/rope_scaling/short_factor", NULL},
};

START_TEST(test_422_pointers)
{
    bad_case c = BAD[_i];
    bad(c.body, c.ptr, c.code);
}
END_TEST

/* Output size is checked before anything is allocated, blaming the field that adds it. */
START_TEST(test_output_limit)
{
    /* 20 positions x head_dim 8 = 160 numbers of q_rotated > a limit of 100 */
    au_lim.max_output_elements = 100;
    bad("{\"head_dim\": 8, \"seq_len\": 20, \"q\": [1, 0, 0, 0, 0, 0, 0, 0]}", "/q",
        "limit-exceeded");
    bad("{\"head_dim\": 8, \"seq_len\": 20, \"include\": [\"bands\", \"cos_sin\"]}", "/include/1",
        "limit-exceeded");
    /* decay: 27 distances x 4 numbers = 108 more numbers, over the limit of 100 */
    bad("{\"head_dim\": 8, \"include\": [\"decay\"], \"distances\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9,"
        " 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26]}",
        "/distances", "limit-exceeded");
}
END_TEST

/* ---- aliases and integral reals --------------------------------------------------------- */

/* Both bodies must give byte-identical responses. */
static void same(const char *a, const char *b)
{
    int sa = 0, sb = 0;
    char *ta = au_send(api_rope, a, &sa);
    char *tb = au_send(api_rope, b, &sb);
    ck_assert_msg(sa == 200 && sb == 200, "%s -> %d, %s -> %d: %s %s", a, sa, b, sb, ta, tb);
    ck_assert_msg(strcmp(ta, tb) == 0, "different responses:\n%s\n%s", ta, tb);
    free(ta);
    free(tb);
}

START_TEST(test_aliases)
{
    same("{\"head_dim\": 8, \"base\": 500000}", "{\"head_dim\": 8, \"rope_theta\": 500000}");
    same("{\"head_dim\": 8, \"base\": 500000}",
         "{\"head_dim\": 8, \"base\": 500000, \"rope_theta\": 500000}");
    same("{\"head_dim\": 8, \"scaling\": {\"type\": \"linear\", \"factor\": 2}}",
         "{\"head_dim\": 8, \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2}}");
    same("{\"head_dim\": 8, \"scaling\": {\"type\": \"linear\", \"factor\": 2}}",
         "{\"head_dim\": 8, \"scaling\": {\"type\": \"linear\", \"rope_type\": \"linear\","
         " \"factor\": 2}, \"rope_scaling\": {\"type\": \"linear\", \"rope_type\": \"linear\","
         " \"factor\": 2}}");
    same("{\"head_dim\": 4, \"q_positions\": [3, 1], \"k_positions\": [2], \"q\": [1, 2, 3, 4],"
         " \"k\": [4, 3, 2, 1]}",
         "{\"head_dim\": 4, \"query_positions\": [3, 1], \"key_positions\": [2],"
         " \"q_positions\": [3, 1], \"q\": [1, 2, 3, 4], \"k\": [4, 3, 2, 1]}");
    /* q_positions = k_positions = positions: same numbers as positions (resolved echoes them) */
    json_t *a = ok("{\"head_dim\": 4, \"positions\": [0, 5], \"q\": [1, 2, 3, 4],"
                   " \"k\": [4, 3, 2, 1]}");
    json_t *b = ok("{\"head_dim\": 4, \"q_positions\": [0, 5], \"k_positions\": [0, 5],"
                   " \"q\": [1, 2, 3, 4], \"k\": [4, 3, 2, 1]}");
    au_same(a, b, "scores");
    au_same(a, b, "q_rotated");
    json_decref(a);
    json_decref(b);
    /* su is longrope (HF's old name); resolved names the canonical type and the spelling */
    const char *lr = "\"factor\": 32, \"original_max_position_embeddings\": 4096,"
                     " \"short_factor\": [1, 1.05, 1.2, 1.6], \"long_factor\": [1, 1.9, 5.3, 14]},"
                     " \"seq_len\": 8192}";
    char b1[512], b2[512];
    snprintf(b1, sizeof b1, "{\"head_dim\": 8, \"scaling\": {\"type\": \"su\", %s", lr);
    snprintf(b2, sizeof b2, "{\"head_dim\": 8, \"scaling\": {\"type\": \"longrope\", %s", lr);
    a = ok(b1);
    b = ok(b2);
    au_same(a, b, "inv_freq");
    ck_assert_str_eq(json_string_value(rscal(a, "type")), "longrope");
    ck_assert_str_eq(json_string_value(rscal(a, "type_given")), "su");
    json_decref(a);
    json_decref(b);
}
END_TEST

START_TEST(test_integral_reals)
{
    same("{\"head_dim\": 8, \"rotary_dim\": 4, \"positions\": [0, 3], \"seq_len\": 7,"
         " \"q\": [1, 2, 3, 4, 5, 6, 7, 8], \"scaling\": {\"type\": \"yarn\", \"factor\": 4,"
         " \"original_max_position_embeddings\": 64}, \"include\": [\"decay\"],"
         " \"distances\": [0, 2]}",
         "{\"head_dim\": 8.0, \"rotary_dim\": 4.0, \"positions\": [0.0, 3.0], \"seq_len\": 7.0,"
         " \"q\": [1, 2, 3, 4, 5, 6, 7, 8], \"scaling\": {\"type\": \"yarn\", \"factor\": 4,"
         " \"original_max_position_embeddings\": 64.0}, \"include\": [\"decay\"],"
         " \"distances\": [0.0, 2.0]}");
}
END_TEST

/* ---- worked example and oracle numbers -------------------------------------------------- */

START_TEST(test_worked_example)
{
    /*
     * d = 2, one pair turning 0.5 rad per position, q = (1,2), k = (3,1). The score of query
     * position m and key position n is <R(m)q, R(n)k> = <q, R(n-m)k>. With phi = 0.5(n-m):
     * R(phi)k = (3cos phi - sin phi, 3 sin phi + cos phi), so q.R(phi)k = 5 cos phi + 5 sin phi
     * = 5 cos d - 5 sin d for d = 0.5(m-n). Diagonal pairs (m,n) = (2,0), (5,3), (9,7): d = 1,
     * 5(cos 1 - sin 1) = -1.5058433946987837; (3,5): d = -1, 5(cos 1 + sin 1) = 6.908866453380181.
     */
    json_t *j = ok("{\"head_dim\": 2, \"inv_freq\": [0.5], \"q\": [1, 2], \"k\": [3, 1],"
                   " \"q_positions\": [2, 5, 9, 3], \"k_positions\": [0, 3, 7, 5]}");
    for (size_t i = 0; i < 3; i++) {
        ck_close(at2(j, "scores", i, i), -1.5058433946987837, 1e-12, 1e-12);
        ck_close(at2(j, "scores", i, i), 5.0 * (cos(1.0) - sin(1.0)), 1e-12, 1e-12);
    }
    ck_close(at2(j, "scores", 3, 3), 6.908866453380181, 1e-12, 1e-12);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "scores")), 4);
    ck_assert_uint_eq(json_array_size(json_array_get(json_object_get(j, "scores"), 0)), 4);
    /* q at position 2 turned by 1 rad: (cos 1 - 2 sin 1, sin 1 + 2 cos 1) */
    ck_close(at2(j, "q_rotated", 0, 0), cos(1.0) - 2.0 * sin(1.0), 1e-15, 1e-14);
    ck_close(at2(j, "q_rotated", 0, 1), sin(1.0) + 2.0 * cos(1.0), 1e-15, 1e-14);
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0, 0, 0);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(j, "resolved"), "inv_freq_source")),
        "explicit");
    ck_assert(json_is_null(json_object_get(json_object_get(j, "resolved"), "scaling")));
    json_decref(j);
}
END_TEST

START_TEST(test_oracle_cases)
{
    /* rope-rot-default-hd8-half: scores[10][9] (m=4095, n=4093), scores[0][2], q_rotated[3] */
    json_t *j = ok("{\"head_dim\": 8, \"base\": 10000.0, \"layout\": \"half\","
                   " \"positions\": [0, 1, 2, 3, 5, 7, 9, 98, 100, 4093, 4095],"
                   " \"q\": [1.6243, -0.6118, -0.5282, -1.073, 0.8654, -2.3015, 1.7448, -0.7612],"
                   " \"k\": [-0.4168, -0.0563, -2.1362, 1.6403, -1.7934, -0.8417, 0.5029,"
                   " -1.2453]}");
    ck_close(at2(j, "scores", 10, 9), 1.8833367947203585, 1e-11, 1e-11);
    ck_close(at2(j, "scores", 2, 0), 1.883336794720348, 1e-11, 1e-11);
    ck_close(at2(j, "scores", 0, 2), 6.2230546499911, 1e-11, 1e-11);
    static const double Q3[8] = {-1.7301700672031126, 0.09566489158402736, -0.5802984765795296,
                                 -1.0707115749290197, -0.6275182774663831, -2.3795061921579896,
                                 1.728171275678275,   -0.7644155697740712};
    for (size_t d = 0; d < 8; d++)
        ck_close(at2(j, "q_rotated", 3, d), Q3[d], 1e-11, 1e-11);
    json_decref(j);

    /* rope-yarn-gpt-oss-truncate-false: inv_freq[8..11], attention_factor, ramp bounds
     * (intermediate.correction_range 8.092779115512402, 17.39802450158856) */
    j = ok("{\"head_dim\": 64, \"base\": 150000.0, \"scaling\": {\"type\": \"yarn\","
           " \"factor\": 32.0, \"original_max_position_embeddings\": 4096, \"beta_fast\": 32.0,"
           " \"beta_slow\": 1.0, \"truncate\": false}}");
    static const double GO[4] = {0.050813274815461475, 0.03170569618466377, 0.019335001126540362,
                                 0.011592049256286924};
    for (size_t i = 0; i < 4; i++)
        ck_close(at(j, "inv_freq", 8 + i), GO[i], 1e-15, 1e-12);
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.3465735902799727, 1e-15, 1e-12);
    ck_close(au_number(rscal(j, "ramp_low")), 8.092779115512402, 1e-12, 1e-12);
    ck_close(au_number(rscal(j, "ramp_high")), 17.39802450158856, 1e-12, 1e-12);
    ck_assert(json_is_false(rscal(j, "truncate")));
    json_decref(j);

    /* rope-llama3-3.1-hd128: inv_freq at the band edges */
    j = ok("{\"head_dim\": 128, \"base\": 500000.0, \"scaling\": {\"type\": \"llama3\","
           " \"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0,"
           " \"original_max_position_embeddings\": 8192}}");
    static const struct {
        size_t j;
        double v;
    } L3[] = {{28, 0.0032114459947525913}, {29, 0.002166570763503359},
              {31, 0.0008567514129196321}, {34, 0.00017850781276799638},
              {35, 9.556212353964683e-05}, {63, 3.068925988914511e-07}};
    for (size_t i = 0; i < sizeof L3 / sizeof L3[0]; i++)
        ck_close(at(j, "inv_freq", L3[i].j), L3[i].v, 1e-15, 1e-12);
    json_decref(j);

    /* rope-dynamic-hd64-f2-L2048-seq4096: inv_freq[31], intermediate.effective_base */
    j = ok("{\"head_dim\": 64, \"base\": 10000.0, \"scaling\": {\"type\": \"dynamic\","
           " \"factor\": 2.0, \"original_max_position_embeddings\": 2048}, \"seq_len\": 4096}");
    ck_close(at(j, "inv_freq", 31), 4.445071440544414e-05, 1e-15, 1e-12);
    ck_close(au_number(rscal(j, "effective_base")), 31082.236667168814, 0, 1e-12);
    ck_close(au_number(rscal(j, "effective_seq_len")), 4096, 0, 0);
    json_decref(j);

    /* rope-longrope-hd8-seq131072-long: inv_freq and attention_factor sqrt(1 + ln 32/ln 4096) */
    j = ok("{\"head_dim\": 8, \"base\": 10000.0, \"scaling\": {\"type\": \"longrope\","
           " \"factor\": 32.0, \"original_max_position_embeddings\": 4096,"
           " \"short_factor\": [1.0, 1.05, 1.2, 1.6], \"long_factor\": [1.0, 1.9, 5.3, 14.0]},"
           " \"seq_len\": 131072}");
    static const double LR[4] = {1.0, 0.05263157894736842, 0.0018867924528301887,
                                 7.142857142857143e-05};
    for (size_t i = 0; i < 4; i++)
        ck_close(at(j, "inv_freq", i), LR[i], 1e-15, 1e-12);
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.1902380714238083, 1e-15, 1e-12);
    json_decref(j);
}
END_TEST

/* ---- scaling behaviour through the API --------------------------------------------------- */

START_TEST(test_dynamic_short_is_plain)
{
    /* seq_len <= L0: L' = L0, base' = base (core returns plain RoPE exactly), no NaN */
    json_t *d = ok("{\"head_dim\": 64, \"scaling\": {\"type\": \"dynamic\", \"factor\": 2,"
                   " \"original_max_position_embeddings\": 2048}, \"seq_len\": 100}");
    json_t *p = ok("{\"head_dim\": 64}");
    au_same(d, p, "inv_freq");
    for (size_t j = 0; j < 32; j++) {
        double v = at(d, "inv_freq", j);
        ck_assert(isfinite(v));
        ck_close(v, pow(10000.0, -(double)(2 * j) / 64.0), 0, 1e-15);
    }
    ck_close(au_number(rscal(d, "effective_base")), 10000.0, 0, 0);
    ck_close(au_number(rscal(d, "effective_seq_len")), 2048.0, 0, 0);
    json_decref(d);
    json_decref(p);
}
END_TEST

START_TEST(test_dynamic_cache_keying)
{
    /* a long dynamic request between two identical short ones leaves the short answer alone
     * (the cache keys dynamic by its effective length) */
    const char *shortq = "{\"head_dim\": 8, \"scaling\": {\"type\": \"dynamic\", \"factor\": 4,"
                         " \"original_max_position_embeddings\": 16}, \"positions\": [0, 3, 9],"
                         " \"q\": [1, 2, 3, 4, 5, 6, 7, 8], \"include\": [\"cos_sin\"]}";
    const char *longq = "{\"head_dim\": 8, \"scaling\": {\"type\": \"dynamic\", \"factor\": 4,"
                        " \"original_max_position_embeddings\": 16}, \"positions\": [0, 3, 9],"
                        " \"seq_len\": 64, \"q\": [1, 2, 3, 4, 5, 6, 7, 8],"
                        " \"include\": [\"cos_sin\"]}";
    int st = 0;
    char *a = au_send(api_rope, shortq, &st);
    ck_assert_int_eq(st, 200);
    char *b = au_send(api_rope, longq, &st);
    ck_assert_int_eq(st, 200);
    char *c = au_send(api_rope, shortq, &st);
    ck_assert_int_eq(st, 200);
    ck_assert_str_eq(a, c);
    ck_assert_str_ne(a, b);
    json_t *jb = au_parse(b);
    /* L = 64 > 16: base' = 10000 (4*64/16 - 3)^(8/6) = 10000 * 13^(4/3) */
    ck_close(au_number(rscal(jb, "effective_base")), 10000.0 * pow(13.0, 8.0 / 6.0), 0, 1e-13);
    ck_close(at(jb, "inv_freq", 1), pow(10000.0 * pow(13.0, 8.0 / 6.0), -0.25), 0, 1e-13);
    json_decref(jb);
    free(a);
    free(b);
    free(c);
}
END_TEST

START_TEST(test_longrope_switch)
{
    /* long list only when seq_len > L0 strictly: theta_j = 1 / (lambda_j * 10000^(2j/8)) */
    static const double SHORT[4] = {1.0, 1.05, 1.2, 1.6}, LONG[4] = {1.0, 1.9, 5.3, 14.0};
#define LONGROPE_AT(seq_len)                                                                       \
    "{\"head_dim\": 8, \"scaling\": {\"type\": \"longrope\", \"factor\": 32,"                      \
    " \"original_max_position_embeddings\": 4096, \"short_factor\": [1.0, 1.05, 1.2, 1.6],"        \
    " \"long_factor\": [1.0, 1.9, 5.3, 14.0]}, \"seq_len\": " seq_len "}"
    static const char *const BODIES[2] = {LONGROPE_AT("4096"), LONGROPE_AT("4097")};
    for (int k = 0; k < 2; k++) {
        const char *body = BODIES[k];
        json_t *j = ok(body);
        const double *lam = k == 0 ? SHORT : LONG;
        for (size_t i = 0; i < 4; i++)
            ck_close(at(j, "inv_freq", i), 1.0 / (lam[i] * pow(10000.0, (double)(2 * i) / 8.0)),
                     1e-15, 1e-12);
        ck_assert_str_eq(json_string_value(rscal(j, "list_used")),
                         k == 0 ? "short_factor" : "long_factor");
        /* attention factor applies to either list: sqrt(1 + ln 32 / ln 4096) */
        ck_close(au_number(json_object_get(j, "attention_factor")),
                 sqrt(1.0 + log(32.0) / log(4096.0)), 1e-15, 1e-12);
        json_decref(j);
    }
    /* seq_len defaults to the largest position + 1: position 4096 -> L 4097 -> long */
    json_t *j = ok("{\"head_dim\": 8, \"scaling\": {\"type\": \"longrope\", \"factor\": 32,"
                   " \"original_max_position_embeddings\": 4096,"
                   " \"short_factor\": [1.0, 1.05, 1.2, 1.6],"
                   " \"long_factor\": [1.0, 1.9, 5.3, 14.0]}, \"positions\": [0, 4096],"
                   " \"include\": [\"cos_sin\"]}");
    ck_assert_str_eq(json_string_value(rscal(j, "list_used")), "long_factor");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "resolved"), "seq_len")),
                     4097);
    json_decref(j);
}
END_TEST

START_TEST(test_yarn_attention_factors)
{
    /* explicit attention_factor is returned as given (and wins over mscale) */
    json_t *j = ok("{\"head_dim\": 64, \"scaling\": {\"type\": \"yarn\", \"factor\": 40,"
                   " \"original_max_position_embeddings\": 4096, \"attention_factor\": 0.625,"
                   " \"mscale\": 1, \"mscale_all_dim\": 0.5}}");
    ck_close(au_number(json_object_get(j, "attention_factor")), 0.625, 0, 0);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "warnings")), 1);
    json_decref(j);
    /* mscale = mscale_all_dim (DeepSeek-V3, rope-yarn-hd64-f40-L4096-deepseek-v3): A = g/g = 1;
     * softmax_scale_factor = g(40, 1)^2 = (0.1 ln 40 + 1)^2 = 1.8738542070926265 */
    j = ok("{\"head_dim\": 64, \"base\": 10000.0, \"scaling\": {\"type\": \"yarn\","
           " \"factor\": 40.0, \"original_max_position_embeddings\": 4096, \"beta_fast\": 32.0,"
           " \"beta_slow\": 1.0, \"mscale\": 1.0, \"mscale_all_dim\": 1.0}}");
    ck_close(au_number(json_object_get(j, "attention_factor")), 1.0, 0, 0);
    double g = 0.1 * 1.0 * log(40.0) + 1.0;
    ck_close(au_number(json_object_get(j, "softmax_scale_factor")), g * g, 0, 1e-15);
    ck_close(au_number(json_object_get(j, "softmax_scale_factor")), 1.8738542070926265, 0, 1e-15);
    /* intermediate.correction_range [10, 23] of the same oracle case */
    ck_close(au_number(rscal(j, "ramp_low")), 10.0, 0, 0);
    ck_close(au_number(rscal(j, "ramp_high")), 23.0, 0, 0);
    ck_assert_ptr_null(json_object_get(j, "warnings"));
    json_decref(j);
    /* no mscale: A = 0.1 ln 4 + 1, softmax_scale_factor 1 */
    j = ok("{\"head_dim\": 16, \"scaling\": {\"type\": \"yarn\", \"factor\": 4,"
           " \"original_max_position_embeddings\": 64}}");
    ck_close(au_number(json_object_get(j, "attention_factor")), 0.1 * log(4.0) + 1.0, 0, 1e-15);
    ck_close(au_number(json_object_get(j, "softmax_scale_factor")), 1.0, 0, 0);
    ck_assert(json_is_null(rscal(j, "mscale")));
    ck_close(au_number(rscal(j, "beta_fast")), 32.0, 0, 0);
    ck_close(au_number(rscal(j, "beta_slow")), 1.0, 0, 0);
    ck_assert(json_is_true(rscal(j, "truncate")));
    json_decref(j);
}
END_TEST

START_TEST(test_ntk_and_linear)
{
    /* ntk: base' = 10000 * 2^(8/6); theta_1 = base'^(-2/8) */
    json_t *j = ok("{\"head_dim\": 8, \"scaling\": {\"type\": \"ntk\", \"alpha\": 2}}");
    double b = 10000.0 * pow(2.0, 8.0 / 6.0);
    ck_close(au_number(rscal(j, "effective_base")), b, 0, 1e-14);
    ck_close(at(j, "inv_freq", 1), pow(b, -0.25), 0, 1e-13);
    ck_assert_ptr_null(json_object_get(j, "warnings"));
    json_decref(j);
    /* factor < 1: accepted with one warning */
    j = ok("{\"head_dim\": 4, \"scaling\": {\"type\": \"linear\", \"factor\": 0.5}}");
    ck_close(at(j, "inv_freq", 0), 2.0, 0, 0);
    ck_close(at(j, "inv_freq", 1), 0.01 / 0.5, 0, 1e-15);
    json_t *w = json_object_get(j, "warnings");
    ck_assert_uint_eq(json_array_size(w), 1);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(w, 0)), "below 1"));
    json_decref(j);
}
END_TEST

/* ---- include ------------------------------------------------------------------------------ */

START_TEST(test_bands_llama31)
{
    json_t *j = ok("{\"head_dim\": 128, \"base\": 500000, \"scaling\": {\"type\": \"llama3\","
                   " \"factor\": 8, \"low_freq_factor\": 1, \"high_freq_factor\": 4,"
                   " \"original_max_position_embeddings\": 8192}, \"include\": [\"bands\"]}");
    json_t *bands = json_object_get(j, "bands");
    ck_assert_uint_eq(json_array_size(bands), 64);
    int counts[3] = {0, 0, 0};
    for (size_t i = 0; i < 64; i++) {
        json_t *b = json_array_get(bands, i);
        const char *cls = json_string_value(json_object_get(b, "class"));
        const char *want = i <= 28 ? "high" : i <= 34 ? "medium" : "low";
        ck_assert_msg(strcmp(cls, want) == 0, "pair %zu: %s, want %s", i, cls, want);
        counts[i <= 28 ? 0 : i <= 34 ? 1 : 2]++;
        ck_assert_int_eq(json_integer_value(json_object_get(b, "pair")), (json_int_t)i);
        /* wavelength = 2 pi / inv_freq; rotations = 8192 / wavelength */
        double f = au_number(json_object_get(b, "inv_freq"));
        ck_close(au_number(json_object_get(b, "wavelength")), 2.0 * M_PI / f, 0, 1e-15);
        ck_close(au_number(json_object_get(b, "rotations")), 8192.0 * f / (2.0 * M_PI), 0, 1e-14);
    }
    ck_assert_int_eq(counts[0], 29);
    ck_assert_int_eq(counts[1], 6);
    ck_assert_int_eq(counts[2], 29);
    json_decref(j);
    /* yarn bands carry the ramp; plain RoPE has no original length: no rotations */
    j = ok("{\"head_dim\": 8, \"include\": [\"bands\"]}");
    json_t *b0 = json_array_get(json_object_get(j, "bands"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(b0, "class")), "unchanged");
    ck_assert_ptr_null(json_object_get(b0, "rotations"));
    ck_assert_ptr_null(json_object_get(b0, "ramp"));
    json_decref(j);
    j = ok("{\"head_dim\": 64, \"scaling\": {\"type\": \"yarn\", \"factor\": 40,"
           " \"original_max_position_embeddings\": 4096}, \"include\": [\"bands\"]}");
    /* ramp range [10, 23]: pair 0 extrapolate, 16 blend with ramp 6/13, 31 interpolate */
    json_t *bs = json_object_get(j, "bands");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(bs, 0), "class")),
                     "extrapolate");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(bs, 16), "class")), "blend");
    ck_close(au_number(json_object_get(json_array_get(bs, 16), "ramp")), 6.0 / 13.0, 0, 1e-15);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(bs, 31), "class")),
                     "interpolate");
    json_decref(j);
}
END_TEST

START_TEST(test_decay)
{
    /* r = 0: every partial sum |S_j| = j, so upper_bound_sum = (1/n) sum j = (n+1)/2 = 2.5 for
     * n = 4, and the relative upper_bound = 2.5 / 2.5 = 1, mean_cos = 1. r = 2 with inv_freq [1]:
     * n = 1, upper_bound_sum = |e^{2i}| = 1 = upper_bound, mean_cos = cos 2. */
    json_t *j = ok("{\"head_dim\": 8, \"include\": [\"decay\"], \"distances\": [0, 7]}");
    json_t *d0 = json_array_get(json_object_get(j, "decay"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(d0, "distance")), 0);
    ck_close(au_number(json_object_get(d0, "upper_bound")), 1.0, 0, 1e-15);
    ck_close(au_number(json_object_get(d0, "mean_cos")), 1.0, 0, 1e-15);
    ck_close(au_number(json_object_get(d0, "upper_bound_sum")), 2.5, 0, 1e-15);
    json_t *d1 = json_array_get(json_object_get(j, "decay"), 1);
    ck_assert(au_number(json_object_get(d1, "upper_bound")) < 1.0);
    json_decref(j);
    j = ok("{\"head_dim\": 2, \"inv_freq\": [1], \"include\": [\"decay\"], \"distances\": [2]}");
    d0 = json_array_get(json_object_get(j, "decay"), 0);
    ck_close(au_number(json_object_get(d0, "upper_bound_sum")), 1.0, 0, 1e-15);
    ck_close(au_number(json_object_get(d0, "upper_bound")), 1.0, 0, 1e-15);
    ck_close(au_number(json_object_get(d0, "mean_cos")), cos(2.0), 0, 1e-15);
    json_decref(j);
}
END_TEST

START_TEST(test_float32_error)
{
    /* docs/conventions.md#precision: at p = 131071 (head_dim 128, base 500000) float32 tables are
     * off by ~1e-3 .. 1e-2; at p = 0 every angle is 0 exactly. */
    json_t *j = ok("{\"head_dim\": 128, \"base\": 500000, \"positions\": [131071],"
                   " \"include\": [\"float32_error\"]}");
    json_t *e = json_object_get(j, "float32_error");
    static const char *const F[] = {"angle_max_abs", "cos_max_abs", "sin_max_abs"};
    for (int i = 0; i < 3; i++) {
        double v = au_number(json_object_get(e, F[i]));
        ck_assert_msg(v > 1e-4 && v < 5e-2, "%s = %g", F[i], v);
    }
    json_decref(j);
    j = ok("{\"head_dim\": 128, \"base\": 500000, \"positions\": [0],"
           " \"include\": [\"float32_error\"]}");
    e = json_object_get(j, "float32_error");
    for (int i = 0; i < 3; i++)
        ck_close(au_number(json_object_get(e, F[i])), 0.0, 0, 0);
    json_decref(j);
}
END_TEST

START_TEST(test_cos_sin_rows)
{
    /* positions past the cached rows (the test cache holds at most 4096; the first request
     * builds a table of 512 rows) are computed directly: cos[i][j] = cos(p_i * inv_freq[j])
     * either way (same double product, so exactly equal) */
    json_t *j = ok("{\"head_dim\": 8, \"seq_len\": 300, \"include\": [\"cos_sin\"]}");
    json_decref(j);
    j = ok("{\"head_dim\": 8, \"positions\": [0, 7, 5000, 100000],"
           " \"include\": [\"cos_sin\"]}");
    static const int64_t P[4] = {0, 7, 5000, 100000};
    for (size_t i = 0; i < 4; i++) {
        for (size_t k = 0; k < 4; k++) {
            double f = at(j, "inv_freq", k);
            ck_close(at2(j, "cos", i, k), cos((double)P[i] * f), 0, 0);
            ck_close(at2(j, "sin", i, k), sin((double)P[i] * f), 0, 0);
        }
    }
    json_decref(j);
    /* seq_len alone: positions 0 .. seq_len-1, echoed */
    j = ok("{\"head_dim\": 4, \"seq_len\": 3, \"include\": [\"cos_sin\"]}");
    ck_assert_uint_eq(json_array_size(json_object_get(j, "positions")), 3);
    ck_close(at2(j, "cos", 2, 0), cos(2.0), 0, 0);
    json_decref(j);
    /* only q/k positions: the table rows are their sorted union */
    j = ok("{\"head_dim\": 4, \"q_positions\": [5, 1], \"k_positions\": [1, 3],"
           " \"include\": [\"cos_sin\"]}");
    json_t *p = json_object_get(j, "positions");
    ck_assert_uint_eq(json_array_size(p), 3);
    ck_assert_int_eq(json_integer_value(json_array_get(p, 0)), 1);
    ck_assert_int_eq(json_integer_value(json_array_get(p, 1)), 3);
    ck_assert_int_eq(json_integer_value(json_array_get(p, 2)), 5);
    json_decref(j);
}
END_TEST

START_TEST(test_vectors_and_partial)
{
    /* a q matrix with one row per position equals the vector form row by row */
    json_t *a = ok("{\"head_dim\": 4, \"positions\": [1, 2], \"q\": [1, 2, 3, 4],"
                   " \"layout\": \"interleaved\"}");
    json_t *b = ok("{\"head_dim\": 4, \"positions\": [1, 2], \"q\": [[1, 2, 3, 4], [1, 2, 3, 4]],"
                   " \"layout\": \"interleaved\"}");
    au_same(a, b, "q_rotated");
    /* interleaved pair 0 = dims (0,1) at position 1, angle 1: (cos1 - 2 sin1, 2 cos1 + sin1) */
    ck_close(at2(a, "q_rotated", 0, 0), cos(1.0) - 2.0 * sin(1.0), 0, 1e-15);
    ck_close(at2(a, "q_rotated", 0, 1), 2.0 * cos(1.0) + sin(1.0), 0, 1e-15);
    json_decref(a);
    json_decref(b);
    /* partial rotary: dims beyond rotary_dim pass through, not scaled by attention_factor
     * (yarn factor 4: A = 0.1 ln 4 + 1); rotated part scaled: position 0 -> A x */
    a = ok("{\"head_dim\": 8, \"rotary_dim\": 4, \"positions\": [0], \"q\": [1, 2, 3, 4, 5, 6, 7,"
           " 8], \"scaling\": {\"type\": \"yarn\", \"factor\": 4,"
           " \"original_max_position_embeddings\": 64}}");
    double A = 0.1 * log(4.0) + 1.0;
    for (size_t d = 0; d < 4; d++)
        ck_close(at2(a, "q_rotated", 0, d), A * (double)(d + 1), 0, 1e-15);
    for (size_t d = 4; d < 8; d++)
        ck_close(at2(a, "q_rotated", 0, d), (double)(d + 1), 0, 0);
    json_t *res = json_object_get(a, "resolved");
    ck_assert_int_eq(json_integer_value(json_object_get(res, "rotary_dim")), 4);
    json_decref(a);
    /* partial_rotary_factor 0.4 of 80 -> 32 (Phi-2) */
    a = ok("{\"head_dim\": 80, \"partial_rotary_factor\": 0.4}");
    ck_assert_uint_eq(json_array_size(json_object_get(a, "inv_freq")), 16);
    json_decref(a);
}
END_TEST

START_TEST(test_resolved_defaults)
{
    json_t *j = ok("{\"head_dim\": 8}");
    json_t *r = json_object_get(j, "resolved");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "head_dim")), 8);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "rotary_dim")), 8);
    ck_close(au_number(json_object_get(r, "base")), 10000.0, 0, 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "layout")), "half");
    ck_assert_str_eq(json_string_value(rscal(j, "type")), "default");
    ck_assert(json_is_null(json_object_get(r, "seq_len")));
    ck_assert_ptr_null(json_object_get(r, "sources")); /* only for config pastes */
    ck_assert_ptr_null(json_object_get(j, "warnings"));
    ck_close(au_number(json_object_get(j, "softmax_scale_factor")), 1.0, 0, 0);
    ck_assert_ptr_null(json_object_get(j, "q_rotated"));
    ck_assert_ptr_null(json_object_get(j, "scores"));
    ck_assert_ptr_null(json_object_get(j, "cos"));
    json_decref(j);
}
END_TEST

START_TEST(test_config_overrides)
{
    /* explicit top-level fields win over the config; sources say so */
    json_t *j = ok("{\"config\": {\"hidden_size\": 4096, \"num_attention_heads\": 32,"
                   " \"rope_theta\": 500000, \"max_position_embeddings\": 131072,"
                   " \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8,"
                   " \"low_freq_factor\": 1, \"high_freq_factor\": 4,"
                   " \"original_max_position_embeddings\": 8192}},"
                   " \"head_dim\": 64, \"rope_theta\": 10000, \"scaling\": null}");
    json_t *r = json_object_get(j, "resolved");
    json_t *s = json_object_get(r, "sources");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "head_dim")), 64);
    ck_close(au_number(json_object_get(r, "base")), 10000.0, 0, 0);
    ck_assert_str_eq(json_string_value(json_object_get(s, "head_dim")), "request");
    ck_assert_str_eq(json_string_value(json_object_get(s, "base")), "request");
    /* an explicit "scaling": null is a top-level field too: it wins over the config's llama3
     * (no scaling), so inv_freq[1] = 10000^(-2/64) unscaled */
    ck_assert_str_eq(json_string_value(rscal(j, "type")), "default");
    ck_close(at(j, "inv_freq", 1), pow(10000.0, -2.0 / 64.0), 1e-15, 1e-12);
    json_decref(j);
    /* without it the config's llama3 applies */
    j = ok("{\"config\": {\"hidden_size\": 4096, \"num_attention_heads\": 32,"
           " \"rope_theta\": 500000, \"max_position_embeddings\": 131072,"
           " \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8,"
           " \"low_freq_factor\": 1, \"high_freq_factor\": 4,"
           " \"original_max_position_embeddings\": 8192}}}");
    ck_assert_str_eq(json_string_value(rscal(j, "type")), "llama3");
    json_decref(j);
    j = ok("{\"config\": {\"head_dim\": 64, \"rope_scaling\": {\"type\": \"linear\","
           " \"factor\": 2}}, \"scaling\": {\"type\": \"default\"}}");
    ck_assert_str_eq(json_string_value(rscal(j, "type")), "default");
    ck_close(at(j, "inv_freq", 0), 1.0, 0, 0);
    json_decref(j);
    /* PhiMoE's long_mscale without short_mscale: PhimoeRotaryEmbedding.forward (modular_phimoe.py)
     * reads short_mscale at seq_len 10 <= 4096 and HF fails: a 422 naming the missing key
     * (before posenc read either key, the 422 named long_mscale as not read) */
    au_expect_422(api_rope,
                  "{'config': {'head_dim': 8, 'max_position_embeddings': 131072,"
                  " 'original_max_position_embeddings': 4096, 'model_type': 'phimoe',"
                  " 'rope_scaling': {'type': 'longrope', 'long_mscale': 1.24,"
                  " 'short_factor': [1, 1, 1, 1], 'long_factor': [1, 2, 3, 4]}}, 'seq_len': 10}",
                  "/config/rope_scaling/short_mscale", NULL);
    j = ok("{\"config\": {\"head_dim\": 8, \"max_position_embeddings\": 131072,"
           " \"original_max_position_embeddings\": 4096, \"model_type\": \"phimoe\","
           " \"rope_scaling\": {\"type\": \"longrope\","
           " \"short_factor\": [1, 1, 1, 1], \"long_factor\": [1, 2, 3, 4]}}, \"seq_len\": 10}");
    /* factor = 131072 / 4096 = 32 from the config's lengths */
    ck_close(au_number(rscal(j, "factor")), 32.0, 0, 0);
    ck_assert_str_eq(json_string_value(rscal(j, "list_used")), "short_factor");
    json_decref(j);
    /* dynamic in a config: L0 is always max_position_embeddings (HF); a rope_scaling original
     * length is ignored with a warning. L = 4096 > 2048: base' = 10^4 (2*4096/2048 - 1)^(8/6)
     * = 10^4 * 3^(4/3) */
    j = ok("{\"config\": {\"head_dim\": 8, \"max_position_embeddings\": 2048,"
           " \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2,"
           " \"original_max_position_embeddings\": 1024}}, \"seq_len\": 4096}");
    ck_close(au_number(rscal(j, "original_max_position_embeddings")), 2048.0, 0, 0);
    ck_close(au_number(rscal(j, "effective_base")), 10000.0 * pow(3.0, 8.0 / 6.0), 0, 1e-14);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "warnings")), 1);
    ck_assert_str_eq(json_string_value(
                         json_object_get(json_object_get(json_object_get(j, "resolved"), "sources"),
                                         "scaling.original_max_position_embeddings")),
                     "config.max_position_embeddings");
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(json_object_get(j, "resolved"), "sources"), "scaling")),
                     "config.rope_scaling");
    json_decref(j);
    /* a transformers v5 config: rope_theta and partial_rotary_factor inside rope_parameters;
     * rotary dim = 64 * 0.5 = 32, base 50000, yarn s = 8 with L0 2048 */
    j = ok("{\"config\": {\"head_dim\": 64, \"max_position_embeddings\": 16384,"
           " \"rope_parameters\": {\"rope_type\": \"yarn\", \"rope_theta\": 50000,"
           " \"factor\": 8, \"original_max_position_embeddings\": 2048,"
           " \"partial_rotary_factor\": 0.5}}}");
    r = json_object_get(j, "resolved");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "rotary_dim")), 32);
    ck_close(au_number(json_object_get(r, "base")), 50000.0, 0, 0);
    ck_assert_str_eq(json_string_value(rscal(j, "type")), "yarn");
    ck_close(au_number(json_object_get(j, "attention_factor")), 0.1 * log(8.0) + 1.0, 0, 1e-15);
    ck_assert_ptr_null(json_object_get(j, "warnings"));
    json_decref(j);
    /* inv_freq with a config: the config's base/scaling are not used, and a warning says so */
    j = ok("{\"config\": {\"head_dim\": 2, \"rope_theta\": 500000}, \"inv_freq\": [0.5]}");
    ck_close(at(j, "inv_freq", 0), 0.5, 0, 0);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "warnings")), 1);
    json_decref(j);
}
END_TEST

START_TEST(test_multi_axis_handover)
{
    /* `axes`, or a pasted config with rope_scaling.mrope_section (Qwen2-VL), is multi-axis RoPE:
     * api_rope hands the request to api/rope_axes.c, whose responses carry axis_freqs
     * (docs/api.md#rope-axes). Axial, 2 axes over head_dim 8: sections [2, 2]. */
    json_t *j = ok("{\"head_dim\": 8, \"axes\": {\"type\": \"axial\"}}");
    ck_assert_uint_eq(json_array_size(json_object_get(j, "axis_freqs")), 2);
    json_decref(j);
    j = ok("{\"config\": {\"head_dim\": 128, \"rope_scaling\": {\"type\": \"mrope\","
           " \"mrope_section\": [16, 24, 24]}}}");
    ck_assert_uint_eq(json_array_size(json_object_get(j, "axis_freqs")), 3);
    json_decref(j);
    /* a 1-D request's scaling never means multi-axis */
    bad("{\"head_dim\": 8, \"scaling\": {\"type\": \"mrope\", \"mrope_section\": [1, 1, 2]}}",
        "/scaling/mrope_section", NULL);
}
END_TEST

Suite *api_rope_suite(void)
{
    Suite *s = suite_create("api_rope");
    TCase *tc = tcase_create("rope");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_422_pointers, 0, (int)(sizeof BAD / sizeof BAD[0]));
    tcase_add_test(tc, test_output_limit);
    tcase_add_test(tc, test_aliases);
    tcase_add_test(tc, test_integral_reals);
    tcase_add_test(tc, test_worked_example);
    tcase_add_test(tc, test_oracle_cases);
    tcase_add_test(tc, test_dynamic_short_is_plain);
    tcase_add_test(tc, test_dynamic_cache_keying);
    tcase_add_test(tc, test_longrope_switch);
    tcase_add_test(tc, test_yarn_attention_factors);
    tcase_add_test(tc, test_ntk_and_linear);
    tcase_add_test(tc, test_bands_llama31);
    tcase_add_test(tc, test_decay);
    tcase_add_test(tc, test_float32_error);
    tcase_add_test(tc, test_cos_sin_rows);
    tcase_add_test(tc, test_vectors_and_partial);
    tcase_add_test(tc, test_resolved_defaults);
    tcase_add_test(tc, test_config_overrides);
    tcase_add_test(tc, test_multi_axis_handover);
    suite_add_tcase(s, tc);
    return s;
}

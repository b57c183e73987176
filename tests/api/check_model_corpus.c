/*
 * tests/check_model_corpus.c -- POST /model/method over the config corpus
 * (the .json files of tests/vectors/configs, provenance in PROVENANCE.md there) against the
 * independent float64 reference (tests/vectors/configs/reference/hf_positions.py, written from
 * Hugging Face's source without posenc; its output is tests/vectors/configs/expected/<name>.json).
 *
 * Per config: the number of layers; the method of every layer; the same grouping of layers into
 * kinds; for each RoPE kind, its request sent to POST /rope gives the reference inv_freq (abs 1e-15
 * or rel 1e-12), attention_factor and softmax_scale_factor (rel 1e-12), layout, rotary_dim and
 * scaling type; learned kinds their offset; T5 kinds their buckets, distance and direction.
 * Per RoPE kind, the reference's probe (fixed q, k at positions up to max_position_embeddings - 1)
 * sent with the pasted file and the kind's first layer gives HF's rotated q, k and scores within
 * 1e-11 abs or rel; Llama 4's no-RoPE kind its temperature-scaled scores through /attention.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

#define DIR "tests/vectors/configs/"

/* Every corpus file (sorted; adding a file needs its expected/ output and a line here). */
static const char *const CORPUS[] = {
    "bart_large_cnn",
    "bert_base_uncased",
    "bloom_3b",
    "codegemma_7b_it",
    "deepseek_v3",
    "deepseek_v32",
    "distilbert_base_uncased",
    "electra_small_discriminator",
    "ernie4_5_0p3b",
    "exaone4_1.2b",
    "falcon_7b_instruct",
    "falcon_mamba_7b",
    "gemma2_9b_it",
    "gemma3_12b_it",
    "gemma4_26b_a4b",
    "glm4_9b_0414",
    "gpt2",
    "gpt_neox_20b",
    "gpt_oss_20b",
    "gptj_6b",
    "hunyuan_mt_7b",
    "jamba_1.5_mini",
    "lfm2_1.2b",
    "lightonocr_1b_1025",
    "llama3.1_8b",
    "llama4_scout_17b_16e",
    "llava_1.5_7b",
    "mamba_codestral_7b",
    "ministral3_8b",
    "mistral_7b_v0.1",
    "mistral_small_3.1_24b",
    "mixtral_8x7b_v0.1",
    "modernbert_base",
    "mpt_7b_instruct",
    "nllb_200_distilled_600m",
    "nemotron_h_8b",
    "nemotron_nas_super_49b",
    "nemotron_nas_ultra_253b",
    "olmo3_1_32b",
    "opt_1.3b",
    "phi3_mini_128k_instruct",
    "phi_2",
    "qwen2.5_7b",
    "qwen2.5_vl_7b_instruct",
    "qwen3.5_4b",
    "qwen3.6_35b_a3b",
    "qwen3_30b_a3b",
    "qwen3_8b",
    "qwen3_vl_8b_instruct",
    "roberta_base",
    "smollm3_3b",
    "t5_small",
    "tinyllama_1.1b_chat",
    "zamba2_7b",
};
#define N_CORPUS (sizeof CORPUS / sizeof CORPUS[0])

static json_t *load(const char *dir, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, DIR "%s%s.json", dir, name);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    ck_assert_msg(j != NULL, "%s: %s", path, e.text);
    return j;
}

/* Sends v (as {"config": v} when wrap) to h; asserts 200; returns the parsed body. */
static json_t *post(api_handler h, const json_t *v, int wrap, const char *what)
{
    json_t *body = wrap ? json_pack("{s:O}", "config", (json_t *)v) : json_incref((json_t *)v);
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    int st = 0;
    char *resp = au_send(h, text, &st);
    ck_assert_msg(st == 200, "%s: status %d: %.600s", what, st, resp);
    json_t *j = au_parse(resp);
    free(resp);
    free(text);
    return j;
}

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* A /rope answer r against the reference's kind want: layout, rotary_dim, inv_freq (abs 1e-15 or
 * rel 1e-12), attention_factor and softmax_scale_factor (rel 1e-12). */
static void check_rope_answer(const char *name, const json_t *r, const json_t *want)
{
    const json_t *res = json_object_get(r, "resolved");
    ck_assert_msg(strcmp(str(res, "layout"), str(want, "layout")) == 0, "%s: layout %s, want %s",
                  name, str(res, "layout"), str(want, "layout"));
    ck_assert_int_eq(json_integer_value(json_object_get(res, "rotary_dim")),
                     json_integer_value(json_object_get(want, "rotary_dim")));
    const json_t *a = json_object_get(r, "inv_freq"), *b = json_object_get(want, "inv_freq");
    ck_assert_uint_eq(json_array_size(a), json_array_size(b));
    for (size_t i = 0; i < json_array_size(a); i++) {
        double x = au_number(json_array_get(a, i)), y = au_number(json_array_get(b, i));
        ck_assert_msg(au_close(x, y, 1e-15, 1e-12), "%s: inv_freq[%zu] = %.17g, want %.17g", name,
                      i, x, y);
    }
    static const char *const F[] = {"attention_factor", "softmax_scale_factor"};
    for (size_t i = 0; i < 2; i++) {
        double x = au_number(json_object_get(r, F[i])), y = au_number(json_object_get(want, F[i]));
        ck_assert_msg(au_close(x, y, 0, 1e-12), "%s: %s = %.17g, want %.17g", name, F[i], x, y);
    }
}

/* A longrope kind's numbers depend on seq_len (POST /rope asks for it): the reference's kind
 * holds them at seq_len = original_max_position_embeddings (short_factor), so a request for such
 * a kind carries that seq_len. Adds it to req (a new object) when want is such a kind. */
static json_t *with_seq_len(json_t *req, const json_t *want)
{
    if (strcmp(str(want, "type"), "longrope") == 0)
        json_object_set(req, "seq_len", json_object_get(want, "original_max_position_embeddings"));
    return req;
}

/* The reference's scaling type names posenc's variant: the same words. */
static void check_rope_kind(const char *name, const json_t *got, const json_t *want)
{
    ck_assert_msg(strcmp(str(got, "variant"), str(want, "type")) == 0, "%s: variant %s, want %s",
                  name, str(got, "variant"), str(want, "type"));
    json_t *req = with_seq_len(json_deep_copy(json_object_get(got, "request")), want);
    json_t *r = post(api_rope, req, 0, name);
    json_decref(req);
    check_rope_answer(name, r, want);
    json_decref(r);
}

/* A sinusoidal kind (api/model_sinusoidal.h): the convention, the first token's row and the
 * table itself. Its request to POST /sinusoidal, cut to the probe's last token, gives the
 * reference's rows of HF's table (get_embedding / _init_weight / sinusoids() in float64) for
 * tokens 0, 1, 2, ... at a few columns, abs 1e-12 (the angle of Marian's pos / 10000^(2k/d)
 * and posenc's pos x 10000^(-2k/d) differ in the last bits). */
static void check_sinusoidal_kind(const char *name, const json_t *got, const json_t *want)
{
    const json_t *p = json_object_get(got, "parameters"), *pr = json_object_get(want, "probe");
    ck_assert_msg(strcmp(str(p, "convention"), str(want, "convention")) == 0,
                  "%s: convention %s, want %s", name, str(p, "convention"),
                  str(want, "convention"));
    ck_assert_msg(json_integer_value(json_object_get(p, "offset")) ==
                      json_integer_value(json_object_get(want, "offset")),
                  "%s: sinusoidal offset", name);
    const json_t *tokens = json_object_get(pr, "tokens"), *cols = json_object_get(pr, "columns");
    size_t nt = json_array_size(tokens);
    ck_assert_msg(nt > 0, "%s: no probe", name);
    json_t *req = json_deep_copy(json_object_get(got, "request"));
    json_object_set_new(
        req, "seq_len",
        json_integer(json_integer_value(json_array_get(tokens, nt - 1)) + 1)); /* rows 0 .. t */
    json_t *r = post(api_sinusoidal, req, 0, name);
    for (size_t i = 0; i < nt; i++) {
        int t = (int)json_integer_value(json_array_get(tokens, i));
        for (size_t c = 0; c < json_array_size(cols); c++) {
            int col = (int)json_integer_value(json_array_get(cols, c));
            double x = au_num(r, "matrix", t, col, -1);
            double y =
                au_number(json_array_get(json_array_get(json_object_get(pr, "values"), i), c));
            ck_assert_msg(au_close(x, y, 1e-12, 0), "%s: token %d column %d = %.17g, want %.17g",
                          name, t, col, x, y);
        }
    }
    json_decref(r);
    json_decref(req);
}

static void check_other_kind(const char *name, const json_t *got, const json_t *want)
{
    const json_t *p = json_object_get(got, "parameters");
    /* a no-RoPE kind's query scale (Llama 4): present exactly when the reference has one */
    const json_t *gq = json_object_get(got, "query_scale"),
                 *wq = json_object_get(want, "query_scale");
    ck_assert_msg((gq == NULL) == (wq == NULL), "%s: query_scale %s", name,
                  gq ? "not in the reference" : "missing");
    static const char *const Q[] = {"attn_scale", "floor_scale"};
    for (size_t i = 0; wq != NULL && i < 2; i++)
        ck_assert_msg(au_number(json_object_get(gq, Q[i])) == au_number(json_object_get(wq, Q[i])),
                      "%s: query_scale.%s", name, Q[i]);
    if (strcmp(str(want, "method"), "learned_absolute") == 0) {
        ck_assert_msg(json_integer_value(json_object_get(p, "offset")) ==
                          json_integer_value(json_object_get(want, "offset")),
                      "%s: learned offset", name);
    } else if (strcmp(str(want, "method"), "alibi") == 0) {
        /* the kind's request to POST /alibi (one position) gives the reference's slopes: HF's
         * build_alibi_tensor (BLOOM, Falcon) or build_mpt_alibi_tensor (MPT), rel 1e-12 */
        json_t *req = json_deep_copy(json_object_get(got, "request"));
        json_object_set_new(req, "seq_len", json_integer(1));
        json_t *r = post(api_alibi, req, 0, name);
        const json_t *a = json_object_get(r, "slopes"), *b = json_object_get(want, "slopes");
        ck_assert_msg(json_array_size(b) > 0 && json_array_size(a) == json_array_size(b),
                      "%s: %zu slopes, want %zu", name, json_array_size(a), json_array_size(b));
        for (size_t i = 0; i < json_array_size(b); i++) {
            double x = au_number(json_array_get(a, i)), y = au_number(json_array_get(b, i));
            ck_assert_msg(au_close(x, y, 0, 1e-12), "%s: slopes[%zu] = %.17g, want %.17g", name, i,
                          x, y);
        }
        json_decref(r);
        json_decref(req);
    } else if (strcmp(str(want, "method"), "sinusoidal") == 0) {
        check_sinusoidal_kind(name, got, want);
    } else if (strcmp(str(want, "method"), "t5_relative") == 0) {
        static const char *const K[] = {"num_buckets", "max_distance"};
        for (size_t i = 0; i < 2; i++)
            ck_assert_msg(json_integer_value(json_object_get(p, K[i])) ==
                              json_integer_value(json_object_get(want, K[i])),
                          "%s: %s", name, K[i]);
        ck_assert_msg(json_is_true(json_object_get(p, "bidirectional")) ==
                          json_is_true(json_object_get(want, "bidirectional")),
                      "%s: bidirectional", name);
    }
}

/* Hybrid and attention-free models (api/model_hybrid.h): a "none" kind's mixer (attention
 * without positions, mamba, mlp, ...) and the kind's attention scale, where the reference has
 * them (rel 1e-12); an attention-free model has no scale. */
static void check_hybrid_kind(const char *name, const json_t *got, const json_t *want)
{
    if (json_object_get(want, "mixer") != NULL)
        ck_assert_msg(strcmp(str(got, "mixer"), str(want, "mixer")) == 0, "%s: mixer %s, want %s",
                      name, str(got, "mixer"), str(want, "mixer"));
    const json_t *ws = json_object_get(want, "scale");
    const json_t *gs = json_object_get(json_object_get(got, "parameters"), "scale");
    if (ws != NULL && !json_is_null(ws)) {
        ck_assert_msg(gs != NULL, "%s: no parameters.scale", name);
        ck_assert_msg(au_close(au_number(gs), au_number(ws), 0, 1e-12),
                      "%s: scale %.17g, want %.17g", name, au_number(gs), au_number(ws));
    } else if (json_object_get(want, "mixer") != NULL && ws == NULL) {
        ck_assert_msg(gs == NULL, "%s: an attention-free model has no scale", name);
    }
}

START_TEST(test_corpus)
{
    const char *name = CORPUS[_i];
    json_t *cfg = load("", name), *want = load("expected/", name);
    json_t *got = post(api_model_method, cfg, 1, name);
    /* every corpus model is in posenc's tables: no "not in posenc's table" warning (Qwen3-VL's
     * text model qwen3_vl_text had one) */
    const json_t *warn = json_object_get(got, "warnings");
    for (size_t i = 0; i < json_array_size(warn); i++)
        ck_assert_msg(strstr(json_string_value(json_array_get(warn, i)), "not in posenc's table") ==
                          NULL,
                      "%s: %s", name, json_string_value(json_array_get(warn, i)));
    size_t n = (size_t)json_integer_value(json_object_get(want, "num_layers"));
    ck_assert_msg((size_t)json_integer_value(json_object_get(got, "num_layers")) == n,
                  "%s: num_layers", name);
    const json_t *gl = json_object_get(got, "layers"), *wl = json_object_get(want, "layers");
    const json_t *gk = json_object_get(got, "kinds"), *wk = json_object_get(want, "kinds");
    ck_assert_uint_eq(json_array_size(gk), json_array_size(wk));
    /* kind g of ours is kind w of the reference: the first layer fixes it, every layer agrees */
    int map[16];
    for (size_t i = 0; i < 16; i++)
        map[i] = -1;
    for (size_t l = 0; l < n; l++) {
        int g = (int)json_integer_value(json_array_get(gl, l));
        int w = (int)json_integer_value(json_array_get(wl, l));
        ck_assert_int_lt(g, 16);
        if (map[g] < 0)
            map[g] = w;
        ck_assert_msg(map[g] == w, "%s: layer %zu groups differently", name, l);
        const char *gm = str(json_array_get(gk, (size_t)g), "method");
        const char *wm = json_string_value(json_array_get(json_object_get(want, "methods"), l));
        ck_assert_msg(strcmp(gm, wm) == 0, "%s: layer %zu is %s, want %s", name, l, gm, wm);
    }
    for (size_t g = 0; g < json_array_size(gk); g++) {
        const json_t *k = json_array_get(gk, g), *w = json_array_get(wk, (size_t)map[g]);
        check_hybrid_kind(name, k, w);
        if (strcmp(str(k, "method"), "rope") == 0)
            check_rope_kind(name, k, w);
        else
            check_other_kind(name, k, w);
    }
    json_decref(got);
    json_decref(cfg);
    json_decref(want);
}
END_TEST

/* The first layer of reference kind w. */
static size_t first_layer(const json_t *wl, size_t w)
{
    size_t first = 0;
    for (size_t l = json_array_size(wl); l-- > 0;)
        if ((size_t)json_integer_value(json_array_get(wl, l)) == w)
            first = l;
    return first;
}

/* Sends text to h, returns the status and (in *body) the parsed answer. */
static int send_json(api_handler h, json_t *req, json_t **body)
{
    char *text = json_dumps(req, JSON_COMPACT);
    int st = 0;
    char *resp = au_send(h, text, &st);
    *body = au_parse(resp);
    free(resp);
    free(text);
    return st;
}

/*
 * POST /rope per layer, with the pasted file itself: {"config": file, "layer": l} for the first
 * layer l of every reference kind gives that kind's numbers (and layer_kind naming the layers of
 * the kind); a no-RoPE layer is a 422 at /layer. Without a layer, a config of several kinds lists
 * them all (layer_kinds, each RoPE one with its result equal to the reference) and q is a 422 at
 * /layer naming the choices; a config of one kind answers without layer_kinds.
 */
START_TEST(test_corpus_layers)
{
    const char *name = CORPUS[_i];
    json_t *cfg = load("", name), *want = load("expected/", name);
    const json_t *wl = json_object_get(want, "layers"), *wk = json_object_get(want, "kinds");
    if (strcmp(str(json_array_get(wk, 0), "method"), "rope") != 0 &&
        strcmp(str(json_array_get(wk, 0), "method"), "none") != 0)
        goto done; /* not a RoPE model */
    size_t n = json_array_size(wl), n_kinds = json_array_size(wk);
    int any_rope = 0;
    for (size_t w = 0; w < n_kinds; w++)
        any_rope |= strcmp(str(json_array_get(wk, w), "method"), "rope") == 0;
    if (!any_rope) { /* Jamba, Mamba, ...: /rope has nothing to rotate (at /config/model_type);
                      * with a layer, that layer is named (at /layer) */
        for (int with_layer = 0; with_layer < 2; with_layer++) {
            json_t *req = with_layer ? json_pack("{s:O, s:i}", "config", cfg, "layer", 0)
                                     : json_pack("{s:O}", "config", cfg),
                   *r;
            ck_assert_int_eq(send_json(api_rope, req, &r), 422);
            ck_assert_str_eq(str(json_array_get(json_object_get(r, "errors"), 0), "pointer"),
                             with_layer ? "/layer" : "/config/model_type");
            json_decref(r);
            json_decref(req);
        }
        goto done;
    }
    for (size_t w = 0; w < n_kinds; w++) {
        size_t first = 0, count = 0;
        for (size_t l = n; l-- > 0;)
            if ((size_t)json_integer_value(json_array_get(wl, l)) == w) {
                first = l;
                count++;
            }
        const json_t *wkind = json_array_get(wk, w);
        json_t *req =
            with_seq_len(json_pack("{s:O, s:I}", "config", cfg, "layer", (json_int_t)first), wkind);
        json_t *r;
        int st = send_json(api_rope, req, &r);
        char what[128];
        snprintf(what, sizeof what, "%s layer %zu", name, first);
        if (strcmp(str(wkind, "method"), "rope") == 0) {
            ck_assert_msg(st == 200, "%s: status %d", what, st);
            check_rope_answer(what, r, wkind);
            const json_t *lk = json_object_get(r, "layer_kind");
            ck_assert_msg(json_array_size(json_object_get(lk, "layers")) == count,
                          "%s: layer_kind covers %zu layers, want %zu", what,
                          json_array_size(json_object_get(lk, "layers")), count);
        } else {
            ck_assert_msg(st == 422, "%s (no RoPE): status %d", what, st);
            ck_assert_str_eq(str(json_array_get(json_object_get(r, "errors"), 0), "pointer"),
                             "/layer");
        }
        json_decref(r);
        json_decref(req);
    }
    json_t *req = with_seq_len(json_pack("{s:O}", "config", cfg), json_array_get(wk, 0)), *r;
    ck_assert_int_eq(send_json(api_rope, req, &r), 200);
    const json_t *lks = json_object_get(r, "layer_kinds");
    ck_assert_msg(n_kinds == 1 ? lks == NULL : json_array_size(lks) == n_kinds,
                  "%s: layer_kinds %zu, want %s", name, json_array_size(lks),
                  n_kinds == 1 ? "none" : "one per kind");
    for (size_t g = 0; g < json_array_size(lks); g++) {
        const json_t *k = json_array_get(lks, g);
        size_t l0 = (size_t)json_integer_value(json_array_get(json_object_get(k, "layers"), 0));
        const json_t *wkind =
            json_array_get(wk, (size_t)json_integer_value(json_array_get(wl, l0)));
        ck_assert_str_eq(str(k, "method"), str(wkind, "method"));
        if (strcmp(str(k, "method"), "rope") == 0)
            check_rope_answer(name, json_object_get(k, "result"), wkind);
    }
    json_decref(r);
    json_object_set_new(req, "q", json_pack("[f, f]", 1.0, 0.0));
    int st = send_json(api_rope, req, &r);
    if (n_kinds > 1) {
        ck_assert_msg(st == 422, "%s: q without a layer: status %d", name, st);
        ck_assert_str_eq(str(json_array_get(json_object_get(r, "errors"), 0), "pointer"), "/layer");
    }
    json_decref(r);
    json_decref(req);
done:
    json_decref(cfg);
    json_decref(want);
}
END_TEST

/* |got - want| <= 1e-11, or <= 1e-11 |want| (the score tolerance). */
static int score_close(double got, double want)
{
    return au_close(got, want, 1e-11, 0) || au_close(got, want, 0, 1e-11);
}

/* got [P][n] against want [P][n]; with order, want[a][i] is got[a][order[i]] (HF's DeepSeek
 * function returns the rotated dims reordered, posenc in the input's order). */
static void check_rows(const char *what, const char *field, const json_t *got, const json_t *want,
                       const json_t *order)
{
    ck_assert_msg(json_array_size(got) == json_array_size(want), "%s: %s has %zu rows, want %zu",
                  what, field, json_array_size(got), json_array_size(want));
    for (size_t a = 0; a < json_array_size(want); a++) {
        const json_t *g = json_array_get(got, a), *w = json_array_get(want, a);
        ck_assert_msg(json_array_size(g) == json_array_size(w), "%s: %s[%zu] length", what, field,
                      a);
        for (size_t i = 0; i < json_array_size(w); i++) {
            size_t j = order ? (size_t)json_integer_value(json_array_get(order, i)) : i;
            double x = au_number(json_array_get(g, j)), y = au_number(json_array_get(w, i));
            ck_assert_msg(score_close(x, y), "%s: %s[%zu][%zu] = %.17g, want %.17g", what, field, a,
                          j, x, y);
        }
    }
}

/* One RoPE probe: POST /rope {config, layer, q, k, positions} against the reference. */
static void check_rope_probe(const char *what, const json_t *cfg, json_int_t layer,
                             const json_t *pr)
{
    json_t *r, *req = json_pack("{s:O, s:I, s:O, s:O, s:O}", "config", cfg, "layer", layer, "q",
                                json_object_get(pr, "q"), "k", json_object_get(pr, "k"),
                                "positions", json_object_get(pr, "positions"));
    int st = send_json(api_rope, req, &r);
    ck_assert_msg(st == 200, "%s: status %d", what, st);
    const json_t *order = json_object_get(pr, "order");
    check_rows(what, "q_rotated", json_object_get(r, "q_rotated"), json_object_get(pr, "q_rotated"),
               order);
    check_rows(what, "k_rotated", json_object_get(r, "k_rotated"), json_object_get(pr, "k_rotated"),
               order);
    check_rows(what, "scores", json_object_get(r, "scores"), json_object_get(pr, "scores"), NULL);
    json_decref(r);
    json_decref(req);
}

/* One no-RoPE probe (Llama 4's temperature): per block, POST /attention with method rope, the
 * config, layer and the block's offset, scale 1; scores = s(p) q . k. */
static void check_none_probe(const char *what, const json_t *cfg, json_int_t layer,
                             const json_t *pr)
{
    const json_t *blocks = json_object_get(pr, "blocks");
    ck_assert_uint_gt(json_array_size(blocks), 0);
    for (size_t b = 0; b < json_array_size(blocks); b++) {
        const json_t *blk = json_array_get(blocks, b), *ws = json_object_get(blk, "scores");
        json_t *q = json_array(), *k = json_array(), *r;
        for (size_t t = 0; t < json_array_size(ws); t++) {
            json_array_append(q, json_object_get(pr, "q"));
            json_array_append(k, json_object_get(pr, "k"));
        }
        json_t *req = json_pack("{s:o, s:o, s:i, s:s, s:{s:O, s:I, s:O}}", "q", q, "k", k, "scale",
                                1, "method", "rope", "rope", "config", cfg, "layer", layer,
                                "offset", json_object_get(blk, "offset"));
        int st = send_json(api_attention, req, &r);
        ck_assert_msg(st == 200, "%s: /attention status %d", what, st);
        check_rows(what, "scores", json_object_get(r, "scores"), ws, NULL);
        json_decref(r);
        json_decref(req);
    }
}

/*
 * Scores: for every kind with probes in the reference (Phi-3's longrope: one within the original
 * length, one beyond), POST /rope {config: the file, layer: the kind's first layer, q, k,
 * positions} gives q_rotated, k_rotated (Ministral 3's query scale
 * included) and scores equal to HF's apply_rotary_pos_emb as the reference computes it (1e-11 abs
 * or rel); a no-RoPE kind with a query scale (Llama 4) goes through POST /attention (method rope,
 * the same config and layer, offset per block, scale 1): scores = s(p) q . k.
 */
START_TEST(test_corpus_scores)
{
    const char *name = CORPUS[_i];
    json_t *cfg = load("", name), *want = load("expected/", name);
    const json_t *wl = json_object_get(want, "layers"), *wk = json_object_get(want, "kinds");
    for (size_t w = 0; w < json_array_size(wk); w++) {
        const json_t *kind = json_array_get(wk, w), *probes = json_object_get(kind, "probes");
        json_int_t first = (json_int_t)first_layer(wl, w);
        char what[128];
        snprintf(what, sizeof what, "%s layer %lld", name, (long long)first);
        for (size_t i = 0; i < json_array_size(probes); i++) {
            const json_t *pr = json_array_get(probes, i);
            if (strcmp(str(kind, "method"), "rope") == 0)
                check_rope_probe(what, cfg, first, pr);
            else
                check_none_probe(what, cfg, first, pr);
        }
    }
    json_decref(cfg);
    json_decref(want);
}
END_TEST

/* The test's own idea of a key that concerns positions (the list), kept apart from the
 * product's api_rope_position_key so that a key the product forgets still counts here. */
static int position_key(const char *k)
{
    static const char *const PRE[] = {"rope",
                                      "rotary",
                                      "mrope",
                                      "partial_rotary",
                                      "alibi",
                                      "sliding_window",
                                      "no_rope",
                                      "max_position",
                                      "original_max_position",
                                      "position_embedding",
                                      NULL};
    static const char *const EXACT[] = {"layer_types",
                                        "attn_temperature_tuning",
                                        "llama_4_scaling_beta",
                                        "use_sliding_window",
                                        "max_window_layers",
                                        "floor_scale",
                                        "attn_scale",
                                        "n_positions",
                                        NULL};
    for (const char *const *p = PRE; *p; p++)
        if (strncmp(k, *p, strlen(*p)) == 0)
            return 1;
    for (const char *const *p = EXACT; *p; p++)
        if (strcmp(k, *p) == 0)
            return 1;
    return 0;
}

/* 1 when the dotted path is a value of resolved.sources (as a word) or a key of
 * resolved.ignored in the /rope answer r. */
static int accounted(const json_t *r, const char *path)
{
    const json_t *res = json_object_get(r, "resolved");
    if (json_object_get(json_object_get(res, "ignored"), path) != NULL)
        return 1;
    const char *k;
    const json_t *v;
    size_t len = strlen(path);
    json_object_foreach(json_object_get(res, "sources"), k, v)
    {
        for (const char *s = json_string_value(v); s && (s = strstr(s, path)) != NULL; s++)
            if (s[len] == '\0' || s[len] == '.' || s[len] == ' ' || s[len] == ')')
                return 1;
    }
    return 0;
}

/* Every position key of obj (at dotted path base) accounted for in r; the scaling objects'
 * keys too. Returns the number checked. */
static size_t check_keys(const char *what, const json_t *r, const json_t *obj, const char *base)
{
    size_t n = 0;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (json_is_null(v))
            continue;
        char path[256];
        snprintf(path, sizeof path, "%s.%s", base, k);
        if (strcmp(k, "text_config") == 0) {
            n += check_keys(what, r, v, path);
            continue;
        }
        if (!position_key(k))
            continue;
        n++;
        ck_assert_msg(accounted(r, path),
                      "%s: %s is neither in resolved.sources nor in "
                      "resolved.ignored",
                      what, path);
        if ((strcmp(k, "rope_scaling") == 0 || strcmp(k, "rope_parameters") == 0) &&
            json_is_object(v) && json_object_get(json_object_get(r, "resolved"), "ignored") &&
            json_object_get(json_object_get(json_object_get(r, "resolved"), "ignored"), path))
            continue; /* the whole object is ignored */
        const char *sk;
        const json_t *sv;
        json_object_foreach((json_t *)v, sk, sv)
        {
            if (!json_is_object(v) || json_is_null(sv))
                continue;
            char sp[320];
            snprintf(sp, sizeof sp, "%s.%s", path, sk);
            n++;
            ck_assert_msg(accounted(r, sp),
                          "%s: %s is neither in resolved.sources nor in "
                          "resolved.ignored",
                          what, sp);
        }
    }
    return n;
}

/*
 * No silent drops: POST /rope with every RoPE file of the corpus, for each kind of layer (its
 * first layer), answers 200 and names every position key of the file (the list, the
 * scaling object's members included) in resolved.sources or resolved.ignored.
 */
START_TEST(test_corpus_keys)
{
    const char *name = CORPUS[_i];
    json_t *cfg = load("", name), *want = load("expected/", name);
    const json_t *wl = json_object_get(want, "layers"), *wk = json_object_get(want, "kinds");
    for (size_t w = 0; w < json_array_size(wk); w++) {
        if (strcmp(str(json_array_get(wk, w), "method"), "rope") != 0)
            continue;
        size_t first = first_layer(wl, w);
        json_t *req =
            with_seq_len(json_pack("{s:O, s:I}", "config", cfg, "layer", (json_int_t)first),
                         json_array_get(wk, w));
        json_t *r;
        int st = send_json(api_rope, req, &r);
        char *dump = json_dumps(r, JSON_COMPACT);
        ck_assert_msg(st == 200, "%s layer %zu: status %d: %.400s", name, first, st, dump);
        free(dump);
        char what[96];
        snprintf(what, sizeof what, "%s layer %zu", name, first);
        ck_assert_uint_gt(check_keys(what, r, cfg, "config"), 0);
        json_decref(r);
        json_decref(req);
    }
    json_decref(cfg);
    json_decref(want);
}
END_TEST

/* A bare config (no {"config": ...}) answers the same; an unknown model type without rotary keys
 * is a 422 at /model_type; no layer count is a 422 at /num_hidden_layers. */
START_TEST(test_bare_and_errors)
{
    json_t *cfg = load("", "tinyllama_1.1b_chat"); /* carries "dtype": "float32" */
    json_t *a = post(api_model_method, cfg, 0, "bare"),
           *b = post(api_model_method, cfg, 1, "wrapped");
    ck_assert(json_equal(json_object_get(a, "layers"), json_object_get(b, "layers")));
    json_decref(a);
    json_decref(b);
    json_decref(cfg);
    au_expect_422(api_model_method, "{'num_hidden_layers': 2, 'hidden_size': 8}", "/model_type",
                  NULL);
    au_expect_422(api_model_method, "{'model_type': 'llama', 'rope_theta': 10000}",
                  "/num_hidden_layers", NULL);
    au_expect_422(api_model_method,
                  "{'config': {'model_type': 'bert', 'num_hidden_layers': 2,"
                  " 'position_embedding_type': 'relative_key'}}",
                  "/config/position_embedding_type", NULL);
}
END_TEST

Suite *model_corpus_suite(void)
{
    Suite *s = suite_create("model_corpus");
    TCase *tc = tcase_create("corpus");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_loop_test(tc, test_corpus, 0, (int)N_CORPUS);
    tcase_add_loop_test(tc, test_corpus_layers, 0, (int)N_CORPUS);
    tcase_add_loop_test(tc, test_corpus_keys, 0, (int)N_CORPUS);
    tcase_add_loop_test(tc, test_corpus_scores, 0, (int)N_CORPUS);
    tcase_add_test(tc, test_bare_and_errors);
    suite_add_tcase(s, tc);
    return s;
}

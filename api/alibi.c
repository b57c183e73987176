/*
 * api/alibi.c -- POST /alibi (docs/api.md#alibi): ALiBi slopes, per-head biases and, optionally,
 * attention.
 *
 * Request: num_heads; positions: seq_len (queries = keys = 0 .. seq_len-1) or query_positions +
 * key_positions (aliases q_positions / k_positions); mode causal (default) | symmetric; slopes:
 * slopes_rule press (default) | mpt [+ alibi_bias_max] or explicit slopes; optional scores
 * ([Tq][Tk] shared by all heads, or [H][Tq][Tk]; used as given) or q [Tq][d], k [Tk][d], optional
 * v [Tk][dv] (shared by all heads; logits q.k^T/sqrt(d)); include_bias (default true).
 * Without positions Tq = Tk = T means 0 .. T-1, and Tq < Tk puts the queries at the end of the
 * keys (query i at Tk - Tq + i: the KV-cache convention).
 * Response: slopes [H], bias [H][Tq][Tk] (null where masked) when include_bias, weights
 * [H][Tq][Tk] (masked weight exactly 0) with scores or q/k, output [H][Tq][dv] with v, resolved.
 * Source: Press, Smith, Lewis, arXiv:2108.12409 (see attention_alibi.c and core/alibi.h);
 * attention as flash-attention `attention_ref` (core/attention.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/attention_method.h"
#include "core/attention.h"

static const char *const FIELDS[] = {
    "num_heads", "seq_len",     "query_positions", "q_positions", "key_positions", "k_positions",
    "mode",      "slopes_rule", "alibi_bias_max",  "slopes",      "scores",        "q",
    "k",         "v",           "include_bias",    NULL};

static int has_member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return v != NULL && !json_is_null(v);
}

/* Parsed `scores`: one shared [rows][cols] matrix (heads 0) or heads matrices of that shape. */
typedef struct {
    double *x;
    size_t heads; /* 0: 2-D, shared by every head */
    size_t rows, cols;
} scores_in;

/* Reads scores as [rows][cols] or [heads][rows][cols] (every matrix the same shape). The whole
 * array may hold at most max_output_elements numbers (the weights have the same size). */
static int get_scores(api_problem *pb, const json_t *v, const api_limits *lim, scores_in *s)
{
    memset(s, 0, sizeof *s);
    const json_t *first = json_is_array(v) ? json_array_get(v, 0) : NULL;
    int three_d = json_is_array(first) && json_is_array(json_array_get(first, 0));
    if (!three_d)
        return api_number_matrix(pb, v, "/scores", 0, 0, lim->max_output_elements, 0, &s->x,
                                 &s->rows, &s->cols, NULL);
    size_t heads = json_array_size(v);
    if (heads > lim->max_heads) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/scores",
                          "has %zu head matrices; max_heads is %zu", heads, lim->max_heads);
        return -1;
    }
    double *x = NULL;
    size_t rows = 0, cols = 0, per = 0;
    for (size_t h = 0; h < heads; h++) {
        char ptr[160];
        api_ptr_idx(ptr, sizeof ptr, "/scores", h);
        double *m = NULL;
        size_t r = 0, c = 0;
        size_t budget = lim->max_output_elements - (h * per);
        if (api_number_matrix(pb, json_array_get(v, h), ptr, rows, cols, budget, 0, &m, &r, &c,
                              NULL) < 0) {
            free(x);
            return -1;
        }
        if (h == 0) {
            rows = r;
            cols = c;
            per = r * c;
            if (heads > lim->max_output_elements / per) {
                api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/scores",
                                  "has %zu x %zu x %zu numbers, over the limit %zu", heads, r, c,
                                  lim->max_output_elements);
                free(m);
                return -1;
            }
            x = api_alloc(pb, heads * per, sizeof *x);
            if (x == NULL) {
                free(m);
                return -1;
            }
        }
        memcpy(x + h * per, m, per * sizeof *x);
        free(m);
    }
    s->x = x;
    s->heads = heads;
    s->rows = rows;
    s->cols = cols;
    return 1;
}

/* Everything a request owns. */
typedef struct {
    api_alibi_cfg cfg;
    int64_t *qp, *kp;
    scores_in sc;
    double *q, *k, *v;
    double *bias, *weights, *logits, *work, *out;
} alibi_bufs;

static void release_all(alibi_bufs *b)
{
    api_alibi_cfg_free(&b->cfg);
    free(b->qp);
    free(b->kp);
    free(b->sc.x);
    free(b->q);
    free(b->k);
    free(b->v);
    free(b->bias);
    free(b->weights);
    free(b->logits);
    free(b->work);
    free(b->out);
}

static int fail(alibi_bufs *b)
{
    release_all(b);
    return -1;
}

/* One of the explicit position lists (either spelling), non-empty; *ptr_out gets its pointer. */
static int get_pos(api_problem *pb, const json_t *req, const char *key, const char *alias,
                   const api_limits *lim, int64_t **out, size_t *n, char *ptr_out, size_t ptr_n)
{
    const char *used = NULL;
    const json_t *v = api_get_alias(pb, req, "", key, alias, &used);
    api_ptr(ptr_out, ptr_n, "", used ? used : key);
    if (v == NULL)
        return -1; /* present (checked by the caller), so NULL means the alias conflict */
    if (api_position_array(pb, v, ptr_out, lim, out, n) < 0)
        return -1;
    if (*n == 0) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr_out,
                          "must not be empty (attention needs at least one %s)",
                          strcmp(key, "query_positions") == 0 ? "query" : "key");
        return -1;
    }
    return 1;
}

int api_alibi(const api_ctx *ctx, const json_t *req, wire_jw *out, api_problem *pb)
{
    const api_limits *lim = ctx->lim;
    alibi_bufs b;
    memset(&b, 0, sizeof b);
    api_check_fields(pb, req, "", FIELDS);
    int cfg_ok = api_alibi_cfg_parse(pb, req, "", lim, &b.cfg) == 0;
    int include_bias = 1;
    api_get_bool(pb, req, "", "include_bias", &include_bias);

    /* positions */
    int64_t seq_len = 0;
    int rc_sl = api_get_int(pb, req, "", "seq_len", 1, (int64_t)lim->max_positions, &seq_len);
    int has_q = has_member(req, "query_positions") || has_member(req, "q_positions");
    int has_k = has_member(req, "key_positions") || has_member(req, "k_positions");
    int has_pos = has_q || has_k;
    size_t nq = 0, nk = 0;
    char qptr[160] = "/query_positions", kptr[160] = "/key_positions";
    if (has_pos) {
        if (!has_k)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/key_positions",
                              "key_positions is required with query_positions");
        if (!has_q)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/query_positions",
                              "query_positions is required with key_positions");
        if (has_q)
            get_pos(pb, req, "query_positions", "q_positions", lim, &b.qp, &nq, qptr, sizeof qptr);
        if (has_k)
            get_pos(pb, req, "key_positions", "k_positions", lim, &b.kp, &nk, kptr, sizeof kptr);
        if (rc_sl != 0)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/seq_len",
                              "give either seq_len or query_positions + key_positions, not both");
    }

    /* attention inputs */
    int has_scores = has_member(req, "scores");
    int has_qk = has_member(req, "q") || has_member(req, "k");
    size_t qt = 0, d = 0, kt = 0, kd = 0, vt = 0, dv = 0;
    int rc_q = 0, rc_k = 0, rc_v = 0;
    if (has_scores && has_qk) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/scores",
                          "give either scores or q and k, not both");
    } else if (has_scores) {
        get_scores(pb, json_object_get(req, "scores"), lim, &b.sc);
        if (has_member(req, "v"))
            api_problem_field(pb, API_PB_INVALID_FIELD, "/v", "v goes with q and k, not scores");
    } else {
        rc_q = api_get_matrix(pb, req, "", "q", 0, 0, lim->max_output_elements, &b.q, &qt, &d);
        if (rc_q > 0 && d > lim->max_dim) {
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/q/0",
                              "row width %zu exceeds max_dim (%zu)", d, lim->max_dim);
            rc_q = -1;
        }
        rc_k = api_get_matrix(pb, req, "", "k", 0, rc_q > 0 ? d : 0, lim->max_output_elements, &b.k,
                              &kt, &kd);
        rc_v = api_get_matrix(pb, req, "", "v", rc_k > 0 ? kt : 0, 0, lim->max_output_elements,
                              &b.v, &vt, &dv);
        if (rc_v > 0 && dv > lim->max_dim)
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, "/v/0",
                              "row width %zu exceeds max_dim (%zu)", dv, lim->max_dim);
        if (rc_q == 0 && rc_k != 0)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/q", "q is required with k");
        if (rc_k == 0 && rc_q != 0)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/k", "k is required with q");
        if (rc_v != 0 && rc_q == 0 && rc_k == 0)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/v", "v needs q and k");
    }
    if (api_problem_failed(pb) || !cfg_ok)
        return fail(&b);
    int has_w = has_scores || b.q != NULL; /* weights are computed */
    size_t H = b.cfg.num_heads;
    int mode = b.cfg.mode < 0 ? PE_ALIBI_CAUSAL : b.cfg.mode;

    /* Tq, Tk: from the positions, seq_len, or the inputs; the inputs must agree. */
    size_t tq = 0, tk = 0;
    const char *src = NULL; /* what fixed the lengths */
    if (has_pos) {
        tq = nq;
        tk = nk;
        src = "query_positions/key_positions";
    } else if (rc_sl > 0) {
        tq = tk = (size_t)seq_len;
        src = "seq_len";
    } else if (has_scores) {
        tq = b.sc.rows;
        tk = b.sc.cols;
    } else if (b.q) {
        tq = qt;
        tk = kt;
    } else {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/seq_len",
                          "seq_len or query_positions + key_positions is required (or scores, or "
                          "q and k, to take the length from)");
        return fail(&b);
    }
    const char *in_ptr = has_scores ? "/scores" : "/q";
    if (has_scores) {
        const char *rp = b.sc.heads ? "/scores/0" : "/scores";
        const char *cp = b.sc.heads ? "/scores/0/0" : "/scores/0";
        if (b.sc.rows != tq)
            api_problem_field(pb, API_PB_INVALID_FIELD, rp,
                              "must have %zu rows (one per query, from %s), got %zu", tq, src,
                              b.sc.rows);
        else if (b.sc.cols != tk)
            api_problem_field(pb, API_PB_INVALID_FIELD, cp,
                              "must have %zu columns (one per key, from %s), got %zu", tk, src,
                              b.sc.cols);
        if (b.sc.heads && b.sc.heads != H)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/scores",
                              "has %zu head matrices; must have num_heads (%zu), or be one "
                              "[Tq][Tk] matrix shared by all heads",
                              b.sc.heads, H);
    }
    if (b.q && src) {
        if (qt != tq)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/q",
                              "must have %zu rows (one per query, from %s), got %zu", tq, src, qt);
        if (kt != tk)
            api_problem_field(pb, API_PB_INVALID_FIELD, "/k",
                              "must have %zu rows (one per key, from %s), got %zu", tk, src, kt);
    }
    if (!src && tq > tk)
        api_problem_field(pb, API_PB_INVALID_FIELD, in_ptr,
                          "has %zu query rows but only %zu keys; queries are aligned to the end "
                          "of the keys, so give query_positions and key_positions for this layout",
                          tq, tk);
    if (tk > lim->max_positions)
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, in_ptr, "has %zu keys; max_positions is %zu",
                          tk, lim->max_positions);
    if (api_problem_failed(pb))
        return fail(&b);

    /* Output size, checked before the big allocations: slopes, bias, weights, output, and the
     * positions echoed in resolved. */
    size_t n = 0, hn = 0, ho = 0, total = H;
    int ok = pe_mul_ok(tq, tk, &n) && pe_mul_ok(H, n, &hn) && pe_mul_ok(H * tq, dv, &ho);
    if (ok) {
        size_t parts[] = {include_bias ? hn : 0, has_w ? hn : 0, b.v ? ho : 0, tq, tk};
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            ok = ok && total + parts[i] >= total;
            total += parts[i];
        }
    }
    const char *size_ptr = has_pos ? kptr : (rc_sl > 0 ? "/seq_len" : in_ptr);
    if (!ok ||
        api_check_output(pb, lim, total, size_ptr, "this request (bias, weights, output)") < 0) {
        if (!api_problem_failed(pb))
            api_problem_field(pb, API_PB_LIMIT_EXCEEDED, size_ptr, "the response size overflows");
        return fail(&b);
    }
    /* compute budget: q·kᵀ once, then per head bias, exp and weights·v */
    size_t work = 0;
    if ((b.q && api_check_work(pb, lim, &work, n, d, 1, size_ptr, "q·kᵀ") < 0) ||
        api_check_work(pb, lim, &work, hn, (b.v ? dv : 0) + API_WORK_TRIG, 1, size_ptr,
                       "this request (bias, softmax, output)") < 0)
        return fail(&b);

    if (!has_pos) {
        b.qp = api_alloc(pb, tq, sizeof *b.qp);
        b.kp = api_alloc(pb, tk, sizeof *b.kp);
        if (b.qp == NULL || b.kp == NULL)
            return fail(&b);
        for (size_t j = 0; j < tk; j++)
            b.kp[j] = (int64_t)j;
        for (size_t i = 0; i < tq; i++)
            b.qp[i] = (int64_t)(tk - tq + i);
    }
    /* A causal query that sees no key has an undefined softmax (and an all-null bias row). */
    if (mode == PE_ALIBI_CAUSAL) {
        int64_t kmin = b.kp[0];
        for (size_t j = 1; j < tk; j++)
            kmin = b.kp[j] < kmin ? b.kp[j] : kmin;
        for (size_t i = 0; i < tq; i++) {
            if (b.qp[i] < kmin) {
                api_problem_idx(pb, API_PB_INVALID_FIELD, qptr, i,
                                "query position %lld sees no key under the causal mask (the "
                                "smallest key position is %lld); its softmax is undefined",
                                (long long)b.qp[i], (long long)kmin);
                return fail(&b);
            }
        }
    }

    /* compute */
    int need_bias = include_bias || has_w;
    if (need_bias) {
        b.bias = api_alloc(pb, include_bias ? hn : n, sizeof *b.bias);
        if (b.bias == NULL)
            return fail(&b);
    }
    double scale = b.q ? 1.0 / sqrt((double)d) : 1.0;
    if (has_w) {
        b.weights = api_alloc(pb, hn, sizeof *b.weights);
        b.work = api_alloc(pb, n, sizeof *b.work);
        if (b.q)
            b.logits = api_alloc(pb, n, sizeof *b.logits);
        if (b.v)
            b.out = api_alloc(pb, ho, sizeof *b.out);
        if (api_problem_failed(pb))
            return fail(&b);
        if (b.q && pe_attention_logits(b.q, b.k, tq, tk, d, scale, b.logits) != PE_OK) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/q",
                              "q.k^T/sqrt(d) is not finite (overflow); use smaller q or k");
            return fail(&b);
        }
    }
    for (size_t h = 0; need_bias && h < H; h++) {
        double *bh = include_bias ? b.bias + h * n : b.bias;
        pe_status st = pe_alibi_bias(b.cfg.slopes[h], (pe_alibi_mode)mode, b.qp, tq, b.kp, tk, bh);
        if (st != PE_OK) {
            char ip[160];
            api_ptr_idx(ip, sizeof ip, "/slopes", h);
            api_problem_field(
                pb, API_PB_INVALID_FIELD, b.cfg.rule == API_ALIBI_RULE_EXPLICIT ? ip : "/num_heads",
                "slope x distance is not finite (%s); use a smaller slope", pe_status_str(st));
            return fail(&b);
        }
        if (!has_w)
            continue;
        const double *src_logits = b.q ? b.logits : (b.sc.heads ? b.sc.x + h * n : b.sc.x);
        memcpy(b.work, src_logits, n * sizeof *b.work);
        if (pe_attention_add_bias(b.work, bh, n) != PE_OK) {
            api_problem_field(pb, API_PB_INVALID_FIELD, in_ptr,
                              "logits + ALiBi bias are not finite (overflow); use smaller values");
            return fail(&b);
        }
        size_t bad = 0;
        double *wh = b.weights + h * n;
        if (pe_attention_softmax_rows(b.work, tq, tk, wh, &bad) != PE_OK) {
            api_problem_idx(pb, API_PB_INVALID_FIELD, qptr, bad,
                            "query row %zu has no finite softmax", bad);
            return fail(&b);
        }
        if (b.v && pe_attention_apply(wh, b.v, tq, tk, dv, b.out + h * tq * dv) != PE_OK) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/v",
                              "weights.v is not finite (overflow); use smaller v");
            return fail(&b);
        }
    }

    wire_jw_obj_begin(out);
    wire_jw_key(out, "slopes");
    wire_jw_doubles(out, b.cfg.slopes, H);
    if (include_bias) {
        wire_jw_key(out, "bias");
        wire_jw_arr_begin(out);
        for (size_t h = 0; h < H && wire_jw_ok(out); h++)
            api_att_write_masked(out, b.bias + h * n, tq, tk);
        wire_jw_arr_end(out);
    }
    if (has_w) {
        wire_jw_key(out, "weights");
        wire_jw_arr_begin(out);
        for (size_t h = 0; h < H && wire_jw_ok(out); h++)
            wire_jw_matrix(out, b.weights + h * n, NULL, tq, tk);
        wire_jw_arr_end(out);
    }
    if (b.v) {
        wire_jw_key(out, "output");
        wire_jw_arr_begin(out);
        for (size_t h = 0; h < H && wire_jw_ok(out); h++)
            wire_jw_matrix(out, b.out + h * tq * dv, NULL, tq, dv);
        wire_jw_arr_end(out);
    }
    wire_jw_key(out, "resolved");
    wire_jw_obj_begin(out);
    api_alibi_cfg_resolved(out, &b.cfg, mode);
    wire_jw_key(out, "include_bias");
    wire_jw_bool(out, include_bias);
    wire_jw_key(out, "logits");
    if (has_scores)
        wire_jw_str(out, b.sc.heads ? "scores per head" : "scores shared by all heads");
    else if (b.q)
        wire_jw_str(out, "q.k/sqrt(d)");
    else
        wire_jw_null(out);
    if (b.q) {
        wire_jw_key(out, "scale");
        wire_jw_double(out, scale);
    }
    wire_jw_key(out, "query_positions");
    wire_jw_ints(out, b.qp, tq);
    wire_jw_key(out, "key_positions");
    wire_jw_ints(out, b.kp, tk);
    wire_jw_obj_end(out);
    wire_jw_obj_end(out);
    release_all(&b);
    return 0;
}

/*
 * api/rope_run.c -- step 2 of POST /rope: api_rope_req -> api_rope_res (see api/rope_req.h).
 * Numbers from core/ only. 1-D: every configuration goes through the frequency-table cache
 * (core/cache.h); cos/sin rows the table does not hold are computed with pe_rope_cos_sin on the
 * table's inv_freq (bit-identical to the table's own rows). Multi-axis: the angles
 * sum_a p_a F[a][j] directly (core/rope_axes.h; the cache is keyed by 1-D configurations).
 * Buffers are malloc'd into the result, which the caller frees with api_rope_res_free.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/rope_req.h"
#include "core/attention.h"
#include "core/rope_qscale.h"

/* Fills the core parameters from the validated request. */
static void fill_params(const api_rope_req *r, pe_rope_params *p)
{
    const api_rope_scaling *sc = &r->sc;
    pe_rope_params_init(p);
    p->rotary_dim = (size_t)r->rotary_dim;
    p->base = r->base;
    if (r->inv_freq != NULL) {
        p->inv_freq = r->inv_freq;
        return;
    }
    if (!sc->present)
        return;
    p->type = sc->type;
    const double *v = sc->num;
    switch (sc->type) {
    case PE_ROPE_DEFAULT:
        break;
    case PE_ROPE_LINEAR:
        p->factor = v[API_RS_FACTOR];
        break;
    case PE_ROPE_DYNAMIC:
        p->factor = v[API_RS_FACTOR];
        p->original_max_position_embeddings = v[API_RS_ORIGINAL_MAX_POSITION];
        p->seq_len = (size_t)r->L;
        break;
    case PE_ROPE_YARN:
        p->factor = v[API_RS_FACTOR];
        p->original_max_position_embeddings = v[API_RS_ORIGINAL_MAX_POSITION];
        if (sc->origin[API_RS_BETA_FAST].set)
            p->beta_fast = v[API_RS_BETA_FAST];
        if (sc->origin[API_RS_BETA_SLOW].set)
            p->beta_slow = v[API_RS_BETA_SLOW];
        p->has_mscale = sc->origin[API_RS_MSCALE].set;
        p->mscale = p->has_mscale ? v[API_RS_MSCALE] : 0.0;
        p->has_mscale_all_dim = sc->origin[API_RS_MSCALE_ALL_DIM].set;
        p->mscale_all_dim = p->has_mscale_all_dim ? v[API_RS_MSCALE_ALL_DIM] : 0.0;
        p->has_attention_factor = sc->origin[API_RS_ATTENTION_FACTOR].set;
        p->attention_factor = p->has_attention_factor ? v[API_RS_ATTENTION_FACTOR] : 0.0;
        if (sc->origin[API_RS_TRUNCATE].set)
            p->truncate = v[API_RS_TRUNCATE] != 0.0;
        break;
    case PE_ROPE_LONGROPE:
        p->factor = v[API_RS_FACTOR];
        p->original_max_position_embeddings = v[API_RS_ORIGINAL_MAX_POSITION];
        p->seq_len = (size_t)r->L;
        p->short_factor = r->lists[0];
        p->long_factor = r->lists[1];
        p->has_attention_factor = sc->origin[API_RS_ATTENTION_FACTOR].set;
        p->attention_factor = p->has_attention_factor ? v[API_RS_ATTENTION_FACTOR] : 0.0;
        {
            /* Phi-3.5-MoE (modular_phimoe.py PhimoeRotaryEmbedding.forward): cos and sin are
             * multiplied by long_mscale when seq_len > original_max_position_embeddings, else
             * by short_mscale, in place of the longrope attention factor (read for phimoe
             * only: api/rope_config.c skips both keys for other model types) */
            int lng = (double)p->seq_len > p->original_max_position_embeddings;
            api_rs_field mf = lng ? API_RS_LONG_MSCALE : API_RS_SHORT_MSCALE;
            if (sc->origin[mf].set) {
                p->has_attention_factor = 1;
                p->attention_factor = v[mf];
            }
        }
        break;
    case PE_ROPE_LLAMA3:
        p->factor = v[API_RS_FACTOR];
        p->original_max_position_embeddings = v[API_RS_ORIGINAL_MAX_POSITION];
        p->low_freq_factor = v[API_RS_LOW_FREQ_FACTOR];
        p->high_freq_factor = v[API_RS_HIGH_FREQ_FACTOR];
        break;
    case PE_ROPE_NTK:
        p->alpha = v[API_RS_ALPHA];
        break;
    case PE_ROPE_PROPORTIONAL: /* HF: .get("factor", 1.0), .get("partial_rotary_factor", 1.0) */
        p->factor = sc->origin[API_RS_FACTOR].set ? v[API_RS_FACTOR] : 1.0;
        p->proportion = sc->origin[API_RS_PROPORTION].set ? v[API_RS_PROPORTION] : 1.0;
        break;
    }
}

/* Maps a cache failure to a problem naming the most likely field. */
static void cache_failure(api_problem *pb, const api_rope_req *r, pe_status st)
{
    const api_rope_scaling *sc = &r->sc;
    char ptr[API_RC_PTR];
    if (st == PE_ERR_NOMEM) {
        api_problem_set(pb, API_PB_UNAVAILABLE, "out of memory while computing frequencies");
        return;
    }
    if (st == PE_ERR_OVERFLOW) {
        api_problem_field(pb, API_PB_LIMIT_EXCEEDED, api_rc_blame(&r->head_dim_o, "/head_dim"),
                          "the frequency table size overflows");
        return;
    }
    api_rs_field f = API_RS_FACTOR;
    if (sc->type == PE_ROPE_NTK)
        f = API_RS_ALPHA;
    else if (sc->type == PE_ROPE_LONGROPE)
        f = API_RS_ORIGINAL_MAX_POSITION;
    if (r->inv_freq != NULL)
        snprintf(ptr, sizeof ptr, "/inv_freq");
    else if (sc->present && sc->type != PE_ROPE_DEFAULT)
        snprintf(ptr, sizeof ptr, "%s", api_rc_blame(&sc->origin[f], sc->ptr));
    else
        snprintf(ptr, sizeof ptr, "%s", api_rc_blame(&r->base_o, "/base"));
    api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                      st == PE_ERR_NONFINITE
                          ? "this configuration gives non-finite frequencies or attention factor"
                          : "invalid RoPE configuration (%s)",
                      pe_status_str(st));
}

void api_rope_rows_cos_sin(const pe_freq_table *t, const int64_t *pos, size_t np, double *c,
                           double *s)
{
    size_t n = t->n_freq;
    for (size_t i = 0; i < np; i++) {
        if ((uint64_t)pos[i] < t->n_pos) {
            memcpy(c + i * n, t->cos + (size_t)pos[i] * n, n * sizeof *c);
            memcpy(s + i * n, t->sin + (size_t)pos[i] * n, n * sizeof *s);
        } else {
            pe_rope_cos_sin(t->inv_freq, n, &pos[i], 1, c + i * n, s + i * n);
        }
    }
}

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* Rotates one side into *out ([np][head_dim], malloc'd). Returns 0 or -1 (pb filled). */
static int rotate_side(api_problem *pb, const api_rope_req *r, const pe_freq_table *t,
                       const api_rope_pos *ps, const double *x, int is_vec, const char *ptr,
                       double **out)
{
    size_t n = t->n_freq, hd = (size_t)r->head_dim, np = ps->n;
    double *c = api_alloc(pb, np * n, sizeof *c);
    double *s = api_alloc(pb, np * n, sizeof *s);
    double *o = api_alloc(pb, np * hd, sizeof *o);
    if (c == NULL || s == NULL || o == NULL) {
        free(c);
        free(s);
        free(o);
        return -1;
    }
    api_rope_rows_cos_sin(t, ps->v, np, c, s);
    pe_rope_rotate(x, is_vec ? 0 : hd, c, s, np, hd, (size_t)r->rotary_dim, r->layout,
                   t->attention_factor, o);
    free(c);
    free(s);
    if (!all_finite(o, np * hd)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "the rotated vectors overflow (values too large for float64)");
        free(o);
        return -1;
    }
    *out = o;
    return 0;
}

/* scores[i][j] = q_rotated_i . k_rotated_j (scale 1: the dot products as they are). */
static int scores(api_problem *pb, const api_rope_req *r, api_rope_res *res, size_t extra)
{
    size_t pq = r->qpos.n, pk = r->kpos.n;
    res->scores = api_alloc(pb, pq * pk + extra, sizeof *res->scores);
    if (res->scores == NULL)
        return -1;
    if (pe_attention_logits(res->q_rot, res->k_rot, pq, pk, (size_t)r->head_dim, 1.0,
                            res->scores) != PE_OK) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/q",
                          "the scores overflow (q and k values too large for float64)");
        return -1;
    }
    return 0;
}

/*
 * The softmax scale factor of the answer. A pasted config's yarn mscale_all_dim scales the softmax
 * only where the model's HF attention does it (the DeepSeek family, api_model_softmax_mscale;
 * Mistral 3 / Ministral 3 carry mscale_all_dim and do not); elsewhere 1, and the answer warns
 * (res->softmax_not_applied, written by api/rope_write.c).
 */
static double softmax_scale(const api_rope_req *r, const pe_freq_table *t, api_rope_res *res)
{
    if (t->softmax_scale_factor == 1.0 || !r->has_config || r->cfg.softmax_mscale ||
        strncmp(r->sc.ptr, "/config/", 8) != 0)
        return t->softmax_scale_factor;
    res->softmax_not_applied = 1;
    return 1.0;
}

/* Ministral 3's query scale (core/rope_qscale.h): s(p) per q position, multiplied into the
 * rotated q rows (after RoPE, as Ministral3Attention does), and per cos/sin position. */
static int query_scale(api_problem *pb, const api_rope_req *r, api_rope_res *res)
{
    const api_rope_config *c = &r->cfg;
    if (!r->has_config || !c->has_qscale)
        return 0;
    size_t hd = (size_t)r->head_dim;
    if (res->q_rot != NULL) {
        res->q_scale = api_alloc(pb, r->qpos.n + 1, sizeof *res->q_scale);
        if (res->q_scale == NULL)
            return -1;
        for (size_t i = 0; i < r->qpos.n; i++) {
            double s = pe_qscale_llama4_beta(r->qpos.v[i], c->qscale_beta, c->qscale_l0);
            res->q_scale[i] = s;
            for (size_t d = 0; d < hd; d++)
                res->q_rot[i * hd + d] *= s;
        }
    }
    if (r->include & API_ROPE_INC_COS_SIN) {
        res->t_scale = api_alloc(pb, r->tpos.n + 1, sizeof *res->t_scale);
        if (res->t_scale == NULL)
            return -1;
        for (size_t i = 0; i < r->tpos.n; i++)
            res->t_scale[i] = pe_qscale_llama4_beta(r->tpos.v[i], c->qscale_beta, c->qscale_l0);
    }
    return 0;
}

/* res->cos_hf, sin_hf from res->cos, sin (rope_req.h): Hugging Face's [P, rotary_dim] shape,
 * times attention_factor. Returns 0 or -1 (pb: out of memory). */
static int cos_sin_hf(api_problem *pb, const api_rope_req *r, api_rope_res *res)
{
    size_t n = (size_t)r->rotary_dim / 2, rd = 2 * n, np = r->tpos.n;
    double af = res->attention_factor;
    res->cos_hf = api_alloc(pb, np * rd, sizeof *res->cos_hf);
    res->sin_hf = api_alloc(pb, np * rd, sizeof *res->sin_hf);
    if (res->cos_hf == NULL || res->sin_hf == NULL)
        return -1;
    for (size_t i = 0; i < np; i++) {
        for (size_t j = 0; j < n; j++) {
            double c = res->cos[i * n + j] * af, s = res->sin[i * n + j] * af;
            size_t a = r->layout == PE_ROPE_INTERLEAVED ? 2 * j : j;
            size_t b = r->layout == PE_ROPE_INTERLEAVED ? 2 * j + 1 : j + n;
            res->cos_hf[i * rd + a] = res->cos_hf[i * rd + b] = c;
            res->sin_hf[i * rd + a] = res->sin_hf[i * rd + b] = s;
        }
    }
    return 0;
}

/* The 1-D request: the cache's table, then rotations, scores, cos/sin, bands, decay, f32. */
static int run_one_d(pe_cache *cache, const api_rope_req *r, api_rope_res *res, api_problem *pb)
{
    pe_rope_params *p = &res->p;
    fill_params(r, p);
    size_t n = p->rotary_dim / 2;

    /* rows asked for: take a table up to the largest position when that is not much larger
     * than the rows themselves (a table is built once per configuration and then shared) */
    size_t rows = 0;
    int64_t maxp = -1;
    const api_rope_pos *sets[3] = {r->q ? &r->qpos : NULL, r->k ? &r->kpos : NULL,
                                   (r->include & API_ROPE_INC_COS_SIN) ? &r->tpos : NULL};
    for (int s = 0; s < 3; s++) {
        if (sets[s] == NULL)
            continue;
        rows += sets[s]->n;
        for (size_t i = 0; i < sets[s]->n; i++)
            if (sets[s]->v[i] > maxp)
                maxp = sets[s]->v[i];
    }
    size_t need = 0;
    if (maxp >= 0 && (uint64_t)maxp + 1 <= 4 * (uint64_t)rows + PE_CACHE_POS_CHUNK)
        need = (size_t)maxp + 1;

    pe_status st = PE_OK;
    const pe_freq_table *t = pe_cache_get(cache, p, need, &st);
    if (t == NULL) {
        cache_failure(pb, r, st);
        return -1;
    }
    res->cache = cache;
    res->table = t;
    res->inv_freq = t->inv_freq;
    res->attention_factor = t->attention_factor;
    res->softmax_scale_factor = softmax_scale(r, t, res);
    if (p->type == PE_ROPE_LLAMA3) {
        res->low_freq_wavelen = p->original_max_position_embeddings / p->low_freq_factor;
        res->high_freq_wavelen = p->original_max_position_embeddings / p->high_freq_factor;
    }

    if (r->q && rotate_side(pb, r, t, &r->qpos, r->q, r->q_vec, "/q", &res->q_rot) < 0)
        return -1;
    if (r->k && rotate_side(pb, r, t, &r->kpos, r->k, r->k_vec, "/k", &res->k_rot) < 0)
        return -1;
    if (query_scale(pb, r, res) < 0)
        return -1;
    if (res->q_rot && res->k_rot && scores(pb, r, res, 0) < 0)
        return -1;
    if (r->include & API_ROPE_INC_COS_SIN) {
        res->cos = api_alloc(pb, r->tpos.n * n, sizeof *res->cos);
        res->sin = api_alloc(pb, r->tpos.n * n, sizeof *res->sin);
        if (res->cos == NULL || res->sin == NULL)
            return -1;
        api_rope_rows_cos_sin(t, r->tpos.v, r->tpos.n, res->cos, res->sin);
        if (r->cos_sin_hf && cos_sin_hf(pb, r, res) < 0)
            return -1;
    }
    if (r->include & API_ROPE_INC_BANDS) {
        res->bands = api_alloc(pb, n, sizeof *res->bands);
        if (res->bands == NULL)
            return -1;
        if (pe_rope_bands(p, t->inv_freq, &t->info, n, res->bands) != PE_OK) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/include", "bands are not available");
            return -1;
        }
    }
    if (r->include & API_ROPE_INC_DECAY) {
        res->decay = api_alloc(pb, r->n_dist ? r->n_dist : 1, sizeof *res->decay);
        if (res->decay == NULL)
            return -1;
        if (pe_rope_decay(t->inv_freq, n, r->dist, r->n_dist, res->decay) != PE_OK) {
            api_problem_field(pb, API_PB_INVALID_FIELD, "/distances", "decay is not available");
            return -1;
        }
    }
    if ((r->include & API_ROPE_INC_F32) &&
        pe_rope_float32_error(t->inv_freq, n, r->tpos.v, r->tpos.n, &res->f32) != PE_OK) {
        api_problem_field(pb, API_PB_INVALID_FIELD, "/include", "float32_error is not available");
        return -1;
    }
    return 0;
}

/* cos/sin of the multi-axis angles at the tuples of cs ([cs->n][n] each). Returns 0 or -1. */
static int axes_angles(api_problem *pb, const api_rope_req *r, const api_rope_pos *cs, double **c,
                       double **s)
{
    size_t n = (size_t)r->rotary_dim / 2;
    *c = api_alloc(pb, cs->n * n + 1, sizeof **c);
    *s = api_alloc(pb, cs->n * n + 1, sizeof **s);
    if (*c == NULL || *s == NULL)
        return -1;
    size_t bad = 0;
    if (pe_rope_axes_cos_sin(r->F, r->A, n, cs->v, cs->n, *c, *s, &bad) != PE_OK) {
        char ptr[API_RC_PTR];
        api_ptr_idx(ptr, sizeof ptr, cs->ptr, bad);
        api_problem_field(pb, API_PB_INVALID_FIELD, r->type == PE_AXES_MIXED ? "/axes/freqs" : ptr,
                          "the angle sum_a p_a F[a][j] at %s is not finite (frequencies x "
                          "coordinates overflow float64)",
                          ptr);
        return -1;
    }
    return 0;
}

/* Rotates one side of a multi-axis request: out [cs->n][head_dim] (attention factor 1). */
static int axes_rotate_side(api_problem *pb, const api_rope_req *r, const api_rope_pos *cs,
                            const double *x, int is_vec, const char *ptr, double **out)
{
    size_t hd = (size_t)r->head_dim;
    double *c = NULL, *s = NULL;
    int rc = -1;
    if (axes_angles(pb, r, cs, &c, &s) < 0)
        goto done;
    *out = api_alloc(pb, cs->n * hd + 1, sizeof **out);
    if (*out == NULL)
        goto done;
    pe_rope_rotate(x, is_vec ? 0 : hd, c, s, cs->n, hd, (size_t)r->rotary_dim, r->layout, 1.0,
                   *out);
    if (!all_finite(*out, cs->n * hd)) {
        api_problem_field(pb, API_PB_INVALID_FIELD, ptr,
                          "the rotated vectors overflow (values too large for float64)");
        goto done;
    }
    rc = 0;
done:
    free(c);
    free(s);
    return rc;
}

/* The multi-axis request: rotations, scores, cos/sin, inv_freq (except mixed). */
static int run_axes(const api_rope_req *r, api_rope_res *res, api_problem *pb)
{
    size_t n = (size_t)r->rotary_dim / 2;
    res->attention_factor = 1.0;
    res->softmax_scale_factor = 1.0;
    if (r->q && axes_rotate_side(pb, r, &r->qpos, r->q, r->q_vec, "/q", &res->q_rot) < 0)
        return -1;
    if (r->k && axes_rotate_side(pb, r, &r->kpos, r->k, r->k_vec, "/k", &res->k_rot) < 0)
        return -1;
    if (res->q_rot && res->k_rot && scores(pb, r, res, 1) < 0)
        return -1;
    if ((r->include & API_ROPE_INC_COS_SIN) &&
        axes_angles(pb, r, &r->tpos, &res->cos, &res->sin) < 0)
        return -1;
    if (r->type != PE_AXES_MIXED) {
        res->inv_freq_axes = api_alloc(pb, n, sizeof *res->inv_freq_axes);
        if (res->inv_freq_axes == NULL)
            return -1;
        for (size_t j = 0; j < n; j++) /* the column's nonzero entry */
            res->inv_freq_axes[j] = r->F[(size_t)r->pair_axis[j] * n + j];
        res->inv_freq = res->inv_freq_axes;
    }
    return 0;
}

int api_rope_run(pe_cache *cache, const api_rope_req *r, api_rope_res *res, api_problem *pb)
{
    memset(res, 0, sizeof *res);
    return r->axes ? run_axes(r, res, pb) : run_one_d(cache, r, res, pb);
}

void api_rope_res_free(api_rope_res *res)
{
    free(res->inv_freq_axes);
    free(res->q_rot);
    free(res->q_scale);
    free(res->t_scale);
    free(res->k_rot);
    free(res->scores);
    free(res->cos);
    free(res->sin);
    free(res->cos_hf);
    free(res->sin_hf);
    free(res->bands);
    free(res->decay);
    if (res->table != NULL)
        pe_cache_release(res->cache, res->table);
    memset(res, 0, sizeof *res);
}

int api_rope_res_finite(const api_rope_req *r, const api_rope_res *res)
{
    size_t n = (size_t)r->rotary_dim / 2, hd = (size_t)r->head_dim;
    size_t pq = res->q_rot ? r->qpos.n : 0, pk = res->k_rot ? r->kpos.n : 0;
    if (!isfinite(res->attention_factor) || !isfinite(res->softmax_scale_factor) ||
        (res->inv_freq && !all_finite(res->inv_freq, n)) ||
        (res->q_rot && !all_finite(res->q_rot, pq * hd)) ||
        (res->k_rot && !all_finite(res->k_rot, pk * hd)) ||
        (res->scores && !all_finite(res->scores, pq * pk)) ||
        (res->cos && !all_finite(res->cos, r->tpos.n * n)) ||
        (res->sin && !all_finite(res->sin, r->tpos.n * n)) ||
        (res->cos_hf && !all_finite(res->cos_hf, r->tpos.n * 2 * n)) ||
        (res->sin_hf && !all_finite(res->sin_hf, r->tpos.n * 2 * n)) ||
        (r->axes && r->F && !all_finite(r->F, r->A * n)))
        return 0;
    for (size_t j = 0; res->bands && j < n; j++) /* wavelength may be infinite: written null */
        if (!isfinite(res->bands[j].inv_freq) ||
            (res->bands[j].has_rotations && !isfinite(res->bands[j].rotations)) ||
            (res->bands[j].has_ramp && !isfinite(res->bands[j].ramp)))
            return 0;
    for (size_t i = 0; res->decay && i < r->n_dist; i++)
        if (!isfinite(res->decay[i].upper_bound) || !isfinite(res->decay[i].upper_bound_rel) ||
            !isfinite(res->decay[i].mean_cos))
            return 0;
    if ((r->include & API_ROPE_INC_F32) &&
        !(isfinite(res->f32.angle_max_abs) && isfinite(res->f32.cos_max_abs) &&
          isfinite(res->f32.sin_max_abs)))
        return 0;
    if (r->axes || res->table == NULL)
        return 1;
    /* the numbers of resolved (api_rope_write_resolved) */
    const pe_rope_params *p = &res->p;
    const pe_rope_info *in = &res->table->info;
    if (p->inv_freq != NULL)
        return 1;
    switch (p->type) {
    case PE_ROPE_DYNAMIC:
    case PE_ROPE_NTK:
        return isfinite(in->effective_base);
    case PE_ROPE_YARN:
        return isfinite(in->ramp_low) && isfinite(in->ramp_high);
    case PE_ROPE_LLAMA3:
        return isfinite(res->low_freq_wavelen) && isfinite(res->high_freq_wavelen);
    default:
        return 1;
    }
}

int api_rope_eval(const api_ctx *ctx, const json_t *req, const api_rope_direct *dir,
                  api_rope_req *r, api_rope_res *res, api_problem *pb)
{
    memset(res, 0, sizeof *res);
    if (api_rope_parse(pb, ctx->lim, req, dir, r) < 0)
        return -1;
    return api_rope_run(ctx->cache, r, res, pb);
}

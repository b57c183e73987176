/*
 * api/rope_write.c -- step 3 of POST /rope: api_rope_res -> the response object (see
 * api/rope_req.h for its members). Writes only: every number was computed by api_rope_run.
 *
 * `decay` entries are {distance, upper_bound, upper_bound_sum, mean_cos}. upper_bound_sum is the
 * formula (1/n)·Σ_{j=1..n} |Σ_{k<j} e^{i r θ_k}| (RoFormer arXiv:2104.09864 §3.4.3), which is
 * (n+1)/2 at r = 0; upper_bound is that curve divided by its value at r = 0, the *relative* upper
 * bound, so that both curves start at 1 and can share one axis; mean_cos = (1/n)·Σ_j cos(r θ_j)
 * is 1 at r = 0.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/model_config.h"
#include "api/rope_req.h"

static void write_origin(wire_jw *out, const char *key, const api_rc_origin *o)
{
    wire_jw_key(out, key);
    wire_jw_str(out, o->set ? o->src : "default");
}

/* key: x, or key: null when !has (an optional number of the scaling). */
static void write_opt(wire_jw *out, const char *key, int has, double x)
{
    wire_jw_key(out, key);
    if (has)
        wire_jw_double(out, x);
    else
        wire_jw_null(out);
}

/* key: x. */
static void write_num(wire_jw *out, const char *key, double x)
{
    wire_jw_key(out, key);
    wire_jw_double(out, x);
}

/* seq_len (null when none) and where it came from; derived names what L was derived from. */
static void write_seq_len(wire_jw *out, const api_rope_req *r, const char *derived)
{
    wire_jw_key(out, "seq_len");
    if (r->L > 0)
        wire_jw_int(out, r->L);
    else
        wire_jw_null(out);
    wire_jw_key(out, "seq_len_source");
    wire_jw_str(out, r->has_seq_len ? "request" : r->L > 0 ? derived : "none");
}

static void write_scaling(wire_jw *out, const api_rope_req *r, const api_rope_res *res)
{
    const pe_rope_params *p = &res->p;
    const pe_freq_table *t = res->table;
    const api_rope_scaling *sc = &r->sc;
    wire_jw_obj_begin(out);
    wire_jw_key(out, "type");
    wire_jw_str(out, api_rope_type_name(p->type));
    if (sc->present && sc->type_given[0] && strcmp(sc->type_given, api_rope_type_name(p->type))) {
        wire_jw_key(out, "type_given");
        wire_jw_str(out, sc->type_given);
    }
    switch (p->type) {
    case PE_ROPE_DEFAULT:
        break;
    case PE_ROPE_LINEAR:
        write_num(out, "factor", p->factor);
        break;
    case PE_ROPE_DYNAMIC: {
        double l0 = p->original_max_position_embeddings;
        write_num(out, "factor", p->factor);
        write_num(out, "original_max_position_embeddings", l0);
        wire_jw_key(out, "seq_len");
        wire_jw_int(out, (int64_t)p->seq_len);
        /* L' = max(seq_len, L0) */
        write_num(out, "effective_seq_len", (double)p->seq_len > l0 ? (double)p->seq_len : l0);
        write_num(out, "effective_base", t->info.effective_base);
        break;
    }
    case PE_ROPE_YARN: {
        write_num(out, "factor", p->factor);
        write_num(out, "original_max_position_embeddings", p->original_max_position_embeddings);
        write_num(out, "beta_fast", p->beta_fast != 0.0 ? p->beta_fast : 32.0);
        write_num(out, "beta_slow", p->beta_slow != 0.0 ? p->beta_slow : 1.0);
        write_opt(out, "mscale", p->has_mscale, p->mscale);
        write_opt(out, "mscale_all_dim", p->has_mscale_all_dim, p->mscale_all_dim);
        write_opt(out, "attention_factor", p->has_attention_factor, p->attention_factor);
        wire_jw_key(out, "attention_factor_rule");
        if (p->has_attention_factor)
            wire_jw_str(out, "given");
        else if (p->has_mscale && p->has_mscale_all_dim && p->mscale != 0.0 &&
                 p->mscale_all_dim != 0.0)
            wire_jw_str(out, "g(factor, mscale) / g(factor, mscale_all_dim), "
                             "g(s, m) = 0.1 m ln s + 1 (1 if s <= 1)");
        else
            wire_jw_str(out, "g(factor, 1) = 0.1 ln factor + 1 (1 if factor <= 1)");
        wire_jw_key(out, "truncate");
        wire_jw_bool(out, p->truncate);
        write_num(out, "ramp_low", t->info.ramp_low); /* correction range after truncate/clamp */
        write_num(out, "ramp_high", t->info.ramp_high);
        break;
    }
    case PE_ROPE_LONGROPE: {
        size_t n = p->rotary_dim / 2;
        write_num(out, "factor", p->factor);
        write_num(out, "original_max_position_embeddings", p->original_max_position_embeddings);
        wire_jw_key(out, "short_factor");
        wire_jw_doubles(out, p->short_factor, n);
        wire_jw_key(out, "long_factor");
        wire_jw_doubles(out, p->long_factor, n);
        write_opt(out, "attention_factor", p->has_attention_factor, p->attention_factor);
        wire_jw_key(out, "attention_factor_rule");
        wire_jw_str(out, p->has_attention_factor ? "given"
                         : p->factor <= 1.0
                             ? "1 (factor <= 1)"
                             : "sqrt(1 + ln factor / ln original_max_position_embeddings)");
        wire_jw_key(out, "seq_len");
        wire_jw_int(out, (int64_t)p->seq_len);
        wire_jw_key(out, "list_used"); /* long when seq_len > original (strictly) */
        wire_jw_str(out, t->info.longrope_long ? "long_factor" : "short_factor");
        break;
    }
    case PE_ROPE_LLAMA3: {
        double l0 = p->original_max_position_embeddings;
        write_num(out, "factor", p->factor);
        write_num(out, "original_max_position_embeddings", l0);
        write_num(out, "low_freq_factor", p->low_freq_factor);
        write_num(out, "high_freq_factor", p->high_freq_factor);
        /* wavelengths above low_freq_wavelen are divided by factor, those below high_ kept */
        write_num(out, "low_freq_wavelen", res->low_freq_wavelen);
        write_num(out, "high_freq_wavelen", res->high_freq_wavelen);
        break;
    }
    case PE_ROPE_NTK:
        write_num(out, "alpha", p->alpha);
        write_num(out, "effective_base", t->info.effective_base); /* base * alpha^(d/(d-2)) */
        break;
    case PE_ROPE_PROPORTIONAL: /* pairs below rotated_pairs rotate, the others keep frequency 0 */
        write_num(out, "factor", p->factor);
        write_num(out, "partial_rotary_factor", p->proportion);
        wire_jw_key(out, "rotated_pairs");
        wire_jw_int(out, (int64_t)floor(p->proportion * (double)p->rotary_dim / 2.0));
        break;
    }
    wire_jw_obj_end(out);
}

/* resolved.ignored: {"config.<key>": why} for the pasted config's position keys that cannot
 * change a number of this answer (api_rope_account_keys); absent when there are none. */
static void write_ignored(wire_jw *out, const api_rope_req *r)
{
    if (r->ign.n == 0)
        return;
    wire_jw_key(out, "ignored");
    wire_jw_obj_begin(out);
    for (size_t i = 0; i < r->ign.n; i++) {
        wire_jw_key(out, r->ign.k[i].key);
        wire_jw_str(out, r->ign.k[i].why);
    }
    wire_jw_obj_end(out);
}

/* head_dim, rotary_dim and layout: the first members of resolved in both modes. */
static void write_dims(wire_jw *out, const api_rope_req *r)
{
    wire_jw_key(out, "head_dim");
    wire_jw_int(out, r->head_dim);
    wire_jw_key(out, "rotary_dim");
    wire_jw_int(out, r->rotary_dim);
    wire_jw_key(out, "layout");
    wire_jw_str(out, r->layout == PE_ROPE_INTERLEAVED ? "interleaved" : "half");
}

/* The members of a 1-D request's resolved object. */
static void write_resolved_one_d(wire_jw *out, const api_rope_req *r, const api_rope_res *res)
{
    const pe_rope_params *p = &res->p;
    write_dims(out, r);
    wire_jw_key(out, "inv_freq_source");
    wire_jw_str(out, p->inv_freq ? "explicit" : "computed");
    wire_jw_key(out, "base");
    if (p->inv_freq)
        wire_jw_null(out);
    else
        wire_jw_double(out, p->base);
    wire_jw_key(out, "scaling");
    if (p->inv_freq)
        wire_jw_null(out);
    else
        write_scaling(out, r, res);
    write_seq_len(out, r, "largest position + 1");
    const api_rope_config *c = &r->cfg;
    if (r->has_config && c->has_qscale) {
        wire_jw_key(out, "query_scale");
        wire_jw_obj_begin(out);
        wire_jw_key(out, "rule");
        wire_jw_str(out, strcmp(c->model_type, "mistral4") == 0
                             ? "q_rotated x (1 + beta ln(1 + floor(pos / "
                               "original_max_position_embeddings))) (Mistral 4)"
                             : "q_rotated x (1 + beta ln(1 + floor(pos / "
                               "original_max_position_embeddings))) (Ministral 3)");
        write_num(out, "beta", c->qscale_beta);
        write_num(out, "original_max_position_embeddings", (double)c->qscale_l0);
        wire_jw_obj_end(out);
    }
    if (r->has_config) {
        const api_rope_scaling *sc = &r->sc;
        wire_jw_key(out, "sources");
        wire_jw_obj_begin(out);
        write_origin(out, "head_dim", &r->head_dim_o);
        write_origin(out, "rotary_dim", &r->rotary_o);
        if (!p->inv_freq) {
            write_origin(out, "base", &r->base_o);
            wire_jw_key(out, "scaling");
            if (!sc->present) {
                wire_jw_str(out, "none");
            } else if (strncmp(sc->ptr, "/config/", 8) == 0) {
                char src[API_RC_PTR];
                api_model_ptr_to_src(sc->ptr, src, sizeof src); /* config.text_config.rope_... */
                wire_jw_str(out, src);
            } else if (strncmp(sc->type_origin.src, "default of ", 11) == 0) {
                /* a config class's rope_parameters (api_model_class_rope_params): its name */
                char src[sizeof sc->type_origin.src];
                const char *dot = strrchr(sc->type_origin.src, '.');
                int n = dot ? (int)(dot - sc->type_origin.src) : (int)strlen(sc->type_origin.src);
                snprintf(src, sizeof src, "%.*s", n, sc->type_origin.src);
                wire_jw_str(out, src);
            } else {
                wire_jw_str(out, "request");
            }
            if (sc->present) {
                write_origin(out, "scaling.type", &sc->type_origin);
                for (int f = 0; f < API_RS__COUNT; f++) {
                    if (!sc->origin[f].set)
                        continue;
                    char key[64];
                    snprintf(key, sizeof key, "scaling.%s", api_rs_field_name((api_rs_field)f));
                    write_origin(out, key, &sc->origin[f]);
                }
            }
        }
        write_origin(out, "layout", &r->layout_o);
        if (c->has_qscale) {
            write_origin(out, "query_scale.beta", &c->qscale_beta_o);
            write_origin(out, "query_scale.original_max_position_embeddings", &c->qscale_l0_o);
        }
        if (r->scale_src[0]) {
            wire_jw_key(out, "scale");
            wire_jw_str(out, r->scale_src);
        }
        if (r->softcap_src[0]) {
            wire_jw_key(out, "attn_logit_softcapping");
            wire_jw_str(out, r->softcap_src);
        }
        wire_jw_obj_end(out);
        write_ignored(out, r);
    }
}

static void write_bands(wire_jw *out, const pe_rope_band *b, size_t n)
{
    wire_jw_key(out, "bands");
    wire_jw_arr_begin(out);
    for (size_t j = 0; j < n && wire_jw_ok(out); j++) {
        wire_jw_obj_begin(out);
        wire_jw_key(out, "pair");
        wire_jw_int(out, (int64_t)b[j].pair);
        wire_jw_key(out, "inv_freq");
        wire_jw_double(out, b[j].inv_freq);
        wire_jw_key(out, "wavelength");
        if (isfinite(b[j].wavelength))
            wire_jw_double(out, b[j].wavelength);
        else
            wire_jw_null(out); /* inv_freq 0: never turns */
        if (b[j].has_rotations) {
            wire_jw_key(out, "rotations");
            wire_jw_double(out, b[j].rotations);
        }
        wire_jw_key(out, "class");
        wire_jw_str(out, pe_rope_band_class_str(b[j].cls));
        if (b[j].has_ramp) {
            wire_jw_key(out, "ramp");
            wire_jw_double(out, b[j].ramp);
        }
        wire_jw_obj_end(out);
    }
    wire_jw_arr_end(out);
}

void api_rope_warnings(const api_rope_req *r, const api_rope_res *res, api_rc_warnings *out)
{
    *out = r->warn;
    if (res->softmax_not_applied)
        api_rc_warn(out,
                    "softmax_scale_factor is 1: Hugging Face multiplies the softmax scale by "
                    "mscale(factor, mscale_all_dim)^2 only in the DeepSeek family "
                    "(modeling_deepseek_v3.py), not for model_type %s",
                    r->cfg.model_type);
}

/* The response of a 1-D request. */
static void write_one_d(wire_jw *out, const api_rope_req *r, const api_rope_res *res)
{
    size_t n = (size_t)r->rotary_dim / 2, hd = (size_t)r->head_dim;
    size_t pq = r->qpos.n, pk = r->kpos.n;
    wire_jw_obj_begin(out);
    wire_jw_key(out, "inv_freq");
    wire_jw_doubles(out, res->inv_freq, n);
    wire_jw_key(out, "attention_factor");
    wire_jw_double(out, res->attention_factor);
    wire_jw_key(out, "softmax_scale_factor");
    wire_jw_double(out, res->softmax_scale_factor);
    api_rc_warnings warn;
    api_rope_warnings(r, res, &warn);
    const char *texts[API_RC_MAX_WARNINGS + 1];
    char more[64];
    size_t nw = api_rc_warn_list(&warn, texts, more, sizeof more);
    if (nw > 0) {
        wire_jw_key(out, "warnings");
        wire_jw_arr_begin(out);
        for (size_t i = 0; i < nw; i++)
            wire_jw_str(out, texts[i]);
        wire_jw_arr_end(out);
    }
    if (res->q_rot) {
        wire_jw_key(out, "q_positions");
        wire_jw_ints(out, r->qpos.v, pq);
        wire_jw_key(out, "q_rotated");
        wire_jw_matrix(out, res->q_rot, NULL, pq, hd);
        if (res->q_scale) {
            wire_jw_key(out, "q_scale");
            wire_jw_doubles(out, res->q_scale, pq);
        }
    }
    if (res->k_rot) {
        wire_jw_key(out, "k_positions");
        wire_jw_ints(out, r->kpos.v, pk);
        wire_jw_key(out, "k_rotated");
        wire_jw_matrix(out, res->k_rot, NULL, pk, hd);
    }
    if (res->scores) {
        wire_jw_key(out, "scores");
        wire_jw_matrix(out, res->scores, NULL, pq, pk);
    }
    if (r->include & (API_ROPE_INC_COS_SIN | API_ROPE_INC_F32)) {
        wire_jw_key(out, "positions");
        wire_jw_ints(out, r->tpos.v, r->tpos.n);
    }
    if (res->cos) {
        wire_jw_key(out, "cos");
        wire_jw_matrix(out, res->cos, NULL, r->tpos.n, n);
        wire_jw_key(out, "sin");
        wire_jw_matrix(out, res->sin, NULL, r->tpos.n, n);
    }
    if (res->t_scale) {
        wire_jw_key(out, "query_scale");
        wire_jw_doubles(out, res->t_scale, r->tpos.n);
    }
    if (res->cos_hf) {
        wire_jw_key(out, "cos_hf");
        wire_jw_matrix(out, res->cos_hf, NULL, r->tpos.n, 2 * n);
        wire_jw_key(out, "sin_hf");
        wire_jw_matrix(out, res->sin_hf, NULL, r->tpos.n, 2 * n);
    }
    if (res->bands)
        write_bands(out, res->bands, n);
    if (res->decay) {
        wire_jw_key(out, "decay");
        wire_jw_arr_begin(out);
        for (size_t i = 0; i < r->n_dist && wire_jw_ok(out); i++) {
            wire_jw_obj_begin(out);
            wire_jw_key(out, "distance");
            wire_jw_int(out, res->decay[i].distance);
            wire_jw_key(out, "upper_bound");
            wire_jw_double(out, res->decay[i].upper_bound_rel);
            wire_jw_key(out, "upper_bound_sum");
            wire_jw_double(out, res->decay[i].upper_bound);
            wire_jw_key(out, "mean_cos");
            wire_jw_double(out, res->decay[i].mean_cos);
            wire_jw_obj_end(out);
        }
        wire_jw_arr_end(out);
    }
    if (r->include & API_ROPE_INC_F32) {
        wire_jw_key(out, "float32_error");
        wire_jw_obj_begin(out);
        wire_jw_key(out, "angle_max_abs");
        wire_jw_double(out, res->f32.angle_max_abs);
        wire_jw_key(out, "cos_max_abs");
        wire_jw_double(out, res->f32.cos_max_abs);
        wire_jw_key(out, "sin_max_abs");
        wire_jw_double(out, res->f32.sin_max_abs);
        wire_jw_obj_end(out);
    }
    wire_jw_key(out, "resolved");
    wire_jw_obj_begin(out);
    write_resolved_one_d(out, r, res);
    wire_jw_obj_end(out);
}

static void write_tuples(wire_jw *out, const char *key, const api_rope_pos *cs, size_t A)
{
    wire_jw_key(out, key);
    wire_jw_arr_begin(out);
    for (size_t i = 0; i < cs->n && wire_jw_ok(out); i++)
        wire_jw_ints(out, cs->v + i * A, A);
    wire_jw_arr_end(out);
}

/* The members of a multi-axis request's resolved object. */
static void write_resolved_axes(wire_jw *out, const api_rope_req *r)
{
    write_dims(out, r);
    wire_jw_key(out, "base");
    if (r->type == PE_AXES_MIXED)
        wire_jw_null(out);
    else
        wire_jw_double(out, r->base);
    wire_jw_key(out, "scaling");
    wire_jw_null(out);
    wire_jw_key(out, "axes");
    wire_jw_obj_begin(out);
    wire_jw_key(out, "type");
    wire_jw_str(out, pe_axes_type_str(r->type));
    wire_jw_key(out, "num_axes");
    wire_jw_int(out, (int64_t)r->A);
    if (r->sections != NULL) {
        wire_jw_key(out, "sections");
        wire_jw_arr_begin(out);
        for (size_t a = 0; a < r->A; a++)
            wire_jw_int(out, (int64_t)r->sections[a]);
        wire_jw_arr_end(out);
    }
    wire_jw_key(out, "source");
    wire_jw_str(out, r->axes_src);
    wire_jw_obj_end(out);
    write_seq_len(out, r, "largest coordinate + 1");
    if (r->has_config) {
        wire_jw_key(out, "sources");
        wire_jw_obj_begin(out);
        write_origin(out, "head_dim", &r->head_dim_o);
        write_origin(out, "rotary_dim", &r->rotary_o);
        if (r->type != PE_AXES_MIXED)
            write_origin(out, "base", &r->base_o);
        write_origin(out, "layout", &r->layout_o);
        wire_jw_key(out, "axes");
        wire_jw_str(out, r->axes_src);
        if (r->axes_il[0] != '\0') {
            wire_jw_key(out, "axes_interleaved");
            wire_jw_str(out, r->axes_il);
        }
        wire_jw_obj_end(out);
        write_ignored(out, r);
    }
}

/* The response of a multi-axis request. */
static void write_axes(wire_jw *out, const api_rope_req *r, const api_rope_res *res)
{
    size_t n = (size_t)r->rotary_dim / 2, hd = (size_t)r->head_dim, A = r->A;
    size_t pq = r->qpos.n, pk = r->kpos.n;

    wire_jw_obj_begin(out);
    if (res->inv_freq) {
        wire_jw_key(out, "inv_freq");
        wire_jw_doubles(out, res->inv_freq, n);
    }
    wire_jw_key(out, "axis_freqs");
    wire_jw_matrix(out, r->F, NULL, A, n);
    if (res->inv_freq) {
        wire_jw_key(out, "pair_axis");
        wire_jw_ints(out, r->pair_axis, n);
    }
    wire_jw_key(out, "attention_factor");
    wire_jw_double(out, 1.0);
    wire_jw_key(out, "softmax_scale_factor");
    wire_jw_double(out, 1.0);
    if (r->warn.n > 0) {
        wire_jw_key(out, "warnings");
        wire_jw_arr_begin(out);
        for (size_t i = 0; i < r->warn.n; i++)
            wire_jw_str(out, r->warn.text[i]);
        wire_jw_arr_end(out);
    }
    if (res->q_rot) {
        write_tuples(out, "q_positions", &r->qpos, A);
        wire_jw_key(out, "q_rotated");
        wire_jw_matrix(out, res->q_rot, NULL, pq, hd);
    }
    if (res->k_rot) {
        write_tuples(out, "k_positions", &r->kpos, A);
        wire_jw_key(out, "k_rotated");
        wire_jw_matrix(out, res->k_rot, NULL, pk, hd);
    }
    if (res->scores) {
        wire_jw_key(out, "scores");
        wire_jw_matrix(out, res->scores, NULL, pq, pk);
    }
    if (res->cos) {
        write_tuples(out, "positions", &r->tpos, A);
        wire_jw_key(out, "cos");
        wire_jw_matrix(out, res->cos, NULL, r->tpos.n, n);
        wire_jw_key(out, "sin");
        wire_jw_matrix(out, res->sin, NULL, r->tpos.n, n);
    }
    wire_jw_key(out, "resolved");
    wire_jw_obj_begin(out);
    write_resolved_axes(out, r);
    wire_jw_obj_end(out);
}

void api_rope_write_resolved(wire_jw *out, const api_rope_req *r, const api_rope_res *res)
{
    if (r->axes)
        write_resolved_axes(out, r);
    else
        write_resolved_one_d(out, r, res);
}

void api_rope_write_open(wire_jw *out, const api_rope_req *r, const api_rope_res *res)
{
    if (r->axes)
        write_axes(out, r, res);
    else
        write_one_d(out, r, res);
    if (r->kind >= 0) {
        wire_jw_key(out, "layer_kind");
        api_rope_write_kind(out, &r->plan, r->kind);
    }
}

void api_rope_write(wire_jw *out, const api_rope_req *r, const api_rope_res *res)
{
    api_rope_write_open(out, r, res);
    wire_jw_obj_end(out);
}

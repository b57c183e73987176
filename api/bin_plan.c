/*
 * api/bin_plan.c -- what a binary request rotates (api/bin.h): the shape of each .npy part read
 * as [B, T, H, D] (its rank, tensor_layout, num_heads / num_key_value_heads), the positions of
 * every vector (absent: 0 .. T-1; [T]; [B][T]), and the RoPE configuration: params without the
 * binary-only fields, with the positions flattened (and head_dim from the tensors when neither
 * head_dim nor a config gives it), read by the JSON path's own parse (api_rope_parse) and run
 * (api_rope_run: the frequency table, and cos / sin when `include` asks), so both paths resolve
 * the same configuration from the same fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/bin_priv.h"

/* params fields only a binary request has (taken out before api_rope_parse). */
static const char *const BIN_ONLY[] = {"tensor_layout", "num_heads", "num_key_value_heads", "dtype",
                                       NULL};

/* Optional positive integer field key of params (0 when absent). -1 when invalid (b failed). */
static int64_t opt_count(api_bin *b, const json_t *pj, const char *key)
{
    const json_t *v = json_object_get(pj, key);
    if (v == NULL)
        return 0;
    char ptr[40];
    snprintf(ptr, sizeof ptr, "/%s", key);
    int64_t x = 0;
    if (api_int_value(&b->pb, v, ptr, 1, (int64_t)b->lim->max_heads, &x) < 0) {
        b->failed = 1;
        return -1;
    }
    return x;
}

/* The shape of part i as [B, T, H, D]. 0 or -1 (b failed). */
static int part_shape(api_bin *b, int i, int bhtd, int has_layout, int64_t heads)
{
    api_bin_part *p = &b->t[i];
    const size_t *s = p->info.shape;
    char ptr[8];
    snprintf(ptr, sizeof ptr, "/%s", api_bin_part_names[i]);
    p->B = 1;
    p->bhtd = 0;
    if (has_layout && p->info.ndim != 4) { /* it names rank-4 axes: never silently ignored */
        api_bin_fail(b, API_PB_INVALID_FIELD, "/tensor_layout",
                     "tensor_layout applies to a rank-4 tensor only; %s has rank %d ([T, D], "
                     "[T, H*D] or [T, H, D]): leave tensor_layout out",
                     api_bin_part_names[i], p->info.ndim);
        return -1;
    }
    switch (p->info.ndim) {
    case 2:
        p->T = s[0];
        p->H = heads > 0 ? (size_t)heads : 1;
        if (s[1] % p->H != 0) {
            api_bin_fail(b, API_PB_INVALID_FIELD, ptr,
                         "the last axis (%zu) is not a multiple of %s (%lld): [T, H*D] needs "
                         "H*D values per position",
                         s[1], i == API_BIN_Q ? "num_heads" : "num_key_value_heads",
                         (long long)heads);
            return -1;
        }
        p->D = s[1] / p->H;
        break;
    case 3:
        p->T = s[0];
        p->H = s[1];
        p->D = s[2];
        break;
    case 4:
        if (!has_layout) {
            api_bin_fail(b, API_PB_INVALID_FIELD, "/tensor_layout",
                         "a rank-4 %s needs tensor_layout: \"bthd\" ([batch, seq, heads, "
                         "head_dim], after the projection) or \"bhtd\" ([batch, heads, seq, "
                         "head_dim], in attention)",
                         api_bin_part_names[i]);
            return -1;
        }
        p->B = s[0];
        p->T = bhtd ? s[2] : s[1];
        p->H = bhtd ? s[1] : s[2];
        p->D = s[3];
        p->bhtd = bhtd;
        break;
    default:
        api_bin_fail(b, API_PB_INVALID_FIELD, ptr,
                     "a rank-%d tensor: send [T, D], [T, H*D] with num_heads, [T, H, D] or a "
                     "rank-4 tensor with tensor_layout",
                     p->info.ndim);
        return -1;
    }
    if (heads > 0 && p->info.ndim >= 3 && p->H != (size_t)heads) {
        api_bin_fail(b, API_PB_INVALID_FIELD, ptr, "the tensor has %zu heads but params says %lld",
                     p->H, (long long)heads);
        return -1;
    }
    return 0;
}

/* positions of params into b->pos ([pos_b][T]) and a flat JSON list (*flat, new reference). */
static int read_positions(api_bin *b, const json_t *pj, size_t B, size_t T, json_t **flat)
{
    const json_t *pv = json_object_get(pj, "positions");
    size_t rows = 1;
    if (pv != NULL && json_is_array(pv) && json_array_size(pv) > 0 &&
        json_is_array(json_array_get(pv, 0)))
        rows = json_array_size(pv);
    if (pv != NULL && !json_is_array(pv)) {
        api_bin_fail(b, API_PB_INVALID_FIELD, "/positions",
                     "must be a list of T positions or one list per batch row ([B][T])");
        return -1;
    }
    if (rows != 1 && rows != B) {
        api_bin_fail(b, API_PB_INVALID_FIELD, "/positions",
                     "%zu rows of positions for a batch of %zu", rows, B);
        return -1;
    }
    if (T > b->lim->max_positions / rows) {
        api_bin_fail(b, API_PB_LIMIT_EXCEEDED, "/positions",
                     "%zu x %zu positions exceed max_positions (%zu)", rows, T,
                     b->lim->max_positions);
        return -1;
    }
    b->pos = malloc(rows * T * sizeof *b->pos + 1);
    *flat = json_array();
    if (b->pos == NULL || *flat == NULL) {
        api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
        return -1;
    }
    b->pos_b = rows;
    int nested = pv != NULL && json_is_array(json_array_get(pv, 0));
    for (size_t r = 0; r < rows; r++) {
        const json_t *row = pv == NULL ? NULL : nested ? json_array_get(pv, r) : pv;
        char ptr[48];
        if (row != NULL && (!json_is_array(row) || json_array_size(row) != T)) {
            api_ptr_idx(ptr, sizeof ptr, "/positions", r);
            api_bin_fail(b, API_PB_INVALID_FIELD, nested ? ptr : "/positions",
                         "must hold T = %zu positions (the tensors' sequence axis)", T);
            return -1;
        }
        for (size_t t = 0; t < T; t++) {
            int64_t x = (int64_t)t;
            if (row != NULL) {
                char base[48];
                api_ptr_idx(base, sizeof base, "/positions", r);
                api_ptr_idx(ptr, sizeof ptr, nested ? base : "/positions", t);
                if (api_int_value(&b->pb, json_array_get(row, t), ptr, 0, b->lim->max_position - 1,
                                  &x) < 0) {
                    b->failed = 1;
                    return -1;
                }
            }
            b->pos[r * T + t] = x;
            if (json_array_append_new(*flat, json_integer(x)) < 0) {
                api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
                return -1;
            }
        }
    }
    return 0;
}

/* The params fields a binary request refuses, and its own ones. 0 or -1. */
static int check_params(api_bin *b, const json_t *pj, int *bhtd, int *has_layout)
{
    static const char *const REFUSED[] = {"q", "k", "q_positions", "k_positions", NULL};
    for (const char *const *k = REFUSED; *k; k++) {
        if (json_object_get(pj, *k) == NULL)
            continue;
        char ptr[24];
        snprintf(ptr, sizeof ptr, "/%s", *k);
        api_bin_fail(b, API_PB_INVALID_FIELD, ptr,
                     (*k)[1] == '\0' ? "%s goes in its own .npy part, not in params"
                                     : "%s is not taken by a binary request: give positions "
                                       "(q and k share them)",
                     *k);
        return -1;
    }
    const json_t *dt = json_object_get(pj, "dtype");
    if (dt != NULL && !b->bf16) {
        api_bin_fail(b, API_PB_INVALID_FIELD, "/dtype",
                     "in a binary request dtype only says \"bfloat16\" (the raw 2-byte .npy "
                     "parts hold bfloat16); other dtypes come from the .npy headers");
        return -1;
    }
    const json_t *lv = json_object_get(pj, "tensor_layout");
    *has_layout = lv != NULL;
    *bhtd = 0;
    if (lv != NULL) {
        const char *s = json_is_string(lv) ? json_string_value(lv) : "";
        if (strcmp(s, "bthd") != 0 && strcmp(s, "bhtd") != 0) {
            api_bin_fail(b, API_PB_INVALID_FIELD, "/tensor_layout",
                         "must be \"bthd\" ([batch, seq, heads, head_dim]) or \"bhtd\" ([batch, "
                         "heads, seq, head_dim])");
            return -1;
        }
        *bhtd = s[1] == 'h';
    }
    const json_t *inc = json_object_get(pj, "include");
    for (size_t i = 0; json_is_array(inc) && i < json_array_size(inc); i++) {
        const char *s = json_string_value(json_array_get(inc, i));
        if (s != NULL && strcmp(s, "cos_sin") != 0 && strcmp(s, "cos_sin_hf") != 0) {
            char ptr[32];
            api_ptr_idx(ptr, sizeof ptr, "/include", i);
            api_bin_fail(b, API_PB_INVALID_FIELD, ptr,
                         "a binary request answers cos_sin and cos_sin_hf (ask the JSON path "
                         "for %s)",
                         s);
            return -1;
        }
    }
    return 0;
}

/* The request api_rope_parse reads: params without the binary-only fields, with positions. */
static json_t *derived_request(api_bin *b, const json_t *pj, json_t *flat, size_t D)
{
    json_t *req = json_copy((json_t *)pj);
    if (req == NULL) {
        json_decref(flat);
        api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory");
        return NULL;
    }
    for (const char *const *k = BIN_ONLY; *k; k++)
        json_object_del(req, *k);
    json_object_set_new(req, "positions", flat);
    if (json_object_get(req, "head_dim") == NULL && json_object_get(req, "config") == NULL)
        json_object_set_new(req, "head_dim", json_integer((json_int_t)D));
    return req;
}

/* A part after the first: its shape, sharing the first's batch, positions and head_dim. */
static int plan_later(api_bin *b, int i)
{
    int64_t heads = i == API_BIN_Q ? b->nh : (b->nkv ? b->nkv : b->nh);
    if (part_shape(b, i, b->bhtd, b->has_layout, heads) < 0)
        return -1;
    const api_bin_part *p = &b->t[i], *f = &b->t[b->first];
    if (p->B != f->B || p->T != f->T || p->D != f->D) {
        char ptr[8];
        snprintf(ptr, sizeof ptr, "/%s", api_bin_part_names[i]);
        api_bin_fail(b, API_PB_INVALID_FIELD, ptr,
                     "%s is [B=%zu, T=%zu, D=%zu] but %s is [B=%zu, T=%zu, D=%zu]: they share "
                     "batch, positions and head_dim (heads may differ)",
                     api_bin_part_names[i], p->B, p->T, p->D, api_bin_part_names[b->first], f->B,
                     f->T, f->D);
        return -1;
    }
    return 0;
}

/* The frequency table for the rotations: the shared cache's, holding positions up to the largest
 * one when its bounds allow (rows past it are computed: rope_run.c's rule). 0 or -1. */
static int take_table(api_bin *b, size_t n_pos)
{
    int64_t maxp = -1;
    for (size_t i = 0; i < n_pos; i++)
        if (b->pos[i] > maxp)
            maxp = b->pos[i];
    pe_status st = PE_OK;
    b->table = pe_cache_get(b->ctx->cache, &b->res.p, (size_t)(maxp + 1), &st);
    if (b->table == NULL) {
        api_bin_fail(b, API_PB_UNAVAILABLE, NULL, "out of memory for the frequency table (%s)",
                     pe_status_str(st));
        return -1;
    }
    return 0;
}

int api_bin_plan_part(api_bin *b, int i)
{
    if (b->planned)
        return plan_later(b, i);
    b->planned = 1;
    b->first = i;
    json_t *empty = b->pj ? NULL : json_object();
    const json_t *pj = b->pj ? b->pj : empty;
    int rc = -1;
    json_t *flat = NULL;
    if (pj == NULL || check_params(b, pj, &b->bhtd, &b->has_layout) < 0)
        goto out;
    b->nh = opt_count(b, pj, "num_heads");
    b->nkv = opt_count(b, pj, "num_key_value_heads");
    if (b->nh < 0 || b->nkv < 0)
        goto out;
    if (part_shape(b, i, b->bhtd, b->has_layout,
                   i == API_BIN_Q ? b->nh : (b->nkv ? b->nkv : b->nh)) < 0)
        goto out;
    const api_bin_part *first = &b->t[i];
    if (read_positions(b, pj, first->B, first->T, &flat) < 0)
        goto out;
    b->req = derived_request(b, pj, flat, first->D); /* api_rope_req borrows from it */
    flat = NULL;
    if (b->req == NULL)
        goto out;
    b->has_r = 1;
    if (api_rope_parse(&b->pb, b->ctx->lim, b->req, NULL, &b->r) < 0 ||
        api_rope_run(b->ctx->cache, &b->r, &b->res, &b->pb) < 0) {
        b->failed = 1;
        goto out;
    }
    if (b->r.kinds_listed) { /* as the JSON path's q: a rotation is for one kind of layer */
        api_bin_fail(b, API_PB_INVALID_FIELD, "/layer",
                     "the config's layers differ in RoPE: choose the layer (index) or layer_type "
                     "to rotate for (POST /model/method, or a JSON POST /rope without q, lists "
                     "the kinds)");
        goto out;
    }
    if (b->r.axes) {
        api_bin_fail(b, API_PB_INVALID_FIELD, "/axes",
                     "multi-axis RoPE takes q and k as JSON for now (POST /rope with a JSON body)");
        goto out;
    }
    if ((size_t)b->r.head_dim != first->D) {
        char ptr[8];
        snprintf(ptr, sizeof ptr, "/%s", api_bin_part_names[i]);
        api_bin_fail(b, API_PB_INVALID_FIELD, ptr,
                     "the last axis holds %zu values per head but head_dim is %lld (from %s)",
                     first->D, (long long)b->r.head_dim, b->r.head_dim_o.src);
        goto out;
    }
    /* what the plan holds until the answer is sent counts in the budget like a body: a header
     * of a few hundred bytes can ask for a million positions or 4M numbers of cos / sin */
    json_object_del(b->req, "positions"); /* read into b->r (api_rope_req borrows it not) */
    size_t np = b->r.tpos.n, n = (size_t)b->r.rotary_dim / 2;
    b->plan_bytes = (b->pos_b * first->T + b->r.pos.n + np) * sizeof(int64_t) +
                    (b->res.cos ? 2 * np * n * sizeof(double) : 0) +
                    (b->res.cos_hf ? 4 * np * n * sizeof(double) : 0);
    if (api_bin_hold(b, api_bin_held_now(b)) < 0)
        goto out;
    rc = take_table(b, b->pos_b * first->T);
out:
    json_decref(flat);
    json_decref(empty);
    return rc;
}

/*
 * tests/api/check_model_sinusoidal.c -- POST /model/method for the model types whose positions
 * are a fixed sinusoidal table (api/model_sinusoidal.h): each kind's ready POST /sinusoidal
 * request, sent as it is, gives the table Hugging Face's modeling file builds.
 *
 * Expected values derived by hand from the HF code (not from posenc's output), with d_model 4:
 *   fairseq-style get_embedding / Whisper's sinusoids(): half = 2, increment ln(10000) / (2 - 1),
 *     frequencies exp(0) = 1 and exp(-ln 10000) = 1e-4; a row is [sin p, sin 1e-4 p, cos p,
 *     cos 1e-4 p].
 *   Marian / Pegasus _init_weight: pos / 10000^(2(j//2)/4), so frequencies 1 and 10000^-0.5 =
 *     0.01; sentinel = 2 sines, then 2 cosines: [sin p, sin 0.01 p, cos p, cos 0.01 p].
 * Values: sin 1 = 0.8414709848078965, cos 1 = 0.5403023058681398, sin 2 = 0.9092974268256817,
 * cos 2 = -0.4161468365471424, sin 3 = 0.1411200080598672, cos 3 = -0.9899924966004454,
 * sin 0.01 = 0.009999833334166665, cos 0.01 = 0.9999500004166653,
 * sin 2e-4 = 1.9999999866666667e-4 (x - x^3/6), cos 2e-4 = 0.99999998 (1 - x^2/2),
 * sin 3e-4 = 2.999999955e-4, cos 3e-4 = 0.999999955, sin 1e-4 = 9.999999983333334e-05,
 * cos 1e-4 = 0.999999995.
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "tests/lib/api_util.h"

/* Sends the kind's request (a JSON object) to POST /sinusoidal; the parsed answer. */
static json_t *run_request(const json_t *kind)
{
    ck_assert_str_eq(au_str(kind, "route"), "/sinusoidal");
    char *body = json_dumps(json_object_get(kind, "request"), JSON_COMPACT);
    ck_assert_ptr_nonnull(body);
    int status = 0;
    char *out = au_send(api_sinusoidal, body, &status);
    ck_assert_msg(status == 200, "%s -> %d %s", body, status, out);
    json_t *j = au_parse(out);
    free(out);
    free(body);
    return j;
}

/* Asserts matrix row r of a POST /sinusoidal answer against want[4] (abs 1e-15). */
static void row_is(const json_t *j, int r, const double want[4])
{
    for (int c = 0; c < 4; c++)
        ck_close(au_num(j, "matrix", r, c, -1), want[c], 1e-15, 1e-15);
}

/* M2M100 (NLLB's model type too): token t reads row pad_token_id + 1 + t; with pad 1 the first
 * token is row 2, [sin 2, sin 2e-4, cos 2, cos 2e-4]; the second row 3. Encoder and decoder are
 * two kinds, encoder layers first (2 + 1 = 3 layers). */
START_TEST(test_m2m100_rows_from_padding_idx)
{
    json_t *j =
        au_ok(api_model_method, "{'model_type': 'm2m_100', 'd_model': 4, 'encoder_layers': 2, "
                                "'decoder_layers': 1, 'num_hidden_layers': 2, "
                                "'encoder_attention_heads': 2, 'decoder_attention_heads': 2, "
                                "'max_position_embeddings': 8, 'pad_token_id': 1}");
    ck_assert_int_eq((int)au_num(j, "num_layers", -1, -1, -1), 3);
    const json_t *enc = au_layer_kind(j, 0), *dec = au_layer_kind(j, 2);
    ck_assert_str_eq(au_str(enc, "method"), "sinusoidal");
    ck_assert_str_eq(au_str(enc, "stack"), "encoder");
    ck_assert_str_eq(au_str(dec, "stack"), "decoder");
    ck_assert_ptr_eq(au_layer_kind(j, 1), enc);
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(enc, "parameters"), "offset")), 2);
    /* head_dim 4 / 2 = 2: BartAttention-style scaling 2^-0.5 */
    ck_close(json_real_value(json_object_get(json_object_get(enc, "parameters"), "scale")),
             0.7071067811865476, 0, 1e-15);
    json_t *t = run_request(dec);
    const double r2[4] = {0.9092974268256817, 1.9999999866666667e-4, -0.4161468365471424,
                          0.99999998};
    const double r3[4] = {0.1411200080598672, 2.999999955e-4, -0.9899924966004454, 0.999999955};
    row_is(t, 0, r2);
    row_is(t, 1, r3);
    json_decref(t);
    json_decref(j);
    /* pad_token_id 0: the first token is row 1, [sin 1, sin 1e-4, cos 1, cos 1e-4] */
    j = au_ok(api_model_method, "{'model_type': 'm2m_100', 'd_model': 4, 'num_hidden_layers': 1, "
                                "'max_position_embeddings': 8, 'pad_token_id': 0}");
    t = run_request(au_layer_kind(j, 0));
    const double r1[4] = {0.8414709848078965, 9.999999983333334e-05, 0.5403023058681398,
                          0.999999995};
    row_is(t, 0, r1);
    json_decref(t);
    json_decref(j);
}
END_TEST

/* XGLM: position_ids from 0 plus a fixed offset 2 (not pad_token_id + 1): with pad_token_id 0
 * the first token is still row 2 (not 1). Decoder-only: one kind, no stack. get_embedding zeroes
 * row pad_token_id: with pad_token_id 5 token 3 (row 5) reads zeros in HF, which /sinusoidal does
 * not give: a 422 naming pad_token_id (breaker2; was a 200 whose row 3 HF does not compute; seen
 * failing before the fix: status 200). */
START_TEST(test_xglm_offset_two)
{
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'xglm', 'd_model': 4, 'num_layers': 2, "
                      "'attention_heads': 2, 'max_position_embeddings': 8, 'pad_token_id': 5}",
                      "/pad_token_id", "the row token 3 reads");
    json_t *j = au_ok(api_model_method, "{'model_type': 'xglm', 'd_model': 4, 'num_layers': 2, "
                                        "'attention_heads': 2, 'max_position_embeddings': 8, "
                                        "'pad_token_id': 0}");
    const json_t *k = au_layer_kind(j, 1);
    ck_assert_str_eq(au_str(k, "method"), "sinusoidal");
    ck_assert_ptr_null(json_object_get(k, "stack"));
    json_t *t = run_request(k);
    const double r2[4] = {0.9092974268256817, 1.9999999866666667e-4, -0.4161468365471424,
                          0.99999998};
    row_is(t, 0, r2);
    json_decref(t);
    json_decref(j);
}
END_TEST

/* A table POST /sinusoidal cannot give (rows past 2147483647) is a 422 at the key that moves it
 * there (breaker2: pad_token_id 2147483647 gave a 200 whose request, offset 2147483648, POST
 * /sinusoidal refuses; seen failing before the fix: status 200). */
START_TEST(test_rows_past_int32)
{
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'm2m_100', 'd_model': 8, 'encoder_layers': 1, "
                      "'decoder_layers': 1, 'max_position_embeddings': 16, "
                      "'pad_token_id': 2147483647}",
                      "/pad_token_id", "pass 2147483647");
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'marian', 'd_model': 8, 'encoder_layers': 1, "
                      "'decoder_layers': 1, 'max_position_embeddings': 2147483649}",
                      "/max_position_embeddings", "pass 2147483647");
}
END_TEST

/* Marian and Pegasus: Vaswani's frequencies (second one 0.01, not fairseq's 1e-4), sines then
 * cosines, positions from 0: row 1 is [sin 1, sin 0.01, cos 1, cos 0.01]. */
START_TEST(test_marian_pegasus_vaswani_concat)
{
    static const char *const TYPES[] = {"marian", "pegasus"};
    for (size_t i = 0; i < 2; i++) {
        char body[400];
        snprintf(body, sizeof body,
                 "{'model_type': '%s', 'd_model': 4, 'num_hidden_layers': 1, "
                 "'encoder_layers': 1, 'decoder_layers': 1, 'max_position_embeddings': 8, "
                 "'pad_token_id': 3}",
                 TYPES[i]);
        json_t *j = au_ok(api_model_method, body);
        for (size_t l = 0; l < 2; l++) {
            json_t *t = run_request(au_layer_kind(j, l));
            const double r0[4] = {0.0, 0.0, 1.0, 1.0};
            const double r1[4] = {0.8414709848078965, 0.009999833334166665, 0.5403023058681398,
                                  0.9999500004166653};
            row_is(t, 0, r0);
            row_is(t, 1, r1);
            json_decref(t);
        }
        json_decref(j);
    }
}
END_TEST

/* Whisper: the encoder's sinusoids() from row 0 (row 1 = [sin 1, sin 1e-4, cos 1, cos 1e-4]);
 * the decoder's WhisperPositionalEmbedding is learned (route /learned, offset 0). */
START_TEST(test_whisper_encoder_sinusoids_decoder_learned)
{
    json_t *j = au_ok(api_model_method,
                      "{'model_type': 'whisper', 'd_model': 4, 'num_hidden_layers': 1, "
                      "'encoder_layers': 1, 'decoder_layers': 2, 'encoder_attention_heads': 1, "
                      "'decoder_attention_heads': 1, 'max_source_positions': 6, "
                      "'max_target_positions': 4}");
    ck_assert_int_eq((int)au_num(j, "num_layers", -1, -1, -1), 3);
    const json_t *dec = au_layer_kind(j, 2);
    ck_assert_str_eq(au_str(dec, "method"), "learned_absolute");
    ck_assert_str_eq(au_str(dec, "route"), "/learned");
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(dec, "parameters"), "offset")), 0);
    json_t *t = run_request(au_layer_kind(j, 0));
    ck_assert_int_eq((int)au_num(t, "shape", 0, -1, -1), 6); /* the whole 1500-row table, here 6 */
    const double r1[4] = {0.8414709848078965, 9.999999983333334e-05, 0.5403023058681398,
                          0.999999995};
    row_is(t, 1, r1);
    json_decref(t);
    json_decref(j);
}
END_TEST

/* FSMT and Speech2Text number tokens as M2M100 does (pad_token_id 1 by default: row 2 first). */
START_TEST(test_fsmt_speech_to_text_default_pad)
{
    static const char *const BODIES[] = {
        "{'model_type': 'fsmt', 'd_model': 4, 'num_hidden_layers': 1, "
        "'max_position_embeddings': 8}",
        "{'model_type': 'speech_to_text', 'd_model': 4, 'num_hidden_layers': 1, "
        "'max_source_positions': 8, 'max_target_positions': 8}",
        "{'model_type': 'nllb-moe', 'd_model': 4, 'num_hidden_layers': 1, "
        "'max_position_embeddings': 8}",
    };
    for (size_t i = 0; i < sizeof BODIES / sizeof BODIES[0]; i++) {
        json_t *j = au_ok(api_model_method, BODIES[i]);
        json_t *t = run_request(au_layer_kind(j, 0));
        const double r2[4] = {0.9092974268256817, 1.9999999866666667e-4, -0.4161468365471424,
                              0.99999998};
        row_is(t, 0, r2);
        ck_assert_msg(strstr(au_str(json_object_get(au_layer_kind(j, 0), "sources"), "offset"),
                             "default of") != NULL,
                      "%s", BODIES[i]);
        json_decref(t);
        json_decref(j);
    }
}
END_TEST

/* DistilBERT with sinusoidal_pos_embds: create_sinusoidal_embeddings puts sin(pos / 10000^(2(j//2)
 * / dim)) in the even columns and the cosines in the odd (Vaswani interleaved), rows from 0: with
 * dim 4 row 1 is [sin 1, cos 1, sin 0.01, cos 0.01]. Without the flag it stays a learned table. */
START_TEST(test_distilbert_sinusoidal_pos_embds)
{
    json_t *j = au_ok(api_model_method, "{'model_type': 'distilbert', 'dim': 4, 'n_layers': 2, "
                                        "'n_heads': 2, 'max_position_embeddings': 8, "
                                        "'sinusoidal_pos_embds': true}");
    const json_t *k = au_layer_kind(j, 1);
    ck_assert_str_eq(au_str(k, "method"), "sinusoidal");
    json_t *t = run_request(k);
    const double r1[4] = {0.8414709848078965, 0.5403023058681398, 0.009999833334166665,
                          0.9999500004166653};
    row_is(t, 1, r1);
    json_decref(t);
    json_decref(j);
    j = au_ok(api_model_method, "{'model_type': 'distilbert', 'dim': 4, 'n_layers': 2, "
                                "'n_heads': 2, 'max_position_embeddings': 8, "
                                "'sinusoidal_pos_embds': false}");
    ck_assert_str_eq(au_str(au_layer_kind(j, 0), "method"), "learned_absolute");
    json_decref(j);
    /* POST /rope names the table the flag chooses (breaker2: said "learned absolute position
     * embeddings" with the flag true; seen failing before the fix) */
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'distilbert', 'dim': 4, 'n_heads': 2, "
                      "'sinusoidal_pos_embds': true}, 'positions': [0], 'q': [1, 0]}",
                      "/config/model_type", "a fixed sinusoidal table");
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'distilbert', 'dim': 4, 'n_heads': 2}, "
                      "'positions': [0], 'q': [1, 0]}",
                      "/config/model_type", "learned absolute position embeddings");
}
END_TEST

/* What HF cannot build is a 422 at the key: Whisper's odd width (sinusoids raises), a fairseq
 * table of width 2 (divides by half - 1 = 0), Speech2Text with pad_token_id 0 (every encoder
 * frame would read the zeroed row), no table length. POST /rope names the method. */
START_TEST(test_sinusoidal_refusals)
{
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'whisper', 'd_model': 5, 'num_hidden_layers': 1, "
                      "'max_source_positions': 4, 'max_target_positions': 4}",
                      "/d_model", "odd");
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'm2m_100', 'd_model': 2, 'num_hidden_layers': 1, "
                      "'max_position_embeddings': 4}",
                      "/d_model", "d_model/2 - 1");
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'speech_to_text', 'd_model': 4, 'num_hidden_layers': 1, "
                      "'max_source_positions': 4, 'max_target_positions': 4, 'pad_token_id': 0}",
                      "/pad_token_id", "padding row");
    au_expect_422_msg(api_model_method,
                      "{'model_type': 'marian', 'd_model': 4, 'num_hidden_layers': 1}",
                      "/max_position_embeddings", "required");
    au_expect_422_msg(api_rope,
                      "{'config': {'model_type': 'whisper', 'd_model': 4, "
                      "'encoder_attention_heads': 1}, 'seq_len': 2}",
                      "/config/model_type", "sinusoidal");
}
END_TEST

Suite *model_sinusoidal_suite(void)
{
    Suite *s = suite_create("model_sinusoidal");
    TCase *tc = tcase_create("hf_tables");
    tcase_add_checked_fixture(tc, au_setup, au_teardown);
    tcase_add_test(tc, test_m2m100_rows_from_padding_idx);
    tcase_add_test(tc, test_xglm_offset_two);
    tcase_add_test(tc, test_rows_past_int32);
    tcase_add_test(tc, test_marian_pegasus_vaswani_concat);
    tcase_add_test(tc, test_whisper_encoder_sinusoids_decoder_learned);
    tcase_add_test(tc, test_fsmt_speech_to_text_default_pad);
    tcase_add_test(tc, test_distilbert_sinusoidal_pos_embds);
    tcase_add_test(tc, test_sinusoidal_refusals);
    suite_add_tcase(s, tc);
    return s;
}

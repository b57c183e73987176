/*
 * api/model_sinusoidal.h -- POST /model/method's kinds for the model types whose positions are a
 * fixed sinusoidal table added to the embeddings (encoder-decoder and decoder-only families of
 * Hugging Face transformers), with the POST /sinusoidal request that reproduces HF's table.
 *
 * Each family, as its HF modeling file builds the table (transformers, models/<name>/):
 *   whisper      encoder: sinusoids(max_source_positions, d_model) (modeling_whisper.py):
 *                exp(-k ln(10000) / (d/2 - 1)), [sin | cos], rows from 0 (d odd raises) -> POST
 *                /sinusoidal convention fairseq (the same frequencies, no guard), concat,
 *                offset 0; decoder: WhisperPositionalEmbedding, a learned nn.Embedding from 0.
 *   marian,      MarianSinusoidalPositionalEmbedding._init_weight (Pegasus's is a copy):
 *   pegasus      pos / 10000^(2(j//2)/d), sines in the first ceil(d/2) columns, cosines after,
 *                positions from 0 (arange(past, past + seq)) -> vaswani, concat, offset 0.
 *   m2m_100,     M2M100SinusoidalPositionalEmbedding (NLLB-MoE, Speech2Text copy it; FSMT's
 *   nllb-moe,    SinusoidalPositionalEmbedding is fairseq's): get_embedding = fairseq's
 *   speech_to_text, frequencies, [sin | cos | zero column when d is odd]; the row of token t is
 *   fsmt         padding_idx + 1 + t (create_position_ids_from_input_ids / make_positions,
 *                padding_idx = pad_token_id, class default 1) -> fairseq, concat, offset
 *                pad_token_id + 1.
 *   xglm         XGLMSinusoidalPositionalEmbedding: the same table; position_ids from 0 plus a
 *                fixed offset 2 (forward: position_ids += self.offset) -> fairseq, concat, offset
 *                2, whatever pad_token_id is.
 *   distilbert   with sinusoidal_pos_embds true only (else a learned table): modeling_distilbert.py
 *                create_sinusoidal_embeddings: pos / 10000^(2(j//2)/dim), sines in the even
 *                columns, cosines in the odd; position_ids from 0 -> vaswani, interleaved,
 *                offset 0; the width is `dim`, the heads `n_heads`.
 * Pure but for allocation; thread-safe.
 */
#ifndef API_MODEL_SINUSOIDAL_H
#define API_MODEL_SINUSOIDAL_H

#include <jansson.h>
#include <stdint.h>

#include "api/problem.h"

/* 1 when model_type is one of the families above but distilbert (sinusoidal only with
 * sinusoidal_pos_embds: the caller checks), 0 otherwise (also NULL). */
int api_model_sinusoidal_type(const char *model_type);

/*
 * The kinds of a config cfg (at pointer ptr; sources named from `where`, "config" or
 * "config.text_config") of a sinusoidal family: out[0] the encoder's (or
 * the decoder-only model's) kind, out[1] the decoder's (NULL for xglm), each {"method"
 * ("sinusoidal", or "learned_absolute" for Whisper's decoder), "stack" (encoder-decoder types),
 * "parameters" {d_model, head_dim, base, convention, layout, offset, offset_rule, max_positions},
 * "route", "request" (a POST /sinusoidal body for the model's whole table: seq_len
 * max_positions from row offset), "sources"}; n_out[i] the layers of that stack
 * (encoder_layers / decoder_layers, else n_layers; xglm n_layers). Errors (422 at the key):
 * d_model missing or < 1; the max positions key missing; pad_token_id not an integer >= 0
 * (Speech2Text: 0, which numbers every frame as padding); Whisper with an odd d_model or one
 * below 4 (sinusoids raises / divides by zero); fairseq-style tables with d_model 2 or 3.
 * Returns 0, or -1 with pb filled (503 when out of memory). mt must satisfy
 * api_model_sinusoidal_type, or be distilbert (with sinusoidal_pos_embds true).
 */
int api_mm_sinusoidal_kinds(api_problem *pb, const json_t *cfg, const char *ptr, const char *where,
                            const char *mt, int64_t n_layers, json_t *out[2], int64_t n_out[2]);

#endif

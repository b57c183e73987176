// tests/typed-client/good.ts -- correct bodies: they must compile against the generated types
// and the live daemon must answer each with 200 (run.mjs runs the compiled file with
// POSENC_URL). Optional fields with defaults (base, num_buckets, ...) are left out on purpose.
import type { components } from './api.js';
import { post, postNpy, type Answer } from './client.js';

// The 200 JSON answer is the response schema itself, not a union with the .npy string.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const ropeIsJson: Exact<Answer<'/rope'>, components['schemas']['RopeResponse']> = true;
const notString: string extends Answer<'/sinusoidal'> ? false : true = true;
void ropeIsJson;
void notString;

const base = process.env.POSENC_URL ?? 'http://127.0.0.1:0';
const results: string[] = [];
const check = (name: string, ok: boolean, what: string) => {
  results.push(`${ok ? 'ok' : 'FAIL'} ${name}: ${what}`);
};

// /rope: the lesson's 0.5 rad per position (scores -1.5058433946987837 at q 2, k 0).
const rope = await post(base, '/rope', {
  head_dim: 2,
  inv_freq: [0.5],
  q: [1, 2],
  k: [3, 1],
  q_positions: [2],
  k_positions: [0],
});
check('rope lesson', rope.scores?.[0]?.[0] === -1.5058433946987837, `scores ${JSON.stringify(rope.scores)}`);

// /rope with a scaling variant picked by rope_type alone (a Hugging Face rope_scaling object).
const llama = await post(base, '/rope', {
  head_dim: 128,
  rope_theta: 500000,
  rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
});
check('rope llama3', llama.inv_freq?.length === 64 && llama.inv_freq[0] === 1, `inv_freq[0] ${llama.inv_freq?.[0]}, ${llama.inv_freq?.length} pairs`);

// /rope from a pasted config.
const cfg = await post(base, '/rope', { config: { model_type: 'llama', hidden_size: 64, num_attention_heads: 4 } });
check('rope config', cfg.inv_freq?.length === 8, `${cfg.inv_freq?.length} pairs from hidden_size 64 / 4 heads`);

// /sinusoidal: d_model 4 at position 4 = [sin 4, cos 4, sin 0.04, cos 0.04].
const sin = await post(base, '/sinusoidal', { d_model: 4, positions: [4] });
check('sinusoidal', sin.matrix[0][0] === Math.sin(4) && sin.shape[1] === 4, `row ${JSON.stringify(sin.matrix[0])}`);

// /alibi: 2 heads (slopes 2^-4, 2^-8 by Press et al.'s rule for a power of 2).
const alibi = await post(base, '/alibi', { num_heads: 2, seq_len: 3 });
check('alibi', alibi.slopes[0] === 0.0625 && alibi.slopes[1] === 0.00390625, `slopes ${JSON.stringify(alibi.slopes)}`);

// /t5/buckets: relative position 0 is bucket 0, -1 bucket 1 (bidirectional, 32 buckets).
const t5 = await post(base, '/t5/buckets', { relative_positions: [0, -1, 1] });
check('t5 buckets', JSON.stringify(t5.buckets) === '[0,1,17]', `buckets ${JSON.stringify(t5.buckets)}`);

// /attention with method rope, its settings typed as the rope object.
const att = await post(base, '/attention', { q: [[1, 0]], k: [[1, 0]], method: 'rope', rope: { base: 10000 } });
check('attention rope', att.weights.length === 1, `weights ${JSON.stringify(att.weights)}`);

// The .npy answer of the same /sinusoidal body: the magic \x93NUMPY.
const npy = new Uint8Array(await postNpy(base, '/sinusoidal', { d_model: 4, positions: [4] }));
check('sinusoidal .npy', npy[0] === 0x93 && String.fromCharCode(...npy.slice(1, 6)) === 'NUMPY', `${npy.length} bytes`);

for (const r of results) console.log(r);
process.exitCode = results.every((r) => r.startsWith('ok')) ? 0 : 1;

// Browser test of the config box (section 4): a pasted config.json → POST /model/method → the method of every
// layer drawn as a strip, then the selected kind's numbers from the route the answer names, sent with the
// answer's ready request. Every expectation is recomputed from direct API calls of the same requests.
//
// Configs: BERT, BLOOM, T5, Llama 3.1, Gemma 3 (the multimodal wrapper) from tests/vectors/configs; MPT and
// Phi-3 written here in the published files' shape (the corpus has no file of either): MPT-7B's position keys
// (attn_config.alibi, n_heads 32, n_layers 32), Phi-3-mini-128k's (head_dim 3072/32 = 96, longrope with 48-entry
// short/long lists, original 4096 of 131072; the long list here is made up, rising from 1 to 51).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useDaemon, ROOT, DESKTOP, PHONE, ART, open, settle, assertClean, assertChartsBundled, post } from './lib.mjs';

useDaemon();

const corpus = (name) => fs.readFileSync(path.join(ROOT, 'tests', 'vectors', 'configs', name + '.json'), 'utf8');
const MPT = { architectures: ['MPTForCausalLM'], model_type: 'mpt', d_model: 4096, n_heads: 32, n_layers: 32,
    max_seq_len: 2048, attn_config: { alibi: true, alibi_bias_max: 8, attn_type: 'multihead_attention' } };
const PHI3 = { architectures: ['Phi3ForCausalLM'], model_type: 'phi3', hidden_size: 3072, num_attention_heads: 32,
    num_key_value_heads: 32, num_hidden_layers: 32, max_position_embeddings: 131072,
    original_max_position_embeddings: 4096, rope_theta: 10000.0, sliding_window: 262144,
    rope_scaling: { type: 'longrope', short_factor: Array(48).fill(1),
        long_factor: Array.from({ length: 48 }, (_, j) => +(1 + 50 * (j / 47) ** 2).toFixed(4)) } };

/** Pastes `text`, presses Compute, waits; returns the direct /model/method answer for the same config. */
async function paste(page, text) {
    await page.locator('#cfg-text').fill(text);
    await page.locator('#cfg-run').click();
    await settle(page);
    return post('/model/method', { config: JSON.parse(text) });
}

/** The strip as drawn: one [kind, method] per layer. */
const strip = (page) => page.$$eval('#cfg-strip .layer', (els) => els.map((e) => [+e.dataset.kind, e.dataset.method]));

/** The drawn strip, kind buttons and model line agree with the API's answer `m`. */
async function checkMethod(page, m) {
    const box = page.locator('[data-testid="cfg-method"]');
    assert.equal(await box.getAttribute('data-model-type'), m.model_type);
    assert.equal(await box.getAttribute('data-layers'), String(m.num_layers));
    assert.deepEqual(await strip(page), m.layers.map((k) => [k, m.kinds[k].method]));
    const kinds = await page.$$eval('#cfg-kinds button', (els) => els.map((e) => [e.dataset.method, e.dataset.variant]));
    assert.deepEqual(kinds, m.kinds.map((k) => [k.method, k.variant || '']));
}

const series = (page) => page.locator('#cfg-chart').evaluate((el) =>
    window.echarts.getInstanceByDom(el).getOption().series.map((s) => s.data.map((d) => (d.value || d))));
const cell = async (page, k) => (await page.locator(`[data-testid="cfg-${k}"]`).textContent()).trim();
const visible = (page, sel) => page.locator(sel).isVisible();

test('config box: every layer\'s method, each kind drawn from its route', { timeout: 240000 }, async () => {
    const s = await open('en-US', DESKTOP);
    const { page } = s;
    s.expect('/learned', 422); // section 3 asks for row 599 of a 512-row table on purpose
    try {
        // BERT: one learned kind; no route to call (the table is the model's weights): parameters and a note
        let m = await paste(page, corpus('bert_base_uncased'));
        await checkMethod(page, m);
        assert.deepEqual(m.kinds.map((k) => k.method), ['learned_absolute']);
        assert.equal(await strip(page).then((x) => x.length), 12);
        assert.equal(await cell(page, 'max_position_embeddings'), '512');
        assert.equal(await cell(page, 'offset'), '0');
        assert.equal(await visible(page, '#cfg-chart'), false, 'a learned kind draws no chart');
        assert.equal(await visible(page, '#cfg-len-row'), false, 'no length field for a learned table');
        assert.equal(await page.locator('#cfg-note').getAttribute('data-method'), 'learned_absolute');

        // BLOOM: ALiBi, a length field (seq_len); one line per head, the bias of the last query to each key
        for (const [text, nh, nl] of [[corpus('bloom_3b'), 32, 30], [JSON.stringify(MPT), 32, 32]]) {
            m = await paste(page, text);
            await checkMethod(page, m);
            assert.deepEqual(m.kinds.map((k) => k.method), ['alibi']);
            assert.equal(m.layers.length, nl);
            assert.equal(await visible(page, '#cfg-len-row'), true);
            for (const len of [1024, 100]) {
                if (len !== 1024) {
                    await page.locator('#cfg-len').fill(String(len));
                    await page.locator('#cfg-len').dispatchEvent('change');
                    await settle(page);
                }
                assert.equal(await page.locator('#cfg-len').inputValue(), String(len));
                const keys = [];
                const step = Math.max(1, Math.ceil((len - 1) / 255));
                for (let p = 0; p < len - 1; p += step)
                    keys.push(p);
                keys.push(len - 1);
                const want = await post('/alibi', { ...m.kinds[0].request, query_positions: [len - 1],
                    key_positions: keys, include_bias: true });
                const got = await series(page);
                assert.equal(got.length, nh, 'one line per head');
                got.forEach((sr, hd) => assert.deepEqual(sr, keys.map((kp, j) => [kp, want.bias[hd][0][j]])));
                // what the summary says: bias = −slope × distance (head 1 at key 0)
                assert.equal(got[0][0][1], -want.slopes[0] * (len - 1));
                assert.equal(await cell(page, 'seq_len'), String(len));
            }
        }

        // T5: two kinds (encoder both directions, decoder causal); buckets of −L … L from /t5/buckets
        m = await paste(page, corpus('t5_small'));
        await checkMethod(page, m);
        assert.deepEqual(m.kinds.map((k) => k.stack), ['encoder', 'decoder']);
        assert.equal(await page.locator('#cfg-len').inputValue(), '256'); // 2 × max_distance 128
        for (const ki of [0, 1]) {
            if (ki === 1) {
                await page.locator('#cfg-kinds button[data-kind="1"]').click();
                await settle(page);
            }
            const [[pts]] = [await series(page)];
            const rel = pts.map((p) => p[0]);
            assert.equal(rel[0], -256);
            assert.equal(rel[rel.length - 1], 256);
            assert.ok(rel.length <= 511);
            const want = await post('/t5/buckets', { ...m.kinds[ki].request, relative_positions: rel });
            assert.deepEqual(pts.map((p) => p[1]), want.buckets);
            assert.equal(await cell(page, 'bidirectional'), String(ki === 0));
            // the summary's claim: from max_distance on, one bucket per direction
            const far = (sign) => new Set(pts.filter((p) => sign * p[0] >= 128).map((p) => p[1]));
            assert.equal(far(1).size, 1);
            assert.equal(far(-1).size, 1);
            if (ki === 1)
                assert.deepEqual([...far(1)], [0], 'causal: every key after the query is bucket 0');
        }

        // Llama 3.1: one RoPE kind, variant llama3, no length field; bands equal /rope with the ready request
        m = await paste(page, corpus('llama3.1_8b'));
        await checkMethod(page, m);
        assert.equal(m.kinds[0].variant, 'llama3');
        assert.equal(await visible(page, '#cfg-len-row'), false);
        assert.equal(await cell(page, 'scaling.type'), 'llama3');
        // every scaling parameter shown, with its value from the answer (the table had only factor
        // and the original length)
        for (const [k, v] of [['factor', '8'], ['low_freq_factor', '1'], ['high_freq_factor', '4'],
            ['original_max_position_embeddings', '8192']])
            assert.equal(await cell(page, 'scaling.' + k), v, k);
        let r = await post('/rope', { ...m.kinds[0].request, include: ['bands'] });
        let got = await series(page);
        assert.deepEqual(got[1].map((p) => p[1]), r.bands.map((b) => b.wavelength));

        // Gemma 3 (wrapper): text_config followed; sliding layers default base 10,000, global layers linear × 8
        m = await paste(page, corpus('gemma3_12b_it'));
        await checkMethod(page, m);
        assert.equal(m.text_config, 'config.text_config');
        assert.equal(m.kinds.length, 2);
        await page.locator('#cfg-kinds button[data-kind="1"]').click();
        await settle(page);
        assert.equal(await page.locator('#cfg-kinds button[data-kind="1"]').getAttribute('aria-pressed'), 'true');
        assert.equal(await cell(page, 'scaling.type'), 'linear');
        assert.equal(await cell(page, 'base'), '1000000');
        r = await post('/rope', { ...m.kinds[1].request, include: ['bands'] });
        got = await series(page);
        assert.deepEqual(got[1].map((p) => p[1]), r.bands.map((b) => b.wavelength));
        assert.equal(await page.locator('#cfg-strip .layer.on').count(), m.kinds[1].layers.length);

        // Phi-3: longrope needs a length; the field starts at max_position_embeddings (long list) and 4096 gives
        // the short list (all 1 here: every pair as in plain RoPE)
        m = await paste(page, JSON.stringify(PHI3));
        await checkMethod(page, m);
        assert.equal(m.kinds[0].variant, 'longrope');
        assert.equal(await page.locator('#cfg-len').inputValue(), '131072');
        for (const len of [131072, 4096]) {
            if (len !== 131072) {
                await page.locator('#cfg-len').fill(String(len));
                await page.locator('#cfg-len').dispatchEvent('change');
                await settle(page);
            }
            r = await post('/rope', { ...m.kinds[0].request, include: ['bands'], seq_len: len });
            got = await series(page);
            assert.deepEqual(got[1].map((p) => p[1]), r.bands.map((b) => b.wavelength), `seq_len ${len}`);
            assert.equal(got[1].length, 48);
        }
        assert.deepEqual(got[1].map((p) => p[1]), got[0].map((p) => p[1]), 'short factors of 1: plain RoPE');
        await page.addStyleTag({ content: '.top { position: static !important; }' });
        await page.locator('#cfg').screenshot({ path: path.join(ART, 'en-1280x800-cfg-phi3.png') });

        // an error clears the previous model's strip, table and chart
        s.expect('/model/method', 422);
        await page.locator('#cfg-text').fill('{"model_type": "llama", "head_dim": 64}');
        await page.locator('#cfg-run').click();
        await settle(page);
        const err = page.locator('[data-testid="cfg-error"]');
        assert.equal(await err.isVisible(), true);
        assert.match(await err.textContent(), /\/config\/num_hidden_layers/);
        assert.equal(await page.locator('#cfg-strip .layer').count(), 0);
        assert.equal(await page.locator('#cfg-resolved tr').count(), 0);
        assert.equal(await visible(page, '#cfg-chart'), false);
        await assertChartsBundled(s.page);
        assertClean(s);
    } finally {
        await s.close();
    }
});

test('config box in Korean on a phone: T5 and BLOOM drawn, errors in Korean', { timeout: 180000 }, async () => {
    const s = await open('ko-KR', PHONE);
    const { page } = s;
    s.expect('/learned', 422); // section 3 asks for row 599 of a 512-row table on purpose
    try {
        let m = await paste(page, corpus('t5_small'));
        await checkMethod(page, m);
        assert.match(await page.locator('#cfg-kinds').textContent(), /인코더, 양방향/);
        await page.addStyleTag({ content: '.top { position: static !important; }' });
        await page.locator('#cfg').screenshot({ path: path.join(ART, 'ko-390x844-cfg-t5.png') });
        m = await paste(page, corpus('bloom_3b'));
        await checkMethod(page, m);
        const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(over <= 0, `horizontal overflow ${over}px`);
        s.expect('/model/method', 422);
        await page.locator('#cfg-text').fill('{"model_type": "made_up", "num_hidden_layers": 2}');
        await page.locator('#cfg-run').click();
        await settle(page);
        const err = (await page.locator('[data-testid="cfg-error"]').textContent()).trim();
        assert.match(err, /서버가 요청을 거절했습니다: \/config\/model_type 항목/); // an unknown model_type is named
        assert.doesNotMatch(err, /none of|required|must/i, err);
        assert.equal(await page.locator('#cfg-strip .layer').count(), 0, 'the previous model\'s strip is cleared');
        await assertChartsBundled(s.page);
        assertClean(s);
    } finally {
        await s.close();
    }
});

// Hybrid models (POST /model/method's `mixer`): layers without positions are not all attention. Jamba-1.5-Mini has
// 28 Mamba layers (mixer "mamba") and 4 attention layers without positions (mixer "attention"); RecurrentGemma's
// recurrent blocks (mixer "recurrent") have no attention at all. Each none kind's button names its mixer and its
// note says what the layer is: the attention note ("their attention sees order only through ...") belongs to
// NoPE attention only. Seen failing before web/js/config.js read `mixer` (both Jamba buttons "No position", one
// note for all).
const RGEMMA = { model_type: 'recurrent_gemma', num_hidden_layers: 5, hidden_size: 2560, num_attention_heads: 10,
    head_dim: 256 };
const NAS_ATT = { attention: { n_heads_in_group: 8, no_op: false, replace_with_linear: false }, ffn: { no_op: false } };
const NAS = { model_type: 'nemotron-nas', architectures: ['DeciLMForCausalLM'], num_hidden_layers: 5, hidden_size: 8192,
    num_attention_heads: 64, rope_theta: 500000.0, max_position_embeddings: 131072,
    rope_scaling: { factor: 16.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192,
        rope_type: 'llama3' },
    block_configs: [NAS_ATT, { attention: { no_op: true }, ffn: { no_op: false } },
        { attention: { no_op: true }, ffn: { no_op: true } },
        { attention: { no_op: false, replace_with_linear: true }, ffn: { no_op: false } }, NAS_ATT] };
test('config box: layers without positions named by their mixer (Jamba, RecurrentGemma, Nemotron-NAS), en and ko',
    { timeout: 180000 }, async () => {
        for (const [lang, mamba, attn, rec, attnNote, ident] of [
            ['en-US', /No position \(Mamba\)/, /No position \(attention\)/, /No position \(recurrent\)/, /their attention/,
                /\(identity: no attention, no FFN\)/],
            ['ko-KR', /위치 없음 \(Mamba\)/, /위치 없음 \(어텐션\)/, /위치 없음 \(순환\)/, /어텐션은/, /\(항등: 어텐션·FFN 없음\)/]]) {
            const s = await open(lang, DESKTOP);
            const { page } = s;
            s.expect('/learned', 422); // section 3 asks for row 599 of a 512-row table on purpose
            try {
                let m = await paste(page, corpus('jamba_1.5_mini'));
                await checkMethod(page, m);
                assert.deepEqual(m.kinds.map((k) => k.mixer), ['mamba', 'attention']);
                const buttons = page.locator('#cfg-kinds button');
                assert.match(await buttons.nth(0).textContent(), mamba);
                assert.match(await buttons.nth(1).textContent(), attn);
                assert.equal(await buttons.nth(0).getAttribute('data-mixer'), 'mamba');
                // the strip tells the two apart: Mamba layers (0) hatched, NoPE attention (4: attn_layer_offset)
                // solid grey, each button's dot drawn as its layers are (seen failing with one grey for both)
                const bg = (sel) => page.locator(sel).evaluate((e) => {
                    const c = getComputedStyle(e);
                    return `${c.backgroundColor} ${c.backgroundImage}`;
                });
                const [cell0, cell4] = [await bg('#cfg-strip .layer >> nth=0'), await bg('#cfg-strip .layer >> nth=4')];
                assert.match(cell0, /repeating-linear-gradient/, 'a Mamba layer is hatched');
                assert.doesNotMatch(cell4, /gradient/, 'a NoPE attention layer is solid grey');
                assert.equal(await bg('#cfg-kinds button >> nth=0 >> .dot'), cell0);
                assert.equal(await bg('#cfg-kinds button >> nth=1 >> .dot'), cell4);
                await page.locator('#cfg-strip').screenshot({ path: path.join(ART, `${lang}-cfg-jamba-strip.png`) });
                const note = async (i) => {
                    await buttons.nth(i).click();
                    await settle(page);
                    return (await page.locator('#cfg-note').textContent()).trim();
                };
                assert.doesNotMatch(await note(0), attnNote, 'Mamba layers have no attention');
                assert.match(await note(0), /Mamba/);
                assert.match(await note(1), attnNote);
                m = await paste(page, JSON.stringify(RGEMMA));
                await checkMethod(page, m);
                assert.equal(m.kinds[0].mixer, 'recurrent');
                assert.match(await buttons.nth(0).textContent(), rec);
                assert.doesNotMatch(await note(0), attnNote, 'recurrent blocks have no attention');
                // Nemotron-NAS: layers whose attention is a no_op are MLP-only (mixer mlp) or, with a no-op FFN too,
                // identity layers (mixer none; 81 of Ultra-253B's 162): named, and neither gets the attention note
                m = await paste(page, JSON.stringify(NAS));
                await checkMethod(page, m);
                assert.deepEqual(m.kinds.map((k) => k.mixer), [undefined, 'mlp', 'none', 'linear']);
                const iNone = 2;
                assert.match(await buttons.nth(iNone).textContent(), ident);
                assert.doesNotMatch(await note(iNone), attnNote, 'identity layers have no attention');
                assertClean(s);
            } finally {
                await s.close();
            }
        }
    });

// Multi-axis RoPE (Qwen2.5-VL's mrope_section, Qwen3-VL's interleaved one): /rope has no `bands` for several axes
// (a 422 at /include/0), so the box asked for them and showed only the error (seen failing: "include \"bands\" is
// 1-D only"). Now the kind's own request: each pair's inv_freq drawn in its axis's series (t, h, w) as pair_axis
// says, the sections in the table; en and ko.
test('config box: M-RoPE kinds drawn per axis (Qwen3-VL, Qwen2.5-VL), en and ko', { timeout: 180000 }, async () => {
    for (const [lang, note] of [['en-US', /time \(t\), height \(h\) and width \(w\)/], ['ko-KR', /시간\(t\)·높이\(h\)·너비\(w\)/]]) {
        const s = await open(lang, DESKTOP);
        const { page } = s;
        s.expect('/learned', 422); // section 3 asks for row 599 of a 512-row table on purpose
        try {
            for (const [name, type, sections] of [['qwen3_vl_8b_instruct', 'mrope_interleaved', '[24, 20, 20]'],
                ['qwen2.5_vl_7b_instruct', 'mrope', '[16, 24, 24]']]) {
                const m = await paste(page, corpus(name));
                await checkMethod(page, m);
                assert.equal(m.kinds[0].variant, type);
                assert.equal(await visible(page, '[data-testid="cfg-error"]'), false, name);
                assert.equal(await cell(page, 'axes.type'), type);
                assert.equal(await cell(page, 'axes.sections'), sections);
                const r = await post('/rope', m.kinds[0].request);
                const got = await series(page);
                assert.equal(got.length, 3);
                got.forEach((pts, a) => {
                    assert.ok(pts.length > 0, `axis ${a} has pairs`);
                    for (const [j, f] of pts) {
                        assert.equal(r.pair_axis[j], a, `pair ${j}`);
                        assert.equal(f, r.inv_freq[j], `pair ${j}`);
                    }
                });
                assert.equal(got.flat().length, r.inv_freq.length, 'every pair drawn once');
                assert.match(await page.locator('#cfg-note').textContent(), note);
            }
            await page.addStyleTag({ content: '.top { position: static !important; }' });
            await page.locator('#cfg').screenshot({ path: path.join(ART, `${lang}-cfg-qwen25vl.png`) });
            await assertChartsBundled(s.page);
            assertClean(s);
        } finally {
            await s.close();
        }
    }
});

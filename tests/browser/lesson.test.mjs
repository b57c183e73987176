// Browser test: the lesson's worked steps, live on the page and equal to the API (issue 18, item 2).
//
// The cross term 5·0.540 + (−5)·0.841 ≈ −1.506; ALiBi's biased scores (0.5, 0, 2.5, 2) before softmax;
// PE(p + k) = M·PE(p) with M read off PE(k); the complex / rotate_half forms in both pair layouts and the
// preserved length; the three "바로잡기" boxes; the exercises in the lesson's order 1-4, exercise 2 done with
// its widget, exercise 4 unanswered until asked; the glossary. Each value is recomputed by a direct API call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useDaemon, DESKTOP, open, settle, assertClean, post, near, expectNum } from './lib.mjs';

useDaemon();

const val = async (page, id) => Number(await page.locator(`[data-testid="${id}"]`).getAttribute('data-value'));
const txt = async (page, sel) => (await page.locator(sel).textContent()).replace(/\u2212/g, '-').replace(/\s+/g, ' ');

async function checkCross(page) {
    // (m, n) = (2, 0): Δ = (m − n)θ = 1 rad
    await page.locator('[data-mn="2,0"]').click();
    await settle(page);
    const one = await post('/rope', { head_dim: 2, inv_freq: [0.5], positions: [2], include: ['cos_sin'] });
    const cos1 = one.cos[0][0], sin1 = one.sin[0][0];
    near(cos1, Math.cos(1), 1e-15, 'cos 1 from the API');
    near(sin1, Math.sin(1), 1e-15, 'sin 1 from the API');
    near(await val(page, 'cross-cos'), cos1, 1e-15, 'cos shown');
    near(await val(page, 'cross-sin'), sin1, 1e-15, 'sin shown');
    assert.equal(await val(page, 'cross-dot'), 5); // 1·3 + 2·1
    assert.equal(await val(page, 'cross-cross'), -5); // 1·1 − 2·3
    const score = (await post('/rope', { head_dim: 2, inv_freq: [0.5], q: [1, 2], k: [3, 1], q_positions: [2],
        k_positions: [0] })).scores[0][0];
    assert.equal(await val(page, 'cross-score'), score);
    near(await val(page, 'cross-sum'), score, 1e-12, 'the cross-term sum is the rotated score');
    const t = await txt(page, '#rope-cross');
    assert.ok(t.includes('5 × 0.540 + (-5) × 0.841 ≈ -1.506'), t);
}

async function checkBiased(page) {
    const r = await post('/alibi', { num_heads: 1, slopes: [0.5], query_positions: [3], key_positions: [0, 1, 2, 3] });
    // scores (2, 1, 3, 2) + bias −½·(3, 2, 1, 0) = (0.5, 0, 2.5, 2)
    const want = [2, 1, 3, 2].map((s, k) => s + r.bias[0][0][k]);
    assert.deepEqual(want, [0.5, 0, 2.5, 2]);
    for (const [k, v] of want.entries())
        assert.equal(await val(page, `bars-s1-k${k}`), v, `biased score ${k}`);
    for (const [k, v] of ['0.500', '0.000', '2.500', '2.000'].entries())
        await expectNum(page, `bars-s1-k${k}`, v);
    for (const [k, v] of [2, 1, 3, 2].entries())
        assert.equal(await val(page, `bars-s0-k${k}`), v, `raw score ${k}`);
}

async function checkLinear(page) {
    for (const [p, k] of [[3, 2], [7, 11]]) {
        await page.locator('#lin-p').fill(String(p));
        await page.locator('#lin-k').fill(String(k));
        await settle(page);
        const m = (await post('/sinusoidal', { d_model: 4, positions: [p, k, p + k] })).matrix;
        for (let i = 0; i < 4; i++) {
            assert.equal(await val(page, `lin-pe-${i}`), m[0][i]);
            assert.equal(await val(page, `lin-pek-${i}`), m[2][i]);
            near(await val(page, `lin-mpe-${i}`), m[2][i], 1e-12, `M·PE(${p}) = PE(${p + k}) at ${i}`);
        }
        // M's blocks are PE(k)'s (sin, cos) pairs: [[cos, sin], [−sin, cos]]
        for (const j of [0, 1]) {
            const sk = m[1][2 * j], ck = m[1][2 * j + 1];
            assert.equal(await val(page, `lin-m-${2 * j}-${2 * j}`), ck);
            assert.equal(await val(page, `lin-m-${2 * j}-${2 * j + 1}`), sk);
            assert.equal(await val(page, `lin-m-${2 * j + 1}-${2 * j}`), -sk);
            assert.equal(await val(page, `lin-m-${2 * j + 1}-${2 * j + 1}`), ck);
        }
        assert.equal(await val(page, 'lin-m-0-2'), 0);
    }
}

async function checkLayouts(page) {
    await page.locator('#lay-p').fill('3');
    await settle(page);
    const body = (layout) => ({ head_dim: 4, base: 100, layout, q: [1, 2, 3, 4], k: [1, 2, 3, 4], q_positions: [3],
        k_positions: [3] });
    const il = await post('/rope', body('interleaved')), hf = await post('/rope', body('half'));
    let differ = 0;
    for (let i = 0; i < 4; i++) {
        assert.equal(await val(page, `lay-il-${i}`), il.q_rotated[0][i]);
        assert.equal(await val(page, `lay-hf-${i}`), hf.q_rotated[0][i]);
        differ += Math.abs(il.q_rotated[0][i] - hf.q_rotated[0][i]) > 1e-3;
    }
    assert.ok(differ >= 3, 'the two layouts give different vectors');
    // interleaved: pair 0 is (q₀, q₁) turned by 3·θ₀ = 3 rad; half: pair 0 is (q₀, q₂)
    near(il.q_rotated[0][0], Math.cos(3) - 2 * Math.sin(3), 1e-12, 'interleaved x₀');
    near(hf.q_rotated[0][0], Math.cos(3) - 3 * Math.sin(3), 1e-12, 'half x₀');
    for (const id of ['q', 'il', 'hf'])
        near(await val(page, `lay-norm-${id}`), Math.sqrt(30), 1e-12, `|q| ${id}`);
    const t = await txt(page, '#lay-forms');
    assert.match(t, /rotate_half\(q\) = \(-3, -4, 1, 2\)/);
    assert.match(t, /z₀ = 1\.000 \+ 2\.000i/);
}

async function checkFixes(page, lang) {
    const ko = lang === 'ko';
    assert.match(await txt(page, '#fix-particles'), ko ? /바로잡기.*조사가 다릅니다/ : /correction.*particles/);
    // wavelength: at d_model 64, base 10000 the slowest pair's is 2π·10000^(62/64) < 2π·10000
    const wl = await val(page, 'fix-wave-wl');
    const bands = (await post('/rope', { head_dim: 64, base: 10000, include: ['bands'] })).bands;
    assert.equal(wl, bands[31].wavelength);
    near(wl, 2 * Math.PI * 10000 ** (62 / 64), 1e-6, 'slowest wavelength at d 64');
    assert.ok(wl < 2 * Math.PI * 10000);
    assert.match(await txt(page, '#fix-wave'), ko ? /바로잡기.*극한/ : /correction.*limit/);
    assert.match(await txt(page, '#fix-alibi'), ko ? /바로잡기.*2의 거듭제곱일 때만/ : /correction.*power of two/);
    await page.locator('#fix-alibi-12').click();
    await settle(page);
    assert.equal(await page.locator('#slopes-chart').getAttribute('data-heads'), '12');
}

async function checkExercises(page) {
    const order = await page.$$eval('#ex .exercise', (els) => els.map((e) => e.id));
    assert.deepEqual(order, ['ex1', 'ex2', 'ex3', 'ex4'], 'exercises in the lesson\'s order');
    const all = await page.$$eval('.exercise', (els) => els.map((e) => e.id));
    assert.deepEqual(all, ['ex1', 'ex2', 'ex3', 'ex4'], 'no exercise elsewhere');
    assert.equal((await page.locator('[data-testid="ex4-message"]').textContent()).trim(), '');
    // exercise 2 with its widget: m = 10, n = 4 by keyboard
    await page.locator('#ex2-m').focus();
    for (let i = 0; i < 10; i++)
        await page.keyboard.press('ArrowRight');
    await page.locator('#ex2-n').focus();
    for (let i = 0; i < 4; i++)
        await page.keyboard.press('ArrowRight');
    await settle(page);
    const ro = page.locator('[data-testid="ex2-readout"]');
    const want = (await post('/rope', { head_dim: 2, inv_freq: [0.5], q: [1, 0], k: [1, 0], q_positions: [10],
        k_positions: [4] })).scores[0][0];
    assert.equal(Number(await ro.getAttribute('data-value')), want);
    near(want, Math.cos(3), 1e-15, 'cos 3');
    assert.match((await ro.textContent()).replace(/\u2212/g, '-'), /-0\.990/);
    const terms = await page.$$eval('#terms-list dd', (els) => els.map((e) => e.dataset.testid));
    assert.equal(terms.length, 14);
}

for (const [lang, locale] of [['ko', 'ko-KR'], ['en', 'en-US']]) {
    test(`${lang}: the lesson's worked steps, corrections, exercises and glossary`, { timeout: 120000 }, async () => {
        const s = await open(locale, DESKTOP);
        try {
            s.expect('/learned', 422);
            const { page } = s;
            await checkExercises(page);
            await checkCross(page);
            await checkBiased(page);
            await checkLinear(page);
            await checkLayouts(page);
            await checkFixes(page, lang);
            assertClean(s);
        } finally {
            await s.close();
        }
    });
}

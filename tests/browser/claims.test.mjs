// Browser test: every explanation of the teaching demo is true of the chart next to it. Each claim is
// recomputed here from direct API calls (not read from the page) and the page's text must say the same.
//
//  - RoPE decay: the thick curve is RoFormer's normalised Σ|S_j|, no bound on the score: the page counts the
//    distances where mean_cos lies above it and names the first negative distance (or says there is none);
//  - scaling panel: the legend gives each class's slow-down range, plain inv_freq / scaled inv_freq; the angle
//    budget counts the pairs that meet angles unseen in training, without and with the scaling;
//  - ALiBi slopes: a power of two is one geometric sequence; otherwise two interleaved ones (12 heads:
//    1/2 … 1/256, then 2^(−1/2), 2^(−3/2), … — the 0.707 bar after 0.004).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useDaemon, DESKTOP, open, settle, assertClean, post, shownBodies } from './lib.mjs';

useDaemon();

/** The distances the decay chart requests up to `max` (256, 1024, 4096): 0, step, …, max, at most 1025 of them. */
const decayDistances = (max) => {
    const step = Math.max(1, Math.ceil(max / 1024));
    return Array.from({ length: max / step + 1 }, (_, i) => i * step);
};

const text = async (page, id) => (await page.locator(`[data-testid="${id}"]`).textContent()).replace(/\u2212/g, '-');
const attr = (page, id, a) => page.locator(`[data-testid="${id}"]`).getAttribute(a);
/** The page's 3-significant-digit form of a number (fmtSig(x, 3) for 1e-3 ≤ |x| < 1e6). */
const sig3 = (x) => String(Number(x.toPrecision(3)));

async function checkDecay(page, lang) {
    const note = (await page.locator('[data-i18n-html="decay.note"]').textContent()).replace(/\s+/g, ' ');
    // the old note called the thick curve a bound no q, k exceeds; it is none
    assert.doesNotMatch(note, lang === 'ko' ? /넘지 않는 점수의 상한/ : /upper bound on the score over all/);
    assert.match(note, lang === 'ko' ? /상한이 아닙니다/ : /not a bound on the score/);
    for (const max of [4096, 256, 1024]) {
        await page.locator('#decay-max').selectOption(String(max));
        await settle(page);
        const body = { head_dim: 128, base: 10000, include: ['decay'], distances: decayDistances(max) };
        const d = (await post('/rope', body)).decay;
        const above = d.filter((e) => e.mean_cos > e.upper_bound).length;
        const neg = d.find((e) => e.mean_cos < 0);
        assert.equal(await attr(page, 'decay-live', 'data-above'), String(above), `above at ${max}`);
        assert.equal(await attr(page, 'decay-live', 'data-n'), String(d.length));
        assert.equal(await attr(page, 'decay-live', 'data-neg'), neg ? String(neg.distance) : '');
        const live = await text(page, 'decay-live');
        assert.ok(live.includes(`${above}`) && live.includes(`${d.length}`), live);
        assert.ok(live.includes(neg ? `r = ${neg.distance}` : `r = ${max}`), live);
        // the claims themselves at head_dim 128, base 10000: the "bound" is exceeded at 250 of 257 distances up
        // to 256, 818 of 1025 up to 1024, 395 of 1025 up to 4096; negatives come only past r = 1024 (the first
        // of the distances 0, 4, …, 4096 is 1972)
        assert.equal(above, { 256: 250, 1024: 818, 4096: 395 }[max], `mean_cos above the curve at ${max}`);
        assert.equal(neg ? neg.distance : null, max === 4096 ? 1972 : null);
    }
}

async function checkBands(page, lang) {
    for (const type of ['linear', 'ntk', 'dynamic', 'yarn', 'llama3']) {
        await page.locator('#bands-type').selectOption(type);
        await settle(page);
        const [scaledBody, plainBody] = await shownBodies(page, '#bands-req');
        assert.equal(plainBody.scaling, undefined);
        const [r, p] = await Promise.all([post('/rope', scaledBody), post('/rope', plainBody)]);
        const byClass = {};
        r.bands.forEach((b, i) => {
            const x = p.bands[i].inv_freq / b.inv_freq;
            const o = byClass[b.class] || (byClass[b.class] = { min: x, max: x });
            o.min = Math.min(o.min, x);
            o.max = Math.max(o.max, x);
        });
        // the legend says how much slower each class turns; PI, NTK and dynamic slow every pair but the first,
        // so their legend must not call them unchanged
        const legend = await page.locator('#bands-cls').textContent();
        const slowest = Math.max(...Object.values(byClass).map((o) => o.max));
        assert.ok(legend.includes('×' + sig3(slowest)), `${type} legend "${legend}" lacks ×${sig3(slowest)}`);
        if (['linear', 'ntk', 'dynamic'].includes(type)) {
            assert.ok(slowest > 7.9, `${type} slows pairs up to ×${slowest}`);
            assert.doesNotMatch(legend, /unchanged|그대로/, `${type} legend: ${legend}`);
        }
        const items = page.locator('#bands-cls .cls');
        assert.equal(await items.count(), Object.keys(byClass).length, type);
        for (const [cls, o] of Object.entries(byClass)) {
            const it = page.locator(`#bands-cls .cls[data-cls="${cls}"]`);
            assert.equal(Number(await it.getAttribute('data-min')), o.min, `${type} ${cls} min`);
            assert.equal(Number(await it.getAttribute('data-max')), o.max, `${type} ${cls} max`);
            const tx = await it.textContent();
            if (o.max > 1 + 1e-9)
                assert.ok(tx.includes('×' + sig3(o.max)), `${type} ${cls}: "${tx}" lacks ×${sig3(o.max)}`);
        }
        if (lang === 'ko')
            assert.doesNotMatch(legend, /[A-Za-z]{4,}/, `English left in the Korean legend: ${legend}`);
        // the angle budget: pairs under one turn in training (L = 4096) that turn further at N = 16384
        const L = 4096, N = 16384;
        const trained = p.bands.map((b) => L / b.wavelength);
        const unseen = (bands) => bands.filter((b, j) => trained[j] < 1 && N / b.wavelength > trained[j] * (1 + 1e-12))
            .length;
        const note = page.locator('[data-testid="budget-note"]');
        assert.equal(await note.getAttribute('data-unseen-plain'), String(unseen(p.bands)), `${type} budget, plain`);
        assert.equal(await note.getAttribute('data-unseen-scaled'), String(unseen(r.bands)), `${type} budget, scaled`);
        // without scaling every pair slower than L (wavelength > 4096: 18 of 64 at base 10000) meets new angles;
        // PI by 8 ≥ N/L brings every one back
        assert.equal(unseen(p.bands), p.bands.filter((b) => b.wavelength > L).length);
        if (type === 'linear')
            assert.equal(unseen(r.bands), 0);
        const nt = (await note.textContent()).replace(/\s+/g, ' ');
        assert.ok(nt.includes(`${unseen(p.bands)}`) && nt.includes(`${unseen(r.bands)}`), nt);
    }
}

async function checkSlopes(page, lang) {
    const p1 = (await page.locator('[data-i18n-html="alibi.p1"]').textContent()).replace(/\s+/g, ' ');
    assert.match(p1, lang === 'ko' ? /2의 거듭제곱이면/ : /is a power of two/, 'the geometric rule is conditional');
    for (const n of [12, 8, 6]) {
        await page.locator('#alibi-nh').fill(String(n));
        await settle(page);
        const sl = (await post('/alibi', { num_heads: n, seq_len: 1, slopes_rule: 'press', include_bias: false })).slopes;
        const p = 2 ** Math.floor(Math.log2(n));
        // the rule the note states, checked against the API: 2^(−8k/p) for k = 1 … p, then 2^(−8k/2p), k odd
        for (let k = 1; k <= p; k++)
            assert.ok(Math.abs(sl[k - 1] - 2 ** (-8 * k / p)) < 1e-15, `slope ${k} of ${n}`);
        for (let i = 0; i < n - p; i++)
            assert.ok(Math.abs(sl[p + i] - 2 ** (-8 * (2 * i + 1) / (2 * p))) < 1e-15, `slope ${p + i + 1} of ${n}`);
        assert.equal(await attr(page, 'slopes-note', 'data-p'), String(p));
        assert.equal(Number(await attr(page, 'slopes-note', 'data-last')), sl[p - 1]);
        const note = await text(page, 'slopes-note');
        assert.ok(note.includes(sig3(sl[p - 1])), note);
        if (n > p) {
            assert.equal(Number(await attr(page, 'slopes-note', 'data-jump')), sl[p]);
            for (const x of sl.slice(p))
                assert.ok(note.includes(sig3(x)), `${n} heads: ${note} lacks ${sig3(x)}`);
        } else {
            assert.match(note, lang === 'ko' ? /거듭제곱이므로/ : /a power of two/);
        }
    }
    // 12 heads: the 0.707 bar after the 0.004 one (rounded as the chart labels them)
    await page.locator('#alibi-nh').fill('12');
    await settle(page);
    const note = await text(page, 'slopes-note');
    assert.ok(note.includes('0.00391') && note.includes('0.707'), note);
}

for (const [lang, locale] of [['ko', 'ko-KR'], ['en', 'en-US']]) {
    test(`${lang}: each explanation is true of its chart (decay, scalings, ALiBi slopes)`, { timeout: 120000 },
        async () => {
            const s = await open(locale, DESKTOP);
            try {
                s.expect('/learned', 422);
                const { page } = s;
                await checkDecay(page, lang);
                await checkBands(page, lang);
                await checkSlopes(page, lang);
                assertClean(s);
            } finally {
                await s.close();
            }
        });
}

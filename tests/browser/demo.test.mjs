// Browser test of the teaching demo served by posencd at GET / (issue 5).
//
// Runs Debian's chromium through playwright-core (never a downloaded browser). Uses the daemon at
// POSENC_URL when given (tests/browser/run.sh starts one on an ephemeral loopback port), else starts
// POSENC_BIN (default build/posencd) itself with --port 0.
//
// Checks: the lesson's worked numbers as rendered (exercises 1-4, the RoPE score tables, the ALiBi softmax
// bars, the corrected slowest RoPE period), every section's charts drawn, the interactions (keyboard,
// language switch, method/extend/scaling choices, config paste), the image grid (a clicked patch's scores
// against a direct POST /rope, axial's offset property) and the relative-methods panel (against direct
// /t5/buckets, /alibi and /attention calls), no console errors except the 422s the page provokes on purpose,
// no request to any host but 127.0.0.1, no horizontal overflow at phone width.
// Screenshots of every section (ko and en, 1280x800 and 390x844) go to tests/artifacts/browser/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
    useDaemon, url, ART, CHROMIUM, ARGS, DESKTOP, PHONE, open, ready, settle, assertClean, num, expectNum,
    openDetails, chartPoints, heatImageCells, seriesCount, shoot, post, shownBodies, near, assertChartsBundled,
} from './lib.mjs';

useDaemon();

/** Every worked number of the lesson, as rendered. The same in both languages. */
async function checkLessonNumbers(page) {
    // exercise 1: d = 4 sinusoidal vector of position 4
    await openDetails(page, '#ex1-details');
    for (const [i, v] of ['-0.757', '-0.654', '0.040', '0.999'].entries())
        await expectNum(page, `ex1-v${i}`, v);
    // exercise 2 and worked RoPE examples
    await openDetails(page, '#ex2-details');
    await expectNum(page, 'ex2-score', '-0.990');
    await expectNum(page, 'ex2-score-6-0', '-0.990');
    await expectNum(page, 'rope-w1-2-0', '0.540');
    await expectNum(page, 'rope-w1-5-3', '0.540');
    await expectNum(page, 'rope-w1-4-0', '-0.416');
    await expectNum(page, 'rope-w2-0-0', '5.000');
    for (const p of ['2-0', '5-3', '9-7'])
        await expectNum(page, `rope-w2-${p}`, '-1.506');
    await expectNum(page, 'rope-w2-3-5', '6.909');
    // exercise 3: ALiBi slopes of 16 heads
    await openDetails(page, '#ex3-details');
    await expectNum(page, 'ex3-s0', '0.707');
    await expectNum(page, 'ex3-s1', '0.500');
    await expectNum(page, 'ex3-s2', '0.354');
    // ALiBi softmax bars: no bias, m = 1/2, m = 1/256
    const bars = [['0.197', '0.072', '0.534', '0.197'], ['0.074', '0.045', '0.548', '0.333'],
        ['0.195', '0.072', '0.535', '0.198']];
    for (const [h, row] of bars.entries()) {
        for (const [k, v] of row.entries())
            await expectNum(page, `bars-w${h}-k${k}`, v);
    }
    // exercise 4: not answered on load; its button sends 600 tokens against the 512-row table
    const msg = page.locator('[data-testid="ex4-message"]');
    assert.equal((await msg.textContent()).trim(), '', 'exercise 4 is answered before its button is pressed');
    await page.locator('#ex4-btn').click();
    await settle(page);
    assert.equal(await msg.getAttribute('data-status'), '422');
    assert.equal(await msg.getAttribute('data-position'), '512');
    assert.equal(await msg.getAttribute('data-rows'), '512');
    const text = await msg.textContent();
    assert.match(text, /512/);
    assert.match(text, /599/);
    assert.match(text, /demo-512x64/);
    // the corrected period of the slowest pair at head_dim 128 (not 62,832)
    const wl = await num(page, 'slow-wavelength');
    assert.equal(wl.text, '54,410');
    assert.ok(Math.abs(wl.value - 54410.2) < 0.5, `slowest wavelength ${wl.value}`);
    const th = await num(page, 'slow-theta');
    assert.ok(Math.abs(th.value - 1.1548e-4) < 1e-8, `slowest theta ${th.value}`);
}

/** Every chart of every section drew data. */
async function checkCharts(page) {
    const sinPE = (await post('/sinusoidal', { d_model: 64, seq_len: 128, base: 10000 })).matrix;
    assert.equal(await heatImageCells(page, '#sin-heat', sinPE), 64 * 128);
    assert.equal(await chartPoints(page, '#learned-heat'), 512 * 64);
    assert.equal(await chartPoints(page, '#ext-chart', 0), 512);
    assert.equal(await chartPoints(page, '#ext-chart', 1), 600);
    assert.equal(await chartPoints(page, '#decay-chart', 0), 1025); // distances 0, 4, …, 4096
    assert.equal(await chartPoints(page, '#decay-chart', 1), 1025);
    assert.equal(await chartPoints(page, '#bands-chart', 1), 64);
    assert.equal(await chartPoints(page, '#cfg-chart', 1), 64);
    assert.equal(await chartPoints(page, '#slopes-chart'), 8);
    assert.equal(await chartPoints(page, '#bias-chart'), 144);
    assert.equal(await chartPoints(page, '#bars-chart'), 4);
    assert.equal(await chartPoints(page, '#t5-chart'), 1025);
    assert.equal(await chartPoints(page, '#grid-axial'), 64);
    assert.equal(await chartPoints(page, '#grid-mixed'), 64);
    for (const m of ['t5', 'alibi', 'shaw', 'txl'])
        assert.equal(await chartPoints(page, `#rel-${m}`), 15, m);
    assert.equal(await page.locator('[data-testid="sin-dials"] figure').count(), 5);
    assert.equal(await page.locator('[data-testid="rope-svg"] svg line').count() > 10, true);
    // the decay chart names both curves
    const names = await page.locator('#decay-chart').evaluate((el) =>
        window.echarts.getInstanceByDom(el).getOption().series.map((s) => s.name));
    assert.equal(names.length, 2);
    assert.ok(names.every((n) => n.length > 5), `decay series names: ${names}`);
    // every series type and component those charts asked for is in the custom ECharts bundle
    await assertChartsBundled(page);
    // no error box anywhere
    assert.equal(await page.locator('.err:not([hidden])').count(), 0, 'an error message is shown');
    assert.equal(await page.locator('[data-testid="learned-unavailable"]').isHidden(), true);
}

/** "none" gives both sentences the same weights; every position method tells them apart. */
async function checkWhy(page) {
    const verdict = page.locator('[data-testid="why-verdict"]');
    assert.equal(await verdict.getAttribute('data-same'), 'true');
    const a = await num(page, 'why-focus-a-dog'), b = await num(page, 'why-focus-b-dog');
    // the same up to rounding: the softmax adds the same terms in another order
    assert.ok(Math.abs(a.value - b.value) < 1e-12, `${a.value} vs ${b.value}`);
    for (const m of ['sinusoidal', 'rope', 'alibi', 'none']) {
        await page.locator(`input[name="why-m"][value="${m}"]`).check();
        await settle(page);
        assert.equal(await verdict.getAttribute('data-method'), m);
        assert.equal(await verdict.getAttribute('data-same'), String(m === 'none'), `verdict for ${m}`);
    }
}

function langOf(page) {
    return page.evaluate(() => document.documentElement.lang);
}

test('static files: content types, caching, favicon, vendored ECharts and its licence', async () => {
    const get = async (p) => {
        const r = await fetch(url() + p);
        return { status: r.status, type: r.headers.get('content-type'), cache: r.headers.get('cache-control'),
            body: await r.text() };
    };
    const html = await get('/');
    assert.equal(html.status, 200);
    assert.match(html.type, /^text\/html/);
    assert.equal(html.cache, 'no-cache');
    const JS = ['/js/main.js', '/js/i18n.js', '/js/strings-ko.js', '/js/strings-en.js', '/js/util.js', '/js/ui.js',
        '/js/common.js', '/js/why.js', '/js/sin.js', '/js/learned.js', '/js/rope.js', '/js/layouts.js', '/js/scaling.js',
        '/js/alibi.js', '/js/compare.js', '/js/exercises.js', '/js/grid2d.js', '/js/relative.js'];
    for (const [p, type] of [...JS.map((j) => [j, /^text\/javascript/]), ['/style.css', /^text\/css/],
        ['/favicon.svg', /^image\/svg\+xml/], ['/vendor/echarts/echarts.min.js', /^text\/javascript/]]) {
        const r = await get(p);
        assert.equal(r.status, 200, p);
        assert.match(r.type, type, p);
    }
    const lic = await get('/vendor/echarts/LICENSE');
    assert.equal(lic.status, 200);
    assert.match(lic.body, /Apache License/);
    assert.match((await get('/vendor/echarts/NOTICE')).body, /Apache ECharts/);
    // the bundle holds ZRender and tslib too: their licences are served next to it
    assert.match((await get('/vendor/echarts/LICENSE-zrender')).body, /BSD 3-Clause License/);
    assert.match((await get('/vendor/echarts/LICENSE-tslib')).body, /Microsoft Corporation/);
    // no CDN or other host referenced by the page's own files
    for (const p of ['/', ...JS, '/style.css'])
        assert.doesNotMatch((await get(p)).body, /(src|href)=["']?(https?:)?\/\//, `${p} references another host`);
});

for (const [lang, locale] of [['ko', 'ko-KR'], ['en', 'en-US']]) {
    test(`${lang}: the lesson's numbers, charts and sections at 1280x800`, { timeout: 240000 }, async () => {
        const s = await open(locale, DESKTOP);
        try {
            s.expect('/learned', 422); // exercise 4, and the comparison at N = 600: provoked on purpose
            const { page } = s;
            assert.equal(await langOf(page), lang, 'language chosen from navigator.languages');
            assert.equal(await page.locator('[data-lang="' + lang + '"]').getAttribute('aria-pressed'), 'true');
            const h2 = await page.locator('#why-h').textContent();
            assert.match(h2, lang === 'ko' ? /[가-힣]/ : /^1\. Why/);
            assert.equal(await page.evaluate(() => window.echarts.version), '6.1.0');
            const dup = await page.evaluate(() => {
                const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);
                return ids.filter((id, i) => ids.indexOf(id) !== i);
            });
            assert.deepEqual(dup, [], 'duplicate ids');
            await checkLessonNumbers(page);
            await checkCharts(page);
            await checkWhy(page);
            // the comparison at N = 600
            assert.equal(await page.locator('[data-testid="cmp-learned"]').getAttribute('data-state'), 'refused');
            assert.equal(await page.locator('[data-testid="cmp-sin"]').getAttribute('data-state'), 'unseen');
            assert.match((await page.locator('[data-testid="cmp-alibi"]').textContent()).replace(/\u2212/g, '-'),
                /-299\.5/);
            await shoot(page, lang, DESKTOP);
            assertClean(s);
        } finally {
            await s.close();
        }
    });
}

test('interactions: keyboard, language switch, RoPE positions, extend modes, scalings, config paste', { timeout: 240000 },
    async () => {
        const s = await open('ko-KR', DESKTOP);
        try {
            s.expect('/learned', 422);
            const { page } = s;
            // keyboard: skip link, then the language buttons
            await page.keyboard.press('Tab');
            assert.equal(await page.evaluate(() => document.activeElement.className), 'skip');
            await page.keyboard.press('Tab');
            assert.equal(await page.evaluate(() => document.activeElement.dataset.lang), 'ko');
            await page.keyboard.press('Tab');
            assert.equal(await page.evaluate(() => document.activeElement.dataset.lang), 'en');
            await page.keyboard.press('Enter');
            await settle(page);
            assert.equal(await langOf(page), 'en');
            assert.match(await page.locator('#rope-h').textContent(), /position as rotation/);
            await expectNum(page, 'rope-w2-3-5', '6.909'); // numbers survive the switch
            // every control is reachable by Tab (none removed from the tab order)
            const unreachable = await page.evaluate(() => [...document.querySelectorAll('input, select, button, ' +
                'textarea, summary, a[href]')].filter((e) => e.tabIndex < 0 || e.disabled).map((e) => e.id || e.tagName));
            assert.deepEqual(unreachable, []);
            // RoPE by keyboard: m 2 -> 5, n 0 -> 3 gives the same score as (2, 0)
            await page.locator('#rope-m').focus();
            for (let i = 0; i < 3; i++)
                await page.keyboard.press('ArrowRight');
            await page.locator('#rope-n').focus();
            for (let i = 0; i < 3; i++)
                await page.keyboard.press('ArrowRight');
            await settle(page);
            const ro = page.locator('[data-testid="rope-readout"]');
            assert.equal(await ro.getAttribute('data-m'), '5');
            assert.equal(await ro.getAttribute('data-n'), '3');
            assert.ok(Math.abs(Number(await ro.getAttribute('data-value')) + 1.5058) < 1e-3);
            await page.locator('[data-mn="3,5"]').click();
            await settle(page);
            assert.ok(Math.abs(Number(await ro.getAttribute('data-value')) - 6.9089) < 1e-3);
            // back to Korean by click
            await page.locator('[data-lang="ko"]').click();
            await settle(page);
            assert.equal(await langOf(page), 'ko');
            // extend modes
            await page.locator('input[name="ext-m"][value="error"]').check();
            await settle(page);
            assert.equal(await page.locator('[data-testid="ext-note"]').getAttribute('data-mode'), 'error');
            assert.equal(await seriesCount(page, '#ext-chart'), 1);
            await page.locator('input[name="ext-m"][value="interpolate"]').check();
            await settle(page);
            assert.equal(await seriesCount(page, '#ext-chart'), 2);
            assert.equal(await chartPoints(page, '#ext-chart', 1), 600);
            // every scaling type renders bands
            for (const type of ['default', 'linear', 'ntk', 'dynamic', 'yarn', 'longrope', 'llama3']) {
                await page.locator('#bands-type').selectOption(type);
                await settle(page);
                assert.equal(await page.locator('[data-testid="bands-summary"]').getAttribute('data-type'), type);
                assert.equal(await chartPoints(page, '#bands-chart', 1), 64, type);
            }
            // config paste: a preset, malformed JSON, and a config the server refuses (422 with a pointer)
            await page.locator('[data-preset="DeepSeek-V3"]').click();
            await settle(page);
            assert.equal(await page.locator('[data-testid="cfg-scaling.type"]').textContent(), 'yarn');
            assert.equal(await page.locator('[data-testid="cfg-head_dim"]').textContent(), '64');
            assert.equal(await page.locator('[data-testid="cfg-layout"]').textContent(), 'interleaved');
            await page.locator('[data-preset="Qwen2.5 7B + YaRN"]').click();
            await settle(page);
            assert.equal(await page.locator('[data-testid="cfg-head_dim"]').textContent(), '128');
            await page.locator('#cfg-text').fill('{"head_dim": 64,');
            await page.locator('#cfg-run').click();
            await settle(page);
            assert.match(await page.locator('[data-testid="cfg-error"]').textContent(), /^JSON/);
            s.expect('/model/method', 422);
            await page.locator('#cfg-text').fill('{"head_dim": 7}');
            await page.locator('#cfg-run').click();
            await settle(page);
            const err = page.locator('[data-testid="cfg-error"]');
            assert.equal(await err.isVisible(), true);
            assert.match(await err.textContent(), /\/config\/num_hidden_layers/);
            // comparison inside the trained length: the learned table has the row
            await page.locator('#cmp-n').fill('256');
            await settle(page);
            assert.equal(await page.locator('[data-testid="cmp-learned"]').getAttribute('data-state'), 'ok');
            assert.equal(await page.locator('[data-testid="cmp-rope"]').getAttribute('data-state'), 'ok');
            // ALiBi head count and sinusoidal sliders re-render
            await page.locator('#alibi-nh').fill('16');
            await page.locator('#sin-d').fill('128');
            await settle(page);
            assert.equal(await chartPoints(page, '#slopes-chart'), 16);
            const pe128 = (await post('/sinusoidal', { d_model: 128, seq_len: 128, base: 10000 })).matrix;
            assert.equal(await heatImageCells(page, '#sin-heat', pe128), 128 * 128);
            // exercise 4 on demand
            await page.locator('#ex4-btn').click();
            await settle(page);
            assert.equal(await page.locator('[data-testid="ex4-message"]').getAttribute('data-position'), '512');
            await assertChartsBundled(page); // with the other extend modes' and the config box's charts
            assertClean(s);
        } finally {
            await s.close();
        }
    });

for (const [lang, locale] of [['ko', 'ko-KR'], ['en', 'en-US']]) {
    test(`${lang}: phone width 390x844 — no horizontal overflow, numbers shown`, { timeout: 240000 }, async () => {
        const s = await open(locale, PHONE);
        try {
            s.expect('/learned', 422);
            const { page } = s;
            const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
            assert.ok(over <= 0, `page is ${over}px wider than the screen`);
            // wide tables scroll inside their own box, never the page
            const wide = await page.evaluate(() => [...document.querySelectorAll('section *')].filter((e) => {
                const r = e.getBoundingClientRect();
                return r.right > window.innerWidth + 1 && !e.closest('.scroll, figure.mat');
            }).map((e) => e.id || e.className || e.tagName).slice(0, 5));
            assert.deepEqual(wide, []);
            await openDetails(page, '#ex1-details');
            await expectNum(page, 'ex1-v0', '-0.757');
            await expectNum(page, 'bars-w1-k3', '0.333');
            await shoot(page, lang, PHONE);
            assertClean(s);
        } finally {
            await s.close();
        }
    });
}

// ---- 7. image grid and 8. relative methods: the page's numbers against direct API calls ----

// What the grid section is meant to send (written out here, not read from the page).
const GRID_Q = [1, 0, 1, 0, 0.5, 0, 0.5, 0];
const GRID_TURN30 = [[0.866, 0.0866, -0.5, -0.05], [0.5, 0.05, 0.866, 0.0866]];
function gridRequest(axes, H, W, r, c) {
    const k_positions = [];
    for (let i = 0; i < H; i++)
        for (let j = 0; j < W; j++)
            k_positions.push([i, j]);
    const body = { axes, head_dim: 8, layout: 'interleaved', q: GRID_Q, k: GRID_Q, q_positions: [[r, c]], k_positions };
    if (axes.type === 'axial')
        body.base = 100;
    return body;
}

/** The score map drawn in `sel` as {"r,c": value}. */
async function mapValues(page, sel) {
    return page.locator(sel).evaluate((el) => Object.fromEntries(window.echarts.getInstanceByDom(el).getOption()
        .series[0].data.map((d) => [`${d.value[1]},${d.value[0]}`, d.value[2]])));
}

/** Clicks the cell of patch (r, c) in the score map `sel`, at the pixel ECharts drew it. */
async function clickPatch(page, sel, r, c) {
    await page.locator(sel).scrollIntoViewIfNeeded();
    // two frames: sections that came near the screen are laid out (content-visibility: auto) before the cell is found
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const [x, y] = await page.locator(sel).evaluate((el, rc) => window.echarts.getInstanceByDom(el)
        .convertToPixel({ seriesIndex: 0 }, [rc[1], rc[0]]), [r, c]);
    const box = await page.locator(sel).boundingBox();
    await page.mouse.click(box.x + x, box.y + y);
    await settle(page);
}

async function query(page) {
    return [+(await page.locator('#grid-r').inputValue()), +(await page.locator('#grid-c').inputValue())];
}


test('image grid: a clicked patch shows the daemon\'s scores; axial depends only on the offset', { timeout: 240000 },
    async () => {
        const s = await open('en-US', DESKTOP);
        try {
            s.expect('/learned', 422);
            const { page } = s;
            // click patch (2, 5) in the axial map
            await clickPatch(page, '#grid-axial', 2, 5);
            assert.deepEqual(await query(page), [2, 5]);
            const ax = await post('/rope', gridRequest({ type: 'axial' }, 8, 8, 2, 5));
            const mx = await post('/rope', gridRequest({ type: 'mixed', freqs: GRID_TURN30 }, 8, 8, 2, 5));
            // the page sent exactly these requests
            assert.deepEqual(await shownBodies(page, '#grid-req'), [gridRequest({ type: 'axial' }, 8, 8, 2, 5),
                gridRequest({ type: 'mixed', freqs: GRID_TURN30 }, 8, 8, 2, 5)]);
            // readout: the query to itself and to patch (0, 0), the daemon's numbers to the last bit
            const val = async (id) => Number(await page.locator(`[data-testid="${id}"]`).getAttribute('data-value'));
            assert.equal(await val('grid-axial-self'), ax.scores[0][2 * 8 + 5]);
            assert.equal(await val('grid-axial-origin'), ax.scores[0][0]);
            assert.equal(await val('grid-mixed-self'), mx.scores[0][2 * 8 + 5]);
            assert.equal(await val('grid-mixed-origin'), mx.scores[0][0]);
            // ... and the real values: |q|² = 2.5 to itself; to (0, 0), Δ = (−2, −5):
            // cos 2 + cos 0.2 (row pairs, length 1) + ¼(cos 5 + cos 0.5) (column pairs, length ½)
            near(await val('grid-axial-self'), 2.5, 1e-12, 'axial self score');
            near(await val('grid-mixed-self'), 2.5, 1e-12, 'mixed self score');
            near(await val('grid-axial-origin'), Math.cos(2) + Math.cos(0.2) + 0.25 * (Math.cos(5) + Math.cos(0.5)),
                1e-12, 'axial score to (0, 0)');
            near(await val('grid-axial-origin'), 0.8542, 1e-4, 'axial score to (0, 0), rounded');
            // every cell of both maps is the daemon's score of that patch
            for (const [sel, res] of [['#grid-axial', ax], ['#grid-mixed', mx]]) {
                const map = await mapValues(page, sel);
                assert.equal(Object.keys(map).length, 64);
                for (let r = 0; r < 8; r++)
                    for (let c = 0; c < 8; c++)
                        assert.equal(map[`${r},${c}`], res.scores[0][r * 8 + c], `${sel} (${r}, ${c})`);
            }
            // axial: score(q, q + Δ) is the same for two queries with the same Δ = (1, 2) ...
            const at = async (sel, q, d) => (await mapValues(page, sel))[`${q[0] + d[0]},${q[1] + d[1]}`];
            await clickPatch(page, '#grid-mixed', 1, 1);
            const a11 = await at('#grid-axial', [1, 1], [1, 2]), m11 = await at('#grid-mixed', [1, 1], [1, 2]);
            const sep = async (sel) => {
                const m = await mapValues(page, sel); // query (1, 1): Δ (2, 3), (2, 0), (0, 3), (0, 0)
                return m['3,4'] + m['1,1'] - m['3,1'] - m['1,4'];
            };
            const sepAxial = await sep('#grid-axial'), sepMixed = await sep('#grid-mixed');
            await clickPatch(page, '#grid-axial', 4, 3);
            assert.deepEqual(await query(page), [4, 3]);
            near(await at('#grid-axial', [4, 3], [1, 2]), a11, 1e-12, 'axial at Δ (1, 2) from (1, 1) and (4, 3)');
            near(await at('#grid-mixed', [4, 3], [1, 2]), m11, 1e-12, 'mixed at Δ (1, 2) from (1, 1) and (4, 3)');
            // ... it splits into a row part plus a column part; the turned mixed F couples the axes
            near(sepAxial, 0, 1e-12, 'axial s(2,3) + s(0,0) − s(2,0) − s(0,3)');
            assert.ok(Math.abs(sepMixed) > 0.05, `mixed couples the axes: ${sepMixed}`);
            // (1, 2) and (2, 1) differ, for this q even in axial
            const swap = page.locator('[data-testid="grid-swap"]');
            assert.equal(await swap.getAttribute('data-axial-tie'), 'false');
            // keyboard: focus a map, arrows move the query (clamped at the edge)
            await page.locator('#grid-mixed-wrap').focus();
            for (const k of ['ArrowDown', 'ArrowDown', 'ArrowLeft', 'ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowDown'])
                await page.keyboard.press(k);
            await settle(page);
            assert.deepEqual(await query(page), [7, 2]);
            assert.match(await page.locator('#grid-sel-h').textContent(), /\(7, 2\)/);
            near(await val('grid-axial-self'), 2.5, 1e-12, 'axial self score at (7, 2)');
            // the mixed F written as [[m, 0], [0, m]] (m = axial's frequencies) is axial itself
            await page.locator('#grid-preset').selectOption('axial');
            await settle(page);
            const A = await mapValues(page, '#grid-axial'), M = await mapValues(page, '#grid-mixed');
            for (const key of Object.keys(A))
                near(M[key], A[key], 1e-12, `mixed = axial at ${key}`);
            assert.equal(await page.locator('[data-testid="grid-af-0-1"]').getAttribute('data-value'), '0.1');
            assert.equal(await page.locator('[data-testid="grid-af-1-2"]').getAttribute('data-value'), '1');
            // equal pair lengths: axial can no longer tell (1, 2) from (2, 1)
            await page.locator('#grid-qk').selectOption('equal');
            await settle(page);
            assert.equal(await swap.getAttribute('data-axial-tie'), 'true');
            // a frequency the server refuses: its problem+json detail, with the pointer, next to the maps
            s.expect('/rope', 422);
            await page.locator('#grid-freqs input[data-a="1"][data-j="3"]').fill('');
            await settle(page);
            const err = page.locator('#grid-maps').locator('xpath=preceding-sibling::p[contains(@class, "err")][1]');
            assert.equal(await err.isVisible(), true);
            assert.match(await err.textContent(), /\/axes\/freqs\/1\/3: must be a number/);
            assert.equal(await chartPoints(page, '#grid-mixed'), 0, 'the refused map is cleared');
            assert.equal(await chartPoints(page, '#grid-axial'), 64);
            await page.locator('#grid-preset').selectOption('learned');
            await settle(page);
            assert.equal(await err.isVisible(), false);
            // another image size: the query is kept inside it
            await page.locator('#grid-rows').selectOption('4');
            await page.locator('#grid-cols').selectOption('12');
            await settle(page);
            assert.deepEqual(await query(page), [3, 2]);
            assert.equal(await chartPoints(page, '#grid-axial'), 48);
            assert.equal(await chartPoints(page, '#grid-mixed'), 48);
            assertClean(s);
        } finally {
            await s.close();
        }
    });

// What the relative panel is meant to send for T tokens and Shaw's K (written out here, not read from the page).
function relRequests(T, K) {
    const rows = (v) => Array.from({ length: T }, () => v);
    const shaw = [-0.6, 0.2, -0.3, 0.5, 1, 0.7, -0.1, 0.4, -0.5].slice(4 - K, 5 + K).map((v) => [v]);
    const t5 = { num_buckets: 8, max_distance: 16, bidirectional: true };
    return {
        t5b: ['/t5/buckets', { relative_positions: Array.from({ length: 2 * T - 1 }, (_, i) => i + 1 - T), ...t5 }],
        t5: ['/attention', { q: rows([1]), k: rows([0]), scale: 1, method: 't5',
            t5: { bias: [1, 0.6, 0.3, 0.1, 0, 0.7, 0.2, -0.2], ...t5 } }],
        alibi: ['/alibi', { num_heads: 1, slopes: [0.5], seq_len: T, mode: 'symmetric' }],
        shaw: ['/attention', { q: rows([1]), k: rows([0]), scale: 1, method: 'shaw',
            shaw: { max_relative_position: K, key_embeddings: shaw } }],
        txl: ['/attention', { q: rows([1, 1, 1, 1]), k: rows([0, 0, 0, 0]), scale: 1, method: 'transformer_xl',
            transformer_xl: { base: 16 } }],
    };
}

/** The API's value for key − query = d in each response: query T − 1 for d ≤ 0, query 0 for d > 0. */
function relFromApi(res, T, d) {
    const [i, j] = d <= 0 ? [T - 1, T - 1 + d] : [0, d];
    return { t5b: res.t5b.buckets[d + T - 1], t5: res.t5.scores[i][j], alibi: res.alibi.bias[0][i][j],
        shaw: res.shaw.scores[i][j], txl: res.txl.scores[i][j] };
}

async function relCell(page, m, d) {
    return Number(await page.locator(`[data-testid="rel-${m}-${d}"]`).getAttribute('data-value'));
}

/** The panel's numbers for two distances per method equal the daemon's for the same requests. */
async function checkRel(page, T, K) {
    const reqs = relRequests(T, K);
    const names = Object.keys(reqs);
    assert.deepEqual(await shownBodies(page, '#rel-req'), names.map((n) => reqs[n][1]), 'requests shown');
    const res = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await post(...reqs[n])])));
    assert.equal(await page.locator('#rel-table tbody tr').count(), 2 * T - 1);
    const got = {};
    for (const d of [-5, 2]) {
        const want = relFromApi(res, T, d);
        got[d] = {};
        for (const m of names) {
            got[d][m] = await relCell(page, m, d);
            assert.equal(got[d][m], want[m], `${m} at key − query = ${d}`);
        }
    }
    return got;
}

test('relative methods: T5, ALiBi, Shaw and Transformer-XL as the daemon computes them', { timeout: 240000 },
    async () => {
        const s = await open('ko-KR', DESKTOP);
        try {
            s.expect('/learned', 422);
            const { page } = s;
            let v = await checkRel(page, 8, 3);
            // the numbers themselves: T5 log buckets, ALiBi linear, Shaw clipped at −K, Transformer-XL's sinusoid
            assert.equal(v[-5].t5b, 2); // 2–5 positions before: one log bucket
            assert.equal(v[2].t5b, 6); // after the query: buckets 4–7
            assert.equal(v[-5].t5, 0.3); // bias[2]
            assert.equal(v[2].t5, 0.2); // bias[6]
            assert.equal(v[-5].alibi, -2.5);
            assert.equal(v[2].alibi, -1);
            assert.equal(v[-5].shaw, 0.2); // clipped to −3: the first of the 2K + 1 rows
            assert.equal(v[2].shaw, -0.1);
            const xl = (delta) => Math.sin(delta) + Math.sin(delta / 4) + Math.cos(delta) + Math.cos(delta / 4);
            near(v[-5].txl, xl(5), 1e-12, 'Transformer-XL at δ = 5');
            near(v[2].txl, xl(-2), 1e-12, 'Transformer-XL at δ = −2');
            assert.equal(await relCell(page, 'shaw', -3), 0.2); // the edge row itself
            // other T and K by keyboard: K = 1 clips sooner, T = 10 adds distances
            await page.locator('#rel-k').focus();
            await page.keyboard.press('ArrowLeft');
            await page.keyboard.press('ArrowLeft');
            await page.locator('#rel-t').focus();
            await page.keyboard.press('ArrowRight');
            await page.keyboard.press('ArrowRight');
            await settle(page);
            v = await checkRel(page, 10, 1);
            assert.equal(v[-5].shaw, 0.5);
            assert.equal(v[2].shaw, 0.7);
            assert.equal(await relCell(page, 'alibi', -9), -4.5);
            for (const m of ['t5', 'alibi', 'shaw', 'txl'])
                assert.equal(await chartPoints(page, `#rel-${m}`), 19, m);
            assertClean(s);
        } finally {
            await s.close();
        }
    });

test('without /learned (404) the learned section says so and the rest still works', { timeout: 60000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-chromium-'));
    const ctx = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: ARGS,
        locale: 'en-US', viewport: DESKTOP });
    try {
        const problem = JSON.stringify({ type: 'urn:posenc:problem:not-found', title: 'Not found', status: 404,
            detail: 'no such resource' });
        await ctx.route('**/learned', (route) => route.fulfill({ status: 404, body: problem,
            contentType: 'application/problem+json' }));
        const page = ctx.pages()[0] || await ctx.newPage();
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        page.on('console', (m) => {
            if (m.type() === 'error' && !/status of 404/.test(m.text()))
                errors.push(m.text());
        });
        await page.goto(url() + '/');
        await ready(page);
        assert.equal(await page.locator('[data-testid="learned-unavailable"]').isVisible(), true);
        assert.match(await page.locator('[data-testid="learned-unavailable"]').textContent(), /not available|no learned/i);
        assert.equal(await page.locator('#learned-body').isHidden(), true);
        assert.equal(await page.locator('[data-testid="cmp-learned"]').getAttribute('data-state'), 'unavailable');
        await expectNum(page, 'rope-w2-3-5', '6.909');
        assert.equal(await page.locator('.err:not([hidden])').count(), 0);
        assert.deepEqual(errors, []);
        await page.locator('#learned').screenshot({ path: path.join(ART, 'en-1280x800-learned-unavailable.png') });
    } finally {
        await ctx.close();
        fs.rmSync(dir, { recursive: true, force: true });
    }
});

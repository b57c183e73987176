// Browser test of the context-extension heat map (section 4): RoPE scores at a realistic size, one POST /rope per
// view answered as a float32 .npy, on a strided grid of at most 256 × 256 positions up to N − 1, with the scaling
// (none, PI, NTK, dynamic, YaRN, LongRoPE, Llama 3), head_dim and the training length L as toggles.
// Every drawn cell is checked against a direct JSON call of the same request (rows picked across the map; the page
// holds float32, so within 1e-6 relative), the request against the grid bound, and the note's share of cells
// farther apart than L against the positions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { useDaemon, DESKTOP, PHONE, ART, open, settle, assertClean, post } from './lib.mjs';

useDaemon();

/** The map as drawn: the sent body (last /rope with Accept .npy) and the heatmap cells [key idx, query idx, score]. */
async function drawn(page) {
    return page.locator('#ctx-heat').evaluate((el) => {
        const o = window.echarts.getInstanceByDom(el).getOption();
        return { cells: o.series[0].data, pos: o.xAxis[0].data, line: o.series[1].data };
    });
}

async function check(page, sent, type, hd, L, N) {
    const body = sent[sent.length - 1];
    assert.equal(body.head_dim, hd);
    assert.equal(body.seq_len, N);
    assert.equal(body.dtype, 'float32');
    assert.ok(body.q_positions.length <= 256 && body.k_positions.length <= 256, 'grid at most 256 × 256');
    assert.equal(body.q_positions[body.q_positions.length - 1], N - 1);
    assert.equal((body.scaling && body.scaling.type) || 'default', type);
    const { cells, pos } = await drawn(page);
    const n = pos.length;
    assert.deepEqual(pos, body.q_positions);
    assert.equal(cells.length, (n * (n + 1)) / 2, 'the causal half of the grid');
    // rows across the map, recomputed by the API as JSON (float64)
    const rows = [0, 37, 128, n - 1];
    const want = await post('/rope', { ...body, dtype: undefined, q_positions: rows.map((i) => pos[i]) });
    const at = new Map(cells.map(([j, i, v]) => [`${i},${j}`, v]));
    for (const [r, i] of rows.entries()) {
        for (let j = 0; j <= i; j++) {
            const got = at.get(`${i},${j}`), w = want.scores[r][j];
            assert.ok(Math.abs(got - w) <= 1e-6 * Math.max(1, Math.abs(w)), `${type} (${pos[i]}, ${pos[j]}): ${got} vs ${w}`);
        }
    }
    // distance 0 is the unrotated score, times attention_factor² (q·k = 1 before rotation)
    const af = want.attention_factor;
    assert.ok(Math.abs(at.get('0,0') - af * af) < 1e-6, `${type}: score at distance 0 ${at.get('0,0')} vs ${af * af}`);
    // the note's share: cells whose query and key are more than L apart
    let far = 0;
    for (const [j, i] of cells)
        far += pos[i] - pos[j] > L ? 1 : 0;
    const note = page.locator('[data-testid="ctx-note"]');
    assert.equal(await note.getAttribute('data-far'), String(far));
    assert.match(await note.textContent(), new RegExp(`${Math.round((100 * far) / cells.length)}%`));
}

test('context heat map: every scaling, head_dim and length drawn from the API', { timeout: 300000 }, async () => {
    const s = await open('en-US', DESKTOP);
    const { page } = s;
    s.expect('/learned', 422); // section 3 asks for row 599 of a 512-row table on purpose
    const sent = [];
    page.on('request', (r) => {
        if (new URL(r.url()).pathname === '/rope' && (r.headers().accept || '').includes('x-npy'))
            sent.push(JSON.parse(r.postData()));
    });
    try {
        await page.locator('#ctx').scrollIntoViewIfNeeded();
        for (const type of ['default', 'linear', 'ntk', 'dynamic', 'yarn', 'longrope', 'llama3']) {
            await page.locator('#ctx-type').selectOption(type);
            await settle(page);
            await check(page, sent, type, 128, 2048, 8192);
        }
        // the other toggles: head_dim 64, L 4096, N 16,384 (f = 4), YaRN
        await page.locator('#ctx-hd').selectOption('64');
        await page.locator('#ctx-L').selectOption('4096');
        await page.locator('#ctx-N').selectOption('16384');
        await page.locator('#ctx-type').selectOption('yarn');
        await settle(page);
        await check(page, sent, 'yarn', 64, 4096, 16384);
        await page.addStyleTag({ content: '.top { position: static !important; }' });
        await page.locator('#ctx').screenshot({ path: path.join(ART, 'en-1280x800-ctx.png') });
        assertClean(s);
    } finally {
        await s.close();
    }
});

test('context heat map in Korean on a phone', { timeout: 180000 }, async () => {
    const s = await open('ko-KR', PHONE);
    const { page } = s;
    s.expect('/learned', 422);
    try {
        await page.locator('#ctx').scrollIntoViewIfNeeded();
        await page.locator('#ctx-type').selectOption('linear');
        await settle(page);
        const { cells } = await drawn(page);
        assert.equal(cells.length, 256 * 257 / 2);
        assert.match(await page.locator('[data-testid="ctx-note"]').textContent(), /PI는 모든 각도를 f로 나눕니다/);
        const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(over <= 0, `horizontal overflow ${over}px`);
        await page.addStyleTag({ content: '.top { position: static !important; }' });
        await page.locator('#ctx').screenshot({ path: path.join(ART, 'ko-390x844-ctx.png') });
        assertClean(s);
    } finally {
        await s.close();
    }
});

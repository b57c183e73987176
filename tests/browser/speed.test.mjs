// Browser test: what the demo does before the reader scrolls (issue 18, item 4: structure and speed, web side).
//
//  - the first section's tables are drawn from the API while ECharts is still on its way (its script is held
//    back here for 3 s): nothing waits for the chart library;
//  - before the first scroll only the parts near the first screen compute: the API calls are listed and
//    counted (desktop: section 1's two /attention calls, /version, and section 2's parts); sections further
//    down compute when scrolled near (IntersectionObserver), once;
//  - bytes on the wire: at most 800 KB before the first scroll (the API calls listed) and 1.6 MB once every
//    section has been shown; the ECharts bundle comes brotli-compressed, the large arrays as float32 .npy;
//  - on a phone the contents row stays on screen while scrolling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { useDaemon, url, CHROMIUM, ARGS, DESKTOP, PHONE, settle } from './lib.mjs';

useDaemon();

const STATIC = /\.(js|css|svg|html|png)$|^\/$|\/vendor\//;

/** A fresh page that records API calls (method + path) and response bytes; ECharts is held back `holdMs`. */
async function launch(viewport, holdMs = 0) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-chromium-'));
    const ctx = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: ARGS,
        locale: 'ko-KR', viewport, deviceScaleFactor: 1 });
    const rec = { calls: [], bytes: 0, echartsAt: null, npy: [] };
    await ctx.route('**/vendor/echarts/echarts.min.js', async (route) => {
        await new Promise((r) => setTimeout(r, holdMs));
        rec.echartsAt = Date.now();
        await route.continue();
    });
    const page = ctx.pages()[0] || await ctx.newPage();
    page.on('request', (r) => {
        const p = new URL(r.url()).pathname;
        if (!STATIC.test(p))
            rec.calls.push(`${r.method()} ${p}`);
        if ((r.headers().accept || '').includes('application/x-npy'))
            rec.npy.push(p);
    });
    page.on('requestfinished', async (r) => {
        const sz = await r.sizes().catch(() => null);
        if (sz)
            rec.bytes += sz.responseBodySize + sz.responseHeadersSize;
    });
    return { ctx, page, rec, async close() {
        await ctx.close();
        fs.rmSync(dir, { recursive: true, force: true });
    } };
}

test('first view: section 1 before ECharts; API calls and bytes before the first scroll; lazy parts', { timeout: 90000 },
    async (t) => {
        const s = await launch(DESKTOP, 3000);
        try {
            const { page, rec } = s;
            // when section 1's first matrix appears, note the time and whether ECharts has arrived
            await page.addInitScript(() => {
                new MutationObserver((_, obs) => {
                    if (document.querySelector('[data-testid="why-focus-a-dog"]')) {
                        window.firstTable = { ms: performance.now(), echarts: typeof window.echarts,
                            rows: document.querySelectorAll('#why-ma tr').length };
                        obs.disconnect();
                    }
                }).observe(document, { subtree: true, childList: true });
            });
            await page.goto(url() + '/');
            await page.waitForFunction(() => window.firstTable, null, { timeout: 20000 });
            const early = await page.evaluate(() => window.firstTable);
            t.diagnostic(`section 1's table drawn at ${Math.round(early.ms)} ms; ECharts held back 3000 ms`);
            assert.equal(early.echarts, 'undefined', 'section 1 waited for ECharts');
            assert.equal(early.rows, 4, 'the first matrix (3 words + header) is drawn');
            await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
            await page.waitForFunction(() => window.echarts !== undefined, null, { timeout: 30000 });
            await page.waitForTimeout(300);
            await settle(page);
            const calls = [...rec.calls];
            t.diagnostic(`API calls before the first scroll (${calls.length}): ${calls.join(', ')}`);
            t.diagnostic(`bytes before the first scroll: ${rec.bytes}`);
            // only the first screen and the next: sections 1 and 2 and the footer's /version
            assert.deepEqual(calls.filter((c) => c === 'POST /attention').length, 2);
            assert.ok(calls.includes('GET /version'));
            for (const later of ['/learned', '/alibi', '/t5/buckets'])
                assert.ok(!calls.some((c) => c.endsWith(later)), `${later} called before the first scroll`);
            assert.ok(calls.length <= 8, `${calls.length} API calls before the first scroll`);
            const loaded = await page.$$eval('[data-lazy]', (els) => els.filter((e) => e.dataset.loaded === '1')
                .map((e) => e.id));
            assert.deepEqual(loaded, ['why', 'sin']);
            // scrolling to section 5 computes it (and what lies within a screen of it), not the last sections
            await page.locator('#alibi').scrollIntoViewIfNeeded();
            await page.waitForFunction(() => document.getElementById('alibi').dataset.loaded === '1');
            await settle(page);
            assert.ok(rec.calls.includes('POST /alibi'));
            assert.equal(await page.locator('#rel').getAttribute('data-loaded'), null, 'the last section computed early');
            t.diagnostic(`after scrolling to section 5: ${rec.calls.length} API calls, ${rec.bytes} bytes`);
        } finally {
            await s.close();
        }
    });

/** Scrolls every lazily computed part into view, in page order, and waits until each is computed. */
async function showEverything(page) {
    const ids = await page.$$eval('[data-lazy]', (els) => els.map((e) => e.id));
    for (const id of ids) {
        await page.locator('#' + id).scrollIntoViewIfNeeded();
        await page.waitForFunction((i) => document.getElementById(i).dataset.loaded === '1', id, { timeout: 30000 });
    }
    await settle(page);
}

// Issue 18's budget: bytes on the wire (bodies as sent, compressed where the daemon chose so, plus headers).
const FIRST_VIEW_BYTES = 800 * 1024;
const ALL_SECTIONS_BYTES = 1.6 * 1024 * 1024;

test('bytes on the wire: at most 800 KB before the first scroll, 1.6 MB after every section', { timeout: 120000 },
    async (t) => {
        const s = await launch(DESKTOP);
        try {
            const { page, rec } = s;
            const enc = [];
            page.on('response', (r) => {
                const p = new URL(r.url()).pathname;
                if (/echarts\.min\.js$|\.js$/.test(p))
                    enc.push([p, r.headers()['content-encoding'] || 'identity']);
            });
            await page.goto(url() + '/');
            await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
            await page.waitForFunction(() => window.echarts !== undefined, null, { timeout: 30000 });
            await page.waitForTimeout(300);
            await settle(page);
            const first = rec.bytes;
            t.diagnostic(`before the first scroll: ${first} bytes, ${rec.calls.length} API calls: ${rec.calls.join(', ')}`);
            // the bundle comes precompressed (br when Debian's brotli built the copies, else gzip)
            const bundle = enc.find(([p]) => p.endsWith('echarts.min.js'));
            assert.ok(bundle, 'echarts.min.js fetched');
            assert.match(bundle[1], /^(br|gzip)$/, 'echarts.min.js sent uncompressed (run make web-compressed)');
            assert.ok(first <= FIRST_VIEW_BYTES, `${first} bytes before the first scroll`);
            await showEverything(page);
            t.diagnostic(`after every section: ${rec.bytes} bytes, ${rec.calls.length} API calls`);
            assert.ok(rec.bytes <= ALL_SECTIONS_BYTES, `${rec.bytes} bytes after every section was shown`);
            // the large arrays come as float32 .npy, not JSON
            assert.ok(rec.npy.some((p) => p === '/learned'), 'the learned table as .npy');
            assert.ok(rec.npy.some((p) => p === '/sinusoidal'), 'the sinusoidal heat map as .npy');
        } finally {
            await s.close();
        }
    });

test('phone: the contents row stays on screen while scrolling', { timeout: 60000 }, async () => {
    const s = await launch(PHONE);
    try {
        const { page } = s;
        await page.goto(url() + '/');
        await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
        for (const y of [2000, 6000, 12000]) {
            await page.evaluate((v) => window.scrollTo(0, v), y);
            await page.waitForTimeout(150);
            const top = await page.evaluate(() => document.querySelector('.toc').getBoundingClientRect().top);
            assert.ok(Math.abs(top) <= 1, `contents row at ${top}px after scrolling to ${y}`);
        }
    } finally {
        await s.close();
    }
});

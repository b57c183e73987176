// Shared helpers of the browser tests of the teaching demo (demo.test.mjs, lesson.test.mjs).
//
// Runs Debian's chromium through playwright-core (never a downloaded browser). Uses the daemon at
// POSENC_URL when given (tests/browser/run.sh starts one on an ephemeral loopback port), else starts
// POSENC_BIN (default build/posencd) itself with --port 0. A test file calls useDaemon() once at top level.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
export const ART = path.join(ROOT, 'tests', 'artifacts', 'browser');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const SECTIONS = ['why', 'sin', 'learned', 'rope', 'alibi', 'compare', 'ex', 'grid', 'rel'];
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

let base = process.env.POSENC_URL || '';

/** The daemon's URL (after useDaemon's before hook ran). */
export const url = () => base;
let daemon = null;

/** Starts posencd on 127.0.0.1 with --port 0 and resolves with its URL (from "listening on URL"). */
function startDaemon() {
    const bin = process.env.POSENC_BIN || path.join(ROOT, 'build', 'posencd');
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-data-'));
    daemon = spawn(bin, ['--bind', '127.0.0.1', '--port', '0', '--web-dir', path.join(ROOT, 'web'),
        '--spec', path.join(ROOT, 'openapi.yaml'), '--data-dir', data], { stdio: ['ignore', 'pipe', 'pipe'] });
    return new Promise((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`posencd did not start: ${seen}`)), 10000);
        const onData = (b) => {
            seen += b.toString();
            const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
            if (m) {
                clearTimeout(timer);
                resolve(m[1]);
            }
        };
        daemon.stdout.on('data', onData);
        daemon.stderr.on('data', onData);
        daemon.on('exit', (code) => reject(new Error(`posencd exited (${code}): ${seen}`)));
    });
}

/** Registers the hooks that find (or start) the daemon and stop it afterwards. */
export function useDaemon() {
    before(async () => {
    fs.mkdirSync(ART, { recursive: true });
    if (!base)
        base = await startDaemon();
    base = base.replace(/\/$/, '');
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/, 'the demo must be served from 127.0.0.1');
    });

    after(() => {
        if (daemon)
            daemon.kill('SIGTERM');
    });
}

/**
 * Runs in the page before its scripts: records every component and series type the page's charts ask for
 * (the top-level keys of each setOption, with their `type`, the series types, and the markers inside series)
 * in window.__chartUse, by seeing window.echarts through a proxy whose init() wraps each new instance's
 * setOption. web/vendor/echarts/echarts.min.js holds only what tools/echarts/entry.js imports, and ECharts
 * drops an option whose component is not in the bundle without a word: assertChartsBundled checks.
 */
function recordChartUse() {
    const use = window.__chartUse = new Set();
    const note = (main, v) => {
        for (const o of Array.isArray(v) ? v : [v])
            use.add(o && typeof o === 'object' && typeof o.type === 'string' ? `${main}.${o.type}` : main);
    };
    const record = (opt) => {
        for (const [k, v] of Object.entries(opt || {})) {
            if (!v || typeof v !== 'object' || k === 'textStyle' || k === 'color')
                continue;
            note(k, v);
            if (k !== 'series')
                continue;
            for (const sr of Array.isArray(v) ? v : [v]) {
                for (const m of ['markLine', 'markArea', 'markPoint'])
                    if (sr && sr[m])
                        use.add(m);
            }
        }
    };
    const init = (lib) => (...args) => {
        const c = lib.init(...args);
        const setOption = c.setOption.bind(c);
        c.setOption = (opt, ...rest) => {
            record(opt);
            return setOption(opt, ...rest);
        };
        return c;
    };
    let lib;
    Object.defineProperty(window, 'echarts', { configurable: true, enumerable: true, get: () => lib,
        set: (v) => { lib = v && typeof v === 'object' ? new Proxy(v, { get: (o, k) => (k === 'init' ? init(o) : o[k]) }) : v; } });
}

/**
 * Asserts that every component and series type the page's charts used so far is in the ECharts bundle
 * (registered with ECharts' ComponentModel, with its sub-type when it has some: series.heatmap, xAxis.log,
 * dataZoom.slider, visualMap.continuous; aria, which is no component, by the aria-label it writes).
 */
export async function assertChartsBundled(page) {
    const r = await page.evaluate(() => {
        const M = window.echarts.ComponentModel;
        const used = [...window.__chartUse].sort();
        const missing = used.filter((u) => {
            const [main, sub] = u.split('.');
            if (main === 'aria') // not a component model: the aria feature writes the chart box's aria-label
                return !document.querySelector('[_echarts_instance_][aria-label]');
            return sub ? !(M.hasSubTypes(main) ? M.getClass(main, sub) : M.hasClass(main)) : !M.hasClass(main);
        });
        return { used, missing };
    });
    assert.ok(r.used.includes('series.heatmap') && r.used.includes('series.line'), `charts seen: ${r.used}`);
    assert.deepEqual(r.missing, [], `used by web/js but not in web/vendor/echarts/echarts.min.js ` +
        `(add them to tools/echarts/entry.js and run tools/echarts/build.sh); used: ${r.used}`);
}

/**
 * Opens the demo in a fresh chromium profile. Records console errors, page errors, failed responses and
 * every request; requests to any host other than 127.0.0.1 are aborted and recorded as offences.
 */
export async function open(locale, viewport) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-chromium-'));
    const ctx = await chromium.launchPersistentContext(dir, {
        executablePath: CHROMIUM, headless: true, args: ARGS, locale, viewport, deviceScaleFactor: 1,
        reducedMotion: 'reduce',
    });
    const page = ctx.pages()[0] || await ctx.newPage();
    await page.addInitScript(recordChartUse);
    const log = { console: [], pageErrors: [], badResponses: [], foreign: [], requests: 0, expected: [] };
    await ctx.route('**/*', (route) => {
        const u = new URL(route.request().url());
        if ((u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '127.0.0.1') {
            log.foreign.push(route.request().url());
            return route.abort();
        }
        return route.continue();
    });
    page.on('request', (r) => {
        log.requests++;
        const u = new URL(r.url());
        if (u.protocol !== 'data:' && u.protocol !== 'blob:' && u.hostname !== '127.0.0.1')
            log.foreign.push(r.url());
    });
    page.on('console', (m) => {
        if (m.type() === 'error')
            log.console.push({ text: m.text(), url: m.location().url || '' });
    });
    page.on('pageerror', (e) => log.pageErrors.push(String(e)));
    page.on('response', (r) => {
        if (r.status() >= 400)
            log.badResponses.push({ path: new URL(r.url()).pathname, status: r.status() });
    });
    await page.goto(base + '/');
    await ready(page);
    return {
        page, log,
        /** Declares that `path` answering `status` is provoked on purpose from now on. */
        expect(p, status) {
            log.expected.push({ path: p, status });
        },
        async close() {
            await ctx.close();
            fs.rmSync(dir, { recursive: true, force: true });
        },
    };
}

/**
 * Waits for the first render, then scrolls every lazily computed part (data-lazy) into view, in page order,
 * waits until it is computed (data-loaded), and returns to the top: afterwards every section is drawn.
 */
export async function ready(page) {
    await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
    await showAll(page);
}

/** Scrolls each data-lazy part into view and waits for its data-loaded="1". */
export async function showAll(page) {
    const ids = await page.$$eval('[data-lazy]', (els) => els.map((e) => e.id));
    for (const id of ids) {
        await page.locator('#' + id).scrollIntoViewIfNeeded();
        await page.waitForFunction((i) => document.getElementById(i).dataset.loaded === '1', id, { timeout: 30000 });
    }
    await settle(page);
    await page.evaluate(() => window.scrollTo(0, 0));
}

export async function settle(page) {
    await page.waitForFunction(() => document.documentElement.dataset.busy === '0', null, { timeout: 30000 });
}

/** Asserts the page stayed clean: no page errors, console errors only for the declared HTTP failures. */
export function assertClean(s) {
    const ok = (p, st) => s.log.expected.some((e) => e.path === p && e.status === st);
    assert.deepEqual(s.log.pageErrors, [], 'uncaught errors in the page');
    assert.deepEqual(s.log.foreign, [], 'requests left 127.0.0.1');
    assert.deepEqual(s.log.badResponses.filter((r) => !ok(r.path, r.status)), [], 'unexpected HTTP failures');
    const stray = s.log.console.filter((c) => {
        const m = /status of (\d+)/.exec(c.text);
        return !(m && c.url && ok(new URL(c.url).pathname, +m[1]));
    });
    assert.deepEqual(stray, [], 'console errors');
    assert.ok(s.log.requests > 20, `too few requests (${s.log.requests})`);
}

/** The text (true minus turned into '-') and data-value of the element with data-testid `id`. */
export async function num(page, id) {
    const el = page.locator(`[data-testid="${id}"]`);
    const text = (await el.textContent()).trim().replace(/\u2212/g, '-');
    const value = Number(await el.getAttribute('data-value'));
    return { text, value };
}

/** Asserts the rendered number `id` reads `want` (3 decimals as in the lesson) and its exact value is within 5e-4. */
export async function expectNum(page, id, want) {
    const { text, value } = await num(page, id);
    assert.equal(text, want, `${id} shows ${text}, want ${want}`);
    assert.ok(Math.abs(value - Number(want)) <= 5e-4, `${id} value ${value} not ≈ ${want}`);
}

export async function openDetails(page, sel) {
    await page.locator(sel).evaluate((d) => { d.open = true; });
}

/** Number of data points in the first series of the ECharts chart in `sel` (0 when not drawn). */
export async function chartPoints(page, sel, series = 0) {
    return page.locator(sel).evaluate((el, i) => {
        const c = window.echarts.getInstanceByDom(el);
        if (!c)
            return 0;
        const s = c.getOption().series[i];
        return s && s.data ? s.data.length : 0;
    }, series);
}

/**
 * A heat map drawn as one image (web/js/common.js heatImageOption): asserts that the pixel at the centre of every
 * cell, read back from the chart's canvas, has the colour that the chart's own colour scale (its visualMap's stops,
 * min, max) gives `matrix`'s value there, within 3 of 255 per channel, and returns the number of cells checked.
 * The expected colour is derived here as ECharts' continuous visualMap derives it: n = (v − min) / (max − min)
 * clamped to [0, 1], times (stops − 1); each channel interpolated linearly between the two nearest stops and
 * rounded. A blank, shifted, transposed, flipped or mis-scaled image fails.
 */
export async function heatImageCells(page, sel, matrix) {
    const r = await page.locator(sel).evaluate((el, m) => {
        const c = window.echarts.getInstanceByDom(el);
        const vm = c.getOption().visualMap[0];
        const stops = vm.inRange.color.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
        const canvas = el.querySelector('canvas');
        const dpr = canvas.width / canvas.clientWidth;
        const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        const bad = [];
        let n = 0;
        for (let y = 0; y < m.length; y++) {
            for (let x = 0; x < m[y].length; x++) {
                const [cx, cy] = c.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [x, y]);
                const i = 4 * (Math.floor(cy * dpr) * canvas.width + Math.floor(cx * dpr));
                const f = Math.min(1, Math.max(0, (m[y][x] - vm.min) / (vm.max - vm.min))) * (stops.length - 1);
                const lo = Math.floor(f), hi = Math.ceil(f);
                const want = [0, 1, 2].map((k) => Math.round(stops[lo][k] + (stops[hi][k] - stops[lo][k]) * (f - lo)));
                const got = [px.data[i], px.data[i + 1], px.data[i + 2]];
                if (want.some((w, k) => Math.abs(w - got[k]) > 3))
                    bad.push(`(${x}, ${y}) ${m[y][x]}: ${got} want ${want}`);
                n++;
            }
        }
        return { n, bad: bad.slice(0, 5), nbad: bad.length, rows: el.dataset.rows, cols: el.dataset.cols };
    }, matrix);
    assert.equal(r.nbad, 0, `${sel}: ${r.nbad} cells drawn in the wrong colour, e.g. ${r.bad.join('; ')}`);
    assert.equal(`${r.rows}x${r.cols}`, `${matrix.length}x${matrix[0].length}`, `${sel}: data-rows x data-cols`);
    return r.n;
}

export async function seriesCount(page, sel) {
    return page.locator(sel).evaluate((el) => window.echarts.getInstanceByDom(el).getOption().series.length);
}

export async function shoot(page, lang, vp) {
    const tag = `${lang}-${vp.width}x${vp.height}`;
    // the contents row is sticky on phones: keep it at the top of the page, not stitched into section shots
    await page.addStyleTag({ content: '.top { position: static !important; }' });
    await page.screenshot({ path: path.join(ART, `${tag}-top.png`) });
    for (const id of SECTIONS)
        await page.locator('#' + id).screenshot({ path: path.join(ART, `${tag}-${id}.png`) });
}

/** POSTs `body` to the daemon directly (not through the page) and returns the parsed JSON. */
export async function post(p, body) {
    const r = await fetch(base + p, { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body) });
    assert.equal(r.status, 200, `${p}: ${r.status}`);
    return r.json();
}

/** The JSON bodies shown under "Show request" in `sel` (a <pre>), in order. */
export async function shownBodies(page, sel) {
    const text = await page.locator(sel).textContent();
    return text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

export const near = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

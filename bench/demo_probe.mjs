// bench/demo_probe.mjs -- what bench/demo_first_chart.mjs and bench/demo_trace.mjs share (issue 18): the bench's
// profiles, a fresh Chromium profile throttled through CDP, the in-page probe and the wait for its result.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'tests', 'browser', 'package.json'));
const { chromium } = require('playwright-core');

/** Desktop loopback, and 4× CPU slowdown with a 9 Mbit/s, 60 ms link (DevTools throttling). */
export const PROFILES = [
    { name: 'desktop loopback', cpu: 1, net: null },
    { name: '4x CPU, 9 Mbit/s 60 ms', cpu: 4,
        net: { offline: false, latency: 60, downloadThroughput: 9e6 / 8, uploadThroughput: 9e6 / 8 } },
];

/**
 * Debian's chromium with a fresh profile (empty cache, cache disabled), 1280 × 800, ko-KR, throttled as
 * `profile` says, the probe installed. Returns { page, cdp, close }.
 */
export async function openProfiled(profile) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-bench-'));
    const ctx = await chromium.launchPersistentContext(dir, { executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
        headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
            '--disable-background-networking', '--disable-component-update'], viewport: { width: 1280, height: 800 },
        locale: 'ko-KR' });
    const close = async () => {
        await ctx.close();
        fs.rmSync(dir, { recursive: true, force: true });
    };
    try {
        const page = ctx.pages()[0] || await ctx.newPage();
        const cdp = await ctx.newCDPSession(page);
        await cdp.send('Network.enable');
        await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
        if (profile.cpu > 1)
            await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpu });
        if (profile.net)
            await cdp.send('Network.emulateNetworkConditions', profile.net);
        await page.addInitScript(probe);
        return { page, cdp, close };
    } catch (e) {
        await close();
        throw e;
    }
}

/**
 * Runs in the page before its scripts: times the first `finished` of #sin-heat with data, and long tasks.
 * `finished` fires inside setOption itself when nothing is animated (the demo animates nothing), in the same
 * task that created the instance, so the listener is attached as the instance is created: window.echarts is
 * seen through a proxy whose init() adds it. (Until issue 18's last step the probe looked for the instance on
 * each animation frame, which only caught a later `finished`: the one after the chart's needless second
 * render, by then always there. On the old page this probe gives a smaller figure than that one did.)
 * `shown` is when the browser has produced the next frame after that: a setTimeout queued from the frame's
 * requestAnimationFrame, so it runs after that frame's style, layout and paint.
 */
export function probe() {
    window.__bench = { longtasks: [], drawn: null, shown: null };
    try {
        new PerformanceObserver((l) => {
            for (const e of l.getEntries())
                window.__bench.longtasks.push([e.startTime, e.duration]);
        }).observe({ type: 'longtask', buffered: true });
    } catch (e) { /* no longtask support: reported as 0 */ }
    const watch = (c) => c.on('finished', () => {
        const o = c.getOption();
        if (window.__bench.drawn || !(o && o.series && o.series[0] && o.series[0].data && o.series[0].data.length))
            return;
        window.__bench.drawn = performance.now();
        requestAnimationFrame(() => setTimeout(() => { window.__bench.shown = performance.now(); }, 0));
    });
    const init = (lib) => (el, ...rest) => {
        const c = lib.init(el, ...rest);
        if (el && el.id === 'sin-heat')
            watch(c);
        return c;
    };
    let lib;
    Object.defineProperty(window, 'echarts', { configurable: true, enumerable: true, get: () => lib,
        set: (v) => { lib = v && typeof v === 'object' ? new Proxy(v, { get: (o, k) => (k === 'init' ? init(o) : o[k]) }) : v; } });
}

/**
 * Waits until the probe has seen the chart on screen and returns window.__bench, polling every 50 ms with a bare
 * CDP Runtime.evaluate of one expression. (Playwright's page.waitForFunction, used until issue 18's last step,
 * first evaluates Playwright's own injected script in the page, ~0.3 MB of JS: 15–80 ms of the page's main
 * thread on the desktop and 85–330 ms at 4× slowdown, inside the measured interval.)
 */
export async function waitShown(cdp, timeoutMs = 60000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
        const { result } = await cdp.send('Runtime.evaluate', { returnByValue: true,
            expression: 'window.__bench && window.__bench.shown ? JSON.stringify(window.__bench) : ""' });
        if (result && result.value)
            return JSON.parse(result.value);
        if (Date.now() > until)
            throw new Error('the first chart was not drawn within 60 s');
        await new Promise((r) => setTimeout(r, 50));
    }
}

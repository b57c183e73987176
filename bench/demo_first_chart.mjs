// bench/demo_first_chart.mjs -- figures, not a test (issue 18): how long until the teaching demo's §2 heat map
// (#sin-heat, the first chart on the page) is drawn, i.e. until its ECharts instance fires `finished` after a
// setOption carrying data, timed from navigation start in the page (performance.now()). Also the main-thread long
// tasks (PerformanceObserver 'longtask', ≥ 50 ms) that started before that moment, and the bytes on the wire by
// then. Each profile runs RUNS times (default 5) in a fresh Chromium profile (empty cache); the median is printed.
//
//   node bench/demo_first_chart.mjs http://127.0.0.1:PORT [runs]
//   (bench/demo_first_chart.sh starts a daemon on an ephemeral port and runs this)
//
// Profiles: desktop loopback (1280 × 800, no throttling) and "phone-class": 4× CPU slowdown
// (Emulation.setCPUThrottlingRate) with a 9 Mbit/s, 60 ms link (Network.emulateNetworkConditions), both through
// the Chrome DevTools Protocol. Uses tests/browser's playwright-core and Debian's chromium.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'tests', 'browser', 'package.json'));
const { chromium } = require('playwright-core');

const base = (process.argv[2] || '').replace(/\/$/, '');
const RUNS = +(process.argv[3] || 5);
if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(base)) {
    console.error('usage: node bench/demo_first_chart.mjs http://127.0.0.1:PORT [runs]');
    process.exit(2);
}

const PROFILES = [
    { name: 'desktop loopback', cpu: 1, net: null },
    { name: '4x CPU, 9 Mbit/s 60 ms', cpu: 4,
        net: { offline: false, latency: 60, downloadThroughput: 9e6 / 8, uploadThroughput: 9e6 / 8 } },
];

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
function probe() {
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

async function once(profile) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'posenc-bench-'));
    const ctx = await chromium.launchPersistentContext(dir, { executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
        headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
            '--disable-background-networking', '--disable-component-update'], viewport: { width: 1280, height: 800 },
        locale: 'ko-KR' });
    try {
        const page = ctx.pages()[0] || await ctx.newPage();
        const cdp = await ctx.newCDPSession(page);
        await cdp.send('Network.enable');
        await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
        if (profile.cpu > 1)
            await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpu });
        if (profile.net)
            await cdp.send('Network.emulateNetworkConditions', profile.net);
        let bytes = 0;
        cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
        await page.addInitScript(probe);
        await page.goto(base + '/', { waitUntil: 'commit' });
        await page.waitForFunction(() => window.__bench && window.__bench.shown, null, { timeout: 60000, polling: 50 });
        const r = await page.evaluate(() => window.__bench);
        const before = r.longtasks.filter(([s]) => s < r.drawn);
        return { ms: r.drawn, shown: r.shown, longN: before.length, longMs: before.reduce((a, [, d]) => a + d, 0), bytes };
    } finally {
        await ctx.close();
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`demo: §2 heat map drawn (ECharts finished), median of ${RUNS}, ${base}`);
console.log('profile                   | drawn ms | runs (ms)                      | shown ms | long tasks before (n, ms) | KB by then');
for (const p of PROFILES) {
    const rs = [];
    for (let i = 0; i < RUNS; i++)
        rs.push(await once(p));
    const m = median(rs.map((r) => r.ms));
    console.log(`${p.name.padEnd(25)} | ${String(Math.round(m)).padStart(8)} | ` +
        `${rs.map((r) => Math.round(r.ms)).join(', ').padEnd(30)} | ` +
        `${String(Math.round(median(rs.map((r) => r.shown)))).padStart(8)} | ` +
        `${String(median(rs.map((r) => r.longN))).padStart(3)}, ${String(Math.round(median(rs.map((r) => r.longMs)))).padStart(5)}` +
        `${' '.repeat(15)} | ${Math.round(median(rs.map((r) => r.bytes)) / 1024)}`);
}

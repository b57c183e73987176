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
import { PROFILES, openProfiled, waitShown } from './demo_probe.mjs';

const base = (process.argv[2] || '').replace(/\/$/, '');
const RUNS = +(process.argv[3] || 5);
if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(base)) {
    console.error('usage: node bench/demo_first_chart.mjs http://127.0.0.1:PORT [runs]');
    process.exit(2);
}

async function once(profile) {
    const { page, cdp, close } = await openProfiled(profile);
    try {
        let bytes = 0;
        cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
        await page.goto(base + '/', { waitUntil: 'commit' });
        const r = await waitShown(cdp);
        const before = r.longtasks.filter(([s]) => s < r.drawn);
        return { ms: r.drawn, shown: r.shown, longN: before.length, longMs: before.reduce((a, [, d]) => a + d, 0), bytes };
    } finally {
        await close();
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

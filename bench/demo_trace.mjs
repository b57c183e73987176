// bench/demo_trace.mjs -- where the main thread's time goes until the demo's first chart (issue 18): one load of
// the page in a fresh Chromium profile with a DevTools performance trace (CDP Tracing, the categories the
// Performance panel records, JS samples included), cut at the §2 heat map's ECharts `finished` (the probe of
// bench/demo_first_chart.mjs). Prints the main thread's top-level tasks of ≥ 50 ms (the long tasks) with what
// they hold (script evaluation, style, layout, paint, parsing, GC), and the JS functions with the most self time
// before the chart. Keeps the whole trace for the Performance panel when TRACE_OUT=file.json is set.
//
//   node bench/demo_trace.mjs http://127.0.0.1:PORT [4]
//   (bench/demo_first_chart.sh starts a daemon: TRACE=1 sh bench/demo_first_chart.sh build/posencd runs this)
// With 4, the bench's throttled profile (4× CPU slowdown, 9 Mbit/s 60 ms link), as in demo_first_chart.mjs.
import fs from 'node:fs';
import { PROFILES, openProfiled, waitShown } from './demo_probe.mjs';

const base = (process.argv[2] || '').replace(/\/$/, '');
const CPU = +(process.argv[3] || 1) > 1 ? 4 : 1;
if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(base)) {
    console.error('usage: node bench/demo_trace.mjs http://127.0.0.1:PORT [4]');
    process.exit(2);
}

const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame',
    'v8.execute', 'disabled-by-default-devtools.timeline.stack', 'blink', 'blink.user_timing', 'loading', 'latencyInfo', 'disabled-by-default-v8.cpu_profiler', 'v8'];

/** What a top-level task holds: self-ish time of the timeline events inside it, by kind (nested kinds not double counted). */
const KINDS = { EvaluateScript: 'script eval', 'v8.compile': 'compile', 'v8.compileModule': 'compile', 'v8.evaluateModule': 'module eval',
    FunctionCall: 'JS call', TimerFire: 'JS call', FireAnimationFrame: 'rAF', EventDispatch: 'event', UpdateLayoutTree: 'style',
    Layout: 'layout', Paint: 'paint', 'PrePaint': 'pre-paint', 'Layerize': 'layerize', ParseHTML: 'parse HTML', ParseAuthorStyleSheet: 'parse CSS',
    MinorGC: 'GC', MajorGC: 'GC', 'V8.GC_SCAVENGER': 'GC', 'BlinkGC.AtomicPhase': 'GC', IntersectionObserverController: 'IO',
    'ResizeObserverController': 'RO', 'ScrollTimeline': 'other', 'Document::updateStyleAndLayout': 'style+layout' };

async function run() {
    const { page, cdp, close } = await openProfiled(PROFILES[CPU > 1 ? 1 : 0]);
    try {
        const events = [];
        cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
        const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
        await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: CATEGORIES } });
        await page.goto(base + '/', { waitUntil: 'commit' });
        const r = await waitShown(cdp);
        await cdp.send('Tracing.end');
        await done;
        if (process.env.TRACE_OUT)
            fs.writeFileSync(process.env.TRACE_OUT, JSON.stringify({ traceEvents: events }));
        report(events, r);
    } finally {
        await close();
    }
}

function report(events, r) {
    // the renderer's main thread: the one with the page's navigationStart-relative marks (CrRendererMain)
    const names = events.filter((e) => e.ph === 'M' && e.name === 'thread_name');
    const mains = names.filter((e) => e.args.name === 'CrRendererMain');
    const nav = events.find((e) => e.name === 'navigationStart' && mains.some((m) => m.pid === e.pid));
    const pid = nav ? nav.pid : mains[0].pid;
    const tid = mains.find((m) => m.pid === pid).tid;
    const t0 = nav ? nav.ts : Math.min(...events.filter((e) => e.pid === pid && e.ts).map((e) => e.ts));
    const cut = t0 + r.drawn * 1000;
    const main = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e.ts < cut);
    const tasks = main.filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask')
        .sort((a, b) => a.ts - b.ts);
    console.log(`first chart drawn at ${Math.round(r.drawn)} ms, shown ${Math.round(r.shown)} ms (CPU ${CPU}x)`);
    console.log('main-thread tasks >= 50 ms before it: start ms, duration ms, what they hold (ms)');
    let n = 0, sum = 0, busy = 0;
    for (const tk of tasks) {
        busy += tk.dur / 1000;
        if (tk.dur < 50e3)
            continue;
        n++;
        sum += tk.dur / 1000;
        const inside = main.filter((e) => e !== tk && e.ts >= tk.ts && e.ts + e.dur <= tk.ts + tk.dur &&
            (KINDS[e.name] || e.name.startsWith('v8') || e.name.includes('Microtask')));
        // outermost kinds only: an event inside another listed event is counted with it
        const outer = inside.filter((e) => !inside.some((o) => o !== e && o.ts <= e.ts && o.ts + o.dur >= e.ts + e.dur &&
            (o.ts < e.ts || o.dur > e.dur)));
        const by = {};
        for (const e of outer) {
            const k = (KINDS[e.name] || e.name) + (e.name === 'EvaluateScript' && e.args.data && e.args.data.url ?
                ` ${e.args.data.url.replace(/^.*\//, '')}` : '');
            by[k] = (by[k] || 0) + e.dur / 1000;
        }
        const what = Object.entries(by).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${Math.round(v)}`).join(', ');
        console.log(`  ${String(Math.round((tk.ts - t0) / 1000)).padStart(6)} ${String(Math.round(tk.dur / 1000)).padStart(5)}  ${what}`);
    }
    console.log(`  long tasks: ${n}, ${Math.round(sum)} ms; all main-thread tasks before the chart: ${Math.round(busy)} ms`);
    // the sampled JS profile (the renderer's ProfileChunk events): self time per function until the chart
    const frames = new Map();
    const samples = []; // [µs since the profile's start, node id]
    let at = 0;
    for (const e of events.filter((x) => x.pid === pid && x.name === 'ProfileChunk')) {
        const d = e.args.data || {};
        for (const nd of (d.cpuProfile && d.cpuProfile.nodes) || [])
            frames.set(nd.id, nd.callFrame);
        const ids = (d.cpuProfile && d.cpuProfile.samples) || [];
        for (let i = 0; i < ids.length; i++) {
            at += (d.timeDeltas || [])[i] || 0;
            samples.push([at, ids[i]]);
        }
    }
    const prof = events.find((x) => x.pid === pid && x.name === 'Profile');
    if (!prof || !samples.length)
        return;
    const self = new Map();
    for (let i = 0; i + 1 < samples.length && prof.args.data.startTime + samples[i][0] <= cut; i++) {
        const cf = frames.get(samples[i][1]);
        if (!cf)
            continue;
        const where = cf.url ? ` ${cf.url.replace(/^.*\//, '')}:${cf.lineNumber + 1}:${cf.columnNumber + 1}` : '';
        const key = `${cf.functionName || '(anonymous)'}${where}`;
        self.set(key, (self.get(key) || 0) + (samples[i + 1][0] - samples[i][0]) / 1000);
    }
    console.log('JS self time before the chart (sampled; "(program)" is the browser\'s own work), top 20:');
    for (const [k, v] of [...self].sort((x, y) => y[1] - x[1]).slice(0, 20))
        console.log(`  ${String(Math.round(v)).padStart(5)} ms  ${k}`);
}

await run();

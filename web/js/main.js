// The posenc teaching demo. Every number drawn here comes from the posencd API (same origin); the page
// only chooses inputs, picks entries out of responses and formats them.
import {
    api, ApiError, track, latest, fmt, fmtInt, fmtSig, putNum, $, $$, h, chart, baseOption, axis,
    extent, heatData, DIVERGING, COLORS, s, arrow, arrowMarker,
} from './util.js';
import { t, getLang, setLang, onLang, initialLang, applyI18n } from './i18n.js';
import { range, guarded, bindRange } from './ui.js';
import { gridInit } from './grid2d.js';
import { relInit } from './relative.js';

const TABLE = 'demo-512x64';

// Numbers in charts' tooltips and labels.
const tip = (x) => fmt(x, 4);

/** Top margin of a chart whose legend may wrap to two lines on a narrow screen. */
const legendTop = (sel, wide = 40, narrow = 68) => ($(sel).clientWidth < 560 ? narrow : wide);

// ------------------------------------------------------------------------------------------------
// 1. Why position: the same words in two orders, attention with and without position.

const WHY_VEC = { dog: [1.0, 0.2, 0.0, 0.5], man: [0.9, 0.1, 0.3, 0.6], bite: [0.0, 1.0, 0.4, 0.0],
    the: [0.2, 0.1, 0.1, 0.1] };
// Korean drops the particles, so order alone tells subject from object (SOV). English keeps its articles:
// with "dog bites man" alone, swapping the nouns is a mirror image around the verb, which a symmetric
// distance bias (ALiBi without a causal mask) cannot see.
const WHY_ORDER = { ko: [['dog', 'man', 'bite'], ['man', 'dog', 'bite']],
    en: [['the', 'dog', 'bite', 'the', 'man'], ['the', 'man', 'bite', 'the', 'dog']] };
const why = { data: null, guard: latest() };

function whyBody(order, method) {
    const x = order.map((w) => WHY_VEC[w]);
    const body = { q: x, k: x, method };
    if (method === 'alibi')
        body.alibi = { slopes: [0.5] };
    return body;
}

async function whyFetch() {
    const method = $('input[name="why-m"]:checked').value;
    const orders = WHY_ORDER[getLang()];
    const tok = why.guard.next();
    const bodies = orders.map((o) => whyBody(o, method));
    const pre = $('#why-req');
    const res = await Promise.all(bodies.map((b) => api('/attention', b)));
    pre.textContent = bodies.map((b) => `POST /attention\n${JSON.stringify(b)}`).join('\n\n');
    if (!why.guard.ok(tok))
        return;
    why.data = { method, orders, weights: res.map((r) => (method === 'alibi' ? r.weights[0] : r.weights)) };
    whyRender();
}

function whyMatrix(el, order, w) {
    const words = order.map((k) => t('tok.' + k));
    const head = h('tr', {}, h('th', { scope: 'col' }, ''), words.map((wd) => h('th', { scope: 'col' }, wd)));
    const rows = w.map((row, i) => h('tr', {}, h('th', { scope: 'row' }, words[i]), row.map((v, j) => {
        const focus = order[i] === 'bite' && (order[j] === 'dog' || order[j] === 'man');
        const td = h('td', { 'data-value': String(v), class: focus ? 'focus' : null }, fmt(v, 3));
        td.style.background = `rgba(31, 95, 168, ${(0.08 + 0.8 * v).toFixed(3)})`;
        if (v > 0.5)
            td.style.color = '#fff';
        return td;
    })));
    el.replaceChildren(h('table', { class: 'num heat' }, h('thead', {}, head), h('tbody', {}, rows)));
}

function whyRender() {
    if (!why.data)
        return;
    const { orders, weights, method } = why.data;
    $('#why-sa').textContent = '“' + orders[0].map((k) => t('tok.' + k)).join(' ') + '”';
    $('#why-sb').textContent = '“' + orders[1].map((k) => t('tok.' + k)).join(' ') + '”';
    whyMatrix($('#why-ma'), orders[0], weights[0]);
    whyMatrix($('#why-mb'), orders[1], weights[1]);
    $('#why-focus-h').textContent = t('why.focus', { verb: t('tok.bite') });
    // The verb's row, read at the columns of "dog" and "man" in each sentence.
    const pick = (i, noun) => weights[i][orders[i].indexOf('bite')][orders[i].indexOf(noun)];
    const tbl = $('#why-focus');
    const head = h('tr', {}, h('th', { scope: 'col' }, t('why.col.sent')),
        h('th', { scope: 'col' }, `→ ${t('tok.dog')}`), h('th', { scope: 'col' }, `→ ${t('tok.man')}`));
    const rows = [0, 1].map((i) => h('tr', {}, h('th', { scope: 'row' }, t(i ? 'why.sentB' : 'why.sentA')),
        ['dog', 'man'].map((n) => {
            const td = h('td', { 'data-testid': `why-focus-${i ? 'b' : 'a'}-${n}` });
            putNum(td, pick(i, n), 4);
            return td;
        })));
    tbl.replaceChildren(h('thead', {}, head), h('tbody', {}, rows));
    const same = ['dog', 'man'].every((n) => Math.abs(pick(0, n) - pick(1, n)) < 1e-12);
    const v = $('#why-verdict');
    v.textContent = t(same ? 'why.same' : 'why.diff');
    v.dataset.same = String(same);
    v.dataset.method = method;
    v.className = 'verdict ' + (same ? 'same' : 'diff');
}

function whyInit() {
    const run = () => guarded($('#why-focus'), whyFetch);
    for (const r of $$('input[name="why-m"]'))
        r.addEventListener('change', () => track(run));
    onLang(() => track(run));
    return run();
}

// ------------------------------------------------------------------------------------------------
// 2. Sinusoidal: heatmap, clock hands, exercise 1.

const sin = { heat: null, dial: null, bands: null, bandsKey: '', g1: latest(), g2: latest() };

function heatOption(matrix, { xName, yName, min, max, colors = DIVERGING, yStep, mark }) {
    const nx = matrix[0].length, ny = matrix.length;
    return baseOption({
        grid: { left: 58, right: 18, top: 12, bottom: 92 },
        tooltip: {
            formatter: (p) => `${yName} ${p.value[1]} · ${xName} ${p.value[0]}<br><b>${tip(p.value[2])}</b>`,
        },
        xAxis: axis({ type: 'category', data: range(nx), name: xName, nameLocation: 'middle', nameGap: 28,
            splitArea: { show: false }, splitLine: { show: false } }),
        yAxis: axis({ type: 'category', data: range(ny), name: yName, nameLocation: 'middle', nameGap: 42,
            inverse: true, splitArea: { show: false }, splitLine: { show: false },
            axisLabel: { color: '#333', fontSize: 12, interval: yStep ? yStep - 1 : 'auto' } }),
        visualMap: {
            type: 'continuous', min, max, orient: 'horizontal', left: 'center', bottom: 0, itemWidth: 14,
            itemHeight: 180, calculable: false, inRange: { color: colors }, precision: 2,
            text: [fmt(max, 2), fmt(min, 2)], textGap: 8, textStyle: { color: '#333', fontSize: 12 },
        },
        series: [{ type: 'heatmap', data: heatData(matrix), progressive: 0, emphasis: { disabled: true },
            ...(mark ? { markLine: mark } : {}) }],
    });
}

async function sinHeatFetch() {
    const body = { d_model: +$('#sin-d').value, seq_len: +$('#sin-len').value, base: +$('#sin-base').value };
    const tok = sin.g1.next();
    const r = await api('/sinusoidal', body, $('#sin-req'));
    if (!sin.g1.ok(tok))
        return;
    sin.heat = r;
    sinHeatRender();
}

function sinHeatRender() {
    if (!sin.heat)
        return;
    const c = chart($('#sin-heat'));
    c.setOption(heatOption(sin.heat.matrix, { xName: t('ax.dim'), yName: t('ax.pos'), min: -1, max: 1 }), true);
    $('#sin-heat').dataset.rows = String(sin.heat.matrix.length);
}

function dialPairs(n) {
    return [...new Set([0, Math.round(n / 8), Math.round(n / 4), Math.round(n / 2), n - 1])].filter((j) => j < n);
}

async function sinDialFetch() {
    const d = +$('#sin-d').value, base = +$('#sin-base').value, p = +$('#sin-p').value;
    const tok = sin.g2.next();
    const body = { d_model: d, positions: [p], base };
    const jobs = [api('/sinusoidal', body)];
    const key = `${d}/${base}`;
    const bandsBody = { head_dim: d, base, include: ['bands'] };
    if (sin.bandsKey !== key)
        jobs.push(api('/rope', bandsBody));
    const [r, b] = await Promise.all(jobs);
    $('#sin-dial-req').textContent = `POST /sinusoidal\n${JSON.stringify(body)}\n\n` +
        `POST /rope\n${JSON.stringify(bandsBody)}`;
    if (!sin.g2.ok(tok))
        return;
    if (b) {
        sin.bands = b.bands;
        sin.bandsKey = key;
    }
    sin.dial = { p, row: r.matrix[0] };
    sinDialRender();
}

function sinDialRender() {
    if (!sin.dial || !sin.bands)
        return;
    const row = sin.dial.row, n = Math.floor(row.length / 2);
    const box = $('#sin-dials');
    box.replaceChildren(...dialPairs(n).map((j) => {
        const x = row[2 * j], y = row[2 * j + 1]; // (sin, cos): 12 o'clock at position 0, clockwise
        const R = 40;
        const svg = s('svg', { viewBox: '-50 -50 100 100', role: 'img',
            'aria-label': `${t('sin.dial', { j, a: 2 * j, b: 2 * j + 1 })}: sin ${fmt(x)}, cos ${fmt(y)}` },
        s('defs', {}, arrowMarker(`dm${j}`, '#1f5fa8')),
        s('circle', { cx: 0, cy: 0, r: R, fill: '#f6f8fb', stroke: '#9aa7b8', 'stroke-width': 1.5 }),
        range(12).map((k) => {
            const a = (k * Math.PI) / 6; // clock-face ticks: decoration, not data
            return s('line', { x1: R * Math.sin(a) * 0.88, y1: -R * Math.cos(a) * 0.88, x2: R * Math.sin(a),
                y2: -R * Math.cos(a), stroke: '#9aa7b8', 'stroke-width': k % 3 ? 1 : 2 });
        }),
        arrow(0, 0, R * 0.9 * x, -R * 0.9 * y, '#1f5fa8', 3.5, `dm${j}`),
        s('circle', { cx: 0, cy: 0, r: 3, fill: '#1b1b1b' }));
        const wl = sin.bands[j] ? sin.bands[j].wavelength : null;
        return h('figure', { class: 'dial', 'data-testid': `sin-dial-${j}` }, svg,
            h('figcaption', {}, h('b', {}, t('sin.dial', { j, a: 2 * j, b: 2 * j + 1 })), h('br'),
                h('span', { class: 'nw' }, `sin ${fmt(x)}`), ' · ', h('span', { class: 'nw' }, `cos ${fmt(y)}`), h('br'),
                wl === null ? '' : t('sin.dialWave', { w: wl < 100 ? fmt(wl, 1) : fmtInt(wl, getLang()) })));
    }));
}

async function ex1Fetch() {
    const body = { d_model: 4, positions: [0, 1, 2, 3, 4] };
    const r = await api('/sinusoidal', body, $('#ex1-req'));
    const tbl = $('#ex1-table');
    const cap = tbl.querySelector('caption');
    const head = h('tr', {}, ['p', 'sin(p)', 'cos(p)', 'sin(p/100)', 'cos(p/100)'].map((c) =>
        h('th', { scope: 'col' }, c)));
    const rows = r.matrix.slice(0, 4).map((row, i) => h('tr', {}, h('th', { scope: 'row' }, String(i)),
        row.map((v) => {
            const td = h('td');
            putNum(td, v, 3);
            return td;
        })));
    tbl.replaceChildren(cap, h('thead', {}, head), h('tbody', {}, rows));
    r.matrix[4].forEach((v, i) => putNum($(`[data-testid="ex1-v${i}"]`), v, 3));
}

function sinInit() {
    const heat = () => guarded($('#sin-heat'), sinHeatFetch);
    const dial = () => guarded($('#sin-dials'), sinDialFetch);
    bindRange('sin-d', () => Promise.all([heat(), dial()]));
    bindRange('sin-len', heat);
    bindRange('sin-p', dial, 60);
    $('#sin-base').addEventListener('change', () => track(() => Promise.all([heat(), dial()])));
    onLang(() => {
        sinHeatRender();
        sinDialRender();
    });
    return Promise.all([heat(), dial(), guarded($('#ex1-table'), ex1Fetch)]);
}

// ------------------------------------------------------------------------------------------------
// 3. Learned table: heatmap, exercise 4 (the 422), extend options.

const learned = { table: null, ext: {}, available: true, ex4: null, g: latest() };

function learnedUnavailable() {
    learned.available = false;
    $('#learned-na').hidden = false;
    $('#learned-body').hidden = true;
}

async function learnedFetch() {
    const body = { table: TABLE, seq_len: 512 };
    try {
        learned.table = await api('/learned', body, $('#learned-req'));
    } catch (e) {
        if (e instanceof ApiError && e.status === 404) {
            learnedUnavailable();
            return;
        }
        throw e;
    }
    learnedRender();
}

function learnedRender() {
    if (!learned.table)
        return;
    const m = learned.table.matrix;
    const [lo, hi] = extent(m);
    const a = Math.max(-lo, hi);
    chart($('#learned-heat')).setOption(heatOption(m, { xName: t('ax.dim'), yName: t('ax.pos'), min: -a, max: a,
        yStep: 64 }), true);
    const [rows, cols] = learned.table.shape;
    const el = $('#learned-shape');
    el.textContent = t('learned.shape', { name: TABLE, rows, cols });
    el.dataset.rows = String(rows);
    el.dataset.cols = String(cols);
}

/** Pulls position and row count out of the 422's message ("position 512 ... has 512 rows"). */
function parseOverflow(problem) {
    const msg = (problem && ((problem.errors && problem.errors[0] && problem.errors[0].message) ||
        problem.detail)) || '';
    const pos = /position (\d+)/.exec(msg), rows = /(\d+) rows/.exec(msg);
    return { pos: pos ? +pos[1] : null, rows: rows ? +rows[1] : null, msg };
}

async function ex4Fetch() {
    const body = { table: TABLE, seq_len: 600 };
    const msg = $('#ex4-msg');
    msg.textContent = t('loading');
    try {
        await api('/learned', body, $('#ex4-req'));
        learned.ex4 = { ok: true };
    } catch (e) {
        if (e instanceof ApiError && e.status === 404) {
            learnedUnavailable();
            return;
        }
        if (!(e instanceof ApiError) || e.status !== 422)
            throw e;
        learned.ex4 = { ok: false, status: e.status, problem: e.problem, ...parseOverflow(e.problem) };
    }
    ex4Render();
}

function ex4Render() {
    const x = learned.ex4;
    if (!x)
        return;
    const msg = $('#ex4-msg');
    if (x.ok) {
        msg.textContent = t('ex4.ok');
        return;
    }
    msg.textContent = x.pos !== null && x.rows !== null
        ? t('ex4.friendly', { pos: x.pos, rows: x.rows, table: TABLE }) : x.msg;
    msg.dataset.position = String(x.pos);
    msg.dataset.rows = String(x.rows);
    msg.dataset.status = String(x.status);
    $('#ex4-problem').textContent = JSON.stringify(x.problem, null, 2);
    $('#ex4-raw').hidden = false;
}

async function extFetch() {
    const mode = $('input[name="ext-m"]:checked').value;
    const tok = learned.g.next();
    const body = { table: TABLE, seq_len: 600, extend: mode };
    if (mode === 'interpolate')
        body.target_length = 600;
    if (!(mode in learned.ext)) {
        try {
            learned.ext[mode] = await api('/learned', body, $('#ext-req'));
        } catch (e) {
            if (!(e instanceof ApiError) || e.status !== 422)
                throw e;
            learned.ext[mode] = { error: e.problem };
        }
    } else {
        $('#ext-req').textContent = `POST /learned\nContent-Type: application/json\n\n${JSON.stringify(body)}`;
    }
    if (!learned.g.ok(tok))
        return;
    extRender();
}

function extRender() {
    if (!learned.table)
        return;
    const mode = $('input[name="ext-m"]:checked').value, d = +$('#ext-dim').value;
    const r = learned.ext[mode];
    if (!r)
        return;
    const orig = learned.table.matrix.map((row, p) => [p, row[d]]);
    const ext = r.error ? null : r.matrix.map((row, i) => [r.positions[i], row[d]]);
    const endLine = { symbol: 'none', silent: true, data: [{ xAxis: 512 }],
        label: { formatter: t('ext.end'), color: '#1b1b1b', position: 'insideEndTop' },
        lineStyle: { color: '#b91c1c', type: 'dashed', width: 2 } };
    const [lo, hi] = extent(learned.table.matrix);
    const A = Math.ceil(Math.max(-lo, hi) * 100) / 100; // one scale for both windows
    const yAxis = (i) => axis({ type: 'value', gridIndex: i, min: -A, max: A,
        axisLabel: { color: '#333', formatter: (v) => fmt(v, 2), show: i === 0 } });
    let opt;
    if (mode === 'copy') {
        // Two windows side by side: the table's first rows, and the copied rows past its end.
        opt = {
            grid: [{ left: 56, right: '52%', top: legendTop('#ext-chart'), bottom: 56 },
                { left: '52%', right: 16, top: legendTop('#ext-chart'), bottom: 56 }],
            xAxis: [axis({ type: 'value', gridIndex: 0, min: 0, max: 88, name: t('ext.win0'), nameLocation: 'middle',
                nameGap: 28 }), axis({ type: 'value', gridIndex: 1, min: 512, max: 600, name: t('ext.win1'),
                nameLocation: 'middle', nameGap: 28 })],
            yAxis: [yAxis(0), yAxis(1)],
            series: [{ name: t('ext.orig'), type: 'line', data: orig, showSymbol: false, color: '#6b7280',
                lineStyle: { width: 2 } },
            { name: t('ext.new'), type: 'line', data: ext, showSymbol: false, color: COLORS[1], xAxisIndex: 1,
                yAxisIndex: 1, lineStyle: { width: 2 }, markLine: endLine }],
        };
    } else {
        const series = [{ name: t('ext.orig'), type: 'line', data: orig, showSymbol: false, color: '#6b7280',
            lineStyle: { width: 2.5 }, markLine: endLine }];
        if (ext) {
            series.push({ name: t('ext.new'), type: 'line', data: ext, showSymbol: false, color: COLORS[1],
                lineStyle: { width: 1.5 } });
        }
        opt = {
            grid: { left: 56, right: 16, top: legendTop('#ext-chart'), bottom: 96 },
            dataZoom: [{ type: 'slider', xAxisIndex: 0, startValue: 400, endValue: 600, bottom: 8, height: 28,
                labelFormatter: (v) => String(Math.round(v)) }, { type: 'inside', xAxisIndex: 0 }],
            xAxis: axis({ type: 'value', min: 0, max: 600, name: t('ax.pos'), nameLocation: 'middle', nameGap: 28 }),
            yAxis: yAxis(0),
            series,
        };
    }
    chart($('#ext-chart')).setOption(baseOption({
        legend: { top: 0, textStyle: { color: '#1b1b1b' } },
        tooltip: { trigger: 'axis', valueFormatter: tip },
        ...opt,
    }), true);
    $('#ext-zoom').textContent = t(mode === 'copy' ? 'ext.zoomCopy' : 'ext.zoom');
    const note = $('#ext-note');
    note.textContent = t('ext.n.' + mode);
    note.dataset.mode = mode;
}

function learnedInit() {
    const ext = () => guarded($('#ext-chart'), extFetch);
    $('#ex4-btn').addEventListener('click', () => track(() => guarded($('#ex4-out'), ex4Fetch)));
    for (const r of $$('input[name="ext-m"]'))
        r.addEventListener('change', () => track(ext));
    bindRange('ext-dim', async () => extRender(), 60);
    onLang(() => {
        learnedRender();
        ex4Render();
        extRender();
    });
    return guarded($('#learned-heat'), async () => {
        await learnedFetch();
        if (!learned.available)
            return;
        await Promise.all([guarded($('#ex4-out'), ex4Fetch), ext()]);
    });
}

// ------------------------------------------------------------------------------------------------
// 4. RoPE: the rotating pair, the score tables, exercise 2, decay, bands + scalings, config paste.

const rope = { rot: null, w1: null, w2: null, ex2: null, decay: null, bands: null, cfg: null, slow: null,
    gRot: latest(), gDecay: latest(), gBands: latest(), gCfg: latest() };
const THETA = 0.5;

async function rotFetch() {
    const m = +$('#rope-m').value, n = +$('#rope-n').value;
    const tok = rope.gRot.next();
    const body = { head_dim: 2, inv_freq: [THETA], q: [1, 2], k: [3, 1], q_positions: [m], k_positions: [n] };
    const r = await api('/rope', body, $('#rope-rot-req'));
    if (!rope.gRot.ok(tok))
        return;
    rope.rot = { m, n, q: r.q_rotated[0], k: r.k_rotated[0], score: r.scores[0][0] };
    rotRender();
}

function rotRender() {
    const x = rope.rot;
    if (!x)
        return;
    const ro = $('#rope-readout');
    ro.innerHTML = '';
    ro.append(t('rope.readout', { d: String(x.m - x.n).replace('-', '\u2212'), s: fmt(x.score, 3) }));
    ro.dataset.value = String(x.score);
    ro.dataset.m = String(x.m);
    ro.dataset.n = String(x.n);
    const C = { q0: '#93b4dc', k0: '#f0b48f', q: '#1f5fa8', k: '#c2410c' };
    const leg = $('#rope-legend');
    leg.replaceChildren(...[['q0', 'rope.lq0', '4 3'], ['k0', 'rope.lk0', '4 3'], ['q', 'rope.lq'], ['k', 'rope.lk']]
        .map(([c, key, dash]) => h('li', {}, h('span', { class: 'sw' + (dash ? ' dash' : ''),
            style: `border-color:${C[c]}` }), t(key))));
    const L = 3.6;
    const grid = [];
    for (let v = -3; v <= 3; v++) {
        grid.push(s('line', { x1: v, y1: -L, x2: v, y2: L, stroke: v ? '#eceff3' : '#9aa7b8', 'stroke-width': 0.03 }));
        grid.push(s('line', { x1: -L, y1: v, x2: L, y2: v, stroke: v ? '#eceff3' : '#9aa7b8', 'stroke-width': 0.03 }));
    }
    const svg = s('svg', { viewBox: `${-L} ${-L} ${2 * L} ${2 * L}`, role: 'img',
        'aria-label': `q (${fmt(x.q[0])}, ${fmt(x.q[1])}), k (${fmt(x.k[0])}, ${fmt(x.k[1])}), q·k ${fmt(x.score)}` },
    s('defs', {}, ...Object.entries(C).map(([k, c]) => arrowMarker('rm' + k, c))),
    grid,
    s('circle', { cx: 0, cy: 0, r: Math.hypot(1, 2), fill: 'none', stroke: '#c9d6e8', 'stroke-width': 0.03 }),
    s('circle', { cx: 0, cy: 0, r: Math.hypot(3, 1), fill: 'none', stroke: '#f3d4c0', 'stroke-width': 0.03 }),
    arrow(0, 0, 1, -2, C.q0, 0.06, 'rmq0', '0.15 0.1'),
    arrow(0, 0, 3, -1, C.k0, 0.06, 'rmk0', '0.15 0.1'),
    arrow(0, 0, x.q[0], -x.q[1], C.q, 0.1, 'rmq'),
    arrow(0, 0, x.k[0], -x.k[1], C.k, 0.1, 'rmk'),
    s('text', { x: x.q[0] * 1.1, y: -x.q[1] * 1.1 + 0.1, 'font-size': 0.34, fill: C.q, 'text-anchor': 'middle',
        'font-weight': 700 }, 'q'),
    s('text', { x: x.k[0] * 1.08, y: -x.k[1] * 1.08 + 0.1, 'font-size': 0.34, fill: C.k, 'text-anchor': 'middle',
        'font-weight': 700 }, 'k'));
    $('#rope-svg').replaceChildren(svg);
}

function scoreTable(el, pairs, scores, prefix) {
    const head = h('tr', {}, h('th', { scope: 'col' }, t('rope.col.pos')), h('th', { scope: 'col' }, t('rope.col.diff')),
        h('th', { scope: 'col' }, t('rope.col.score')));
    const rows = pairs.map(([m, n], i) => {
        const td = h('td', { 'data-testid': `${prefix}-${m}-${n}` });
        putNum(td, scores[i][i], 3);
        return h('tr', {}, h('th', { scope: 'row' }, `(${m}, ${n})`), h('td', {}, String(m - n).replace('-', '\u2212')),
            td);
    });
    el.replaceChildren(h('thead', {}, head), h('tbody', {}, rows));
}

const W1 = [[2, 0], [5, 3], [4, 0]];
const W2 = [[0, 0], [2, 0], [5, 3], [9, 7], [3, 5]];

async function workedFetch() {
    const b1 = { head_dim: 2, inv_freq: [THETA], q: [1, 0], k: [1, 0], q_positions: W1.map((p) => p[0]),
        k_positions: W1.map((p) => p[1]) };
    const b2 = { head_dim: 2, inv_freq: [THETA], q: [1, 2], k: [3, 1], q_positions: W2.map((p) => p[0]),
        k_positions: W2.map((p) => p[1]) };
    const b3 = { head_dim: 2, inv_freq: [THETA], q: [1, 0], k: [1, 0], q_positions: [10, 6], k_positions: [4, 0] };
    const [r1, r2, r3] = await Promise.all([api('/rope', b1, $('#rope-w1-req')), api('/rope', b2, $('#rope-w2-req')),
        api('/rope', b3, $('#ex2-req'))]);
    rope.w1 = r1.scores;
    rope.w2 = r2.scores;
    rope.ex2 = r3.scores;
    workedRender();
}

function workedRender() {
    if (!rope.w1)
        return;
    scoreTable($('#rope-w1'), W1, rope.w1, 'rope-w1');
    scoreTable($('#rope-w2'), W2, rope.w2, 'rope-w2');
    const v = rope.ex2[0][0], w = rope.ex2[1][1];
    $('#ex2-a').innerHTML = t('ex2.a', {
        v: `<b data-testid="ex2-score" data-value="${v}">${fmt(v, 3)}</b>`,
        w: `<b data-testid="ex2-score-6-0" data-value="${w}">${fmt(w, 3)}</b>`,
    });
}

function decayDistances(max) {
    const step = Math.max(1, Math.ceil(max / 1024));
    const out = [];
    for (let r = 0; r <= max; r += step)
        out.push(r);
    if (out[out.length - 1] !== max)
        out.push(max);
    return out;
}

async function decayFetch() {
    const body = { head_dim: +$('#decay-hd').value, base: +$('#decay-base').value, include: ['decay'],
        distances: decayDistances(+$('#decay-max').value) };
    const tok = rope.gDecay.next();
    const shown = { ...body, distances: `[${body.distances.length} integers ${body.distances[0]} … ` +
        `${body.distances[body.distances.length - 1]}]` };
    const r = await api('/rope', body);
    $('#decay-req').textContent = `POST /rope\n${JSON.stringify(shown)}`;
    if (!rope.gDecay.ok(tok))
        return;
    rope.decay = r.decay;
    decayRender();
}

/** What the decay note claims, from the API's entries: where mean_cos lies above the RoFormer curve, where it is < 0. */
export function decayFacts(decay) {
    const above = decay.filter((e) => e.mean_cos > e.upper_bound).length;
    const neg = decay.find((e) => e.mean_cos < 0);
    return { n: decay.length, above, neg: neg ? neg.distance : null, max: decay[decay.length - 1].distance };
}

function decayRender() {
    if (!rope.decay)
        return;
    const el = $('#decay-chart');
    const f = decayFacts(rope.decay);
    chart(el).setOption(baseOption({
        grid: { left: 56, right: 24, top: legendTop('#decay-chart', 48, 72), bottom: 48 },
        legend: { top: 0, textStyle: { color: '#1b1b1b' } },
        tooltip: { trigger: 'axis', valueFormatter: tip },
        xAxis: axis({ type: 'value', name: t('ax.dist'), nameLocation: 'middle', nameGap: 28, min: 0,
            max: 'dataMax' }),
        yAxis: axis({ type: 'value', max: 1, name: t('ax.decay'), nameLocation: 'end',
            nameTextStyle: { align: 'left', color: '#333' } }),
        aria: { enabled: true, label: { description: t('decay.aria', f) } },
        series: [
            { name: t('decay.ub'), type: 'line', showSymbol: false, lineStyle: { width: 2.5 },
                data: rope.decay.map((e) => [e.distance, e.upper_bound]) },
            { name: t('decay.mc'), type: 'line', showSymbol: false, lineStyle: { width: 1.5 },
                data: rope.decay.map((e) => [e.distance, e.mean_cos]),
                markLine: { symbol: 'none', silent: true, data: [{ yAxis: 0 }], label: { show: false },
                    lineStyle: { color: '#666', type: 'solid', width: 1 } } },
        ],
    }), true);
    el.dataset.points = String(rope.decay.length);
    const live = $('#decay-live');
    live.textContent = t('decay.above', f) + ' ' + (f.neg === null ? t('decay.noneg', f) : t('decay.neg', f));
    live.dataset.above = String(f.above);
    live.dataset.n = String(f.n);
    live.dataset.neg = f.neg === null ? '' : String(f.neg);
}

/** The scaling object sent for the form's choices (LongRoPE gets an example list rising 1 → factor). */
function scalingFor(type, f, orig, n) {
    switch (type) {
    case 'default': return null;
    case 'linear': return { type, factor: f };
    case 'ntk': return { type, alpha: f };
    case 'dynamic': return { type, factor: f, original_max_position_embeddings: orig };
    case 'yarn': return { type, factor: f, original_max_position_embeddings: orig };
    case 'llama3': return { type, factor: f, low_freq_factor: 1, high_freq_factor: 4,
        original_max_position_embeddings: orig };
    case 'longrope': return { type, factor: f, original_max_position_embeddings: orig,
        short_factor: range(n).map(() => 1),
        long_factor: range(n).map((j) => +(1 + ((f - 1) * j) / Math.max(1, n - 1)).toFixed(4)) };
    default: return null;
    }
}

async function bandsFetch() {
    const type = $('#bands-type').value, f = +$('#bands-f').value, hd = +$('#bands-hd').value;
    const base = +$('#bands-base').value, orig = +$('#bands-orig').value, cur = +$('#bands-cur').value;
    const scaling = scalingFor(type, f, orig, hd / 2);
    const body = { head_dim: hd, base, scaling, include: ['bands'] };
    if (type === 'dynamic' || type === 'longrope')
        body.seq_len = cur;
    const plain = { head_dim: hd, base, include: ['bands'] };
    const tok = rope.gBands.next();
    const [r, p] = await Promise.all([api('/rope', body), api('/rope', plain)]);
    $('#bands-req').textContent = `POST /rope\n${JSON.stringify(body)}\n\nPOST /rope\n${JSON.stringify(plain)}`;
    if (!rope.gBands.ok(tok))
        return;
    rope.bands = { type, orig, r, p };
    bandsRender();
}

/** The API's class of a pair, in the page's language ("unchanged" only says the type has no classes). */
const clsName = (c) => t('cls.' + c);

/**
 * Per class present in `scaled`: its pairs and how many times slower they turn than in `plain`
 * (plain inv_freq / scaled inv_freq, both from the API). What the legend under a bands chart says.
 */
export function slowdowns(scaled, plain) {
    const out = new Map();
    scaled.forEach((b, i) => {
        const x = plain[i].inv_freq / b.inv_freq;
        const o = out.get(b.class) || { cls: b.class, n: 0, first: b.pair, last: b.pair, min: x, max: x };
        o.n++;
        o.last = b.pair;
        o.min = Math.min(o.min, x);
        o.max = Math.max(o.max, x);
        out.set(b.class, o);
    });
    return [...out.values()];
}

const times = (x) => '×' + fmtSig(x, 3);

function classTally(scaled, plain) {
    return slowdowns(scaled, plain).map((o) => `${clsName(o.cls)} ${t('bands.npairs', o)}`).join(', ');
}

/** Axis label of a log axis: 1, 10, 100, 1k … 1M … (powers of ten only). */
function logLabel(v) {
    const e = Math.round(Math.log10(v));
    if (e < 0)
        return v.toExponential(0);
    return ['1', '10', '100', '1k', '10k', '100k', '1M', '10M', '100M', '1G', '10G', '100G', '1T'][e] ?? v.toExponential(0);
}

// Point colours of the scaled bands by the API's class label (kept → green, blended → amber, slowed → red).
const CLASS_COLOR = { extrapolate: '#15803d', high: '#15803d', short: '#15803d', blend: '#a16207', medium: '#a16207',
    interpolate: '#b91c1c', low: '#b91c1c', long: '#b91c1c', unchanged: '#1f5fa8' };

/** Swatches naming the classes present, coloured as in the chart, each with its pairs' slow-down range. */
function classLegend(el, scaled, plain) {
    const sd = slowdowns(scaled, plain);
    el.replaceChildren(...sd.map((o) => h('span', { class: 'cls', 'data-cls': o.cls, 'data-min': String(o.min),
        'data-max': String(o.max) }, h('span', { class: 'dot', style: `background:${CLASS_COLOR[o.cls] || COLORS[0]}` }),
    `${clsName(o.cls)} · ${t('bands.pairs', { a: o.first, b: o.last })} · ` +
        (Math.abs(o.max - 1) < 1e-12 && Math.abs(o.min - 1) < 1e-12 ? t('bands.same')
            : o.max - o.min < 1e-9 * o.max ? t('bands.slower1', { x: times(o.max) })
                : t('bands.slower', { a: times(o.min), b: times(o.max) })))));
}

function bandsOption(scaled, plain, orig, label) {
    const CL = CLASS_COLOR;
    return baseOption({
        grid: { left: 72, right: 24, top: 56, bottom: 48 },
        legend: { top: 0, textStyle: { color: '#1b1b1b' } },
        tooltip: { trigger: 'axis', valueFormatter: (v) => fmtSig(v, 5) },
        xAxis: axis({ type: 'value', name: t('ax.pair'), nameLocation: 'middle', nameGap: 28, min: 0,
            max: plain.length - 1 }),
        yAxis: axis({ type: 'log', name: t('ax.wave'), nameLocation: 'end', nameTextStyle: { align: 'left',
            color: '#333' }, axisLabel: { color: '#333', formatter: logLabel } }),
        series: [
            { name: t('bands.none'), type: 'line', showSymbol: false, lineStyle: { width: 2, type: 'dashed' },
                color: '#6b7280', data: plain.map((b) => [b.pair, b.wavelength]),
                ...(orig ? { markLine: { symbol: 'none', silent: true, data: [{ yAxis: orig }],
                    label: { formatter: `${t('bands.origLine')} ${fmtInt(orig, getLang())}`, position: 'insideStartTop',
                        color: '#1b1b1b' }, lineStyle: { color: '#7e22ce', type: 'dotted', width: 2 } } } : {}) },
            { name: label, type: 'line', symbolSize: 5, color: COLORS[0], lineStyle: { width: 2 },
                data: scaled.map((b) => ({ value: [b.pair, b.wavelength], itemStyle: { color: CL[b.class] || COLORS[0] },
                    cls: b.class })) },
        ],
    });
}

function bandsRender() {
    const x = rope.bands;
    if (!x)
        return;
    const label = x.type === 'default' ? t('bands.none') : t('bands.scaled', { type: t('sc.name.' + x.type) });
    chart($('#bands-chart')).setOption(bandsOption(x.r.bands, x.p.bands, x.orig, label), true);
    $('#bands-desc').innerHTML = t('sc.' + x.type);
    classLegend($('#bands-cls'), x.r.bands, x.p.bands);
    const sum = $('#bands-sum');
    sum.textContent = t('bands.summary', { af: fmtSig(x.r.attention_factor, 5), classes: classTally(x.r.bands, x.p.bands) });
    sum.dataset.type = x.type;
}

const PRESETS = {
    'Llama 3.1 8B': { architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096,
        num_attention_heads: 32, num_key_value_heads: 8, max_position_embeddings: 131072, rope_theta: 500000.0,
        rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0,
            original_max_position_embeddings: 8192, rope_type: 'llama3' } },
    'Qwen2.5 7B + YaRN': { architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_size: 3584,
        num_attention_heads: 28, num_key_value_heads: 4, max_position_embeddings: 32768, rope_theta: 1000000.0,
        rope_scaling: { factor: 4.0, original_max_position_embeddings: 32768, type: 'yarn' } },
    'DeepSeek-V3': { architectures: ['DeepseekV3ForCausalLM'], model_type: 'deepseek_v3', hidden_size: 7168,
        num_attention_heads: 128, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128,
        max_position_embeddings: 163840, rope_theta: 10000,
        rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0,
            original_max_position_embeddings: 4096, type: 'yarn' } },
    'Mistral 7B v0.1': { architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096,
        num_attention_heads: 32, num_key_value_heads: 8, max_position_embeddings: 32768, rope_theta: 10000.0 },
};

async function cfgFetch() {
    const err = $('#cfg-err');
    let config;
    try {
        config = JSON.parse($('#cfg-text').value);
    } catch (e) {
        err.hidden = false;
        err.textContent = `JSON: ${e.message}`;
        return;
    }
    const body = { config, include: ['bands'] };
    const plain = { config, scaling: { type: 'default' }, include: ['bands'] };
    const tok = rope.gCfg.next();
    let r, p;
    try {
        [r, p] = await Promise.all([api('/rope', body), api('/rope', plain)]);
    } catch (e) {
        if (!(e instanceof ApiError))
            throw e;
        err.hidden = false;
        const first = e.problem && e.problem.errors && e.problem.errors[0];
        err.textContent = t('err.generic', { msg: first ? `${first.pointer}: ${first.message}` : e.message });
        err.dataset.status = String(e.status);
        return;
    } finally {
        $('#cfg-req').textContent = `POST /rope\n${JSON.stringify(body)}\n\nPOST /rope\n${JSON.stringify(plain)}`;
    }
    if (!rope.gCfg.ok(tok))
        return;
    err.hidden = true;
    rope.cfg = { r, p };
    cfgRender();
}

function cfgRender() {
    const x = rope.cfg;
    if (!x)
        return;
    const res = x.r.resolved, src = res.sources || {};
    const sc = res.scaling || { type: 'default' };
    const rows = [
        ['head_dim', res.head_dim, src.head_dim], ['rotary_dim', res.rotary_dim, src.rotary_dim],
        ['base', res.base, src.base], ['layout', res.layout, src.layout],
        ['scaling.type', sc.type, src['scaling.type'] || src.scaling],
    ];
    if (sc.factor !== undefined)
        rows.push(['scaling.factor', sc.factor, src['scaling.factor']]);
    if (sc.original_max_position_embeddings !== undefined) {
        rows.push(['scaling.original_max_position_embeddings', sc.original_max_position_embeddings,
            src['scaling.original_max_position_embeddings']]);
    }
    rows.push(['attention_factor', fmtSig(x.r.attention_factor, 6), ''],
        ['softmax_scale_factor', fmtSig(x.r.softmax_scale_factor, 6), '']);
    const tbl = $('#cfg-resolved');
    tbl.replaceChildren(h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('cfg.field')),
        h('th', { scope: 'col' }, t('cfg.value')), h('th', { scope: 'col' }, t('cfg.source')))),
    h('tbody', {}, rows.map(([k, v, from]) => h('tr', { 'data-field': k }, h('th', { scope: 'row' }, h('code', {}, k)),
        h('td', { 'data-testid': `cfg-${k}` }, v === null || v === undefined ? '–' : String(v)),
        h('td', { class: 'src' }, from || '')))));
    const orig = sc.original_max_position_embeddings || null;
    chart($('#cfg-chart')).setOption(bandsOption(x.r.bands, x.p.bands, orig,
        t('bands.scaled', { type: t('sc.name.' + sc.type) })), true);
    classLegend($('#cfg-cls'), x.r.bands, x.p.bands);
    $('#cfg-sum').textContent = t('bands.summary', { af: fmtSig(x.r.attention_factor, 5),
        classes: classTally(x.r.bands, x.p.bands) });
}

async function slowFetch() {
    const body = { head_dim: 128, base: 10000, include: ['bands'] };
    const r = await api('/rope', body, $('#slow-req'));
    rope.slow = r.bands[r.bands.length - 1];
    slowRender();
}

function slowRender() {
    const b = rope.slow;
    if (!b)
        return;
    $('#slow-p').innerHTML = t('slow.p', {
        theta: `<b data-testid="slow-theta" data-value="${b.inv_freq}">${fmtSig(b.inv_freq, 5)}</b>`,
        wl: `<b data-testid="slow-wavelength" data-value="${b.wavelength}">${fmtInt(b.wavelength, getLang())}</b>`,
    });
}

function ropeInit() {
    const rot = () => guarded($('#rope-svg'), rotFetch);
    bindRange('rope-m', rot, 40);
    bindRange('rope-n', rot, 40);
    for (const b of $$('[data-mn]')) {
        b.addEventListener('click', () => {
            const [m, n] = b.dataset.mn.split(',');
            $('#rope-m').value = m;
            $('#rope-n').value = n;
            $('#rope-m-o').textContent = m;
            $('#rope-n-o').textContent = n;
            track(rot);
        });
    }
    const decay = () => guarded($('#decay-chart'), decayFetch);
    for (const id of ['decay-hd', 'decay-base', 'decay-max'])
        $('#' + id).addEventListener('change', () => track(decay));
    const bands = () => guarded($('#bands-chart'), bandsFetch);
    for (const id of ['bands-type', 'bands-hd', 'bands-base', 'bands-orig', 'bands-cur'])
        $('#' + id).addEventListener('change', () => track(bands));
    bindRange('bands-f', bands);
    const cfg = () => guarded($('#cfg-resolved'), cfgFetch);
    const pre = $('#cfg-presets');
    for (const name of Object.keys(PRESETS)) {
        pre.append(h('button', { type: 'button', 'data-preset': name, onclick: () => {
            $('#cfg-text').value = JSON.stringify(PRESETS[name], null, 2);
            track(cfg);
        } }, name), ' ');
    }
    $('#cfg-text').value = JSON.stringify(PRESETS['Llama 3.1 8B'], null, 2);
    $('#cfg-run').addEventListener('click', () => track(cfg));
    onLang(() => {
        rotRender();
        workedRender();
        decayRender();
        bandsRender();
        cfgRender();
        slowRender();
    });
    return Promise.all([rot(), guarded($('#rope-w1'), workedFetch), decay(), bands(), cfg(),
        guarded($('#slow-p'), slowFetch)]);
}

// ------------------------------------------------------------------------------------------------
// 5. ALiBi: slopes, exercise 3, bias heatmap, softmax bars.

const alibi = { slopes: null, ex3: null, bias: null, bars: null, g1: latest(), g2: latest(), g3: latest() };
const BAR_SLOPES = [0, 0.5, 1 / 256];

async function slopesFetch() {
    const body = { num_heads: +$('#alibi-nh').value, seq_len: 1, slopes_rule: $('#alibi-rule').value,
        include_bias: false };
    const tok = alibi.g1.next();
    const r = await api('/alibi', body, $('#slopes-req'));
    if (!alibi.g1.ok(tok))
        return;
    alibi.slopes = r.slopes;
    slopesRender();
}

function slopesRender() {
    if (!alibi.slopes)
        return;
    const sl = alibi.slopes;
    chart($('#slopes-chart')).setOption(baseOption({
        grid: { left: 56, right: 16, top: 16, bottom: 44 },
        tooltip: { trigger: 'axis', valueFormatter: (v) => fmtSig(v, 5) },
        xAxis: axis({ type: 'category', data: sl.map((_, i) => i + 1), name: t('ax.head'), nameLocation: 'middle',
            nameGap: 28 }),
        yAxis: axis({ type: 'value', name: t('ax.slope') }),
        series: [{ type: 'bar', data: sl, itemStyle: { color: COLORS[0] },
            label: { show: $('#slopes-chart').clientWidth / sl.length >= 48, position: 'top', color: '#1b1b1b', formatter: (p) => fmt(p.value, 3) } }],
    }), true);
    $('#slopes-chart').dataset.heads = String(sl.length);
    slopesNote(sl);
}

/** The largest power of two ≤ n (n ≥ 1): where ALiBi's geometric block ends. */
export const pow2Below = (n) => 2 ** Math.floor(Math.log2(n));

/** Explains the drawn slopes: one geometric sequence for a power of two, two interleaved ones otherwise. */
function slopesNote(sl) {
    const n = sl.length, p = pow2Below(n);
    const el = $('#slopes-note');
    const v = (x) => fmtSig(x, 3);
    const args = { n, p, p2: 2 * p, rest: n - p, s0: v(sl[0]), last: v(sl[p - 1]),
        jump: n > p ? v(sl[p]) : '', extra: sl.slice(p).map(v).join(', ') };
    el.innerHTML = t(n === p ? 'alibi.pow2' : 'alibi.mixed', args) +
        ($('#alibi-rule').value === 'mpt' ? ' ' + t('alibi.mpt') : '');
    el.dataset.p = String(p);
    el.dataset.last = String(sl[p - 1]);
    el.dataset.jump = n > p ? String(sl[p]) : '';
}

async function ex3Fetch() {
    const body = { num_heads: 16, seq_len: 1, include_bias: false };
    const r = await api('/alibi', body, $('#ex3-req'));
    alibi.ex3 = r.slopes;
    ex3Render();
}

function ex3Render() {
    const sl = alibi.ex3;
    if (!sl)
        return;
    const b = (i) => `<b data-testid="ex3-s${i}" data-value="${sl[i]}">${fmt(sl[i], 3)}</b>`;
    $('#ex3-a').innerHTML = t('ex3.a', { s0: b(0), s1: b(1), s2: b(2) });
}

async function biasFetch() {
    const len = +$('#bias-len').value, mode = $('#bias-mode').value;
    const body = { num_heads: 8, seq_len: len, mode };
    const tok = alibi.g2.next();
    const r = await api('/alibi', body, $('#bias-req'));
    if (!alibi.g2.ok(tok))
        return;
    alibi.bias = r;
    biasRender();
}

function biasRender() {
    const r = alibi.bias;
    if (!r)
        return;
    const hd = +$('#bias-h').value - 1;
    const m = r.bias[hd];
    const [lo] = extent(m);
    const opt = heatOption(m, { xName: t('ax.key'), yName: t('ax.query'), min: Math.min(lo, -1e-9), max: 0,
        colors: ['#8f2a0c', '#d9663a', '#f6cfb5', '#f7f7f7'] });
    opt.series[0].label = { show: $('#bias-chart').clientWidth / m.length >= 38, color: '#1b1b1b', fontSize: 10,
        formatter: (p) => (p.value[2] === '-' ? '' : fmt(p.value[2], 1)) };
    chart($('#bias-chart')).setOption(opt, true);
    $('#bias-cap').textContent = t('bias.cap', { h: hd + 1, m: fmtSig(r.slopes[hd], 4) });
}

async function barsFetch() {
    const custom = +$('#bars-m').value;
    const body = { num_heads: 4, slopes: [...BAR_SLOPES, custom], query_positions: [3], key_positions: [0, 1, 2, 3],
        scores: [[2, 1, 3, 2]] };
    const tok = alibi.g3.next();
    const r = await api('/alibi', body, $('#bars-req'));
    if (!alibi.g3.ok(tok))
        return;
    alibi.bars = { custom, w: r.weights.map((hw) => hw[0]) };
    barsRender();
}

function barsRender() {
    const x = alibi.bars;
    if (!x)
        return;
    const names = [t('bars.s0'), t('bars.s1'), t('bars.s2'), t('bars.s3', { m: x.custom })];
    const keys = [0, 1, 2, 3].map((k) => t('bars.key' + k));
    chart($('#bars-chart')).setOption(baseOption({
        grid: { left: 48, right: 12, top: legendTop('#bars-chart', 64, 72), bottom: 44 },
        legend: { top: 0, textStyle: { color: '#1b1b1b' } },
        tooltip: { trigger: 'axis', valueFormatter: (v) => fmt(v, 3) },
        color: ['#6b7280', COLORS[0], COLORS[2], COLORS[1]],
        xAxis: axis({ type: 'category', data: keys, axisLabel: { color: '#333', interval: 0, fontSize: 11 } }),
        yAxis: axis({ type: 'value', max: 1 }),
        series: x.w.map((w, i) => ({ name: names[i], type: 'bar', data: w })),
    }), true);
    // Table headers: "key 0 (distance 3)" on two lines, so the table fits its half-width panel.
    const head = h('tr', {}, h('th', { scope: 'col' }, t('bars.head')), [3, 2, 1, 0].map((d, k) =>
        h('th', { scope: 'col', class: 'two', 'aria-label': keys[k] }, t('bars.kh', { k }), h('br'),
            d ? t('bars.kd', { d }) : t('bars.kself'))));
    const rows = x.w.map((w, i) => h('tr', {}, h('th', { scope: 'row' }, names[i]), w.map((v, k) => {
        const td = h('td', { 'data-testid': `bars-w${i}-k${k}` });
        putNum(td, v, 3);
        return td;
    })));
    $('#bars-table').replaceChildren(h('thead', {}, head), h('tbody', {}, rows));
}

function alibiInit() {
    const slopes = () => guarded($('#slopes-chart'), slopesFetch);
    const bias = () => guarded($('#bias-chart'), biasFetch);
    const bars = () => guarded($('#bars-chart'), barsFetch);
    bindRange('alibi-nh', slopes);
    $('#alibi-rule').addEventListener('change', () => track(slopes));
    bindRange('bias-len', bias);
    bindRange('bias-h', async () => biasRender(), 40);
    $('#bias-mode').addEventListener('change', () => track(bias));
    bindRange('bars-m', bars);
    onLang(() => {
        slopesRender();
        ex3Render();
        biasRender();
        barsRender();
    });
    return Promise.all([slopes(), guarded($('#ex3-a'), ex3Fetch), bias(), bars()]);
}

// ------------------------------------------------------------------------------------------------
// 6. Comparison past the trained length L = 512.

const L_TRAIN = 512;
const cmp = { live: null, ropeBands: null, t5: null, g: latest() };

async function cmpFetch() {
    const N = +$('#cmp-n').value, p = N - 1;
    const tok = cmp.g.next();
    const bodies = {
        sin: ['/sinusoidal', { d_model: 64, positions: [p] }],
        learned: ['/learned', { table: TABLE, positions: [p] }],
        rope: ['/rope', { head_dim: 64, include: ['bands'] }],
        alibi: ['/alibi', { num_heads: 1, slopes: [0.5], query_positions: [p], key_positions: [0] }],
        t5: ['/t5/buckets', { relative_positions: [-p], bidirectional: false }],
    };
    const settle = (k) => (k === 'rope' && cmp.ropeBands ? Promise.resolve({ bands: cmp.ropeBands })
        : api(bodies[k][0], bodies[k][1])).then((v) => ({ ok: true, v }), (e) => ({ ok: false, e }));
    const keys = Object.keys(bodies);
    const res = await Promise.all(keys.map(settle));
    $('#cmp-req').textContent = keys.map((k) => `POST ${bodies[k][0]}\n${JSON.stringify(bodies[k][1])}`).join('\n\n');
    if (!cmp.g.ok(tok))
        return;
    const out = Object.fromEntries(keys.map((k, i) => [k, res[i]]));
    for (const k of ['sin', 'rope', 'alibi', 't5']) {
        if (!out[k].ok)
            throw out[k].e;
    }
    cmp.ropeBands = out.rope.v.bands;
    cmp.live = { N, p, out };
    cmpRender();
}

function cmpRender() {
    const x = cmp.live;
    if (!x)
        return;
    const { N, p, out } = x;
    const beyond = N > L_TRAIN;
    const row0 = out.sin.v.matrix[0];
    let learnedText, learnedState;
    if (out.learned.ok) {
        learnedText = t('cmp.learned.in', { p });
        learnedState = 'ok';
    } else if (out.learned.e instanceof ApiError && out.learned.e.status === 422) {
        const o = parseOverflow(out.learned.e.problem);
        learnedText = t('cmp.learned.out', { detail: o.pos !== null ? t('cmp.learned.detail', o) : o.msg });
        learnedState = 'refused';
    } else {
        learnedText = t('cmp.learned.na');
        learnedState = 'unavailable';
    }
    const slowPairs = cmp.ropeBands.filter((b) => b.wavelength > L_TRAIN).length;
    const bias = out.alibi.v.bias[0][0][0];
    const bucket = out.t5.v.buckets[0];
    const rows = [
        ['sin', t('cmp.m.sin'), t('cmp.where.input'), t('cmp.abs'),
            t(beyond ? 'cmp.sin.out' : 'cmp.sin.in', { a: fmt(row0[0], 3), b: fmt(row0[1], 3) }), beyond ? 'unseen' : 'ok'],
        ['learned', t('cmp.m.learned'), t('cmp.where.input'), t('cmp.abs'), learnedText, learnedState],
        ['rope', t('cmp.m.rope'), t('cmp.where.rotate'), t('cmp.rel'),
            beyond ? t('cmp.rope.out', { k: slowPairs }) : t('cmp.rope.in'), beyond ? 'unseen' : 'ok'],
        ['alibi', t('cmp.m.alibi'), t('cmp.where.bias'), t('cmp.rel'),
            t('cmp.alibi', { b: fmt(bias, 1), d: p }), 'ok'],
        ['t5', t('cmp.m.t5'), t('cmp.where.bias'), t('cmp.rel'), t('cmp.t5', { b: bucket }),
            p >= 128 ? 'saturated' : 'ok'],
    ];
    const cols = ['cmp.col.method', 'cmp.col.where', 'cmp.col.kind', 'cmp.col.live'].map((k) => t(k));
    const head = h('tr', {}, cols.map((c) => h('th', { scope: 'col' }, c)));
    // data-label: the column name, shown before each cell when the table is stacked on a phone
    $('#cmp-table').replaceChildren(h('thead', {}, head), h('tbody', {}, rows.map(([id, name, where, kind, live, st]) =>
        h('tr', { 'data-testid': `cmp-${id}`, 'data-state': st }, h('th', { scope: 'row' }, name),
            h('td', { 'data-label': cols[1] }, where), h('td', { 'data-label': cols[2] }, kind),
            h('td', { class: 'live ' + st, 'data-label': cols[3] }, live)))));
    $('#cmp-table').dataset.n = String(N);
}

async function t5Fetch() {
    const dist = range(1025);
    const body = { relative_positions: dist.map((d) => -d), bidirectional: false };
    const r = await api('/t5/buckets', body);
    $('#t5-req').textContent = `POST /t5/buckets\n${JSON.stringify({ ...body,
        relative_positions: '[0, −1, …, −1024]' })}`;
    cmp.t5 = dist.map((d, i) => [d, r.buckets[i]]);
    t5Render();
}

function t5Render() {
    if (!cmp.t5)
        return;
    chart($('#t5-chart')).setOption(baseOption({
        grid: { left: 56, right: 24, top: legendTop('#t5-chart', 44, 64), bottom: 48 },
        legend: { top: 0, textStyle: { color: '#1b1b1b' } },
        tooltip: { trigger: 'axis' },
        xAxis: axis({ type: 'value', name: t('ax.dist'), nameLocation: 'middle', nameGap: 28, min: 0, max: 1024 }),
        yAxis: axis({ type: 'value', name: t('ax.bucket'), max: 32 }),
        series: [{ name: t('t5.series'), type: 'line', step: 'end', showSymbol: false, data: cmp.t5,
            markLine: { symbol: 'none', silent: true, data: [{ xAxis: 128 }], label: { formatter: 'max_distance 128',
                color: '#1b1b1b', position: 'insideEndTop' }, lineStyle: { color: '#7e22ce', type: 'dotted', width: 2 } } }],
    }), true);
}

function cmpInit() {
    const live = () => guarded($('#cmp-table'), cmpFetch);
    bindRange('cmp-n', live);
    onLang(() => {
        cmpRender();
        t5Render();
    });
    return Promise.all([live(), guarded($('#t5-chart'), t5Fetch)]);
}

// ------------------------------------------------------------------------------------------------

async function footer() {
    const el = $('#foot-server');
    try {
        const v = await api('/version', null);
        const txt = `${v.name} ${v.version}${v.git_revision ? ` (${v.git_revision})` : ''}`;
        el.textContent = t('foot.server', { v: txt });
        onLang(() => { el.textContent = t('foot.server', { v: txt }); });
    } catch (e) {
        el.textContent = '';
    }
}

async function main() {
    if (!window.echarts) {
        document.body.prepend(h('p', { class: 'warn' }, 'vendor/echarts/echarts.min.js did not load.'));
        return;
    }
    for (const b of $$('[data-lang]'))
        b.addEventListener('click', () => setLang(b.dataset.lang));
    setLang(initialLang(), false);
    applyI18n();
    // Keyboard users reach the charts' descriptions through the figures' captions; the skip link
    // focuses <main>.
    await track(() => Promise.all([whyInit(), sinInit(), learnedInit(), ropeInit(), alibiInit(), cmpInit(),
        gridInit(), relInit(), footer()]));
    document.body.dataset.ready = '1';
}

main();

// Section 4, RoPE: the rotating pair with its cross-term step, the lesson's score tables and the decay chart.
import { api, track, latest, fmt, putNum, $, $$, h, chart, baseOption, axis, s, arrow, arrowMarker } from './util.js';
import { t, onLang } from './i18n.js';
import { guarded, bindRange } from './ui.js';
import { tip, legendTop, yTitle } from './common.js';


const rope = { rot: null, w1: null, w2: null, decay: null, gRot: latest(), gDecay: latest() };
const THETA = 0.5;

/**
 * The pair widget's request. q rows: q, e₁ at m, and q at 0; k rows: k, e₁, e₂ at n, then k and
 * k⊥ = (k₂, −k₁) at 0. So scores[0][0] is the score, [1][1] = cos((m−n)θ), [1][2] = sin((m−n)θ),
 * [2][3] = q·k and [2][4] = q₁k₂ − q₂k₁: every number of the cross-term step in one request.
 */
function rotBody(m, n) {
    return { head_dim: 2, inv_freq: [THETA], q: [[1, 2], [1, 0], [1, 2]], q_positions: [m, m, 0],
        k: [[3, 1], [1, 0], [0, 1], [3, 1], [1, -3]], k_positions: [n, n, n, 0, 0] };
}

async function rotFetch() {
    const m = +$('#rope-m').value, n = +$('#rope-n').value;
    const tok = rope.gRot.next();
    const r = await api('/rope', rotBody(m, n), $('#rope-rot-req'));
    if (!rope.gRot.ok(tok))
        return;
    const sc = r.scores;
    rope.rot = { m, n, q: r.q_rotated[0], k: r.k_rotated[0], score: sc[0][0], cos: sc[1][1], sin: sc[1][2],
        dot: sc[2][3], cross: sc[2][4] };
    rotRender();
}

/** score = (q·k)·cos((m−n)θ) + (q₁k₂ − q₂k₁)·sin((m−n)θ), each factor from the API. */
function crossRender(x) {
    const d = x.m - x.n;
    const b = (id, v, digits) => `<b data-testid="cross-${id}" data-value="${v}">${fmt(v, digits)}</b>`;
    const par = (v) => (v < 0 ? `(${b('cross', v, 0)})` : b('cross', v, 0));
    $('#rope-cross').innerHTML = t('cross.p', { d: fmt(d, 0), a: fmt(d * THETA, 1) }) + '<br>' +
        `${b('dot', x.dot, 0)} × ${b('cos', x.cos, 3)} + ${par(x.cross)} × ${b('sin', x.sin, 3)} ≈ ` +
        `${b('sum', x.dot * x.cos + x.cross * x.sin, 3)}` + ' · ' + t('cross.api', { s: b('score', x.score, 3) });
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
    crossRender(x);
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

/** A table of (m, n), m − n and the score; `scores[i]` belongs to pairs[i]. */
function scoreTable(el, pairs, scores, prefix) {
    const head = h('tr', {}, h('th', { scope: 'col' }, t('rope.col.pos')), h('th', { scope: 'col' }, t('rope.col.diff')),
        h('th', { scope: 'col' }, t('rope.col.score')));
    const rows = pairs.map(([m, n], i) => {
        const td = h('td', { 'data-testid': `${prefix}-${m}-${n}` });
        putNum(td, scores[i], 3);
        return h('tr', {}, h('th', { scope: 'row' }, `(${m}, ${n})`), h('td', {}, String(m - n).replace('-', '\u2212')),
            td);
    });
    el.replaceChildren(h('thead', {}, head), h('tbody', {}, rows));
}

const W1 = [[2, 0], [5, 3], [4, 0]];
const W2 = [[0, 0], [2, 0], [5, 3], [9, 7], [3, 5]];

/**
 * Both score tables in one request: q and k rows (1, 0) for ①'s pairs, then (1, 2) and (3, 1) for ②'s;
 * row i of q meets row i of k, so the diagonal of scores holds the tables.
 */
function workedBody() {
    const rows = (v, n) => Array.from({ length: n }, () => v);
    return { head_dim: 2, inv_freq: [THETA], q: [...rows([1, 0], W1.length), ...rows([1, 2], W2.length)],
        k: [...rows([1, 0], W1.length), ...rows([3, 1], W2.length)],
        q_positions: [...W1, ...W2].map((p) => p[0]), k_positions: [...W1, ...W2].map((p) => p[1]) };
}

async function workedFetch() {
    const r = await api('/rope', workedBody(), $('#rope-w1-req'));
    $('#rope-w2-req').textContent = $('#rope-w1-req').textContent;
    const diag = r.scores.map((row, i) => row[i]);
    rope.w1 = diag.slice(0, W1.length);
    rope.w2 = diag.slice(W1.length);
    workedRender();
}

function workedRender() {
    if (!rope.w1)
        return;
    scoreTable($('#rope-w1'), W1, rope.w1, 'rope-w1');
    scoreTable($('#rope-w2'), W2, rope.w2, 'rope-w2');
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
        yAxis: axis({ type: 'value', max: 1, ...yTitle(t('ax.decay')) }),
        aria: { label: { description: t('aria.general') + t('decay.aria', f) } },
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

/** Wires the RoPE section's pair widget, score tables and decay chart; returns their loader. */
export function ropeInit() {
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
    onLang(() => {
        rotRender();
        workedRender();
        decayRender();
    });
    return () => Promise.all([rot(), guarded($('#rope-w1'), workedFetch), decay()]);
}

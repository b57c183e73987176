// Section 6, comparison past the trained length L = 512, and T5's buckets.
import { api, ApiError, latest, fmt, $, h, chart, baseOption, axis } from './util.js';
import { t, onLang } from './i18n.js';
import { range, guarded, bindRange } from './ui.js';
import { TABLE, legendTop, parseOverflow } from './common.js';


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

/** Wires section 6; returns its loader (the live table, T5 buckets). */
export function cmpInit() {
    const live = () => guarded($('#cmp-table'), cmpFetch);
    bindRange('cmp-n', live);
    onLang(() => {
        cmpRender();
        t5Render();
    });
    return () => Promise.all([live(), guarded($('#t5-chart'), t5Fetch)]);
}


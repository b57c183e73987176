// 8. Relative methods side by side: what T5, ALiBi, Shaw and Transformer-XL add to a query's score for a key
// d = key − query positions away, in a sequence of T tokens. Every number is read out of a response: /t5/buckets,
// /alibi's bias, and /attention's scores with k = 0, where the content term q·k is 0 and the score is the
// position term alone (scale 1).
import { api, latest, fmt, putNum, $, h, chart, baseOption, axis, COLORS } from './util.js';
import { t, onLang } from './i18n.js';
import { range, signed, guarded, bindRange } from './ui.js';
import { yTitle } from './common.js';

// T5: 8 buckets, 4 a direction; distances 0 and 1 exact, then log-spaced up to 16. The bias per bucket is
// made up (T5 learns it); bucket 4 (a key after the query at distance 0) never occurs.
const T5 = { num_buckets: 8, max_distance: 16, bidirectional: true };
export const T5_BIAS = [1, 0.6, 0.3, 0.1, 0, 0.7, 0.2, -0.2];
// One colour a bucket, so that the bars of one bucket look alike.
const BUCKET_COLORS = ['#1f5fa8', '#0e7490', '#15803d', '#65a30d', '#6b7280', '#c2410c', '#b91c1c', '#7e22ce'];
export const ALIBI_SLOPE = 0.5;
// Shaw: d = 1 key embeddings for the clipped distances −4 … 4 (made up); K takes the middle 2K + 1 rows.
export const SHAW_ROWS = [-0.6, 0.2, -0.3, 0.5, 1, 0.7, -0.1, 0.4, -0.5];
// Transformer-XL: d = d_r = 4, W_R the identity, base 16: R(δ) = (sin δ, sin δ/4, cos δ, cos δ/4).
const TXL = { base: 16 };
export const METHODS = ['t5', 'alibi', 'shaw', 'txl'];
const COLOR = { t5: COLORS[3], alibi: COLORS[1], shaw: COLORS[2], txl: COLORS[0] };
const rel = { x: null, g: latest() };

const rows = (T, v) => range(T).map(() => v);

/** The five requests for length T and Shaw's K: [path, body] by name. */
export function relBodies(T, K) {
    const one = rows(T, [1]), zero = rows(T, [0]);
    return {
        t5b: ['/t5/buckets', { relative_positions: range(2 * T - 1, 1 - T), ...T5 }],
        t5: ['/attention', { q: one, k: zero, scale: 1, method: 't5', t5: { bias: T5_BIAS, ...T5 } }],
        alibi: ['/alibi', { num_heads: 1, slopes: [ALIBI_SLOPE], seq_len: T, mode: 'symmetric' }],
        shaw: ['/attention', { q: one, k: zero, scale: 1, method: 'shaw', shaw: { max_relative_position: K,
            key_embeddings: SHAW_ROWS.slice(4 - K, 5 + K).map((v) => [v]) } }],
        txl: ['/attention', { q: rows(T, [1, 1, 1, 1]), k: rows(T, [0, 0, 0, 0]), scale: 1, method: 'transformer_xl',
            transformer_xl: TXL }],
    };
}

/** Where d = key − query is read in a T × T matrix: the last query's row for keys before it, the first's after. */
export const cellOf = (T, d) => (d <= 0 ? [T - 1, T - 1 + d] : [0, d]);

async function relFetch() {
    const T = +$('#rel-t').value, K = +$('#rel-k').value;
    const tok = rel.g.next();
    const b = relBodies(T, K);
    const names = Object.keys(b);
    $('#rel-req').textContent = names.map((n) =>
        `POST ${b[n][0]}\nContent-Type: application/json\n\n${JSON.stringify(b[n][1])}`).join('\n\n');
    const res = await Promise.all(names.map((n) => api(b[n][0], b[n][1])));
    if (!rel.g.ok(tok))
        return;
    const r = Object.fromEntries(names.map((n, i) => [n, res[i]]));
    const ds = range(2 * T - 1, 1 - T);
    const at = (m, d) => { const [i, j] = cellOf(T, d); return m[i][j]; };
    rel.x = { T, K, ds, v: {
        t5b: r.t5b.buckets,
        t5: ds.map((d) => at(r.t5.scores, d)),
        alibi: ds.map((d) => at(r.alibi.bias[0], d)),
        shaw: ds.map((d) => at(r.shaw.scores, d)),
        txl: ds.map((d) => at(r.txl.scores, d)),
    } };
    relRender();
}

function barOption(el, m, x) {
    const labels = x.ds.map(signed);
    const wide = el.clientWidth / x.ds.length >= 24;
    const data = x.v[m].map((v, i) => (m === 't5'
        ? { value: v, itemStyle: { color: BUCKET_COLORS[x.v.t5b[i] % 8] }, bucket: x.v.t5b[i] } : v));
    const series = { type: 'bar', name: t(`rel.${m}`), data, itemStyle: { color: COLOR[m] }, barCategoryGap: '25%' };
    if (m === 't5') {
        series.label = { show: wide, position: 'top', color: '#1b1b1b', fontSize: 11,
            formatter: (p) => `b${p.data.bucket}` };
    }
    if (m === 'shaw' && x.T - 1 > x.K) {
        const area = (a, b) => [{ xAxis: signed(a) }, { xAxis: signed(b) }];
        series.markArea = { silent: true, itemStyle: { color: 'rgba(107, 114, 128, 0.16)' },
            label: { show: wide, position: 'insideTop', color: '#374151', fontSize: 11, formatter: t('rel.clipped') },
            data: [area(1 - x.T, -x.K - 1), area(x.K + 1, x.T - 1)] };
    }
    return baseOption({
        grid: { left: 46, right: 10, top: 24, bottom: 44 },
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: (ps) => {
            const p = ps[0], i = p.dataIndex;
            return `${t('ax.rel')} ${p.name}<br><b>${fmt(x.v[m][i], 4)}</b>` +
                (m === 't5' ? ` (${t('rel.bucket')} ${x.v.t5b[i]})` : '');
        } },
        xAxis: axis({ type: 'category', data: labels, name: t('ax.rel'), nameLocation: 'middle', nameGap: 26 }),
        yAxis: axis({ type: 'value', ...yTitle(t('ax.relval')),
            axisLabel: { color: '#333', fontSize: 12, formatter: (v) => fmt(v, 1) } }),
        series: [series],
    });
}

function relRender() {
    const x = rel.x;
    if (!x)
        return;
    for (const m of METHODS) {
        const el = $(`#rel-${m}`);
        chart(el).setOption(barOption(el, m, x), true);
        el.dataset.points = String(x.ds.length);
    }
    $('#rel-shaw-cap').textContent = t('rel.shawK', { K: x.K, neg: signed(-x.K), pos: signed(x.K),
        rows: SHAW_ROWS.slice(4 - x.K, 5 + x.K).map((v) => fmt(v, 1)).join(', ') });
    const cols = ['t5b', 't5', 'alibi', 'shaw', 'txl'];
    const head = h('tr', {}, h('th', { scope: 'col' }, t('ax.rel')), cols.map((c) => h('th', { scope: 'col' },
        c === 'txl' ? h('abbr', { title: 'Transformer-XL' }, 'T-XL') : t('rel.col.' + c))));
    const body = x.ds.map((d, i) => h('tr', { 'data-d': String(d) }, h('th', { scope: 'row' }, signed(d)),
        cols.map((c) => {
            const td = h('td', { 'data-testid': `rel-${c}-${d}` });
            if (c === 't5b') {
                td.textContent = String(x.v.t5b[i]);
                td.dataset.value = String(x.v.t5b[i]);
            } else {
                putNum(td, x.v[c][i], 3);
            }
            return td;
        })));
    $('#rel-table').replaceChildren(h('thead', {}, head), h('tbody', {}, body));
}

/** The T5 bias table sent (bucket → bias): inputs of the request, shown as they are. */
function t5BiasTable() {
    $('#rel-t5bias').replaceChildren(h('tbody', {},
        h('tr', {}, h('th', { scope: 'row' }, t('rel.bucket')), T5_BIAS.map((_, b) => h('td', {}, String(b)))),
        h('tr', {}, h('th', { scope: 'row' }, t('rel.bias')), T5_BIAS.map((v) => h('td', {}, fmt(v, 1))))));
}

export function relInit() {
    const run = () => guarded($('#rel-quad'), relFetch);
    bindRange('rel-t', run);
    bindRange('rel-k', run);
    t5BiasTable();
    onLang(() => {
        t5BiasTable();
        relRender();
    });
    return run();
}

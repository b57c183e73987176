// Section 5, ALiBi: slopes per head (with the rule for any head count), the bias heat map, the softmax example.
import { api, track, latest, fmt, fmtSig, putNum, $, h, chart, baseOption, axis, extent, COLORS } from './util.js';
import { t, onLang } from './i18n.js';
import { guarded, bindRange } from './ui.js';
import { legendTop, heatOption, yTitle } from './common.js';


const alibi = { slopes: null, bias: null, bars: null, g1: latest(), g2: latest(), g3: latest() };
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
        grid: { left: 56, right: 16, top: 32, bottom: 44 },
        tooltip: { trigger: 'axis', valueFormatter: (v) => fmtSig(v, 5) },
        xAxis: axis({ type: 'category', data: sl.map((_, i) => i + 1), name: t('ax.head'), nameLocation: 'middle',
            nameGap: 28 }),
        yAxis: axis({ type: 'value', ...yTitle(t('ax.slope')) }),
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

/**
 * The lesson's example in one /attention request: 1-D q = 1 and k = (2, 1, 3, 2) give the raw scores
 * (2, 1, 3, 2) of the fourth query; each head adds −m·distance. The API returns, per head, the biased
 * scores before softmax and the weights; row 3 is the fourth query.
 */
async function barsFetch() {
    const custom = +$('#bars-m').value;
    const body = { q: [[1], [1], [1], [1]], k: [[2], [1], [3], [2]], scale: 1, causal: true, method: 'alibi',
        alibi: { slopes: [...BAR_SLOPES, custom] } };
    const tok = alibi.g3.next();
    const r = await api('/attention', body, $('#bars-req'));
    if (!alibi.g3.ok(tok))
        return;
    alibi.bars = { custom, s: r.scores.map((hs) => hs[3]), w: r.weights.map((hw) => hw[3]) };
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
        yAxis: axis({ type: 'value', max: 1, ...yTitle(t('ax.weight')) }),
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
    const srows = x.s.map((sc, i) => h('tr', {}, h('th', { scope: 'row' }, names[i]), sc.map((v, k) => {
        const td = h('td', { 'data-testid': `bars-s${i}-k${k}` });
        putNum(td, v, 3);
        return td;
    })));
    $('#bars-scores').replaceChildren(h('thead', {}, head.cloneNode(true)),
        h('tbody', {}, srows));
}

/** Wires section 5; returns its loader (slopes, bias heat map, the softmax example). */
export function alibiInit() {
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
        biasRender();
        barsRender();
    });
    $('#fix-alibi-12').addEventListener('click', () => {
        $('#alibi-nh').value = '12';
        $('#alibi-nh').dispatchEvent(new Event('input'));
        $('#slopes-chart').scrollIntoView({ block: 'center' });
    });
    return () => Promise.all([slopes(), bias(), bars()]);
}


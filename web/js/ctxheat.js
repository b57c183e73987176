// Section 4, context extension made visible: RoPE scores at a realistic size (head_dim 64 or 128, positions up to
// 16,384) on a strided grid of at most 256 × 256 (query, key) positions, with the training length L and the
// scaling as toggles. One POST /rope per view, answered as a float32 .npy of the scores. q = k = the vector with
// every entry 1/√head_dim, so the unrotated score is 1 and the map shows what the rotation alone does to it.
import { apiNpy, track, latest, fmt, fmtInt, $, chart, baseOption, axis, DIVERGING } from './util.js';
import { t, getLang, onLang } from './i18n.js';
import { guarded } from './ui.js';
import { scalingFor } from './scaling.js';

const ctx = { r: null, g: latest() };
const GRID = 256;

/** At most GRID positions from 0 to n − 1, both ends kept: round(i·(n − 1)/(GRID − 1)). */
export function gridPositions(n) {
    const k = Math.min(GRID, n);
    return Array.from({ length: k }, (_, i) => Math.round((i * (n - 1)) / (k - 1)));
}

/** The /rope body of the current view (also what "Show request" shows, without the vectors written out). */
function request() {
    const type = $('#ctx-type').value, hd = +$('#ctx-hd').value, L = +$('#ctx-L').value, N = +$('#ctx-N').value;
    const f = Math.max(1, N / L);
    const v = Array(hd).fill(1 / Math.sqrt(hd));
    const pos = gridPositions(N);
    const body = { head_dim: hd, base: 10000, scaling: scalingFor(type, f, L, hd / 2), q: v, k: v, q_positions: pos,
        k_positions: pos, seq_len: N };
    return { type, hd, L, N, f, pos, body };
}

async function ctxFetch() {
    const x = request();
    const tok = ctx.g.next();
    const r = await apiNpy('/rope', x.body);
    const shown = { ...x.body, q: `[${x.hd} × ${fmt(1 / Math.sqrt(x.hd), 6)}]`, k: '(= q)',
        q_positions: `[${x.pos.length} positions 0 … ${x.N - 1}]`, k_positions: '(= q_positions)', dtype: 'float32' };
    $('#ctx-req').textContent = `POST /rope\nContent-Type: application/json\nAccept: application/x-npy\n\n` +
        JSON.stringify(shown, null, 1);
    if (!ctx.g.ok(tok))
        return;
    ctx.r = { ...x, scores: r.matrix, member: r.member };
    ctxRender();
}

function ctxRender() {
    const x = ctx.r;
    if (!x)
        return;
    const n = x.pos.length, data = [];
    let lo = Infinity, hi = -Infinity, far = 0, cells = 0;
    for (let i = 0; i < n; i++) {
        for (let j = 0; j <= i; j++) { // causal: a query sees keys at or before it
            const v = x.scores[i][j];
            data.push([j, i, v]);
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
            cells++;
            if (x.pos[i] - x.pos[j] > x.L)
                far++;
        }
    }
    const a = Math.max(-lo, hi);
    const idx = (p) => (p * (n - 1)) / (x.N - 1); // grid index of a position (fractional)
    const el = $('#ctx-heat');
    el.dataset.type = x.type;
    el.dataset.cells = String(cells);
    chart(el).setOption(baseOption({
        grid: { left: 64, right: 18, top: 24, bottom: 92 },
        tooltip: { formatter: (p) => (p.seriesType === 'heatmap' ? `${t('ctx.q')} ${fmtInt(x.pos[p.value[1]], getLang())} · ` +
            `${t('ctx.k')} ${fmtInt(x.pos[p.value[0]], getLang())}<br><b>${fmt(p.value[2], 4)}</b>` : '') },
        xAxis: axis({ type: 'category', data: x.pos, name: t('ctx.k'), nameLocation: 'middle', nameGap: 28,
            splitLine: { show: false }, axisLabel: { color: '#333', fontSize: 12, interval: 63 } }),
        yAxis: axis({ type: 'category', data: x.pos, name: t('ctx.q'), nameLocation: 'start', inverse: true,
            nameTextStyle: { align: 'left', color: '#333', fontSize: 12 }, splitLine: { show: false },
            axisLabel: { color: '#333', fontSize: 12, interval: 63 } }),
        visualMap: { type: 'continuous', min: -a, max: a, orient: 'horizontal', left: 'center', bottom: 0,
            itemWidth: 14, itemHeight: 180, calculable: false, inRange: { color: DIVERGING }, seriesIndex: 0,
            text: [fmt(a, 2), fmt(-a, 2)], textGap: 8, textStyle: { color: '#333', fontSize: 12 } },
        series: [
            { type: 'heatmap', data, progressive: 0, progressiveThreshold: 1e7, emphasis: { disabled: true } },
            { type: 'line', name: t('ctx.line', { L: fmtInt(x.L, getLang()) }), silent: true, showSymbol: false,
                lineStyle: { color: '#111', type: 'dashed', width: 2 },
                data: x.L < x.N ? [[0, idx(x.L)], [idx(x.N - 1 - x.L), n - 1]] : [] },
        ],
    }), true);
    const note = $('#ctx-note');
    note.dataset.far = String(far);
    note.dataset.cells = String(cells);
    note.textContent = t('ctx.note', { L: fmtInt(x.L, getLang()), N: fmtInt(x.N, getLang()),
        share: fmt((100 * far) / cells, 0), f: fmt(x.f, 0) }) + ' ' + t('ctx.sc.' + x.type);
}

/** Wires the heat map's toggles; returns its loader. */
export function ctxInit() {
    const run = () => guarded($('#ctx-heat'), ctxFetch);
    for (const id of ['ctx-type', 'ctx-hd', 'ctx-L', 'ctx-N'])
        $('#' + id).addEventListener('change', () => track(run));
    onLang(ctxRender);
    return run;
}

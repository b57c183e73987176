// Section 3, learned tables: the demo table's heat map and what happens past its last row (extend modes).
import { api, apiNpy, ApiError, track, latest, fmt, $, $$, chart, baseOption, axis, extent, COLORS } from './util.js';
import { t, onLang } from './i18n.js';
import { range, guarded, bindRange } from './ui.js';
import { TABLE, tip, legendTop, heatOption, yTitle } from './common.js';


const learned = { table: null, ext: {}, available: true, g: latest() };

/** Hides the section's body and says why (the daemon has no /learned, or not the demo's table). */
export function learnedUnavailable() {
    learned.available = false;
    $('#learned-na').hidden = false;
    $('#learned-body').hidden = true;
}

async function learnedFetch() {
    const body = { table: TABLE, seq_len: 512 };
    try {
        const r = await apiNpy('/learned', body, $('#learned-req'));
        learned.table = { shape: r.shape, matrix: r.matrix };
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

async function extFetch() {
    const mode = $('input[name="ext-m"]:checked').value;
    const tok = learned.g.next();
    const body = { table: TABLE, seq_len: 600, extend: mode };
    if (mode === 'interpolate')
        body.target_length = 600;
    if (!(mode in learned.ext)) {
        try {
            const r = await apiNpy('/learned', body, $('#ext-req'));
            learned.ext[mode] = { matrix: r.matrix, positions: range(r.shape[0]) }; // seq_len 600: 0 … 599
        } catch (e) {
            if (!(e instanceof ApiError) || e.status !== 422)
                throw e;
            learned.ext[mode] = { error: e.problem };
        }
    } else {
        $('#ext-req').textContent = `POST /learned\nContent-Type: application/json\nAccept: application/x-npy\n\n` +
            JSON.stringify({ ...body, dtype: 'float32' });
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
        axisLabel: { color: '#333', formatter: (v) => fmt(v, 2), show: i === 0 },
        ...(i === 0 ? yTitle(t('ext.yname', { d })) : {}) });
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

/** Wires section 3; returns its loader (the table, then the extension view). */
export function learnedInit() {
    const ext = () => guarded($('#ext-chart'), extFetch);
    for (const r of $$('input[name="ext-m"]'))
        r.addEventListener('change', () => track(ext));
    bindRange('ext-dim', async () => extRender(), 60);
    onLang(() => {
        learnedRender();
        extRender();
    });
    return () => guarded($('#learned-heat'), async () => {
        await learnedFetch();
        if (learned.available)
            await ext();
    });
}


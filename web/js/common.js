// Pieces shared by the demo's sections: the learned table's name, chart helpers, the 422 reader.
import { fmt, $, baseOption, axis, heatData, DIVERGING } from './util.js';
import { t } from './i18n.js';
import { range } from './ui.js';

/** The learned table the demo reads (created by the daemon's data directory). */
export const TABLE = 'demo-512x64';

/** A y-axis title drawn above the axis, left-aligned (every chart's y-axis says what it measures). */
export const yTitle = (name) => ({ name, nameLocation: 'end', nameTextStyle: { align: 'left', color: '#333', fontSize: 12 } });

/** Numbers in charts' tooltips and labels. */
export const tip = (x) => fmt(x, 4);

/** Top margin of a chart whose legend may wrap to two lines on a narrow screen. */
export const legendTop = (sel, wide = 40, narrow = 68) => ($(sel).clientWidth < 560 ? narrow : wide);

/** Options of a heatmap of `matrix` (rows = y) on a diverging (or given) colour scale from min to max. */
export function heatOption(matrix, { xName, yName, min, max, colors = DIVERGING, yStep, mark }) {
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

/** '#rrggbb' → [r, g, b]. */
const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

/**
 * The colour ECharts' continuous visualMap gives `v` on `colors` from min to max (visualMap's linear map, then
 * zrender's fastLerp: each channel interpolated between the two nearest stops and rounded), as [r, g, b].
 */
export function heatColor(v, min, max, stops) {
    const n = Math.min(1, Math.max(0, max === min ? 0 : (v - min) / (max - min))) * (stops.length - 1);
    const i = Math.floor(n), j = Math.ceil(n), f = n - i;
    return [0, 1, 2].map((c) => Math.min(255, Math.max(0, Math.round(stops[i][c] + (stops[j][c] - stops[i][c]) * f))));
}

/**
 * The cells of `matrix` (rows = y, top to bottom; nulls transparent) on a canvas of w × h device pixels: one pixel
 * per cell, scaled up without smoothing, so every cell is a flat block as in ECharts' heatmap series.
 */
function heatCanvas(matrix, w, h, min, max, stops) {
    const ny = matrix.length, nx = matrix[0].length;
    const cells = document.createElement('canvas');
    cells.width = nx;
    cells.height = ny;
    const cctx = cells.getContext('2d');
    const img = cctx.createImageData(nx, ny);
    for (let y = 0; y < ny; y++) {
        for (let x = 0; x < nx; x++) {
            const v = matrix[y][x];
            if (v === null)
                continue;
            const [r, g, b] = heatColor(v, min, max, stops);
            img.data.set([r, g, b, 255], 4 * (y * nx + x));
        }
    }
    cctx.putImageData(img, 0, 0);
    const out = document.createElement('canvas');
    out.width = Math.max(1, Math.round(w));
    out.height = Math.max(1, Math.round(h));
    const ctx = out.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(cells, 0, 0, out.width, out.height);
    return out;
}

/**
 * Options of a heat map of `matrix` drawn as ONE image (a custom series) rather than one shape per cell: the
 * same axes, colour scale and tooltip as heatOption, at a fraction of the cost (ECharts' heatmap series builds,
 * colours and paints a rectangle per cell: ~300 ms for 64 × 128 cells on a desktop, the first chart's largest
 * cost). The image is drawn at the grid's size in device pixels (kept while the size stays); the tooltip finds
 * the cell under the pointer from the grid rectangle, and is added when a pointer first comes over the chart
 * (ECharts' tooltip component costs ~25 ms of a desktop's first chart, ~100 ms at 4× CPU slowdown, and does
 * nothing before then). `el` is the chart's element: it records the pointer and gets data-rows / data-cols.
 */
export function heatImageOption(el, matrix, { xName, yName, min, max, colors = DIVERGING }) {
    const nx = matrix[0].length, ny = matrix.length;
    const stops = colors.map(rgb);
    let img = null, key = '', rect = null;
    el.dataset.rows = String(ny);
    el.dataset.cols = String(nx);
    if (!el._pointer) {
        // capture phase: seen before zrender's own listeners, so the tooltip reads this move's position
        el._pointer = [0, 0];
        const at = (e) => {
            const b = el.getBoundingClientRect();
            el._pointer = [e.clientX - b.left, e.clientY - b.top];
            if (!el._tipOn) {
                el._tipOn = true;
                const c = window.echarts.getInstanceByDom(el);
                if (c)
                    c.setOption({ tooltip: el._heatTip });
            }
        };
        el.addEventListener('pointermove', at, true);
        el.addEventListener('pointerdown', at, true);
    }
    const cell = () => {
        const [px, py] = el._pointer;
        if (!rect)
            return null;
        const x = Math.floor(((px - rect.x) / rect.width) * nx), y = Math.floor(((py - rect.y) / rect.height) * ny);
        return x >= 0 && x < nx && y >= 0 && y < ny ? [x, y] : null;
    };
    const opt = heatOption([[0]], { xName, yName, min, max, colors });
    opt.xAxis.data = range(nx);
    opt.yAxis.data = range(ny);
    el._heatTip = { show: true, formatter: () => {
        const c = cell();
        return c && matrix[c[1]][c[0]] !== null ?
            `${yName} ${c[1]} · ${xName} ${c[0]}<br><b>${tip(matrix[c[1]][c[0]])}</b>` : '';
    } };
    if (el._tipOn)
        opt.tooltip = el._heatTip;
    else
        delete opt.tooltip;
    opt.visualMap.seriesIndex = []; // the scale is drawn; the image carries its own colours
    opt.aria.label.description = t('aria.general') + t('aria.heat', { rows: ny, cols: nx, yName, xName,
        min: fmt(min, 2), max: fmt(max, 2) });
    opt.series = [{ type: 'custom', data: [[0, 0]], encode: { x: 0, y: 1 }, clip: true,
        renderItem: (params, api) => {
            const cs = params.coordSys, dpr = api.getDevicePixelRatio ? api.getDevicePixelRatio() : 1;
            rect = cs;
            const k = `${cs.width}x${cs.height}@${dpr}`;
            if (k !== key) {
                img = heatCanvas(matrix, cs.width * dpr, cs.height * dpr, min, max, stops);
                key = k;
            }
            return { type: 'image', style: { image: img, x: cs.x, y: cs.y, width: cs.width, height: cs.height } };
        } }];
    return opt;
}

/** Pulls position and row count out of the 422's message ("position 512 ... has 512 rows"). */
export function parseOverflow(problem) {
    const msg = (problem && ((problem.errors && problem.errors[0] && problem.errors[0].message) ||
        problem.detail)) || '';
    const pos = /position (\d+)/.exec(msg), rows = /(\d+) rows/.exec(msg);
    return { pos: pos ? +pos[1] : null, rows: rows ? +rows[1] : null, msg };
}


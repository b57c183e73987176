// Pieces shared by the demo's sections: the learned table's name, chart helpers, the 422 reader.
import { fmt, $, baseOption, axis, heatData, DIVERGING } from './util.js';
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

/** Pulls position and row count out of the 422's message ("position 512 ... has 512 rows"). */
export function parseOverflow(problem) {
    const msg = (problem && ((problem.errors && problem.errors[0] && problem.errors[0].message) ||
        problem.detail)) || '';
    const pos = /position (\d+)/.exec(msg), rows = /(\d+) rows/.exec(msg);
    return { pos: pos ? +pos[1] : null, rows: rows ? +rows[1] : null, msg };
}


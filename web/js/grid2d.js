// 7. RoPE on an image grid: one query patch's scores to every patch of an H × W image, for axial RoPE and for
// RoPE-Mixed. Both maps are POST /rope responses (`axes`, [row, col] positions); the page picks the query's row
// of `scores` and lays it out as the image.
import {
    api, latest, debounce, fmt, fmtSig, putNum, $, $$, h, chart, baseOption, axis, heatData, DIVERGING,
} from './util.js';
import { t, onLang } from './i18n.js';
import { range, signed, guarded, bindRange } from './ui.js';

const HEAD_DIM = 8; // 4 pairs, interleaved: dims (0, 1), (2, 3), (4, 5), (6, 7)
const AXIAL_BASE = 100; // RoPE-ViT's base for ViT: axial gives each axis the frequencies 1 and 0.1
// The same q and k for every patch, so that the scores differ only through the positions.
export const QK = { rows: [1, 0, 1, 0, 0.5, 0, 0.5, 0], equal: [1, 0, 1, 0, 1, 0, 1, 0] };
// RoPE-Mixed frequencies F[axis][pair] (axis 0 = row, axis 1 = column). `axial` writes the axial F out as
// [[m, 0], [0, m]]; `turn30` turns every pair's (row, column) frequency vector by 30°, with pairs 2 and 3 at right
// angles to 0 and 1 (RoPE-Mixed's initialisation); `learned` is made up to look like trained values.
export const PRESETS = {
    axial: [[1, 0.1, 0, 0], [0, 0, 1, 0.1]],
    turn30: [[0.866, 0.0866, -0.5, -0.05], [0.5, 0.05, 0.866, 0.0866]],
    learned: [[0.95, -0.12, -0.38, 0.07], [0.31, 0.09, 0.81, -0.04]],
};
const METHODS = ['axial', 'mixed'];
const grid = { x: null, res: {}, err: null, g: latest() };

/** Every patch of an H × W image as [row, col], row by row: key k of the response is patch (k / W, k % W). */
function patches(H, W) {
    return range(H).flatMap((r) => range(W).map((c) => [r, c]));
}

/** The two /rope bodies for query patch (r, c): the same q, k and patches, axial or mixed frequencies. */
export function gridBodies({ H, W, r, c, qk, freqs }) {
    const same = { head_dim: HEAD_DIM, layout: 'interleaved', q: QK[qk], k: QK[qk], q_positions: [[r, c]],
        k_positions: patches(H, W) };
    return {
        axial: { axes: { type: 'axial' }, base: AXIAL_BASE, ...same },
        mixed: { axes: { type: 'mixed', freqs }, ...same },
    };
}

/** The form's state; an empty or unreadable frequency is sent as null, so the server names it. */
function readForm() {
    const freqs = [[], []];
    for (const inp of $$('#grid-freqs input'))
        freqs[+inp.dataset.a][+inp.dataset.j] = inp.value === '' ? null : Number(inp.value);
    return { H: +$('#grid-rows').value, W: +$('#grid-cols').value, r: +$('#grid-r').value, c: +$('#grid-c').value,
        qk: $('#grid-qk').value, freqs };
}

async function gridFetch() {
    const x = readForm();
    const tok = grid.g.next();
    const bodies = gridBodies(x);
    $('#grid-req').textContent = METHODS.map((m) =>
        `POST /rope\nContent-Type: application/json\n\n${JSON.stringify(bodies[m])}`).join('\n\n');
    const res = await Promise.all(METHODS.map((m) => api('/rope', bodies[m]).then((v) => ({ v }), (e) => ({ e }))));
    if (!grid.g.ok(tok))
        return;
    grid.x = x;
    grid.res = { axial: res[0].v || null, mixed: res[1].v || null };
    grid.err = res[0].e || res[1].e || null;
    gridRender();
    if (grid.err)
        throw grid.err; // shown next to the maps; a map whose request failed is cleared
}

/** Scores of the query to every patch as an H × W matrix (the response's one row, cut into image rows). */
function scoreImage(resp, H, W) {
    const row = resp.scores[0];
    return range(H).map((r) => row.slice(r * W, (r + 1) * W));
}


/** "(+1, −2)": the offset of patch (r, c) from the query of x. */
const delta = (x, r, c) => `(${signed(r - x.r)},\u00a0${signed(c - x.c)})`;

function mapOption(el, img, x, A) {
    const cellW = (el.clientWidth - 56) / x.W, cellH = (el.clientHeight - 96) / x.H;
    const digits = cellW >= 46 && cellH >= 22 ? 2 : 1;
    const showLabels = cellW >= 32 && cellH >= 18;
    const data = heatData(img).map(([c, r, v]) => {
        const item = { value: [c, r, v] };
        if (Math.abs(v) > 0.62 * A)
            item.label = { color: '#fff' };
        if (r === x.r && c === x.c)
            item.itemStyle = { borderColor: '#111', borderWidth: 3 };
        return item;
    });
    return baseOption({
        grid: { left: 44, right: 12, top: 30, bottom: 66 },
        tooltip: {
            formatter: ({ value: [c, r, v] }) => `${t('grid.patch')} (${r}, ${c}) · Δ ${delta(x, r, c)}` +
                `<br><b>${fmt(v, 4)}</b>`,
        },
        xAxis: axis({ type: 'category', data: range(x.W), position: 'top', name: t('grid.ax.col'),
            nameLocation: 'middle', nameGap: 22, splitLine: { show: false } }),
        yAxis: axis({ type: 'category', data: range(x.H), inverse: true, name: t('grid.ax.row'), nameLocation: 'middle',
            nameRotate: 0, nameGap: 26, splitLine: { show: false } }),
        visualMap: {
            type: 'continuous', min: -A, max: A, orient: 'horizontal', left: 'center', bottom: 0, itemWidth: 14,
            itemHeight: Math.min(180, el.clientWidth - 120), calculable: false, inRange: { color: DIVERGING },
            text: [fmt(A, 2), fmt(-A, 2)], textGap: 8, textStyle: { color: '#333', fontSize: 12 },
        },
        series: [{ type: 'heatmap', data, progressive: 0, emphasis: { disabled: true },
            label: { show: showLabels, color: '#1b1b1b', fontSize: 11, formatter: (p) => fmt(p.value[2], digits) } }],
    });
}

/** The rows of the readout: the query itself, patch (0, 0), and two offsets of equal length, (1, 2) and (2, 1). */
function readoutRows(x) {
    const sr = x.r + 2 < x.H ? 1 : -1, sc = x.c + 2 < x.W ? 1 : -1; // stay inside the image
    return [['self', x.r, x.c], ['origin', 0, 0], ['swap1', x.r + sr, x.c + 2 * sc], ['swap2', x.r + 2 * sr, x.c + sc]];
}

function gridRender() {
    const x = grid.x;
    if (!x)
        return;
    const imgs = {};
    for (const m of METHODS)
        imgs[m] = grid.res[m] ? scoreImage(grid.res[m], x.H, x.W) : null;
    let A = 1e-9; // one colour scale for both maps, symmetric around 0
    for (const img of Object.values(imgs))
        for (const v of (img || []).flat())
            A = Math.max(A, Math.abs(v));
    for (const m of METHODS) {
        const el = $(`#grid-${m}`);
        // about square cells: the plot is W × H cells, plus room for the axes (~1 cell) and the scale (~2)
        el.style.aspectRatio = `${x.W + 1.2} / ${x.H + 2}`;
        const c = chart(el);
        c.resize();
        const empty = { series: [], title: { text: t('grid.noMap'), left: 'center', top: 'middle',
            textStyle: { color: '#4b5563', fontSize: 14 } } };
        c.setOption(imgs[m] ? mapOption(el, imgs[m], x, A) : baseOption(empty), true);
        el.dataset.cells = imgs[m] ? String(x.H * x.W) : '0';
        $(`#grid-${m}-wrap`).setAttribute('aria-label', t('grid.mapLabel', { m: t('grid.' + m), r: x.r, c: x.c }));
    }
    const af = grid.res.axial && grid.res.axial.axis_freqs;
    for (const td of $$('#grid-freqs td[data-a]')) {
        const v = af ? af[+td.dataset.a][+td.dataset.j] : null;
        td.textContent = v === null ? '–' : fmtSig(v, 4);
        td.dataset.value = String(v);
    }
    $('#grid-sel-h').textContent = t('grid.sel', { r: x.r, c: x.c });
    const rows = readoutRows(x);
    const score = (m, r, c) => (imgs[m] ? imgs[m][r][c] : null);
    const head = h('tr', {}, ['grid.col.key', 'grid.col.delta', 'grid.axial', 'grid.mixed']
        .map((k) => h('th', { scope: 'col' }, t(k))));
    const body = rows.map(([id, r, c]) => h('tr', { 'data-row': id, 'data-patch': `${r},${c}` },
        h('th', { scope: 'row', class: 'nw' }, t('grid.row.' + id),
            h('span', { class: 'sub' }, `${t('grid.patch')} (${r}, ${c})`)),
        h('td', { class: 'nw' }, delta(x, r, c)),
        METHODS.map((m) => {
            const td = h('td', { 'data-testid': `grid-${m}-${id}` });
            putNum(td, score(m, r, c), 4);
            return td;
        })));
    $('#grid-readout').replaceChildren(h('thead', {}, head), h('tbody', {}, body));
    // Δ (1, 2) and (2, 1): the same distance, told apart or not
    const [, , [, r1, c1], [, r2, c2]] = rows;
    const v = $('#grid-swap');
    const tie = (m) => imgs[m] && Math.abs(imgs[m][r1][c1] - imgs[m][r2][c2]) < 1e-12;
    v.textContent = t('grid.swap', { d1: delta(x, r1, c1), d2: delta(x, r2, c2),
        a: fmt(score('axial', r1, c1), 3), b: fmt(score('axial', r2, c2), 3),
        c: fmt(score('mixed', r1, c1), 3), d: fmt(score('mixed', r2, c2), 3) }) +
        (tie('axial') ? ' ' + t('grid.swap.tie') : '');
    v.dataset.axialTie = String(Boolean(tie('axial')));
    v.dataset.mixedTie = String(Boolean(tie('mixed')));
}

function setPreset(name) {
    const F = PRESETS[name];
    for (const inp of $$('#grid-freqs input'))
        inp.value = String(F[+inp.dataset.a][+inp.dataset.j]);
}

export function gridInit() {
    const anchor = $('#grid-maps');
    const run = () => guarded(anchor, gridFetch);
    const later = debounce(run, 60);
    const sliders = { r: bindRange('grid-r', run, 60), c: bindRange('grid-c', run, 60) };
    /** Moves the query to (r, c), clamped to the image. */
    const select = (r, c) => {
        const lim = { r: +$('#grid-rows').value - 1, c: +$('#grid-cols').value - 1 };
        for (const [k, v] of Object.entries({ r, c })) {
            sliders[k].value = String(Math.max(0, Math.min(lim[k], v)));
            $(`#grid-${k}-o`).textContent = sliders[k].value;
        }
        later();
    };
    for (const [sel, k] of [['#grid-rows', 'r'], ['#grid-cols', 'c']]) {
        $(sel).addEventListener('change', () => {
            sliders[k].max = String(+$(sel).value - 1);
            select(+sliders.r.value, +sliders.c.value);
        });
    }
    const KEYS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    for (const m of METHODS) {
        chart($(`#grid-${m}`)).on('click', (p) => {
            if (p.componentType === 'series')
                select(p.value[1], p.value[0]);
        });
        $(`#grid-${m}-wrap`).addEventListener('keydown', (e) => {
            const d = KEYS[e.key];
            if (!d)
                return;
            e.preventDefault();
            select(+sliders.r.value + d[0], +sliders.c.value + d[1]);
        });
    }
    $('#grid-qk').addEventListener('change', later);
    $('#grid-preset').addEventListener('change', () => {
        if ($('#grid-preset').value !== 'custom')
            setPreset($('#grid-preset').value);
        later();
    });
    for (const inp of $$('#grid-freqs input')) {
        inp.addEventListener('input', () => {
            $('#grid-preset').value = 'custom';
            later();
        });
    }
    setPreset($('#grid-preset').value);
    onLang(gridRender);
    return run();
}

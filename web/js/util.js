// Shared helpers of the teaching demo: API calls, busy tracking, number formatting, charts, SVG.
// Nothing here computes an encoding: every number drawn comes from the posencd API.

import { t } from './i18n.js';

/** Error thrown for a non-2xx answer; `problem` holds the problem+json body when there is one. */
export class ApiError extends Error {
    constructor(status, problem) {
        super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
        this.status = status;
        this.problem = problem;
    }
}

// Work in flight (requests and debounced updates). <html data-busy="N"> lets the browser test wait.
let busy = 0;
function setBusy(delta) {
    busy += delta;
    document.documentElement.dataset.busy = String(busy);
}
setBusy(0);

/** Runs `fn` (async) while counting it as busy work. */
export async function track(fn) {
    setBusy(1);
    try {
        return await fn();
    } finally {
        setBusy(-1);
    }
}

/**
 * POSTs `body` to `path` (or GETs when body is null). Returns the parsed JSON; throws ApiError.
 * When `show` is an element (a <pre>), the request is written into it so readers can replay it.
 */
export async function api(path, body, show) {
    if (show) {
        show.textContent = body == null ? `GET ${path}`
            : `POST ${path}\nContent-Type: application/json\n\n${JSON.stringify(body)}`;
    }
    return track(async () => {
        const init = body == null ? { method: 'GET' }
            : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
        const r = await fetch(path, init);
        const ct = r.headers.get('content-type') || '';
        const data = ct.includes('json') ? await r.json() : await r.text();
        if (!r.ok)
            throw new ApiError(r.status, typeof data === 'object' ? data : null);
        return data;
    });
}

/**
 * Parses a little-endian float32 or float64 .npy file (C order, version 1–3 header) into
 * { shape, data, matrix } (matrix: rows of plain numbers for a 2-D array, else null). Throws on anything else.
 */
export function parseNpy(buf) {
    const u8 = new Uint8Array(buf);
    if (u8[0] !== 0x93 || String.fromCharCode(...u8.subarray(1, 6)) !== 'NUMPY')
        throw new Error('not a .npy file');
    const dv = new DataView(buf);
    const major = u8[6];
    const hlen = major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true);
    const start = major === 1 ? 10 : 12;
    const header = new TextDecoder().decode(u8.subarray(start, start + hlen));
    const descr = /'descr':\s*'([^']+)'/.exec(header);
    const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
    if (!descr || !shape || /'fortran_order':\s*True/.test(header))
        throw new Error('unsupported .npy header: ' + header);
    const dims = shape[1].split(',').map((x) => x.trim()).filter((x) => x !== '').map(Number);
    const n = dims.reduce((a, b) => a * b, 1);
    const off = start + hlen;
    let data;
    if (descr[1] === '<f4')
        data = new Float32Array(buf.slice(off, off + 4 * n));
    else if (descr[1] === '<f8')
        data = new Float64Array(buf.slice(off, off + 8 * n));
    else
        throw new Error('unsupported .npy dtype ' + descr[1]);
    let matrix = null;
    if (dims.length === 2) {
        matrix = [];
        for (let r = 0; r < dims[0]; r++)
            matrix.push(Array.from(data.subarray(r * dims[1], (r + 1) * dims[1])));
    }
    return { shape: dims, data, matrix };
}

/**
 * POSTs `body` with "dtype": "float32" and Accept: application/x-npy: the route's main array (the member named
 * by X-Posenc-Array) as a float32 .npy, a fifth of its JSON size. Resolves with { member, shape, data, matrix }
 * (parseNpy); throws ApiError with the problem+json body on a non-2xx answer. `show` as in api().
 */
export async function apiNpy(path, body, show) {
    const sent = { ...body, dtype: 'float32' };
    if (show) {
        show.textContent = `POST ${path}\nContent-Type: application/json\nAccept: application/x-npy\n\n` +
            JSON.stringify(sent);
    }
    return track(async () => {
        const r = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json',
            Accept: 'application/x-npy' }, body: JSON.stringify(sent) });
        if (!r.ok) {
            const ct = r.headers.get('content-type') || '';
            throw new ApiError(r.status, ct.includes('json') ? await r.json() : null);
        }
        return { member: r.headers.get('X-Posenc-Array'), ...parseNpy(await r.arrayBuffer()) };
    });
}

/** Returns a function that runs `fn(...args)` `ms` after the last call; pending calls count as busy. */
export function debounce(fn, ms = 150) {
    let timer = null;
    return (...args) => {
        if (timer === null)
            setBusy(1);
        else
            clearTimeout(timer);
        timer = setTimeout(async () => {
            timer = null;
            try {
                await fn(...args);
            } finally {
                setBusy(-1);
            }
        }, ms);
    };
}

/** Latest-wins guard: `const tok = g.next(); ...await...; if (!g.ok(tok)) return;` */
export function latest() {
    let n = 0;
    return { next: () => ++n, ok: (t) => t === n };
}

/** Formats a number with `digits` decimals and a true minus sign (U+2212). */
export function fmt(x, digits = 3) {
    if (x === null || x === undefined || Number.isNaN(x))
        return '–';
    let s = Number(x).toFixed(digits);
    if (/^-0\.?0*$/.test(s))
        s = s.slice(1);
    return s.replace('-', '\u2212');
}

/**
 * Formats an integer-ish quantity with thousands separators. ko-KR and en-US group the same way (1,234,567;
 * minus as '-'), so `lang` changes nothing; the grouping is done here rather than by toLocaleString, whose first
 * call loads the locale's data (20 ms on a desktop, on the first chart's path through section 2's dials).
 */
export function fmtInt(x, lang) {
    void lang;
    const n = Math.round(x);
    if (!Number.isFinite(n))
        return String(n);
    const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return n < 0 ? `-${digits}` : digits;
}

/** Formats a number with `sig` significant digits (for very small/large values). */
export function fmtSig(x, sig = 4) {
    if (x === 0)
        return '0';
    const a = Math.abs(x);
    if (a >= 1e-3 && a < 1e6)
        return Number(x.toPrecision(sig)).toString().replace('-', '\u2212');
    const [m, e] = x.toExponential(sig - 1).split('e');
    const sup = { '-': '\u207b', '+': '', 0: '\u2070', 1: '\u00b9', 2: '\u00b2', 3: '\u00b3', 4: '\u2074',
        5: '\u2075', 6: '\u2076', 7: '\u2077', 8: '\u2078', 9: '\u2079' };
    return `${m.replace('-', '\u2212')}\u00d710${[...e].map((c) => sup[c]).join('')}`;
}

/** Puts a number into an element: rounded text plus the API's exact value in data-value. */
export function putNum(el, x, digits = 3) {
    el.textContent = fmt(x, digits);
    el.dataset.value = String(x);
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

/** Creates an element with attributes and children (strings become text nodes). */
export function h(tag, attrs = {}, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false)
            continue;
        if (k === 'class')
            el.className = v;
        else if (k === 'text')
            el.textContent = v;
        else if (k.startsWith('data-') || k.startsWith('aria-') || k === 'role' || k === 'scope' || k === 'for')
            el.setAttribute(k, v);
        else
            el[k] = v;
    }
    for (const kid of kids.flat()) {
        if (kid === null || kid === undefined)
            continue;
        el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
}

// ---- charts (Apache ECharts, vendored) ----

export const FONT = 'system-ui, -apple-system, "Segoe UI", "Noto Sans CJK KR", "Noto Sans KR", ' +
    '"Apple SD Gothic Neo", "Malgun Gothic", sans-serif';
export const COLORS = ['#1f5fa8', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490'];
export const DIVERGING = ['#1e4f91', '#5b8fd0', '#c9dcf2', '#f7f7f7', '#f6cfb5', '#d9663a', '#8f2a0c'];

const charts = new Set();
let echartsLoading = null;

/** Loads vendor/echarts/echarts.min.js once (a classic script); resolves when window.echarts exists. */
export function loadCharts() {
    if (window.echarts)
        return Promise.resolve();
    if (!echartsLoading) {
        echartsLoading = new Promise((resolve, reject) => {
            const el = document.createElement('script');
            el.src = 'vendor/echarts/echarts.min.js';
            el.onload = () => resolve();
            el.onerror = () => {
                echartsLoading = null;
                reject(new Error('vendor/echarts/echarts.min.js did not load.'));
            };
            document.head.append(el);
        });
    }
    return echartsLoading;
}

/** Creates (or reuses) an ECharts instance on `el`; resizes with its box. */
export function chart(el) {
    let c = window.echarts.getInstanceByDom(el);
    if (c)
        return c;
    c = window.echarts.init(el, null, { renderer: 'canvas' });
    // ECharts 6.1 marks every heatmap cell `incremental` (HeatmapView: getIncrementalId(model, undefined) is
    // non-zero), so zrender 6.1 paints them on an incremental layer, 15 ms per animation frame whatever
    // refresh() is asked (Painter._paintPerCursorInRect): on a slow or busy CPU a 512-row map filled in over
    // seconds, after `finished` had fired, and stayed part painted in screenshots. Cells taken off that layer
    // as zrender lists them are painted in one pass. (The demo's heatmaps have no hover emphasis, which is what
    // the incremental layer spares a repaint for.)
    const storage = c.getZr().storage;
    if (storage && typeof storage.getDisplayList === 'function') {
        const list = storage.getDisplayList.bind(storage);
        storage.getDisplayList = (...args) => {
            const els = list(...args);
            for (const el of els) {
                if (el.incremental)
                    el.incremental = 0;
            }
            return els;
        };
    }
    charts.add(c);
    // A ResizeObserver reports once on observe() with the size init() just used: resizing then would lay out
    // and paint the whole chart a second time (120 ms of the first chart's 1.2 s on desktop, 0.9 s at 4× CPU
    // slowdown), so only a box that really changed size is resized.
    let size = [el.clientWidth, el.clientHeight];
    new ResizeObserver(() => {
        const now = [el.clientWidth, el.clientHeight];
        if (now[0] === size[0] && now[1] === size[1])
            return;
        size = now;
        c.resize();
    }).observe(el);
    return c;
}

/**
 * The description ECharts writes into a chart's aria-label, from templates in the page's language (its own
 * templates are English). A chart may pass aria.label.description to say more.
 */
function ariaOption(extra) {
    const label = { general: { withTitle: t('aria.general'), withoutTitle: t('aria.general') },
        series: { maxCount: 6, single: { prefix: '', withName: t('aria.s.name'), withoutName: '' },
            multiple: { prefix: t('aria.s.count'), withName: t('aria.s.name'), withoutName: '',
                separator: { middle: ' ', end: ' ' } } },
        data: { maxCount: 8, allData: t('aria.d.all'), partialData: t('aria.d.part'), withName: '{name} {value}',
            withoutName: '{value}', separator: { middle: ', ', end: '. ' } } };
    const own = extra && extra.aria && extra.aria.label;
    return { enabled: true, label: { ...label, ...(own || {}) } };
}

/** Base options shared by every chart: no animation (stable screenshots), readable fonts, aria text. */
export function baseOption(extra) {
    return Object.assign({
        animation: false,
        textStyle: { fontFamily: FONT, fontSize: 13, color: '#1b1b1b' },
        color: COLORS,
    }, extra, { aria: ariaOption(extra) });
}

/** Axis styling shared by the charts. */
export function axis(extra) {
    return Object.assign({
        nameTextStyle: { color: '#333', fontSize: 12 },
        axisLabel: { color: '#333', fontSize: 12, hideOverlap: true },
        axisLine: { lineStyle: { color: '#666' } },
        splitLine: { lineStyle: { color: '#e3e3e3' } },
    }, extra);
}

/** Min and max of a matrix, ignoring nulls (for a colour scale's range). */
export function extent(matrix) {
    let lo = Infinity, hi = -Infinity;
    for (const row of matrix) {
        for (const v of row) {
            if (v === null)
                continue;
            if (v < lo)
                lo = v;
            if (v > hi)
                hi = v;
        }
    }
    return [lo, hi];
}

/** Heatmap data [[x, y, v], ...] from a matrix (rows = y). Nulls become '-' (empty cell). */
export function heatData(matrix) {
    const out = [];
    for (let y = 0; y < matrix.length; y++) {
        const row = matrix[y];
        for (let x = 0; x < row.length; x++)
            out.push([x, y, row[x] === null ? '-' : row[x]]);
    }
    return out;
}

// ---- SVG ----

const SVGNS = 'http://www.w3.org/2000/svg';

/** Creates an SVG element with attributes. */
export function s(tag, attrs = {}, ...kids) {
    const el = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs))
        el.setAttribute(k, String(v));
    for (const kid of kids.flat()) {
        if (kid !== null && kid !== undefined)
            el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
}

/** An arrow from (x1,y1) to (x2,y2) in SVG user units, using marker `marker`. */
export function arrow(x1, y1, x2, y2, color, width, marker, dash) {
    return s('line', {
        x1, y1, x2, y2, stroke: color, 'stroke-width': width, 'marker-end': `url(#${marker})`,
        'stroke-linecap': 'round', ...(dash ? { 'stroke-dasharray': dash } : {}),
    });
}

/** An arrowhead marker definition coloured `color`, id `id`. */
export function arrowMarker(id, color) {
    return s('marker', { id, viewBox: '0 0 10 10', refX: 8, refY: 5, markerWidth: 5, markerHeight: 5,
        orient: 'auto-start-reverse' }, s('path', { d: 'M0,0 L10,5 L0,10 z', fill: color }));
}

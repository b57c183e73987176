// Section 2, sinusoidal: the heat map, the clock hands, the lesson's wavelength slip and PE(p + k) = M·PE(p).
import { api, apiNpy, track, latest, fmt, fmtInt, putNum, $, h, chart, loadCharts, s, arrow, arrowMarker } from './util.js';
import { t, getLang, onLang } from './i18n.js';
import { range, guarded, bindRange } from './ui.js';
import { heatImageOption } from './common.js';


const sin = { heat: null, dial: null, bands: null, bandsKey: '', g1: latest(), g2: latest() };

async function sinHeatFetch() {
    const body = { d_model: +$('#sin-d').value, seq_len: +$('#sin-len').value, base: +$('#sin-base').value };
    const tok = sin.g1.next();
    // The page's first chart: its data is requested while the chart library is still loading, not after.
    const [r] = await Promise.all([apiNpy('/sinusoidal', body, $('#sin-req')), loadCharts()]);
    if (!sin.g1.ok(tok))
        return;
    sin.heat = r;
    sinHeatRender();
}

function sinHeatRender() {
    if (!sin.heat)
        return;
    const c = chart($('#sin-heat'));
    c.setOption(heatImageOption($('#sin-heat'), sin.heat.matrix, { xName: t('ax.dim'), yName: t('ax.pos'), min: -1,
        max: 1 }), true);
}

function dialPairs(n) {
    return [...new Set([0, Math.round(n / 8), Math.round(n / 4), Math.round(n / 2), n - 1])].filter((j) => j < n);
}

async function sinDialFetch() {
    const d = +$('#sin-d').value, base = +$('#sin-base').value, p = +$('#sin-p').value;
    const tok = sin.g2.next();
    const body = { d_model: d, positions: [p], base };
    const jobs = [api('/sinusoidal', body)];
    const key = `${d}/${base}`;
    const bandsBody = { head_dim: d, base, include: ['bands'] };
    if (sin.bandsKey !== key)
        jobs.push(api('/rope', bandsBody));
    const [r, b] = await Promise.all(jobs);
    $('#sin-dial-req').textContent = `POST /sinusoidal\n${JSON.stringify(body)}\n\n` +
        `POST /rope\n${JSON.stringify(bandsBody)}`;
    if (!sin.g2.ok(tok))
        return;
    if (b) {
        sin.bands = b.bands;
        sin.bandsKey = key;
    }
    sin.dial = { p, row: r.matrix[0] };
    sinDialRender();
    fixWaveRender();
}

function sinDialRender() {
    if (!sin.dial || !sin.bands)
        return;
    const row = sin.dial.row, n = Math.floor(row.length / 2);
    const box = $('#sin-dials');
    box.replaceChildren(...dialPairs(n).map((j) => {
        const x = row[2 * j], y = row[2 * j + 1]; // (sin, cos): 12 o'clock at position 0, clockwise
        const R = 40;
        const svg = s('svg', { viewBox: '-50 -50 100 100', role: 'img',
            'aria-label': `${t('sin.dial', { j, a: 2 * j, b: 2 * j + 1 })}: sin ${fmt(x)}, cos ${fmt(y)}` },
        s('defs', {}, arrowMarker(`dm${j}`, '#1f5fa8')),
        s('circle', { cx: 0, cy: 0, r: R, fill: '#f6f8fb', stroke: '#9aa7b8', 'stroke-width': 1.5 }),
        range(12).map((k) => {
            const a = (k * Math.PI) / 6; // clock-face ticks: decoration, not data
            return s('line', { x1: R * Math.sin(a) * 0.88, y1: -R * Math.cos(a) * 0.88, x2: R * Math.sin(a),
                y2: -R * Math.cos(a), stroke: '#9aa7b8', 'stroke-width': k % 3 ? 1 : 2 });
        }),
        arrow(0, 0, R * 0.9 * x, -R * 0.9 * y, '#1f5fa8', 3.5, `dm${j}`),
        s('circle', { cx: 0, cy: 0, r: 3, fill: '#1b1b1b' }));
        const wl = sin.bands[j] ? sin.bands[j].wavelength : null;
        return h('figure', { class: 'dial', 'data-testid': `sin-dial-${j}` }, svg,
            h('figcaption', {}, h('b', {}, t('sin.dial', { j, a: 2 * j, b: 2 * j + 1 })), h('br'),
                h('span', { class: 'nw' }, `sin ${fmt(x)}`), ' · ', h('span', { class: 'nw' }, `cos ${fmt(y)}`), h('br'),
                wl === null ? '' : t('sin.dialWave', { w: wl < 100 ? fmt(wl, 1) : fmtInt(wl, getLang()) })));
    }));
}

/** The lesson's slip: wavelengths reach 2π·base only as d → ∞; at this d the slowest pair's is shorter. */
function fixWaveRender() {
    if (!sin.bands)
        return;
    const d = +$('#sin-d').value, base = +$('#sin-base').value;
    const last = sin.bands[sin.bands.length - 1];
    const lang = getLang();
    $('#fix-wave-p').innerHTML = t('fix.wave', { d, base: fmtInt(base, lang), j: last.pair,
        e: `${d - 2}/${d}`,
        wl: `<b data-testid="fix-wave-wl" data-value="${last.wavelength}">${fmtInt(last.wavelength, lang)}</b>`,
        lim: fmtInt(2 * Math.PI * base, lang) });
}

// PE(p + k) = M·PE(p) at d = 4: M is block-diagonal, one 2×2 rotation per pair, read off PE(k).
const lin = { r: null, g: latest() };

async function linFetch() {
    const p = +$('#lin-p').value, k = +$('#lin-k').value;
    const body = { d_model: 4, positions: [p, k, p + k] };
    const tok = lin.g.next();
    const r = await api('/sinusoidal', body, $('#lin-req'));
    if (!lin.g.ok(tok))
        return;
    lin.r = { p, k, pe: r.matrix[0], ek: r.matrix[1], pek: r.matrix[2] };
    linRender();
}

/**
 * M for the pairs (sin, cos): sin((p+k)ω) = cos(kω)·sin(pω) + sin(kω)·cos(pω) and
 * cos((p+k)ω) = −sin(kω)·sin(pω) + cos(kω)·cos(pω); sin(kω), cos(kω) are PE(k)'s entries.
 */
function linMatrix(ek) {
    const M = [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]];
    for (const j of [0, 1]) {
        const sk = ek[2 * j], ck = ek[2 * j + 1];
        M[2 * j][2 * j] = ck;
        M[2 * j][2 * j + 1] = sk;
        M[2 * j + 1][2 * j] = -sk;
        M[2 * j + 1][2 * j + 1] = ck;
    }
    return M;
}

function linRender() {
    const x = lin.r;
    if (!x)
        return;
    const M = linMatrix(x.ek);
    const prod = M.map((row) => row.reduce((acc, m, j) => acc + m * x.pe[j], 0));
    const cell = (v, id, cls) => {
        const td = h('td', { 'data-testid': id, class: cls || null });
        putNum(td, v, 3);
        return td;
    };
    const names = ['sin(pω₀)', 'cos(pω₀)', 'sin(pω₁)', 'cos(pω₁)'];
    // M on its own (4 × 4), then the vectors: two narrow tables that sit side by side or stack on a phone
    $('#lin-m').replaceChildren(h('caption', {}, t('lin.M', { k: x.k })),
        h('tbody', {}, M.map((row, i) => h('tr', {}, row.map((m, j) => cell(m, `lin-m-${i}-${j}`, m === 0 ? 'zero' : 'm'))))));
    const head = h('tr', {}, h('th', { scope: 'col' }, ''), h('th', { scope: 'col' }, t('lin.pe', { p: x.p })),
        h('th', { scope: 'col' }, t('lin.mpe')), h('th', { scope: 'col' }, t('lin.pek', { q: x.p + x.k })));
    const rows = M.map((row, i) => h('tr', {}, h('th', { scope: 'row' }, names[i]),
        cell(x.pe[i], `lin-pe-${i}`), cell(prod[i], `lin-mpe-${i}`, 'calc'), cell(x.pek[i], `lin-pek-${i}`)));
    $('#lin-table').replaceChildren(h('thead', {}, head), h('tbody', {}, rows));
}

/** Wires section 2; returns its loader (heat map, dials with bands, the linear map). */
export function sinInit() {
    const heat = () => guarded($('#sin-heat'), sinHeatFetch);
    const dial = () => guarded($('#sin-dials'), sinDialFetch);
    bindRange('sin-d', () => Promise.all([heat(), dial()]));
    bindRange('sin-len', heat);
    bindRange('sin-p', dial, 60);
    $('#sin-base').addEventListener('change', () => track(() => Promise.all([heat(), dial()])));
    onLang(() => {
        sinHeatRender();
        sinDialRender();
        fixWaveRender();
        linRender();
    });
    const linRun = () => guarded($('#lin-table'), linFetch);
    bindRange('lin-p', linRun, 60);
    bindRange('lin-k', linRun, 60);
    return () => Promise.all([heat(), dial(), linRun()]);
}


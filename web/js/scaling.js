// Section 4, RoPE's frequency bands: the context-extension scalings and the slowest pair (the config box,
// which draws a RoPE kind with the same chart, is config.js).
import { api, track, latest, fmtInt, fmtSig, $, h, chart, baseOption, axis, COLORS } from './util.js';
import { t, getLang, onLang } from './i18n.js';
import { range, guarded, bindRange } from './ui.js';
import { budgetRender } from './budget.js';

const scl = { bands: null, slow: null, gBands: latest() };

/** The scaling object sent for the form's choices (LongRoPE gets an example list rising 1 → factor). */
export function scalingFor(type, f, orig, n) {
    switch (type) {
    case 'default': return null;
    case 'linear': return { type, factor: f };
    case 'ntk': return { type, alpha: f };
    case 'dynamic': return { type, factor: f, original_max_position_embeddings: orig };
    case 'yarn': return { type, factor: f, original_max_position_embeddings: orig };
    case 'llama3': return { type, factor: f, low_freq_factor: 1, high_freq_factor: 4,
        original_max_position_embeddings: orig };
    case 'longrope': return { type, factor: f, original_max_position_embeddings: orig,
        short_factor: range(n).map(() => 1),
        long_factor: range(n).map((j) => +(1 + ((f - 1) * j) / Math.max(1, n - 1)).toFixed(4)) };
    default: return null;
    }
}

async function bandsFetch() {
    const type = $('#bands-type').value, f = +$('#bands-f').value, hd = +$('#bands-hd').value;
    const base = +$('#bands-base').value, orig = +$('#bands-orig').value, cur = +$('#bands-cur').value;
    const scaling = scalingFor(type, f, orig, hd / 2);
    const body = { head_dim: hd, base, scaling, include: ['bands'] };
    if (type === 'dynamic' || type === 'longrope')
        body.seq_len = cur;
    const plain = { head_dim: hd, base, include: ['bands'] };
    const tok = scl.gBands.next();
    const [r, p] = await Promise.all([api('/rope', body), api('/rope', plain)]);
    $('#bands-req').textContent = `POST /rope\n${JSON.stringify(body)}\n\nPOST /rope\n${JSON.stringify(plain)}`;
    if (!scl.gBands.ok(tok))
        return;
    scl.bands = { type, orig, cur, r, p, hd, base };
    bandsRender();
}

/** The API's class of a pair, in the page's language ("unchanged" only says the type has no classes). */
const clsName = (c) => t('cls.' + c);

/**
 * Per class present in `scaled`: its pairs and how many times slower they turn than in `plain`
 * (plain inv_freq / scaled inv_freq, both from the API). What the legend under a bands chart says.
 */
export function slowdowns(scaled, plain) {
    const out = new Map();
    scaled.forEach((b, i) => {
        const x = plain[i].inv_freq / b.inv_freq;
        const o = out.get(b.class) || { cls: b.class, n: 0, first: b.pair, last: b.pair, min: x, max: x };
        o.n++;
        o.last = b.pair;
        o.min = Math.min(o.min, x);
        o.max = Math.max(o.max, x);
        out.set(b.class, o);
    });
    return [...out.values()];
}

const times = (x) => '×' + fmtSig(x, 3);

export function classTally(scaled, plain) {
    return slowdowns(scaled, plain).map((o) => `${clsName(o.cls)} ${t('bands.npairs', o)}`).join(', ');
}

/** Axis label of a log axis: 1, 10, 100, 1k … 1M … (powers of ten only). */
function logLabel(v) {
    const e = Math.round(Math.log10(v));
    if (e < 0)
        return v.toExponential(0);
    return ['1', '10', '100', '1k', '10k', '100k', '1M', '10M', '100M', '1G', '10G', '100G', '1T'][e] ?? v.toExponential(0);
}

// Point colours of the scaled bands by the API's class label (kept → green, blended → amber, slowed → red).
const CLASS_COLOR = { extrapolate: '#15803d', high: '#15803d', short: '#15803d', blend: '#a16207', medium: '#a16207',
    interpolate: '#b91c1c', low: '#b91c1c', long: '#b91c1c', unchanged: '#1f5fa8' };

/** Swatches naming the classes present, coloured as in the chart, each with its pairs' slow-down range. */
export function classLegend(el, scaled, plain) {
    const sd = slowdowns(scaled, plain);
    el.replaceChildren(...sd.map((o) => h('span', { class: 'cls', 'data-cls': o.cls, 'data-min': String(o.min),
        'data-max': String(o.max) }, h('span', { class: 'dot', style: `background:${CLASS_COLOR[o.cls] || COLORS[0]}` }),
    `${clsName(o.cls)} · ${t('bands.pairs', { a: o.first, b: o.last })} · ` +
        (Math.abs(o.max - 1) < 1e-12 && Math.abs(o.min - 1) < 1e-12 ? t('bands.same')
            : o.max - o.min < 1e-9 * o.max ? t('bands.slower1', { x: times(o.max) })
                : t('bands.slower', { a: times(o.min), b: times(o.max) })))));
}

export function bandsOption(scaled, plain, orig, label) {
    const CL = CLASS_COLOR;
    return baseOption({
        grid: { left: 72, right: 24, top: 56, bottom: 48 },
        legend: { top: 0, textStyle: { color: '#1b1b1b' } },
        tooltip: { trigger: 'axis', valueFormatter: (v) => fmtSig(v, 5) },
        xAxis: axis({ type: 'value', name: t('ax.pair'), nameLocation: 'middle', nameGap: 28, min: 0,
            max: plain.length - 1 }),
        yAxis: axis({ type: 'log', name: t('ax.wave'), nameLocation: 'end', nameTextStyle: { align: 'left',
            color: '#333' }, axisLabel: { color: '#333', formatter: logLabel } }),
        series: [
            { name: t('bands.none'), type: 'line', showSymbol: false, lineStyle: { width: 2, type: 'dashed' },
                color: '#6b7280', data: plain.map((b) => [b.pair, b.wavelength]),
                ...(orig ? { markLine: { symbol: 'none', silent: true, data: [{ yAxis: orig }],
                    label: { formatter: `${t('bands.origLine')} ${fmtInt(orig, getLang())}`, position: 'insideStartTop',
                        color: '#1b1b1b' }, lineStyle: { color: '#7e22ce', type: 'dotted', width: 2 } } } : {}) },
            { name: label, type: 'line', symbolSize: 5, color: COLORS[0], lineStyle: { width: 2 },
                data: scaled.map((b) => ({ value: [b.pair, b.wavelength], itemStyle: { color: CL[b.class] || COLORS[0] },
                    cls: b.class })) },
        ],
    });
}

function bandsRender() {
    const x = scl.bands;
    if (!x)
        return;
    const label = x.type === 'default' ? t('bands.none') : t('bands.scaled', { type: t('sc.name.' + x.type) });
    chart($('#bands-chart')).setOption(bandsOption(x.r.bands, x.p.bands, x.orig, label), true);
    $('#bands-desc').innerHTML = t('sc.' + x.type);
    classLegend($('#bands-cls'), x.r.bands, x.p.bands);
    const sum = $('#bands-sum');
    sum.textContent = t('bands.summary', { af: fmtSig(x.r.attention_factor, 5), classes: classTally(x.r.bands, x.p.bands) });
    sum.dataset.type = x.type;
    budgetRender(x);
}

/** The slowest pair at head_dim 128, base 10000: the bands panel's unscaled answer when it has those settings. */
async function slowFetch() {
    const body = { head_dim: 128, base: 10000, include: ['bands'] };
    const x = scl.bands;
    const shared = x && x.hd === 128 && x.base === 10000;
    const r = shared ? x.p : await api('/rope', body, $('#slow-req'));
    if (shared)
        $('#slow-req').textContent = `POST /rope\n${JSON.stringify(body)}\n\n(${t('slow.shared')})`;
    scl.slow = r.bands[r.bands.length - 1];
    slowRender();
}

function slowRender() {
    const b = scl.slow;
    if (!b)
        return;
    $('#slow-p').innerHTML = t('slow.p', {
        theta: `<b data-testid="slow-theta" data-value="${b.inv_freq}">${fmtSig(b.inv_freq, 5)}</b>`,
        wl: `<b data-testid="slow-wavelength" data-value="${b.wavelength}">${fmtInt(b.wavelength, getLang())}</b>`,
    });
}


/** Wires the scaling panel and the slowest-pair note; returns their loader. */
export function scalingInit() {
    const bands = () => guarded($('#bands-chart'), bandsFetch);
    for (const id of ['bands-type', 'bands-hd', 'bands-base', 'bands-orig', 'bands-cur'])
        $('#' + id).addEventListener('change', () => track(bands));
    bindRange('bands-f', bands);
    onLang(() => {
        bandsRender();
        slowRender();
    });
    return () => bands().then(() => guarded($('#slow-p'), slowFetch));
}

// Section 4, RoPE's frequency bands: the context-extension scalings, a pasted config.json and the slowest pair.
import { api, ApiError, track, latest, fmtInt, fmtSig, $, h, chart, baseOption, axis, COLORS } from './util.js';
import { t, getLang, onLang } from './i18n.js';
import { range, guarded, bindRange, problemText } from './ui.js';
import { budgetRender } from './budget.js';

const scl = { bands: null, cfg: null, slow: null, gBands: latest(), gCfg: latest() };

/** The scaling object sent for the form's choices (LongRoPE gets an example list rising 1 → factor). */
function scalingFor(type, f, orig, n) {
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

function classTally(scaled, plain) {
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
function classLegend(el, scaled, plain) {
    const sd = slowdowns(scaled, plain);
    el.replaceChildren(...sd.map((o) => h('span', { class: 'cls', 'data-cls': o.cls, 'data-min': String(o.min),
        'data-max': String(o.max) }, h('span', { class: 'dot', style: `background:${CLASS_COLOR[o.cls] || COLORS[0]}` }),
    `${clsName(o.cls)} · ${t('bands.pairs', { a: o.first, b: o.last })} · ` +
        (Math.abs(o.max - 1) < 1e-12 && Math.abs(o.min - 1) < 1e-12 ? t('bands.same')
            : o.max - o.min < 1e-9 * o.max ? t('bands.slower1', { x: times(o.max) })
                : t('bands.slower', { a: times(o.min), b: times(o.max) })))));
}

function bandsOption(scaled, plain, orig, label) {
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

const PRESETS = {
    'Llama 3.1 8B': { architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096,
        num_attention_heads: 32, num_key_value_heads: 8, max_position_embeddings: 131072, rope_theta: 500000.0,
        rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0,
            original_max_position_embeddings: 8192, rope_type: 'llama3' } },
    'Qwen2.5 7B + YaRN': { architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_size: 3584,
        num_attention_heads: 28, num_key_value_heads: 4, max_position_embeddings: 32768, rope_theta: 1000000.0,
        rope_scaling: { factor: 4.0, original_max_position_embeddings: 32768, type: 'yarn' } },
    'DeepSeek-V3': { architectures: ['DeepseekV3ForCausalLM'], model_type: 'deepseek_v3', hidden_size: 7168,
        num_attention_heads: 128, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128,
        max_position_embeddings: 163840, rope_theta: 10000,
        rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0,
            original_max_position_embeddings: 4096, type: 'yarn' } },
    'Mistral 7B v0.1': { architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096,
        num_attention_heads: 32, num_key_value_heads: 8, max_position_embeddings: 32768, rope_theta: 10000.0 },
};

/** Clears the previous config's table, chart and summary (after an error they would describe another model). */
function cfgClear() {
    scl.cfg = null;
    $('#cfg-resolved').replaceChildren();
    $('#cfg-cls').replaceChildren();
    $('#cfg-sum').textContent = '';
    chart($('#cfg-chart')).clear();
}

async function cfgFetch() {
    const err = $('#cfg-err');
    let config;
    try {
        config = JSON.parse($('#cfg-text').value);
    } catch (e) {
        cfgClear();
        err.hidden = false;
        err.textContent = t('cfg.badjson');
        err.dataset.detail = e.message;
        return;
    }
    const body = { config, include: ['bands'] };
    const plain = { config, scaling: { type: 'default' }, include: ['bands'] };
    const tok = scl.gCfg.next();
    let r, p;
    try {
        [r, p] = await Promise.all([api('/rope', body), api('/rope', plain)]);
    } catch (e) {
        if (!(e instanceof ApiError))
            throw e;
        cfgClear();
        err.hidden = false;
        err.textContent = problemText(e);
        err.dataset.status = String(e.status);
        return;
    } finally {
        $('#cfg-req').textContent = `POST /rope\n${JSON.stringify(body)}\n\nPOST /rope\n${JSON.stringify(plain)}`;
    }
    if (!scl.gCfg.ok(tok))
        return;
    err.hidden = true;
    scl.cfg = { r, p };
    cfgRender();
}

function cfgRender() {
    const x = scl.cfg;
    if (!x)
        return;
    const res = x.r.resolved, src = res.sources || {};
    const sc = res.scaling || { type: 'default' };
    const rows = [
        ['head_dim', res.head_dim, src.head_dim], ['rotary_dim', res.rotary_dim, src.rotary_dim],
        ['base', res.base, src.base], ['layout', res.layout, src.layout],
        ['scaling.type', sc.type, src['scaling.type'] || src.scaling],
    ];
    if (sc.factor !== undefined)
        rows.push(['scaling.factor', sc.factor, src['scaling.factor']]);
    if (sc.original_max_position_embeddings !== undefined) {
        rows.push(['scaling.original_max_position_embeddings', sc.original_max_position_embeddings,
            src['scaling.original_max_position_embeddings']]);
    }
    rows.push(['attention_factor', fmtSig(x.r.attention_factor, 6), ''],
        ['softmax_scale_factor', fmtSig(x.r.softmax_scale_factor, 6), '']);
    const tbl = $('#cfg-resolved');
    tbl.replaceChildren(h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('cfg.field')),
        h('th', { scope: 'col' }, t('cfg.value')), h('th', { scope: 'col' }, t('cfg.source')))),
    h('tbody', {}, rows.map(([k, v, from]) => h('tr', { 'data-field': k }, h('th', { scope: 'row' }, h('code', {}, k)),
        h('td', { 'data-testid': `cfg-${k}` }, v === null || v === undefined ? '–' : String(v)),
        h('td', { class: 'src' }, from || '')))));
    const orig = sc.original_max_position_embeddings || null;
    chart($('#cfg-chart')).setOption(bandsOption(x.r.bands, x.p.bands, orig,
        t('bands.scaled', { type: t('sc.name.' + sc.type) })), true);
    classLegend($('#cfg-cls'), x.r.bands, x.p.bands);
    $('#cfg-sum').textContent = t('bands.summary', { af: fmtSig(x.r.attention_factor, 5),
        classes: classTally(x.r.bands, x.p.bands) });
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


/** Wires the scaling panel, the config box and the slowest-pair note; returns their loader. */
export function scalingInit() {
    const bands = () => guarded($('#bands-chart'), bandsFetch);
    for (const id of ['bands-type', 'bands-hd', 'bands-base', 'bands-orig', 'bands-cur'])
        $('#' + id).addEventListener('change', () => track(bands));
    bindRange('bands-f', bands);
    const cfg = () => guarded($('#cfg-resolved'), cfgFetch);
    const pre = $('#cfg-presets');
    for (const name of Object.keys(PRESETS)) {
        pre.append(h('button', { type: 'button', 'data-preset': name, onclick: () => {
            $('#cfg-text').value = JSON.stringify(PRESETS[name], null, 2);
            track(cfg);
        } }, name), ' ');
    }
    $('#cfg-text').value = JSON.stringify(PRESETS['Llama 3.1 8B'], null, 2);
    $('#cfg-run').addEventListener('click', () => track(cfg));
    onLang(() => {
        bandsRender();
        cfgRender();
        slowRender();
    });
    return () => Promise.all([bands().then(() => guarded($('#slow-p'), slowFetch)), cfg()]);
}

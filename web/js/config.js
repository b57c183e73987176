// Section 4, the config box: a pasted config.json → POST /model/method → the position method of every layer
// (a strip, one cell per layer, coloured by kind) → the selected kind's numbers from the route the answer names,
// sent with the answer's ready request (plus a length where the method needs one). Learned tables and layers
// without positions have no route to call: their parameters and a note are shown instead.
import { api, ApiError, track, latest, fmtInt, fmtSig, $, h, chart, baseOption, axis, COLORS } from './util.js';
import { t, getLang, onLang } from './i18n.js';
import { guarded, problemText } from './ui.js';
import { bandsOption, classLegend, classTally } from './scaling.js';

const cfg = { method: null, kind: 0, len: null, res: null, g: latest() };

// Published configs cut down to the keys /model/method reads (position, head and layer keys).
const PRESETS = {
    'Llama 3.1 8B': { architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096,
        num_attention_heads: 32, num_key_value_heads: 8, num_hidden_layers: 32, max_position_embeddings: 131072,
        rope_theta: 500000.0, rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0,
            original_max_position_embeddings: 8192, rope_type: 'llama3' } },
    'Qwen2.5 7B + YaRN': { architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_size: 3584,
        num_attention_heads: 28, num_key_value_heads: 4, num_hidden_layers: 28, max_position_embeddings: 32768,
        rope_theta: 1000000.0, rope_scaling: { factor: 4.0, original_max_position_embeddings: 32768, type: 'yarn' } },
    'DeepSeek-V3': { architectures: ['DeepseekV3ForCausalLM'], model_type: 'deepseek_v3', hidden_size: 7168,
        num_attention_heads: 128, num_hidden_layers: 61, qk_nope_head_dim: 128, qk_rope_head_dim: 64,
        v_head_dim: 128, max_position_embeddings: 163840, rope_theta: 10000,
        rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0,
            original_max_position_embeddings: 4096, type: 'yarn' } },
    'Gemma 3 12B': { architectures: ['Gemma3ForConditionalGeneration'], model_type: 'gemma3',
        text_config: { model_type: 'gemma3_text', hidden_size: 3840, num_attention_heads: 16, num_hidden_layers: 48,
            num_key_value_heads: 8, sliding_window: 1024, rope_scaling: { factor: 8.0, rope_type: 'linear' } } },
    'BERT base': { architectures: ['BertForMaskedLM'], model_type: 'bert', hidden_size: 768,
        num_attention_heads: 12, num_hidden_layers: 12, max_position_embeddings: 512,
        position_embedding_type: 'absolute' },
    'BLOOM 3B': { architectures: ['BloomForCausalLM'], model_type: 'bloom', hidden_size: 2560, n_head: 32,
        n_layer: 30 },
    'T5 small': { architectures: ['T5ForConditionalGeneration'], model_type: 't5', d_model: 512, num_heads: 8,
        num_layers: 6, num_decoder_layers: 6, relative_attention_num_buckets: 32,
        relative_attention_max_distance: 128 },
};

const GREY = '#9ca3af';
/** Layers without positions that are not attention (Mamba, convolution, recurrent, MLP …): grey hatching. */
const HATCH = 'repeating-linear-gradient(135deg, #6b7280 0 2px, #e5e7eb 2px 5px)';
/**
 * A kind's colour (a CSS background): its index in the answer's kinds; layers without positions grey —
 * solid for attention without positions (NoPE), hatched for blocks that are not attention (`mixer`).
 */
const kindColor = (k, i) => {
    if (k.method !== 'none')
        return COLORS[i % COLORS.length];
    return !k.mixer || k.mixer === 'attention' ? GREY : HATCH;
};

/** The kind's name in the page's language: "RoPE (llama3)", "ALiBi", "T5 buckets (encoder)" … */
function kindName(k) {
    const base = t('cfg.m.' + k.method);
    if (k.method === 'rope')
        return `${base} (${k.variant}${k.layer_type ? ', ' + k.layer_type : ''})`;
    if (k.stack)
        return `${base} (${t('cfg.stack.' + k.stack)})`;
    if (k.method === 'none' && k.mixer) // what the layer is: NoPE attention, Mamba, a convolution, an MLP …
        return `${base} (${mixerName(k.mixer)})`;
    return base;
}

/** A none kind's mixer in the page's language ("Mamba", "linear attention" …; an unknown one as sent). */
const mixerName = (m) => (t('cfg.mixer.' + m) === 'cfg.mixer.' + m ? m : t('cfg.mixer.' + m));

/** The note of a none kind: NoPE attention, a block that runs along the sequence, or one that mixes no tokens. */
function noneNote(k) {
    const p = { layers: k.layers.length, mixer: k.mixer ? mixerName(k.mixer) : '' };
    if (!k.mixer || k.mixer === 'attention')
        return t('cfg.note.none', p);
    return t(['mlp', 'moe', 'linear', 'none'].includes(k.mixer) ? 'cfg.note.none.mlp' : 'cfg.note.none.seq', p);
}

/** Layer indices as ranges: 0–4, 6–10, 12. */
function layerRanges(ls) {
    const out = [];
    for (let i = 0; i < ls.length; i++) {
        let j = i;
        while (j + 1 < ls.length && ls[j + 1] === ls[j] + 1)
            j++;
        out.push(j > i ? `${ls[i]}–${ls[j]}` : String(ls[i]));
        i = j;
    }
    return out.join(', ');
}

/** What length the kind needs: 'seq' (ALiBi; RoPE dynamic or longrope), 'rel' (T5) or null. */
function lengthKind(k) {
    if (k.method === 'alibi')
        return 'seq';
    if (k.method === 't5_relative')
        return 'rel';
    if (k.method === 'rope' && (k.variant === 'dynamic' || k.variant === 'longrope'))
        return 'seq';
    return null;
}

/** The length field's starting value for a kind: the model's own length where the config has one. */
function defaultLength(k) {
    if (k.method === 't5_relative')
        return 2 * k.parameters.max_distance;
    const c = (k.request && k.request.config) || {};
    return c.max_position_embeddings || c.max_seq_len || c.n_positions || c.seq_length || 1024;
}

/** At most 256 positions from 0 to n − 1 (both ends kept), evenly strided. */
function strided(n) {
    const step = Math.max(1, Math.ceil((n - 1) / 255));
    const out = [];
    for (let p = 0; p < n - 1; p += step)
        out.push(p);
    out.push(n - 1);
    return out;
}

/** Multi-axis RoPE (Qwen2-VL … Qwen3-VL's mrope_section): /rope answers per-axis pairs, not bands. */
const multiAxis = (k) => k.method === 'rope' && !!k.parameters && !!k.parameters.scaling &&
    k.parameters.scaling.type === 'mrope';

/** The requests sent for kind `k` at length `len`: [[route, body], ...] (empty when the kind has no route). */
export function kindRequests(k, len) {
    if (multiAxis(k)) // `bands` is 1-D only (a 422 with axes): the frequencies and the axis of each pair
        return [['/rope', { ...k.request }]];
    if (k.method === 'rope') {
        const body = { ...k.request, include: ['bands'] };
        if (lengthKind(k))
            body.seq_len = len;
        return [['/rope', body], ['/rope', { ...k.request, scaling: { type: 'default' }, include: ['bands'] }]];
    }
    if (k.method === 'alibi') {
        return [['/alibi', { ...k.request, query_positions: [len - 1], key_positions: strided(len),
            include_bias: true }]];
    }
    if (k.method === 't5_relative') {
        const half = strided(len + 1);
        const rel = [...half.slice(1).reverse().map((d) => -d), ...half];
        return [['/t5/buckets', { ...k.request, relative_positions: rel }]];
    }
    return [];
}

/** Clears what the previous answer drew (after an error it would describe another model). */
function clear(all) {
    if (all) {
        cfg.method = null;
        $('#cfg-method').replaceChildren();
        $('#cfg-strip').replaceChildren();
        $('#cfg-kinds').replaceChildren();
        $('#cfg-len-row').hidden = true;
    }
    cfg.res = null;
    $('#cfg-note').textContent = '';
    $('#cfg-resolved').replaceChildren();
    $('#cfg-cls').replaceChildren();
    $('#cfg-sum').textContent = '';
    const el = $('#cfg-chart');
    el.hidden = true;
    const c = window.echarts && window.echarts.getInstanceByDom(el);
    if (c)
        c.clear();
}

function fail(e, all) {
    clear(all);
    const err = $('#cfg-err');
    err.hidden = false;
    err.textContent = problemText(e);
    err.dataset.status = String(e.status);
}

async function methodFetch() {
    const err = $('#cfg-err');
    let config;
    try {
        config = JSON.parse($('#cfg-text').value);
    } catch (e) {
        clear(true);
        err.hidden = false;
        err.textContent = t('cfg.badjson');
        err.dataset.detail = e.message;
        err.dataset.status = '';
        return;
    }
    const tok = cfg.g.next();
    const body = { config };
    let m;
    try {
        m = await api('/model/method', body);
    } catch (e) {
        if (!(e instanceof ApiError))
            throw e;
        if (cfg.g.ok(tok)) {
            $('#cfg-req').textContent = `POST /model/method\n${JSON.stringify(body)}`;
            fail(e, true);
        }
        return;
    }
    if (!cfg.g.ok(tok))
        return;
    err.hidden = true;
    cfg.method = { m, body };
    const first = m.kinds.findIndex((k) => k.request);
    await select(first < 0 ? 0 : first);
}

/** Selects kind `i`: its length field, then its numbers. */
async function select(i) {
    cfg.kind = i;
    const k = cfg.method.m.kinds[i];
    cfg.len = lengthKind(k) ? defaultLength(k) : null;
    methodRender();
    await kindFetch();
}

async function kindFetch() {
    const k = cfg.method.m.kinds[cfg.kind];
    const reqs = kindRequests(k, cfg.len);
    const tok = cfg.g.next();
    const shown = [['/model/method', cfg.method.body], ...reqs];
    $('#cfg-req').textContent = shown.map(([p, b]) => `POST ${p}\n${JSON.stringify(b)}`).join('\n\n');
    let answers;
    try {
        answers = await Promise.all(reqs.map(([p, b]) => api(p, b)));
    } catch (e) {
        if (!(e instanceof ApiError))
            throw e;
        if (cfg.g.ok(tok))
            fail(e, false);
        return;
    }
    if (!cfg.g.ok(tok))
        return;
    $('#cfg-err').hidden = true;
    cfg.res = { k, len: cfg.len, answers, reqs };
    kindRender();
}

/** The model line, the per-layer strip and the kind buttons. */
function methodRender() {
    if (!cfg.method)
        return;
    const m = cfg.method.m;
    const box = $('#cfg-method');
    box.dataset.modelType = m.model_type;
    box.dataset.layers = String(m.num_layers);
    box.dataset.kinds = String(m.kinds.length);
    box.innerHTML = t('cfg.model', { type: `<code>${m.model_type}</code>`, n: fmtInt(m.num_layers, getLang()),
        src: `<code>${m.text_config}</code>`, k: m.kinds.length });
    const strip = $('#cfg-strip');
    strip.setAttribute('aria-label', t('cfg.stripLabel'));
    strip.replaceChildren(...m.layers.map((ki, layer) => {
        const k = m.kinds[ki];
        return h('span', { class: 'layer' + (ki === cfg.kind ? ' on' : ''), 'data-kind': String(ki),
            'data-method': k.method, 'data-mixer': k.mixer || '', title: `${t('cfg.layer')} ${layer}: ${kindName(k)}`,
            style: `background:${kindColor(k, ki)}` });
    }));
    $('#cfg-kinds').replaceChildren(...m.kinds.map((k, i) => h('button', { type: 'button', class: 'kind',
        'data-kind': String(i), 'data-method': k.method, 'data-variant': k.variant || '', 'data-mixer': k.mixer || '',
        'aria-pressed': i === cfg.kind ? 'true' : 'false', onclick: () => track(() => guarded($('#cfg-resolved'),
            () => select(i))) },
    h('span', { class: 'dot', style: `background:${kindColor(k, i)}` }),
    `${kindName(k)} · ${t('cfg.layers', { r: layerRanges(k.layers), n: k.layers.length })}`)));
    const lk = lengthKind(m.kinds[cfg.kind]);
    $('#cfg-len-row').hidden = !lk;
    if (lk) {
        $('#cfg-len-label').textContent = t('cfg.len.' + lk);
        $('#cfg-len').value = String(cfg.len);
    }
}

function row(k, v, from) {
    return h('tr', { 'data-field': k }, h('th', { scope: 'row' }, h('code', {}, k)),
        h('td', { 'data-testid': `cfg-${k}` }, v === null || v === undefined ? '–' : String(v)),
        h('td', { class: 'src' }, from || ''));
}

function table(rows) {
    $('#cfg-resolved').replaceChildren(h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('cfg.field')),
        h('th', { scope: 'col' }, t('cfg.value')), h('th', { scope: 'col' }, t('cfg.source')))),
    h('tbody', {}, rows.map((r) => row(...r))));
}

// A scaling parameter for the table: numbers as sent, a list as its length and first values.
function scalingValue(v) {
    if (Array.isArray(v))
        return `[${v.length}] ${v.slice(0, 3).map((e) => fmtSig(e, 6)).join(', ')}${v.length > 3 ? ', …' : ''}`;
    return typeof v === 'object' && v !== null ? JSON.stringify(v) : v;
}

function ropeRender(x, r, p) {
    const res = r.resolved, src = res.sources || {};
    const sc = res.scaling || { type: 'default' };
    const rows = [['head_dim', res.head_dim, src.head_dim], ['rotary_dim', res.rotary_dim, src.rotary_dim],
        ['base', res.base, src.base], ['layout', res.layout, src.layout],
        ['scaling.type', sc.type, src['scaling.type'] || src.scaling]];
    // every parameter of the scaling (llama3's low/high_freq_factor, YaRN's betas, longrope's
    // factor lists, proportional's partial_rotary_factor...), factor and original length first
    const first = ['factor', 'original_max_position_embeddings'];
    const keys = [...first.filter((k) => sc[k] !== undefined),
        ...Object.keys(sc).filter((k) => k !== 'type' && !first.includes(k)).sort()];
    for (const k of keys)
        rows.push([`scaling.${k}`, scalingValue(sc[k]), src[`scaling.${k}`]]);
    if (x.len !== null)
        rows.push(['seq_len', x.len, t('cfg.fromField')]);
    rows.push(['attention_factor', fmtSig(r.attention_factor, 6), ''],
        ['softmax_scale_factor', fmtSig(r.softmax_scale_factor, 6), '']);
    table(rows);
    const orig = sc.original_max_position_embeddings || null;
    const el = $('#cfg-chart');
    el.hidden = false;
    chart(el).setOption(bandsOption(r.bands, p.bands, orig, t('bands.scaled', { type: t('sc.name.' + sc.type) })),
        true);
    classLegend($('#cfg-cls'), r.bands, p.bands);
    $('#cfg-sum').textContent = t('bands.summary', { af: fmtSig(r.attention_factor, 5),
        classes: classTally(r.bands, p.bands) });
}

/** M-RoPE: the resolved sections and each pair's frequency, one series per axis (t, h, w). */
function mropeRender(x, r) {
    const res = r.resolved, src = res.sources || {}, ax = res.axes;
    table([['head_dim', res.head_dim, src.head_dim], ['rotary_dim', res.rotary_dim, src.rotary_dim],
        ['base', res.base, src.base], ['layout', res.layout, src.layout], ['axes.type', ax.type, src.axes_interleaved || src.axes],
        ['axes.sections', `[${ax.sections.join(', ')}]`, src.axes],
        ['attention_factor', fmtSig(r.attention_factor, 6), ''],
        ['softmax_scale_factor', fmtSig(r.softmax_scale_factor, 6), '']]);
    const el = $('#cfg-chart');
    el.hidden = false;
    chart(el).setOption(baseOption({
        grid: { left: 64, right: 20, top: 32, bottom: 48 },
        tooltip: { trigger: 'item' },
        legend: { top: 0 },
        xAxis: axis({ type: 'value', name: t('ax.pair'), nameLocation: 'middle', nameGap: 28, min: 0,
            max: r.inv_freq.length - 1 }),
        yAxis: axis({ type: 'log', name: t('cfg.ax.invfreq'), nameLocation: 'end' }),
        series: ax.sections.map((_, a) => ({ name: t('cfg.axis.' + a), type: 'line', color: COLORS[a],
            lineStyle: { opacity: 0 }, symbolSize: 6,
            data: r.inv_freq.map((f, j) => [j, f]).filter((_, j) => r.pair_axis[j] === a) })),
    }), true);
    $('#cfg-sum').textContent = t('cfg.mrope.sum', { t: ax.sections[0], h: ax.sections[1], w: ax.sections[2],
        base: res.base });
}

function alibiRender(x, a) {
    const keys = x.reqs[0][1].key_positions, q = x.len - 1, s = a.slopes;
    table([['num_heads', a.resolved.num_heads, 'config'], ['slopes_rule', a.resolved.slopes_rule, ''],
        ['slopes[0]', fmtSig(s[0], 6), ''], [`slopes[${s.length - 1}]`, fmtSig(s[s.length - 1], 6), ''],
        ['seq_len', x.len, t('cfg.fromField')]]);
    const el = $('#cfg-chart');
    el.hidden = false;
    chart(el).setOption(baseOption({
        grid: { left: 64, right: 20, top: 24, bottom: 48 },
        tooltip: { trigger: 'item', valueFormatter: (v) => fmtSig(v, 4) },
        xAxis: axis({ type: 'value', name: t('cfg.ax.key'), nameLocation: 'middle', nameGap: 28, min: 0, max: q }),
        yAxis: axis({ type: 'value', name: t('cfg.ax.bias'), nameLocation: 'end' }),
        series: a.bias.map((hb, i) => ({ name: `${t('ax.head')} ${i + 1}`, type: 'line', showSymbol: false,
            lineStyle: { width: 1.5 }, color: COLORS[i % COLORS.length], data: keys.map((kp, j) => [kp, hb[0][j]]) })),
    }), true);
    $('#cfg-sum').textContent = t('cfg.alibi.sum', { q: fmtInt(q, getLang()), n: s.length,
        a: fmtSig(s[0], 4), b: fmtSig(s[s.length - 1], 4) });
}

function t5Render(x, b) {
    const rel = x.reqs[0][1].relative_positions, p = b.resolved;
    table([['num_buckets', p.num_buckets, 'config'], ['max_distance', p.max_distance, 'config'],
        ['bidirectional', String(p.bidirectional), t('cfg.stack.' + (x.k.stack || 'encoder'))]]);
    const el = $('#cfg-chart');
    el.hidden = false;
    chart(el).setOption(baseOption({
        grid: { left: 56, right: 20, top: 24, bottom: 48 },
        tooltip: { trigger: 'axis' },
        xAxis: axis({ type: 'value', name: t('ax.rel'), nameLocation: 'middle', nameGap: 28, min: rel[0],
            max: rel[rel.length - 1] }),
        yAxis: axis({ type: 'value', name: t('ax.bucket'), nameLocation: 'end', min: 0 }),
        series: [{ name: t('ax.bucket'), type: 'line', step: 'middle', showSymbol: false, color: COLORS[0],
            data: rel.map((r, i) => [r, b.buckets[i]]) }],
    }), true);
    $('#cfg-sum').textContent = t('cfg.t5.sum', { nb: p.num_buckets, md: p.max_distance });
}

/** The selected kind: its table, chart and summary (or a note where no route computes it). */
function kindRender() {
    const x = cfg.res;
    if (!x)
        return;
    clearDrawn();
    const k = x.k;
    const note = $('#cfg-note');
    note.dataset.method = k.method;
    if (multiAxis(k))
        mropeRender(x, x.answers[0]);
    else if (k.method === 'rope')
        ropeRender(x, x.answers[0], x.answers[1]);
    else if (k.method === 'alibi')
        alibiRender(x, x.answers[0]);
    else if (k.method === 't5_relative')
        t5Render(x, x.answers[0]);
    else if (k.method === 'sinusoidal') {
        const pr = k.parameters;
        table([['d_model', pr.d_model, 'config'], ['convention', pr.convention, pr.layout],
            ['offset', pr.offset, pr.offset_rule]]);
    } else if (k.method === 'learned_absolute') {
        const pr = k.parameters;
        table([['max_position_embeddings', pr.max_position_embeddings, 'config'], ['d_model', pr.d_model, 'config'],
            ['offset', pr.offset, pr.offset_rule]]);
    }
    note.innerHTML = k.method === 'none' ? noneNote(k)
        : t('cfg.note.' + (multiAxis(k) ? 'mrope' : k.method), { layers: k.layers.length });
}

/** Empties the chart, legend and summary before a kind is drawn (a learned or none kind draws none). */
function clearDrawn() {
    $('#cfg-cls').replaceChildren();
    $('#cfg-sum').textContent = '';
    $('#cfg-resolved').replaceChildren();
    const el = $('#cfg-chart');
    const c = window.echarts && window.echarts.getInstanceByDom(el);
    if (c)
        c.clear();
    el.hidden = true;
}

/** Wires the config box; returns its loader (the default preset's answer). */
export function cfgInit() {
    const run = () => guarded($('#cfg-resolved'), methodFetch);
    const pre = $('#cfg-presets');
    for (const name of Object.keys(PRESETS)) {
        pre.append(h('button', { type: 'button', 'data-preset': name, onclick: () => {
            $('#cfg-text').value = JSON.stringify(PRESETS[name], null, 2);
            track(run);
        } }, name), ' ');
    }
    $('#cfg-text').value = JSON.stringify(PRESETS['Llama 3.1 8B'], null, 2);
    $('#cfg-run').addEventListener('click', () => track(run));
    $('#cfg-len').addEventListener('change', () => {
        const v = Math.round(+$('#cfg-len').value);
        if (!cfg.method || !(v >= 2))
            return;
        cfg.len = v;
        track(() => guarded($('#cfg-resolved'), kindFetch));
    });
    onLang(() => {
        methodRender();
        kindRender();
    });
    return run;
}

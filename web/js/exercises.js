// The lesson's four exercises, in its order, and its glossary. Exercise 2 has its own pair widget; exercise 4
// is answered only when the reader presses its button (the 422 of a 600-token request).
import { api, ApiError, track, latest, fmt, putNum, $, h } from './util.js';
import { t, onLang } from './i18n.js';
import { guarded, bindRange } from './ui.js';
import { TABLE, parseOverflow } from './common.js';
import { learnedUnavailable } from './learned.js';

const ex = { ex2: null, ex2w: null, ex3: null, ex4: null, g2: latest() };
const THETA = 0.5;

async function ex1Fetch() {
    const body = { d_model: 4, positions: [0, 1, 2, 3, 4] };
    const r = await api('/sinusoidal', body, $('#ex1-req'));
    const tbl = $('#ex1-table');
    const cap = tbl.querySelector('caption');
    const head = h('tr', {}, ['p', 'sin(p)', 'cos(p)', 'sin(p/100)', 'cos(p/100)'].map((c) =>
        h('th', { scope: 'col' }, c)));
    const rows = r.matrix.slice(0, 4).map((row, i) => h('tr', {}, h('th', { scope: 'row' }, String(i)),
        row.map((v) => {
            const td = h('td');
            putNum(td, v, 3);
            return td;
        })));
    tbl.replaceChildren(cap, h('thead', {}, head), h('tbody', {}, rows));
    r.matrix[4].forEach((v, i) => putNum($(`[data-testid="ex1-v${i}"]`), v, 3));
}


/** Exercise 2's widget: q = k = (1, 0), θ = 0.5 at the chosen (m, n). */
async function ex2WidgetFetch() {
    const m = +$('#ex2-m').value, n = +$('#ex2-n').value;
    const body = { head_dim: 2, inv_freq: [THETA], q: [1, 0], k: [1, 0], q_positions: [m], k_positions: [n] };
    const tok = ex.g2.next();
    const r = await api('/rope', body, $('#ex2-req'));
    if (!ex.g2.ok(tok))
        return;
    ex.ex2w = { m, n, score: r.scores[0][0] };
    ex2WidgetRender();
}

function ex2WidgetRender() {
    const x = ex.ex2w;
    if (!x)
        return;
    const el = $('#ex2-readout');
    el.textContent = t('ex2.readout', { m: x.m, n: x.n, d: fmt(x.m - x.n, 0), s: fmt(x.score, 3) });
    el.dataset.value = String(x.score);
    el.dataset.m = String(x.m);
    el.dataset.n = String(x.n);
}

/** The answer (hidden until opened): (10, 4) and (6, 0), from the API. */
async function ex2Fetch() {
    const body = { head_dim: 2, inv_freq: [THETA], q: [1, 0], k: [1, 0], q_positions: [10, 6], k_positions: [4, 0] };
    const r = await api('/rope', body);
    ex.ex2 = r.scores;
    ex2Render();
}

function ex2Render() {
    if (!ex.ex2)
        return;
    const v = ex.ex2[0][0], w = ex.ex2[1][1];
    $('#ex2-a').innerHTML = t('ex2.a', {
        v: `<b data-testid="ex2-score" data-value="${v}">${fmt(v, 3)}</b>`,
        w: `<b data-testid="ex2-score-6-0" data-value="${w}">${fmt(w, 3)}</b>`,
    });
}

async function ex3Fetch() {
    const body = { num_heads: 16, seq_len: 1, include_bias: false };
    const r = await api('/alibi', body, $('#ex3-req'));
    ex.ex3 = r.slopes;
    ex3Render();
}

function ex3Render() {
    const sl = ex.ex3;
    if (!sl)
        return;
    const b = (i) => `<b data-testid="ex3-s${i}" data-value="${sl[i]}">${fmt(sl[i], 3)}</b>`;
    $('#ex3-a').innerHTML = t('ex3.a', { s0: b(0), s1: b(1), s2: b(2) });
}

async function ex4Fetch() {
    const body = { table: TABLE, seq_len: 600 };
    const msg = $('#ex4-msg');
    msg.textContent = t('loading');
    try {
        await api('/learned', body, $('#ex4-req'));
        ex.ex4 = { ok: true };
    } catch (e) {
        if (e instanceof ApiError && e.status === 404) {
            learnedUnavailable();
            ex.ex4 = { ok: false, status: 404, msg: t('learned.unavailable'), pos: null, rows: null };
            ex4Render();
            return;
        }
        if (!(e instanceof ApiError) || e.status !== 422)
            throw e;
        ex.ex4 = { ok: false, status: e.status, problem: e.problem, ...parseOverflow(e.problem) };
    }
    ex4Render();
}

function ex4Render() {
    const x = ex.ex4;
    if (!x)
        return;
    const msg = $('#ex4-msg');
    if (x.ok) {
        msg.textContent = t('ex4.ok');
        return;
    }
    msg.textContent = x.pos !== null && x.rows !== null
        ? t('ex4.friendly', { pos: x.pos, rows: x.rows, table: TABLE }) : x.msg;
    msg.dataset.position = String(x.pos);
    msg.dataset.rows = String(x.rows);
    msg.dataset.status = String(x.status);
    $('#ex4-problem').textContent = JSON.stringify(x.problem, null, 2);
    $('#ex4-raw').hidden = false;
}


const TERMS = ['pe', 'abs', 'rel', 'perm', 'extrap', 'wave', 'invfreq', 'rot', 'layout', 'slope', 'bucket', 'interp',
    'softmax', 'headdim'];

function termsRender() {
    // the definitions are trusted static markup (strings-*.js): superscripts in formulas
    $('#terms-list').replaceChildren(...TERMS.flatMap((k) => [h('dt', { id: 'term-' + k }, t('term.' + k)),
        h('dd', { 'data-testid': 'term-' + k, innerHTML: t('term.' + k + '.d') })]));
}

/** Wires the exercises; returns their loader (exercise 4 waits for its button). */
export function exInit() {
    const w2 = () => guarded($('#ex2-readout'), ex2WidgetFetch);
    bindRange('ex2-m', w2, 40);
    bindRange('ex2-n', w2, 40);
    $('#ex4-btn').addEventListener('click', () => track(() => guarded($('#ex4-out'), ex4Fetch)));
    termsRender();
    onLang(() => {
        ex2WidgetRender();
        ex2Render();
        ex3Render();
        ex4Render();
        termsRender();
    });
    return () => Promise.all([guarded($('#ex1-table'), ex1Fetch), w2(), guarded($('#ex2-a'), ex2Fetch),
        guarded($('#ex3-a'), ex3Fetch)]);
}

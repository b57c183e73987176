// Section 1, why position: the same words in two orders, attention with and without position. Plain HTML
// tables (no chart library), so it renders first.
import { api, track, latest, fmt, putNum, $, $$, h } from './util.js';
import { t, getLang, onLang } from './i18n.js';
import { guarded } from './ui.js';


const WHY_VEC = { dog: [1.0, 0.2, 0.0, 0.5], man: [0.9, 0.1, 0.3, 0.6], bite: [0.0, 1.0, 0.4, 0.0],
    the: [0.2, 0.1, 0.1, 0.1] };
// Korean drops the particles, so order alone tells subject from object (SOV). English keeps its articles:
// with "dog bites man" alone, swapping the nouns is a mirror image around the verb, which a symmetric
// distance bias (ALiBi without a causal mask) cannot see.
const WHY_ORDER = { ko: [['dog', 'man', 'bite'], ['man', 'dog', 'bite']],
    en: [['the', 'dog', 'bite', 'the', 'man'], ['the', 'man', 'bite', 'the', 'dog']] };
const why = { data: null, guard: latest() };

function whyBody(order, method) {
    const x = order.map((w) => WHY_VEC[w]);
    const body = { q: x, k: x, method };
    if (method === 'alibi')
        body.alibi = { slopes: [0.5] };
    return body;
}

async function whyFetch() {
    const method = $('input[name="why-m"]:checked').value;
    const orders = WHY_ORDER[getLang()];
    const tok = why.guard.next();
    const bodies = orders.map((o) => whyBody(o, method));
    const pre = $('#why-req');
    const res = await Promise.all(bodies.map((b) => api('/attention', b)));
    pre.textContent = bodies.map((b) => `POST /attention\n${JSON.stringify(b)}`).join('\n\n');
    if (!why.guard.ok(tok))
        return;
    why.data = { method, orders, weights: res.map((r) => (method === 'alibi' ? r.weights[0] : r.weights)) };
    whyRender();
}

function whyMatrix(el, order, w) {
    const words = order.map((k) => t('tok.' + k));
    const head = h('tr', {}, h('th', { scope: 'col' }, ''), words.map((wd) => h('th', { scope: 'col' }, wd)));
    const rows = w.map((row, i) => h('tr', {}, h('th', { scope: 'row' }, words[i]), row.map((v, j) => {
        const focus = order[i] === 'bite' && (order[j] === 'dog' || order[j] === 'man');
        const td = h('td', { 'data-value': String(v), class: focus ? 'focus' : null }, fmt(v, 3));
        td.style.background = `rgba(31, 95, 168, ${(0.08 + 0.8 * v).toFixed(3)})`;
        if (v > 0.5)
            td.style.color = '#fff';
        return td;
    })));
    el.replaceChildren(h('table', { class: 'num heat' }, h('thead', {}, head), h('tbody', {}, rows)));
}

function whyRender() {
    if (!why.data)
        return;
    const { orders, weights, method } = why.data;
    $('#why-sa').textContent = '“' + orders[0].map((k) => t('tok.' + k)).join(' ') + '”';
    $('#why-sb').textContent = '“' + orders[1].map((k) => t('tok.' + k)).join(' ') + '”';
    whyMatrix($('#why-ma'), orders[0], weights[0]);
    whyMatrix($('#why-mb'), orders[1], weights[1]);
    $('#why-focus-h').textContent = t('why.focus', { verb: t('tok.bite') });
    // The verb's row, read at the columns of "dog" and "man" in each sentence.
    const pick = (i, noun) => weights[i][orders[i].indexOf('bite')][orders[i].indexOf(noun)];
    const tbl = $('#why-focus');
    const head = h('tr', {}, h('th', { scope: 'col' }, t('why.col.sent')),
        h('th', { scope: 'col' }, `→ ${t('tok.dog')}`), h('th', { scope: 'col' }, `→ ${t('tok.man')}`));
    const rows = [0, 1].map((i) => h('tr', {}, h('th', { scope: 'row' }, t(i ? 'why.sentB' : 'why.sentA')),
        ['dog', 'man'].map((n) => {
            const td = h('td', { 'data-testid': `why-focus-${i ? 'b' : 'a'}-${n}` });
            putNum(td, pick(i, n), 4);
            return td;
        })));
    tbl.replaceChildren(h('thead', {}, head), h('tbody', {}, rows));
    const same = ['dog', 'man'].every((n) => Math.abs(pick(0, n) - pick(1, n)) < 1e-12);
    const v = $('#why-verdict');
    v.textContent = t(same ? 'why.same' : 'why.diff');
    v.dataset.same = String(same);
    v.dataset.method = method;
    v.className = 'verdict ' + (same ? 'same' : 'diff');
}

/** Wires section 1; returns its loader (one /attention request per sentence). */
export function whyInit() {
    const run = () => guarded($('#why-focus'), whyFetch);
    for (const r of $$('input[name="why-m"]'))
        r.addEventListener('change', () => track(run));
    onLang(() => track(run));
    return run;
}


// Section 4, RoPE's two pair layouts: the same q rotated with adjacent pairs (2j, 2j+1), the complex-number
// form, and with split halves (j, j + d/2), the rotate_half form; both keep the vector's length.
import { api, latest, fmt, putNum, $, h } from './util.js';
import { t, onLang } from './i18n.js';
import { guarded, bindRange } from './ui.js';

const Q = [1, 2, 3, 4];
const BASE = 100; // θ = (1, 0.1): both pairs visibly turn within a dozen positions
const LAYOUTS = ['interleaved', 'half'];
const lay = { r: null, g: latest() };

/**
 * One request per layout: q at positions p and 0 against itself (k = q) at p and 0, so scores[0][0] is
 * |R(p)q|² and scores[1][1] is |q|², both computed by the API; cos_sin gives e^{i·p·θ_j}.
 */
function layBody(layout, p) {
    return { head_dim: 4, base: BASE, layout, q: Q, k: Q, q_positions: [p, 0], k_positions: [p, 0],
        positions: [p], include: ['cos_sin'] };
}

async function layFetch() {
    const p = +$('#lay-p').value;
    const tok = lay.g.next();
    const bodies = LAYOUTS.map((l) => layBody(l, p));
    const res = await Promise.all(bodies.map((b) => api('/rope', b)));
    $('#lay-req').textContent = bodies.map((b) => `POST /rope\n${JSON.stringify(b)}`).join('\n\n');
    if (!lay.g.ok(tok))
        return;
    lay.r = { p, res };
    layRender();
}

/** a + bi with the true minus sign. */
const cx = (a, b) => `${fmt(a, 3)} ${b < 0 ? '−' : '+'} ${fmt(Math.abs(b), 3)}i`;

function layRender() {
    const x = lay.r;
    if (!x)
        return;
    const [il, hf] = x.res;
    const pairIl = (i) => `${Math.floor(i / 2)}`, pairHf = (i) => `${i % 2}`;
    const cell = (v, id) => {
        const td = h('td', { 'data-testid': id });
        putNum(td, v, 3);
        return td;
    };
    const head = [h('tr', {}, h('th', { colSpan: 2 }, ''), h('th', { scope: 'colgroup', colSpan: 2 }, 'interleaved'),
        h('th', { scope: 'colgroup', colSpan: 2 }, 'half')),
    h('tr', {}, ['i', 'qᵢ', t('lay.pair'), t('lay.at', { p: x.p }), t('lay.pair'), t('lay.at', { p: x.p })]
        .map((c) => h('th', { scope: 'col' }, c)))];
    const rows = Q.map((q, i) => h('tr', {}, h('th', { scope: 'row' }, String(i)), h('td', {}, String(q)),
        h('td', {}, pairIl(i)), cell(il.q_rotated[0][i], `lay-il-${i}`), h('td', {}, pairHf(i)),
        cell(hf.q_rotated[0][i], `lay-hf-${i}`)));
    const ri = il.q_rotated[0], rh = hf.q_rotated[0];
    const c = il.cos[0], s = il.sin[0];
    const rot = (j) => cx(c[j], s[j]);
    $('#lay-forms').innerHTML = '<p>' + t('lay.complex', {
        z0: cx(Q[0], Q[1]), z1: cx(Q[2], Q[3]), e0: rot(0), e1: rot(1), r0: cx(ri[0], ri[1]), r1: cx(ri[2], ri[3]),
    }) + '</p><p>' + t('lay.half', {
        z0: cx(Q[0], Q[2]), z1: cx(Q[1], Q[3]), r0: cx(rh[0], rh[2]), r1: cx(rh[1], rh[3]),
        rh: `(${[-Q[2], -Q[3], Q[0], Q[1]].map((v) => fmt(v, 0)).join(', ')})`,
        c: `(${[c[0], c[1], c[0], c[1]].map((v) => fmt(v, 3)).join(', ')})`,
        s: `(${[s[0], s[1], s[0], s[1]].map((v) => fmt(v, 3)).join(', ')})`,
    }) + '</p>';
    $('#lay-table').replaceChildren(h('thead', {}, head), h('tbody', {}, rows));
    const n = (r, i) => Math.sqrt(r.scores[i][i]);
    const b = (id, v) => `<b data-testid="lay-norm-${id}" data-value="${v}">${fmt(v, 3)}</b>`;
    $('#lay-norm').innerHTML = t('lay.norm', { q: b('q', n(il, 1)), il: b('il', n(il, 0)), hf: b('hf', n(hf, 0)) });
}

/** Wires the layouts panel; returns its loader. */
export function layInit() {
    const run = () => guarded($('#lay-table'), layFetch);
    bindRange('lay-p', run, 60);
    onLang(layRender);
    return run;
}

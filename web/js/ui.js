// Page helpers shared by the demo's sections: error lines next to a widget, guarded renderers and
// range sliders. Like util.js, nothing here computes an encoding.
import { ApiError, debounce, $, h } from './util.js';
import { t, getLang, STRINGS } from './i18n.js';

/** 0 … n−1 (or from … from+n−1): indices for axes and requests, not numerics. */
export const range = (n, from = 0) => Array.from({ length: n }, (_, i) => i + from);

/** An integer offset with its sign: +2, 0, −3 (true minus sign). */
export const signed = (d) => (d > 0 ? `+${d}` : String(d).replace('-', '\u2212'));

/**
 * The page's sentence for an API error: in English the server's own "pointer: message"; in Korean a sentence
 * chosen by the problem type (urn:posenc:problem:CODE) naming the first error's JSON pointer, since the
 * server's messages are English.
 */
export function problemText(e) {
    const pb = e.problem || {};
    const first = pb.errors && pb.errors[0];
    const pointer = first ? first.pointer : '';
    if (getLang() === 'en')
        return t('err.generic', { msg: first ? `${pointer}: ${first.message}` : e.message });
    const code = typeof pb.type === 'string' ? pb.type.split(':').pop() : '';
    const key = STRINGS.ko['pb.' + code] ? 'pb.' + code : 'pb.other';
    return t(key, { pointer: pointer || '/', status: e.status });
}

/** Shows an error next to `anchor` (a friendly line; the server's detail is kept). Clears it when e is null. */
export function showError(anchor, e) {
    let el = anchor.previousElementSibling;
    if (!el || !el.classList.contains('err')) {
        el = h('p', { class: 'friendly err', role: 'alert' });
        anchor.before(el);
    }
    if (!e) {
        el.hidden = true;
        el.textContent = '';
        return;
    }
    el.hidden = false;
    el.textContent = e instanceof ApiError ? problemText(e) : t('err.network', { msg: e.message });
    el.dataset.detail = e instanceof ApiError ? e.message : '';
    if (!(e instanceof ApiError))
        console.warn(e);
}

/** Runs an async renderer and reports failures next to `anchor` instead of throwing. */
export async function guarded(anchor, fn) {
    try {
        await fn();
        showError(anchor, null);
    } catch (e) {
        showError(anchor, e);
    }
}

/** Wires the range input `id` (and its <output id="ID-o">) to run `fn` debounced by `ms`. */
export function bindRange(id, fn, ms = 120) {
    const el = $('#' + id), out = $('#' + id + '-o');
    const run = debounce(fn, ms);
    el.addEventListener('input', () => {
        if (out)
            out.textContent = el.value;
        run();
    });
    return el;
}

// The teaching demo's language switch. Keys are used by data-i18n (text) and data-i18n-html (trusted static
// markup, written in strings-ko.js, strings-en.js and strings-cfg.js) attributes, and by t() for text built at run time.

import { ko } from './strings-ko.js';
import { en } from './strings-en.js';
import { cfgKo, cfgEn } from './strings-cfg.js';

export const STRINGS = { ko: { ...ko, ...cfgKo }, en: { ...en, ...cfgEn } };

let lang = 'en';
const listeners = [];

/** The current language ('ko' or 'en'). */
export function getLang() {
    return lang;
}

/** The string for `key` in the current language with {name} placeholders filled from `params`. */
export function t(key, params = {}) {
    const s = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
    return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/**
 * Picks the starting language: ?lang= in the URL, then a choice saved earlier, then Korean when the
 * browser's preferred languages put Korean before English, else English.
 */
export function initialLang() {
    const q = new URLSearchParams(location.search).get('lang');
    if (q === 'ko' || q === 'en')
        return q;
    try {
        const saved = localStorage.getItem('posenc.lang');
        if (saved === 'ko' || saved === 'en')
            return saved;
    } catch (e) { /* storage may be disabled */ }
    for (const l of navigator.languages || [navigator.language || 'en']) {
        const p = String(l).toLowerCase();
        if (p.startsWith('ko'))
            return 'ko';
        if (p.startsWith('en'))
            return 'en';
    }
    return 'en';
}

/** Fills every data-i18n / data-i18n-html / data-i18n-aria element of the page. */
export function applyI18n(root = document) {
    document.documentElement.lang = lang;
    document.title = t('doc.title');
    for (const el of root.querySelectorAll('[data-i18n]'))
        el.textContent = t(el.dataset.i18n);
    for (const el of root.querySelectorAll('[data-i18n-html]'))
        el.innerHTML = t(el.dataset.i18nHtml);
    for (const el of root.querySelectorAll('[data-i18n-aria]'))
        el.setAttribute('aria-label', t(el.dataset.i18nAria));
}

/** Switches language, refills the page and tells every listener (charts redraw their labels). */
export function setLang(l, save = true) {
    lang = l === 'ko' ? 'ko' : 'en';
    if (save) {
        try {
            localStorage.setItem('posenc.lang', lang);
        } catch (e) { /* ignore */ }
    }
    applyI18n();
    for (const b of document.querySelectorAll('[data-lang]'))
        b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
    for (const fn of listeners)
        fn(lang);
}

/** Registers `fn(lang)` to run after every language switch. */
export function onLang(fn) {
    listeners.push(fn);
}

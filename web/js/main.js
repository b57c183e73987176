// The posenc teaching demo. Every number drawn here comes from the posencd API (same origin); the page
// only chooses inputs, picks entries out of responses and formats them.
//
// Boot: the first section (plain HTML tables) computes at once; ECharts loads in the background; every
// other part computes when it comes within a screen of the viewport (IntersectionObserver), once. An
// observed element gets data-lazy, and data-loaded="1" once its part has been computed.
import { api, track, $, $$, h, loadCharts } from './util.js';
import { t, setLang, onLang, initialLang } from './i18n.js';
import { whyInit } from './why.js';
import { sinInit } from './sin.js';
import { learnedInit } from './learned.js';
import { ropeInit } from './rope.js';
import { layInit } from './layouts.js';
import { scalingInit } from './scaling.js';
import { cfgInit } from './config.js';
import { ctxInit } from './ctxheat.js';
import { alibiInit } from './alibi.js';
import { cmpInit } from './compare.js';
import { exInit } from './exercises.js';
import { gridInit } from './grid2d.js';
import { relInit } from './relative.js';

async function footer() {
    const el = $('#foot-server');
    try {
        const v = await api('/version', null);
        const txt = `${v.name} ${v.version}${v.git_revision ? ` (${v.git_revision})` : ''}`;
        el.textContent = t('foot.server', { v: txt });
        onLang(() => { el.textContent = t('foot.server', { v: txt }); });
    } catch (e) {
        el.textContent = '';
    }
}

/** Runs `load` (after ECharts when `charts`) once `el` comes near the viewport; marks el data-loaded. */
function whenNear(io, el, load, charts = true) {
    el.dataset.lazy = '1';
    el._load = () => track(async () => {
        if (charts) {
            try {
                await loadCharts();
            } catch (e) {
                el.prepend(h('p', { class: 'warn' }, e.message));
                return;
            }
        }
        await load();
        el.dataset.loaded = '1';
    });
    io.observe(el);
}

/**
 * The height of the header's first row, which scrolls away above the sticky contents row on phones. Set from
 * the ResizeObserver only (its first report comes with the first layout): reading it here would lay the page
 * out once more before its texts are in.
 */
function trackHeaderRow() {
    const row = $('.top-in');
    new ResizeObserver(([e]) => {
        const h = e.borderBoxSize && e.borderBoxSize[0] ? e.borderBoxSize[0].blockSize : row.offsetHeight;
        document.documentElement.style.setProperty('--tophead', `${h}px`);
    }).observe(row);
}

async function main() {
    trackHeaderRow();
    for (const b of $$('[data-lang]'))
        b.addEventListener('click', () => setLang(b.dataset.lang));
    setLang(initialLang(), false); // fills the page's text (applyI18n) once
    const io = new IntersectionObserver((entries) => {
        for (const e of entries) {
            if (!e.isIntersecting)
                continue;
            io.unobserve(e.target);
            e.target._load();
        }
    }, { rootMargin: '100% 0px' });
    // Wiring first (every control works before its part is computed), then the lazy loaders. A part marked
    // false draws no chart before its data is in (section 2 waits for ECharts itself, after its requests).
    const parts = [
        ['#why', whyInit(), false], ['#sin', sinInit(), false], ['#learned', learnedInit()], ['#rope', ropeInit()],
        ['#lay-table', layInit(), false], ['#bands-desc', scalingInit()], ['#ctx', ctxInit()], ['#cfg', cfgInit()],
        ['#alibi', alibiInit()],
        ['#compare', cmpInit()], ['#ex', exInit(), false], ['#grid', gridInit], ['#rel', relInit],
    ];
    const first = track(() => Promise.all([footer(), parts[0][1]().then(() => { $('#why').dataset.loaded = '1'; })]));
    $('#why').dataset.lazy = '1';
    for (const [sel, load, charts] of parts.slice(1))
        whenNear(io, $(sel), load, charts !== false);
    loadCharts().catch(() => {}); // start fetching the chart library while the first table renders
    await first;
    document.body.dataset.ready = '1';
}

main();

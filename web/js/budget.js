// The "angle budget" of the scaling panel: per pair, how far it turned in training (original length L) against
// how far it turns at a long position N, unscaled and scaled. Pairs that turned less than once in training
// only ever saw angles up to L·θ; past that, the angle is new to the model. PI, NTK, YaRN and the others bring
// those pairs back under their training budget. Drawn from the bands the scaling panel already fetched.
import { fmtInt, fmtSig, $, chart, baseOption, axis, COLORS } from './util.js';
import { t, getLang } from './i18n.js';
import { legendTop, yTitle } from './common.js';

/**
 * Turns per pair (angle / 2π = length / wavelength, wavelengths from the API's bands): trained at L,
 * at N without scaling, at N with it; `unseen*` count the pairs that turned less than once in training
 * and turn further than that at N (an angle the model never saw).
 */
export function budget(plain, scaled, L, N) {
    const trained = plain.map((b) => L / b.wavelength);
    const atN = plain.map((b) => N / b.wavelength);
    const atNs = scaled.map((b) => N / b.wavelength);
    const unseen = (turns) => turns.filter((x, j) => trained[j] < 1 && x > trained[j] * (1 + 1e-12)).length;
    return { trained, atN, atNs, unseenPlain: unseen(atN), unseenScaled: unseen(atNs) };
}

const logLabel = (v) => (v >= 1 ? fmtInt(v, 'en') : fmtSig(v, 1));

/** Draws the budget chart and its note for the scaling panel's answer `x` ({type, orig, cur, r, p}). */
export function budgetRender(x) {
    const b = budget(x.p.bands, x.r.bands, x.orig, x.cur);
    const pts = (arr) => arr.map((v, j) => [j, v]);
    const name = x.type === 'default' ? t('bands.none') : t('sc.name.' + x.type);
    chart($('#budget-chart')).setOption(baseOption({
        grid: { left: 64, right: 24, top: legendTop('#budget-chart', 56, 100), bottom: 48 },
        legend: { top: 0, textStyle: { color: '#1b1b1b' } },
        tooltip: { trigger: 'axis', valueFormatter: (v) => fmtSig(v, 4) },
        xAxis: axis({ type: 'value', name: t('ax.pair'), nameLocation: 'middle', nameGap: 28, min: 0,
            max: x.p.bands.length - 1 }),
        yAxis: axis({ type: 'log', ...yTitle(t('ax.turns')), axisLabel: { color: '#333', formatter: logLabel } }),
        series: [
            { name: t('budget.trained', { L: fmtInt(x.orig, getLang()) }), type: 'line', showSymbol: false,
                color: '#6b7280', lineStyle: { width: 3 }, data: pts(b.trained),
                markLine: { symbol: 'none', silent: true, data: [{ yAxis: 1 }], label: { formatter: t('budget.one'),
                    position: 'insideStartTop', color: '#1b1b1b' }, lineStyle: { color: '#7e22ce', type: 'dotted', width: 2 } } },
            { name: t('budget.plain', { N: fmtInt(x.cur, getLang()) }), type: 'line', showSymbol: false,
                color: COLORS[1], lineStyle: { width: 1.5, type: 'dashed' }, data: pts(b.atN) },
            { name: t('budget.scaled', { N: fmtInt(x.cur, getLang()), type: name }), type: 'line', showSymbol: false,
                color: COLORS[0], lineStyle: { width: 2 }, data: pts(b.atNs) },
        ],
    }), true);
    const af = x.r.attention_factor;
    const el = $('#budget-note');
    el.textContent = t('budget.note', { N: fmtInt(x.cur, getLang()), L: fmtInt(x.orig, getLang()), a: b.unseenPlain,
        b: b.unseenScaled, type: name }) + ' ' + t('budget.temp', { af: fmtSig(af, 4), af2: fmtSig(af * af, 4) });
    el.dataset.unseenPlain = String(b.unseenPlain);
    el.dataset.unseenScaled = String(b.unseenScaled);
}

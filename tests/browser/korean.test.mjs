// Browser test: the Korean page reads as Korean (issue 18, item 3).
//
//  - every particle written right after a number agrees with the number's final sound as read in Korean
//    (0.990로 → 으로, 행 511가 → 이, 1.676와 → 과; −0.990 is read "영 점 구 구 영": final ㅇ);
//  - no English template text: every chart's aria-label comes from the page's strings;
//  - every chart's y-axis has a title;
//  - the server's (English) problem details become Korean sentences naming the JSON pointer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useDaemon, DESKTOP, open, settle, assertClean } from './lib.mjs';

useDaemon();

// Final consonant of a digit's Korean reading (일 이 삼 사 오 육 칠 팔 구, 영), of 십 백 천 만 for trailing zeros.
const DIGIT = { 0: 'ㅇ', 1: 'ㄹ', 2: '', 3: 'ㅁ', 4: '', 5: '', 6: 'ㄱ', 7: 'ㄹ', 8: 'ㄹ', 9: '' };
const UNIT = { 1: 'ㅂ', 2: 'ㄱ', 3: 'ㄴ', 4: 'ㄴ' };

/** The final consonant ('' for none) of a number as read in Korean: "511" → 일 → ㄹ, "600" → 백 → ㄱ. */
export function finalSound(num) {
    const s = num.replace(/,/g, '');
    if (s.includes('.'))
        return DIGIT[s[s.length - 1]]; // decimals are read digit by digit
    const zeros = s.length - s.replace(/0+$/, '').length;
    if (zeros === s.length)
        return DIGIT[0];
    return zeros ? (UNIT[zeros % 4 || 4] ?? 'ㄴ') : DIGIT[s[s.length - 1]];
}

/** The particle a final sound takes: [with a final consonant, without]; 로 also after ㄹ. */
const PAIRS = { 으로: ['으로', '로'], 로: ['으로', '로'], 이: ['이', '가'], 가: ['이', '가'], 과: ['과', '와'],
    와: ['과', '와'], 을: ['을', '를'], 를: ['을', '를'], 은: ['은', '는'], 는: ['은', '는'] };
function want(particle, fin) {
    const [withF, without] = PAIRS[particle];
    if (particle === '로' || particle === '으로')
        return fin && fin !== 'ㄹ' ? withF : without;
    return fin ? withF : without;
}

test('finalSound: readings of numbers', () => {
    assert.equal(finalSound('0.990'), 'ㅇ');
    assert.equal(finalSound('511'), 'ㄹ');
    assert.equal(finalSound('1.676'), 'ㄱ');
    assert.equal(finalSound('600'), 'ㄱ');
    assert.equal(finalSound('512'), '');
    assert.equal(want('로', finalSound('0.990')), '으로');
    assert.equal(want('가', finalSound('511')), '이');
    assert.equal(want('와', finalSound('1.676')), '과');
    assert.equal(want('로', finalSound('1')), '로');
});

const PARTICLE_AFTER_NUMBER = /(\d[\d,]*(?:\.\d+)?)(으로|로|이|가|과|와|을|를|은|는)(?=[\s.,;:)]|$)/g;

async function particleSlips(page) {
    const text = await page.evaluate(() => document.body.innerText);
    const bad = [];
    for (const m of text.matchAll(PARTICLE_AFTER_NUMBER)) {
        const w = want(m[2], finalSound(m[1]));
        if (w !== m[2])
            bad.push(`${m[0]} (want ${m[1]}${w})`);
    }
    return bad;
}

test('ko: particles after numbers, Korean chart descriptions, y-axis titles, server errors in Korean',
    { timeout: 120000 }, async () => {
        const s = await open('ko-KR', DESKTOP);
        try {
            s.expect('/learned', 422);
            const { page } = s;
            await page.$$eval('details', (ds) => ds.forEach((d) => { d.open = true; }));
            await page.locator('#ex4-btn').click();
            await page.locator('#cmp-n').fill('512'); // "표에 있는 행: 511" (was "행 511가")
            await settle(page);
            assert.deepEqual(await particleSlips(page), []);
            const charts = await page.evaluate(() => [...document.querySelectorAll('.chart')].map((el) => {
                const c = window.echarts.getInstanceByDom(el);
                if (!c)
                    return { id: el.id, drawn: false };
                const o = c.getOption();
                const label = (el.querySelector('[aria-label]') || el).getAttribute('aria-label') || '';
                return { id: el.id, drawn: true, label, y: (o.yAxis || []).map((a) => a.name || '') };
            }));
            const drawn = charts.filter((c) => c.drawn);
            assert.ok(drawn.length >= 16, `${drawn.length} charts drawn`);
            for (const c of drawn) {
                assert.ok(c.y.length > 0 && c.y[0].trim().length > 0, `${c.id}: no y-axis title`);
                assert.ok(c.label.length > 0, `${c.id}: no aria-label`);
                assert.doesNotMatch(c.label, /This is a chart|chart about|series|data is|with type/i,
                    `${c.id}: English aria-label "${c.label.slice(0, 80)}"`);
                assert.match(c.label, /차트입니다/, c.id);
            }
            // a config the server refuses: a Korean sentence with the pointer, not the English detail
            s.expect('/model/method', 422);
            await page.locator('#cfg-text').fill('{"head_dim": 7}');
            await page.locator('#cfg-run').click();
            await settle(page);
            const err = (await page.locator('[data-testid="cfg-error"]').textContent()).trim();
            assert.match(err, /\/config\/num_hidden_layers 항목/);
            assert.doesNotMatch(err, /must|invalid|required/i, err);
            assert.equal(await page.locator('#cfg-resolved tr').count(), 0, 'the previous model\'s table is cleared');
            assertClean(s);
        } finally {
            await s.close();
        }
    });

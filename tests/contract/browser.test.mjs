// tests/contract/browser.test.mjs -- a real browser as the client (playwright-core + Debian's
// chromium at /usr/bin/chromium, or $CHROMIUM; never `npx playwright install`).
//
// 1. Cross-origin: a page served by a tiny node:http server on ANOTHER loopback port fetches
//    POST /rope from posencd (JSON body and an X-Request-Id header, so the browser sends a CORS
//    preflight first) and shows the lesson's scores; the test reads them from the page:
//    −1.5058433946987837 (q at 2, k at 0: the n − m = 2 diagonal) and 6.908866453380181
//    (q at 5, k at 7: 5(cos 1 + sin 1)). The page also reads the exposed X-Request-Id.
// 2. GET /docs renders the API reference with the vendored Redoc and no network beyond the
//    loopback server: every request to another host is aborted and counted (must be 0), page
//    errors must be 0, and operation summaries of the spec must appear in the rendered page.
//    The page must be free of the artefacts issue 17 found: no operation labelled OPTIONS (the
//    CORS preflight is described once in info.description), no untitled branches ("case 1",
//    drawn by Redoc for required-only anyOf/oneOf and for if-then), no "Any of: RopeRequest
//    RopeRequest", and no numbered list made from a line of prose that starts with "422." or
//    "500." (an <ol start> in a description). Screenshots of the /rope request body and the
//    description go to tests/artifacts/contract/ (docs-rope.png, docs-info.png).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';

import { chromium } from 'playwright-core';

import { ROOT, baseUrl, loadSpec } from './lib.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const LESSON = { head_dim: 2, inv_freq: [0.5], q: [1, 2], k: [3, 1], q_positions: [2, 5, 9, 3], k_positions: [0, 3, 7, 5] };

function pageHtml(api) {
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>rope client</title></head>
<body><pre id="out">pending</pre><pre id="rid"></pre><script>
fetch(${JSON.stringify(api + '/rope')}, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'browser-lesson' },
  body: ${JSON.stringify(JSON.stringify(LESSON))},
}).then(async (r) => {
  document.getElementById('rid').textContent = r.headers.get('X-Request-Id') || '(unreadable)';
  const j = await r.json();
  document.getElementById('out').textContent = r.status + ' ' + JSON.stringify(j.scores);
}).catch((e) => { document.getElementById('out').textContent = 'error ' + e; });
</script></body></html>`;
}

let browser;
let context;
let userDataDir;

test('browser', { timeout: 120000 }, async (t) => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} missing (apt-get install chromium)`);
  userDataDir = mkdtempSync(join(tmpdir(), 'posenc-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 60000 });
  t.after(async () => {
    await context?.close();
    rmSync(userDataDir, { recursive: true, force: true });
  });
  const api = baseUrl();

  await t.test('a page on another loopback port calls POST /rope and shows the lesson scores', async () => {
    const site = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(pageHtml(api));
    });
    await new Promise((r) => site.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${site.address().port}`;
    assert.notEqual(new URL(origin).port, new URL(api).port);
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const preflights = () => (process.env.POSENC_LOG ? (readFileSync(process.env.POSENC_LOG, 'utf8').match(/ OPTIONS \/rope 204 /g) || []).length : 0);
    const before = preflights();
    try {
      await page.goto(origin + '/', { waitUntil: 'load' });
      await page.waitForFunction(() => document.getElementById('out').textContent !== 'pending', null, { timeout: 20000 });
      const out = await page.textContent('#out');
      const rid = await page.textContent('#rid');
      assert.match(out, /^200 /, `page shows: ${out}`);
      const scores = JSON.parse(out.slice(4));
      assert.ok(Math.abs(scores[0][0] - -1.5058433946987837) < 1e-12, `scores[0][0] = ${scores[0][0]}`);
      assert.ok(Math.abs(scores[1][2] - 6.908866453380181) < 1e-12, `scores[1][2] = ${scores[1][2]}`);
      assert.ok(Math.abs(scores[2][2] - -1.5058433946987837) < 1e-12, 'n − m = 2 again on (9, 7)');
      assert.match(out, /-1\.50584/);
      assert.match(out, /6\.90887|6\.90886/);
      assert.equal(rid, 'browser-lesson', 'X-Request-Id readable by the page (Access-Control-Expose-Headers)');
      assert.deepEqual(errors, []);
      if (process.env.POSENC_LOG) {
        // The browser's CORS preflight is not visible to page events; the access log shows it.
        let n = preflights();
        for (let i = 0; i < 50 && n === before; i++) { await new Promise((r) => setTimeout(r, 20)); n = preflights(); }
        assert.ok(n > before, 'no OPTIONS /rope preflight in the access log');
      }
      t.diagnostic(`page ${origin} → ${api}/rope (after a CORS preflight): ${out.slice(0, 70)}…`);
    } finally {
      await page.close();
      site.closeAllConnections();
      await new Promise((r) => site.close(r));
    }
  });

  await t.test('GET /docs renders the API reference offline (vendored Redoc)', async () => {
    const page = await context.newPage();
    const external = [];
    const errors = [];
    const consoleErrors = [];
    await page.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.protocol === 'data:' || u.protocol === 'blob:' || (u.hostname === '127.0.0.1' && u.port === new URL(api).port)) return route.continue();
      external.push(route.request().url());
      return route.abort();
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    try {
      await page.goto(api + '/docs', { waitUntil: 'load' });
      await page.waitForSelector('body[data-docs]', { timeout: 60000 });
      const state = await page.getAttribute('body', 'data-docs');
      if (state !== 'ready') assert.fail(`docs page state ${state}: ${await page.evaluate(() => document.getElementById('loading')?.textContent)}`);
      const text = await page.textContent('body');
      const spec = loadSpec();
      for (const p of ['/sinusoidal', '/rope', '/healthz']) {
        const summary = (spec.paths[p].post || spec.paths[p].get).summary;
        assert.ok(text.includes(summary), `rendered page lacks "${summary}"`);
      }
      assert.ok(text.includes(spec.info.title), 'title rendered');
      const artefacts = await page.evaluate(() => {
        const inner = document.body.innerText;
        return {
          cases: inner.match(/\bcase \d+/g) || [],
          anyOfRope: /Any of[\s\S]{0,40}RopeRequest\s*RopeRequest/.test(inner),
          numberedLists: [...document.querySelectorAll('ol[start]')].map((o) => `${o.getAttribute('start')}. ${o.textContent.slice(0, 40)}`),
          optionsLabels: [...document.querySelectorAll('span')].filter((x) => x.children.length === 0 && /^(options|opts)$/i.test(x.textContent.trim())).length,
          ops: document.querySelectorAll('[id^="tag/"][id*="/operation/"]').length,
        };
      });
      assert.deepEqual(artefacts.cases, [], 'untitled "case N" branches rendered');
      assert.equal(artefacts.anyOfRope, false, '"Any of: RopeRequest RopeRequest" rendered');
      assert.deepEqual(artefacts.numberedLists, [], 'a numbered list made from prose (ol start=…)');
      assert.equal(artefacts.optionsLabels, 0, 'OPTIONS operations in the reference');
      const nOps = Object.values(spec.paths).reduce((n, item) => n + ['get', 'put', 'post', 'delete'].filter((m) => item[m]).length, 0);
      assert.equal(artefacts.ops, nOps, 'one rendered operation per spec operation');
      const shots = join(ROOT, 'tests', 'artifacts', 'contract');
      mkdirSync(shots, { recursive: true });
      await page.setViewportSize({ width: 1400, height: 1000 });
      const body = page.locator('[id="tag/rope/operation/postRope"] h5:has-text("Request Body schema")').first();
      await body.evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: join(shots, 'docs-rope.png') });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(shots, 'docs-info.png') });
      t.diagnostic(`/docs: ${artefacts.ops} operations, no artefacts; screenshots in ${shots}`);
      assert.deepEqual(external, [], 'requests outside the loopback server');
      assert.deepEqual(errors, [], 'page errors');
      // Redoc 2.5.4 always tries to show a logo from https://cdn.redoc.ly in its sidebar footer
      // (no option turns it off); web/docs/index.html's Content-Security-Policy refuses it
      // before any network request, and the browser logs that refusal.
      assert.deepEqual(consoleErrors.filter((e) => !/'https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg'.*Content Security Policy/.test(e)), [], 'console errors');
    } finally {
      await page.close();
    }
  });
});

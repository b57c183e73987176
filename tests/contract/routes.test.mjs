// tests/contract/routes.test.mjs -- the daemon's route tables and error codes against openapi.yaml.
//
// The route tables are read from the C sources with regular expressions (no C parser):
//   api/api.c     `static const api_route ROUTES[] = { {"/path", "label", api_handler}, ..., {NULL, ...} };`
//                 → compute routes, methods POST and OPTIONS;
//   server/http.c `} GET_ROUTES[] = { {"/path", "label", get_fn}, ... };`
//                 → service routes, methods GET (HEAD) and OPTIONS;
//   plus "/" and "/docs", which get_static() in server/http.c maps to web/index.html and
//   web/docs/index.html (the test checks those strcmp()s are still there);
//   plus hand-dispatched route families in server/http.c written as
//   `strcmp(url, "/X") == 0 || strncmp(url, "/X/", n) == 0` → "/X" and "/X/{param}" (today
//   /tables and /tables/{name}); their methods are checked live, against the Allow header.
// Spec paths are compared with their {parameters} normalised to {}.
// An entry is `{"<path starting with />", "<label>", <identifier>[, more identifiers]}`; the table runs from `NAME[] = {`
// to the first `};`. If the C layout changes so that a table no longer parses, the test fails (it
// requires at least one entry per table) rather than passing vacuously.
//
// Error codes: every X(ENUM, "code", status, "title") of API_PROBLEM_MAP in api/problem.h except
// API_PB_NONE ("none", 200: the no-problem sentinel, never sent) must be a row
// | `code` | status | ... of the problem-code table in components.schemas.Problem.description;
// every X(PE_..., n, "text") of PE_STATUS_MAP in core/pe.h except PE_OK must be a row
// | `PE_...` | `code` | status | ... of the core-status table there, naming a problem code of the map
// with that code's status.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';

import { HTTP_METHODS, ROOT, concretePath, deref, loadSpec, request } from './lib.mjs';

const spec = loadSpec();
const src = (p) => readFileSync(join(ROOT, p), 'utf8');

/** Entries {path, label, fn} of the C array `name[] = { ... };` in text. */
function parseTable(text, name) {
  const start = text.search(new RegExp(`\\b${name}\\s*\\[\\s*\\]\\s*=\\s*\\{`));
  assert.ok(start >= 0, `table ${name}[] not found`);
  const end = text.indexOf('};', start);
  const body = text.slice(start, end);
  const rows = [...body.matchAll(/\{\s*"(\/[^"]*)"\s*,\s*"([^"]*)"\s*,\s*([A-Za-z_]\w*)\s*(?:,[^{}"]*)?\}/g)].map((m) => ({ path: m[1], label: m[2], fn: m[3] }));
  assert.ok(rows.length > 0, `table ${name}[] has no entry the regex understands`);
  return rows;
}

function serverRoutes() {
  const compute = parseTable(src('api/api.c'), 'ROUTES');
  const http = src('server/http.c');
  const get = parseTable(http, 'GET_ROUTES');
  assert.match(http, /strcmp\(p, "\/"\) == 0/, 'get_static no longer maps "/"');
  assert.match(http, /strcmp\(p, "\/docs"\) == 0/, 'get_static no longer maps "/docs"');
  const routes = new Map(); // path → Set of methods, or null (methods checked live only)
  for (const r of compute) routes.set(r.path, new Set(['post', 'options']));
  for (const r of get) routes.set(r.path, new Set(['get', 'options']));
  for (const p of ['/', '/docs']) routes.set(p, new Set(['get', 'options']));
  const families = [...http.matchAll(/strcmp\(url, "(\/[A-Za-z0-9_.-]+)"\) == 0 \|\| strncmp\(url, "\1\/", \d+\) == 0/g)].map((m) => m[1]);
  for (const f of families) {
    routes.set(f, null);
    routes.set(`${f}/{}`, null);
  }
  return { routes, compute, get, families };
}
const norm = (p) => p.replace(/\{[^}]+\}/g, '{}');
const specPathOf = (route) => Object.keys(spec.paths).find((p) => norm(p) === route);

test('route tables parse', () => {
  const { compute, get } = serverRoutes();
  // The compute table must list the five endpoints of api.md at least.
  for (const p of ['/sinusoidal', '/rope', '/alibi', '/attention', '/t5/buckets'])
    assert.ok(compute.some((r) => r.path === p), `ROUTES lacks ${p}`);
  for (const p of ['/healthz', '/readyz', '/limits', '/version', '/metrics', '/openapi.yaml'])
    assert.ok(get.some((r) => r.path === p), `GET_ROUTES lacks ${p}`);
});

test('every served route is in the spec and vice versa, with the same methods', () => {
  const { routes } = serverRoutes();
  const specPaths = new Set(Object.keys(spec.paths).map(norm));
  const missing = [...routes.keys()].filter((p) => !specPaths.has(p));
  const extra = [...specPaths].filter((p) => !routes.has(p));
  assert.deepEqual(missing, [], `served but not in openapi.yaml: ${missing.join(', ')}`);
  assert.deepEqual(extra, [], `in openapi.yaml but not served: ${extra.join(', ')}`);
  for (const [p, methods] of routes) {
    if (methods === null) continue;
    const documented = new Set(HTTP_METHODS.filter((m) => spec.paths[specPathOf(p)][m]));
    assert.deepEqual([...documented].sort(), [...methods].sort(), `methods of ${p}`);
  }
});

test('the Allow header of every route matches the spec operations (live)', async () => {
  const { routes } = serverRoutes();
  for (const route of routes.keys()) {
    const p = specPathOf(route);
    if (!p) continue; // reported by the test above
    const res = await request({ method: 'OPTIONS', path: concretePath(spec, p) });
    assert.equal(res.status, 204, `OPTIONS ${p}`);
    const allow = (res.headers.allow || '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    const documented = HTTP_METHODS.filter((m) => spec.paths[p][m]);
    // HEAD is served with every GET and is not listed as an operation of its own.
    const expected = new Set(documented);
    if (expected.has('get')) expected.add('head');
    assert.deepEqual([...new Set(allow)].sort(), [...expected].sort(), `Allow of ${p}: ${res.headers.allow}`);
  }
});

function problemTable() {
  const desc = spec.components.schemas.Problem.description || '';
  const codes = new Map();
  for (const m of desc.matchAll(/^\|\s*`([a-z][a-z-]*)`\s*\|\s*(\d{3})\s*\|/gm)) codes.set(m[1], Number(m[2]));
  const core = new Map();
  for (const m of desc.matchAll(/^\|\s*`(PE_[A-Z_]+)`\s*\|\s*`([a-z][a-z-]*)`\s*\|\s*(\d{3})\s*\|/gm)) core.set(m[1], { code: m[2], status: Number(m[3]) });
  return { codes, core };
}

test('every problem code of API_PROBLEM_MAP is documented with its status', () => {
  const text = src('api/problem.h');
  const block = text.slice(text.indexOf('#define API_PROBLEM_MAP'), text.indexOf('typedef enum'));
  const map = [...block.matchAll(/X\(\s*(API_PB_\w+)\s*,\s*"([^"]+)"\s*,\s*(\d+)\s*,\s*"([^"]*)"\s*\)/g)].map((m) => ({ e: m[1], code: m[2], status: Number(m[3]), title: m[4] }));
  assert.ok(map.length >= 10, `API_PROBLEM_MAP parsed to ${map.length} entries`);
  const { codes } = problemTable();
  assert.ok(codes.size > 0, 'no problem-code table in components.schemas.Problem.description');
  const wrong = [];
  for (const c of map) {
    if (c.e === 'API_PB_NONE') continue; // the "no problem" sentinel (200) is never sent
    if (!codes.has(c.code)) wrong.push(`${c.code} (${c.status}) missing`);
    else if (codes.get(c.code) !== c.status) wrong.push(`${c.code}: spec says ${codes.get(c.code)}, problem.h ${c.status}`);
  }
  const known = new Set(map.map((c) => c.code));
  for (const code of codes.keys()) if (!known.has(code)) wrong.push(`spec documents ${code}, which problem.h does not define`);
  assert.deepEqual(wrong, []);
  // Each documented 4xx/5xx status that a request can cause is a documented response somewhere.
  const statuses = new Set();
  for (const item of Object.values(spec.paths)) for (const m of HTTP_METHODS) for (const s of Object.keys(item[m]?.responses || {})) statuses.add(Number(s));
  for (const c of map) if (c.status >= 400 && c.code !== 'internal' && c.code !== 'conflict') assert.ok(statuses.has(c.status), `no operation documents status ${c.status} (${c.code})`);
});

test('every core status of PE_STATUS_MAP has a documented HTTP mapping', () => {
  const text = src('core/pe.h');
  const block = text.slice(text.indexOf('#define PE_STATUS_MAP'), text.indexOf('typedef enum'));
  const st = [...block.matchAll(/X\(\s*(PE_\w+)\s*,\s*(\d+)\s*,/g)].map((m) => m[1]);
  assert.ok(st.length >= 5, `PE_STATUS_MAP parsed to ${st.length} entries`);
  const { codes, core } = problemTable();
  const wrong = [];
  for (const s of st) {
    if (s === 'PE_OK') continue;
    const row = core.get(s);
    if (!row) { wrong.push(`${s} missing`); continue; }
    if (!codes.has(row.code)) wrong.push(`${s} maps to ${row.code}, not a documented problem code`);
    else if (codes.get(row.code) !== row.status) wrong.push(`${s}: ${row.code} is ${codes.get(row.code)}, row says ${row.status}`);
  }
  assert.deepEqual(wrong, []);
});

test('every operation documents X-Request-Id on its responses (except 431)', () => {
  const missing = [];
  for (const [p, item] of Object.entries(spec.paths)) for (const m of HTTP_METHODS) {
    if (!item[m]) continue;
    for (const [s, r0] of Object.entries(item[m].responses || {})) {
      if (s === '431') continue;
      const r = deref(spec, r0);
      if (!r.headers?.['X-Request-Id']) missing.push(`${m.toUpperCase()} ${p} ${s}`);
    }
  }
  assert.deepEqual(missing, []);
});

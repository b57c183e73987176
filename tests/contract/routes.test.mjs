// tests/contract/routes.test.mjs -- the daemon's route table and error codes against openapi.yaml.
//
// The one route table is read from the C source with a regular expression (no C parser):
//   server/routes.c `static const srv_route ROUTES[] = { {"/path", "label", SRV_GET | SRV_DELETE, KIND, ...}, ... };`
//   → one row per set of methods of a path (rows whose path is NULL are dispositions, not routes:
//   the preflight and "no route"). A path's methods are the union of its rows' SRV_GET (with
//   HEAD), SRV_POST, SRV_PUT and SRV_DELETE. OPTIONS, which every route answers (the CORS
//   preflight), is in every Allow header but is not a spec operation (info.description says it once).
// Spec paths are compared with their {parameters} normalised to {}.
// The table runs from `ROUTES[] = {` to the first `};`. If the C layout changes so that it no
// longer parses, the test fails (it requires the rows it knows) rather than passing vacuously.
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

const norm = (p) => p.replace(/\{[^}]+\}/g, '{}');

/** Rows {path, label, methods} of the C array `name[] = { ... };` in text. */
function parseTable(text, name) {
  const start = text.search(new RegExp(`\\b${name}\\s*\\[\\s*\\]\\s*=\\s*\\{`));
  assert.ok(start >= 0, `table ${name}[] not found`);
  const end = text.indexOf('};', start);
  const body = text.slice(start, end);
  const rows = [...body.matchAll(/\{\s*"(\/[^"]*)"\s*,\s*"([^"]*)"\s*,\s*(SRV_[A-Z]+(?:\s*\|\s*SRV_[A-Z]+)*)\s*,/g)].map((m) => ({
    path: m[1],
    label: m[2],
    methods: m[3].split('|').map((f) => f.trim().replace(/^SRV_/, '').toLowerCase()),
  }));
  assert.ok(rows.length > 0, `table ${name}[] has no row the regex understands`);
  return rows;
}

function serverRoutes() {
  const rows = parseTable(src('server/routes.c'), 'ROUTES');
  const routes = new Map(); // path, {parameters} normalised to {} → Set of methods
  for (const r of rows) {
    const p = norm(r.path);
    const m = routes.get(p) || new Set();
    for (const x of r.methods) m.add(x);
    routes.set(p, m);
  }
  return { routes, rows };
}
const specPathOf = (route) => Object.keys(spec.paths).find((p) => norm(p) === route);

test('the route table parses', () => {
  const { routes } = serverRoutes();
  // The rows it must have at least: the compute endpoints, the service routes, the demo, tables.
  for (const p of ['/sinusoidal', '/rope', '/alibi', '/attention', '/t5/buckets'])
    assert.ok(routes.get(p)?.has('post'), `ROUTES lacks POST ${p}`);
  for (const p of ['/healthz', '/readyz', '/limits', '/version', '/metrics', '/openapi.yaml', '/', '/docs', '/tables'])
    assert.ok(routes.get(p)?.has('get'), `ROUTES lacks GET ${p}`);
  assert.deepEqual([...routes.get('/tables/{}')].sort(), ['delete', 'get', 'put']);
});

test('every served route is in the spec and vice versa, with the same methods', () => {
  const { routes } = serverRoutes();
  const specPaths = new Set(Object.keys(spec.paths).map(norm));
  const missing = [...routes.keys()].filter((p) => !specPaths.has(p));
  const extra = [...specPaths].filter((p) => !routes.has(p));
  assert.deepEqual(missing, [], `served but not in openapi.yaml: ${missing.join(', ')}`);
  assert.deepEqual(extra, [], `in openapi.yaml but not served: ${extra.join(', ')}`);
  for (const [p, methods] of routes) {
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
    // HEAD is served with every GET and OPTIONS (the CORS preflight, documented once in
    // info.description) on every route; neither is listed as an operation of its own.
    assert.ok(!documented.includes('options'), `${p} lists an OPTIONS operation`);
    const expected = new Set([...documented, 'options']);
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

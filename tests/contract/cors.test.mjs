// tests/contract/cors.test.mjs -- any client: CORS and X-Request-Id (docs/api.md#conventions).
//
// * Every response (success, problem, preflight, static) carries X-Request-Id and, with the
//   default --cors-origins "*", Access-Control-Allow-Origin: * and
//   Access-Control-Expose-Headers naming X-Request-Id (so browser code can read the id).
// * OPTIONS on every route of the spec (and on an unknown path) answers the preflight: 204, Allow,
//   Access-Control-Allow-Methods (the route's methods), Access-Control-Allow-Headers covering
//   Content-Type and X-Request-Id -- never 405.
// * X-Request-Id: the client's own is echoed when it has 1..64 characters of [A-Za-z0-9._:-],
//   otherwise replaced by a fresh safe id; ids are unique; a problem's `instance` is
//   "urn:posenc:request:<id>"; the access log carries the same id.
// * --cors-origins "" turns CORS off (no Access-Control-* headers, preflight still 204);
//   --cors-origins https://app.example sends that origin and Vary: Origin (second servers).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';

import { HTTP_METHODS, concretePath, isSafeRequestId, loadSpec, operations, request, startServer } from './lib.mjs';

const spec = loadSpec();
const ops = operations(spec);
const paths = Object.keys(spec.paths);
const firstExample = (op) => JSON.stringify(Object.values(op.requestBody.content['application/json'].examples)[0].value);

/** A varied set of requests: every GET, every POST example, and the error kinds. */
function sampleRequests() {
  const out = [];
  for (const { path: tpl, method, op } of ops) {
    const path = concretePath(spec, tpl, op, method === 'get' ? {} : { name: 'cors-check' });
    if (method === 'get') out.push({ method: 'GET', path });
    if (method === 'post' || method === 'put') {
      const body = firstExample(op);
      const m = method.toUpperCase();
      out.push({ method: m, path, headers: { 'Content-Type': 'application/json' }, body });
      out.push({ method: m, path, headers: { 'Content-Type': 'application/json' }, body: '{"zz":' });
      out.push({ method: m, path, headers: { 'Content-Type': 'application/json' }, body: '{"zz": 1}' });
      out.push({ method: m, path, headers: { 'Content-Type': 'text/plain' }, body });
      out.push({ method: 'PATCH', path });
    }
  }
  out.push({ method: 'GET', path: '/no/such/route' }, { method: 'POST', path: '/no/such/route', body: '{}' });
  return out;
}

test('every response carries X-Request-Id and the CORS headers', async () => {
  const bad = [];
  for (const r of sampleRequests()) {
    const res = await request(r);
    const h = res.headers;
    const where = `${r.method} ${r.path} → ${res.status}`;
    if (!isSafeRequestId(h['x-request-id'])) bad.push(`${where}: X-Request-Id ${h['x-request-id']}`);
    if (h['access-control-allow-origin'] !== '*') bad.push(`${where}: Access-Control-Allow-Origin ${h['access-control-allow-origin']}`);
    if (!/(^|,\s*)x-request-id(\s*,|$)/i.test(h['access-control-expose-headers'] || '')) bad.push(`${where}: Access-Control-Expose-Headers ${h['access-control-expose-headers']}`);
    if (res.status >= 400) {
      if (res.json?.instance !== `urn:posenc:request:${h['x-request-id']}`) bad.push(`${where}: instance ${res.json?.instance} vs id ${h['x-request-id']}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('OPTIONS preflight on every route → 204 with the allowed methods and headers', async () => {
  const bad = [];
  for (const path of [...paths, '/no/such/route', '/docs/']) {
    const res = await request({
      method: 'OPTIONS', path: spec.paths[path] ? concretePath(spec, path) : path,
      headers: { Origin: 'http://127.0.0.1:9', 'Access-Control-Request-Method': spec.paths[path]?.post ? 'POST' : 'GET', 'Access-Control-Request-Headers': 'content-type, x-request-id' },
    });
    const h = res.headers;
    const where = `OPTIONS ${path}`;
    if (res.status !== 204) { bad.push(`${where}: ${res.status}`); continue; }
    if (res.text !== '') bad.push(`${where}: a body`);
    const methods = (h['access-control-allow-methods'] || '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    if (!methods.length) bad.push(`${where}: no Access-Control-Allow-Methods`);
    if (spec.paths[path]) {
      // with "*", the write methods are never granted (issue 19: CORS never lets any page write)
      const writes = ['put', 'delete'];
      for (const m of HTTP_METHODS.filter((x) => spec.paths[path][x] && !writes.includes(x))) if (!methods.includes(m)) bad.push(`${where}: ${m} not in Access-Control-Allow-Methods ${h['access-control-allow-methods']}`);
      for (const m of writes) if (methods.includes(m)) bad.push(`${where}: ${m} granted to every origin`);
      if ((h['access-control-allow-headers'] || '').toLowerCase().includes('authorization')) bad.push(`${where}: Authorization allowed to every origin`);
    }
    const allowH = (h['access-control-allow-headers'] || '').toLowerCase();
    for (const need of ['content-type', 'x-request-id']) if (!allowH.includes(need)) bad.push(`${where}: Access-Control-Allow-Headers lacks ${need}`);
    if (h['access-control-allow-origin'] !== '*') bad.push(`${where}: Access-Control-Allow-Origin ${h['access-control-allow-origin']}`);
    if (!h.allow) bad.push(`${where}: no Allow`);
    if (!isSafeRequestId(h['x-request-id'])) bad.push(`${where}: X-Request-Id ${h['x-request-id']}`);
  }
  assert.deepEqual(bad, []);
});

test('X-Request-Id: safe ids echoed, others replaced, fresh ids unique, problem instance and access log agree', async () => {
  const safe = ['client-42', 'A.b_c:d-e', 'x', 'z'.repeat(64), '0123456789'];
  const unsafe = ['', 'a b', 'a/b', 'caf\u00e9', '<script>', 'z'.repeat(65), 'id;drop', 'a"b'];
  const routes = [
    { method: 'GET', path: '/healthz' },
    { method: 'POST', path: '/sinusoidal', headers: { 'Content-Type': 'application/json' }, body: '{"d_model": 2, "seq_len": 1}' },
    { method: 'POST', path: '/sinusoidal', headers: { 'Content-Type': 'application/json' }, body: '{"d_model": 0, "seq_len": 1}' },
    { method: 'GET', path: '/no/such/route' },
    { method: 'OPTIONS', path: '/rope' },
  ];
  const seen = new Set();
  for (const r of routes) {
    for (const id of safe) {
      const res = await request({ ...r, headers: { ...(r.headers || {}), 'X-Request-Id': id } });
      assert.equal(res.headers['x-request-id'], id, `${r.method} ${r.path} with id ${id}`);
      if (res.status >= 400) assert.equal(res.json.instance, `urn:posenc:request:${id}`);
    }
    for (const id of unsafe) {
      const headers = { ...(r.headers || {}) };
      const raw = Buffer.from(id, 'utf8').toString('latin1'); // node:http sends header bytes as latin1
      headers['X-Request-Id'] = raw;
      const res = await request({ ...r, headers });
      const got = res.headers['x-request-id'];
      assert.notEqual(got, raw, `${r.method} ${r.path}: unsafe id ${JSON.stringify(id)} echoed`);
      assert.ok(isSafeRequestId(got), `replacement id ${JSON.stringify(got)} is not safe`);
      assert.ok(!seen.has(got), `id ${got} given twice`);
      seen.add(got);
      if (res.status >= 400) assert.equal(res.json.instance, `urn:posenc:request:${got}`);
    }
    for (let i = 0; i < 10; i++) {
      const got = (await request(r)).headers['x-request-id'];
      assert.ok(isSafeRequestId(got) && !seen.has(got), `fresh id ${got}`);
      seen.add(got);
    }
  }
  // The access log (posencd's stdout, kept by run.mjs) names the same ids.
  const logPath = process.env.POSENC_LOG;
  if (logPath) {
    const marker = `log-check-${process.pid}`;
    const res = await request({ path: '/healthz', headers: { 'X-Request-Id': marker } });
    const fresh = (await request({ method: 'POST', path: '/sinusoidal', headers: { 'Content-Type': 'application/json' }, body: '[]' })).headers['x-request-id'];
    assert.equal(res.headers['x-request-id'], marker);
    let log = '';
    for (let i = 0; i < 50 && !(log.includes(marker) && log.includes(fresh)); i++) {
      await new Promise((r) => setTimeout(r, 20));
      log = readFileSync(logPath, 'utf8');
    }
    assert.ok(log.includes(marker), `access log ${logPath} lacks the client's id ${marker}`);
    assert.ok(log.includes(fresh), `access log ${logPath} lacks the generated id ${fresh}`);
  }
});

test('--cors-origins "" turns CORS off; a configured origin is sent with Vary: Origin (second servers)', async () => {
  const off = await startServer(['--cors-origins', '']);
  try {
    for (const r of [{ path: '/healthz' }, { method: 'POST', path: '/sinusoidal', headers: { 'Content-Type': 'application/json' }, body: '{}' }]) {
      const res = await request({ base: off.url, ...r, headers: { Origin: 'http://127.0.0.1:9', ...(r.headers || {}) } });
      for (const h of Object.keys(res.headers)) assert.ok(!h.startsWith('access-control-'), `CORS off but ${h} sent`);
      assert.ok(isSafeRequestId(res.headers['x-request-id']));
    }
    const pre = await request({ base: off.url, method: 'OPTIONS', path: '/rope' });
    assert.equal(pre.status, 204, 'OPTIONS still answered');
    assert.equal(pre.headers['access-control-allow-methods'], undefined);
  } finally {
    await off.stop();
  }
  const one = await startServer(['--cors-origins', 'https://app.example']);
  try {
    const res = await request({ base: one.url, path: '/healthz', headers: { Origin: 'https://app.example' } });
    assert.equal(res.headers['access-control-allow-origin'], 'https://app.example');
    assert.match(res.headers.vary || '', /origin/i);
  } finally {
    await one.stop();
  }
});

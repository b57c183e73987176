// tests/contract/metrics.test.mjs -- GET /metrics is valid Prometheus exposition text.
//
// `promtool check metrics` (Debian package prometheus; $PROMTOOL or promtool on PATH) reads the
// scrape on stdin: exit 0 and no findings is required (1 = parse error, 3 = lint findings such
// as a counter without _total). The metric names the spec documents for /metrics must be
// exposed, and the request counter must count a request between two scrapes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import test from 'node:test';

import { loadSpec, postJson, request } from './lib.mjs';

const spec = loadSpec();
const PROMTOOL = process.env.PROMTOOL || 'promtool';

const counter = (text, route, status) => {
  const m = text.match(new RegExp(`^posenc_http_requests_total\\{route="${route}",status="${status}"\\} (\\d+)$`, 'm'));
  return m ? Number(m[1]) : 0;
};

test('promtool check metrics accepts GET /metrics', async () => {
  await postJson('/sinusoidal', { d_model: 2, seq_len: 1 });
  await postJson('/sinusoidal', { d_model: 0, seq_len: 1 });
  await postJson('/rope', { head_dim: 2, inv_freq: [0.5], positions: [1] });
  const res = await request({ path: '/metrics' });
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  assert.ok(res.text.endsWith('\n'), 'the last line ends with a newline');
  const r = spawnSync(PROMTOOL, ['check', 'metrics'], { input: res.text, encoding: 'utf8', timeout: 30000 });
  assert.ok(!r.error, `cannot run ${PROMTOOL} (install the Debian package prometheus): ${r.error?.message}`);
  assert.equal(r.status, 0, `promtool check metrics exit ${r.status}:\n${r.stdout}${r.stderr}`);
  assert.equal((r.stdout + r.stderr).trim(), '', 'promtool findings');
});

test('the metrics named in the spec are exposed, and counters count', async () => {
  const desc = spec.paths['/metrics'].get.description;
  const names = [...desc.matchAll(/`(posenc_[a-z_]+)/g)].map((m) => m[1]);
  assert.ok(names.length >= 5, `the /metrics description names ${names.length} metrics`);
  const before = (await request({ path: '/metrics' })).text;
  const types = new Set([...before.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
  for (const n of names) assert.ok(types.has(n), `${n} (documented) has no # TYPE line in /metrics`);
  for (const t of types) assert.ok(names.includes(t), `${t} is exposed but not documented in the spec's /metrics description`);
  const n0 = counter(before, 'sinusoidal', 200);
  await postJson('/sinusoidal', { d_model: 2, seq_len: 1 });
  const after = (await request({ path: '/metrics' })).text;
  assert.equal(counter(after, 'sinusoidal', 200), n0 + 1, 'posenc_http_requests_total{route="sinusoidal",status="200"} +1');
});

// tests/contract/run.mjs -- runs the contract tests against a live posencd.
//
//   node tests/contract/run.mjs [name ...]      (names: walk fuzz routes cors browser metrics; default all)
//
// Starts build/posencd (or $POSENC_BIN) on an ephemeral loopback port -- unless POSENC_URL is set,
// then that server is tested -- runs the node:test files with the one-line-summary reporter, stops
// the server (SIGTERM, drained) and exits with the tests' status. The server's access log is kept
// in a temporary file whose path the tests get as POSENC_LOG.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { BIN, HERE, ROOT, SPEC_PATH, startServer } from './lib.mjs';

const ALL = ['routes', 'walk', 'cors', 'fuzz', 'metrics', 'browser'];
const names = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
for (const n of names) if (!existsSync(join(HERE, `${n}.test.mjs`))) { console.error(`run.mjs: no test ${n}`); process.exit(2); }

let server = null;
const env = { ...process.env, CONTRACT_SPEC: SPEC_PATH, POSENC_BIN: BIN };
if (!process.env.POSENC_URL) {
  if (!existsSync(BIN)) { console.error(`run.mjs: ${BIN} not built (run make)`); process.exit(2); }
  server = await startServer();
  env.POSENC_URL = server.url;
  env.POSENC_LOG = server.logPath;
  console.log(`posencd ${BIN} at ${server.url} (spec ${SPEC_PATH}, access log ${server.logPath})`);
}
const args = ['--test', `--test-reporter=${join(HERE, 'reporter.mjs')}`, '--test-concurrency=1',
  ...names.map((n) => join(HERE, `${n}.test.mjs`))];
const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'inherit' });
const code = await new Promise((r) => child.on('exit', (c, s) => r(c ?? (s ? 1 : 0))));
if (server) {
  const r = await server.stop();
  if (r.code !== 0) { console.error(`posencd exited with ${r.code ?? r.sig} after SIGTERM: ${server.stderr()}`); process.exit(1); }
}
process.exit(code);

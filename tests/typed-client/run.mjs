// tests/typed-client/run.mjs -- openapi.yaml → TypeScript types → a typed client that must
// compile with the right bodies and must not with the wrong ones; the right ones are then sent
// to a live posencd.
//
//   node tests/typed-client/run.mjs          (make typed-client; POSENC_BIN, POSENC_URL as in tests/contract)
//
// 1. openapi-typescript (pinned in package.json) writes build/typed-client/api.d.ts from openapi.yaml.
// 2. tsc (pinned) compiles client.ts + good.ts: no error allowed.
// 3. Each wrong body (WRONG below) is compiled in a file of its own: tsc must fail, with the
//    error at the field named in the case.
// 4. posencd starts on an ephemeral loopback port; the compiled good.js sends every right body
//    and checks the 200 answers (values derived by hand in good.ts).
// Last line: "typed-client: N passed, N failed".
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const OUT = join(ROOT, 'build', 'typed-client');
const BIN = resolve(ROOT, process.env.POSENC_BIN || 'build/posencd');
const TSC = join(HERE, 'node_modules', 'typescript', 'bin', 'tsc');
const OAT = join(HERE, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');

// The wrong bodies of issue 17 (the first three) and two more, with what tsc must say about each:
// the error's code and text, at the line and column of the field at fault.
const WRONG = [
  { name: 'head_dim as a string', code: `post(base, '/rope', { head_dim: '128' });`, want: /TS2322: Type 'string' is not assignable to type 'number'/, field: 'head_dim' },
  { name: 'unknown key in scaling', code: `post(base, '/rope', { head_dim: 128, scaling: { factr: 2 } });`, want: /TS2322: Type 'number' is not assignable to type 'never'/, field: 'factr' },
  { name: 'required field missing (d_model)', code: `post(base, '/sinusoidal', { positions: [4] });`, want: /TS2345.*\n.*Property 'd_model' is missing/, field: 'd_model', missing: true },
  { name: 'required field missing (k)', code: `post(base, '/attention', { q: [[1, 0]] });`, want: /TS2345.*\n.*Property 'k' is missing/, field: 'k', missing: true },
  { name: 'unknown top-level key', code: `post(base, '/t5/buckets', { relative_positions: [1], num_bucket: 8 });`, want: /TS2561: Object literal may only specify known properties, but 'num_bucket' does not exist/, field: 'num_bucket' },
];

let passed = 0;
let failed = 0;
const result = (ok, what) => {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
};

const TSCONFIG = {
  compilerOptions: {
    target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'],
    strict: true, noUncheckedIndexedAccess: false, skipLibCheck: false, types: [], outDir: 'js',
  },
};

function tsc(dir, files) {
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files }, null, 2));
  const r = spawnSync(process.execPath, [TSC, '-p', dir, '--pretty', 'false'], { encoding: 'utf8' });
  return { status: r.status, out: (r.stdout || '') + (r.stderr || '') };
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'package.json'), '{"type": "module"}\n');
// process.env in good.ts without @types/node: the one declaration it needs.
writeFileSync(join(OUT, 'env.d.ts'), 'declare const process: { env: Record<string, string | undefined>; exitCode?: number };\n');

// 1. types
const gen = spawnSync(process.execPath, [OAT, join(ROOT, 'openapi.yaml'), '-o', join(OUT, 'api.d.ts')], { encoding: 'utf8' });
result(gen.status === 0 && existsSync(join(OUT, 'api.d.ts')), `openapi-typescript openapi.yaml → build/typed-client/api.d.ts ${gen.status === 0 ? '' : gen.stderr}`);
if (gen.status !== 0) process.exit(1);
for (const f of ['client.ts', 'good.ts']) copyFileSync(join(HERE, f), join(OUT, f));

// 2. the right bodies compile
const good = tsc(OUT, ['env.d.ts', 'api.d.ts', 'client.ts', 'good.ts']);
result(good.status === 0, `tsc: client.ts and good.ts (right bodies) compile${good.status === 0 ? '' : ':\n' + good.out}`);

// 3. each wrong body must not
for (const [i, w] of WRONG.entries()) {
  const dir = join(OUT, `wrong${i}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
  for (const f of ['api.d.ts', 'client.ts', 'env.d.ts']) copyFileSync(join(OUT, f), join(dir, f));
  const line = `export const p = ${w.code}`;
  writeFileSync(join(dir, 'wrong.ts'), `import { post } from './client.js';\nconst base = 'http://127.0.0.1:0';\n${line}\n`);
  // where tsc must put the error: the field's own column, or the call's argument when a
  // required field is missing
  const col = (w.missing ? line.indexOf('{') : line.indexOf(w.field)) + 1;
  const r = tsc(dir, ['env.d.ts', 'api.d.ts', 'client.ts', 'wrong.ts']);
  const errs = r.out.split('\n').filter((l) => /error TS\d+/.test(l) || /^\s/.test(l)).join('\n');
  const onlyWrong = !/client\.ts\(/.test(r.out);
  const at = r.out.includes(`wrong.ts(3,${col}): error`);
  const ok = r.status !== 0 && w.want.test(r.out) && at && onlyWrong;
  result(ok, `tsc refuses ${w.name}: ${w.code}`);
  console.log(`     ${(errs || r.out).split('\n').slice(0, 3).map((l) => l.slice(0, 200)).join('\n     ')}`);
}

// 4. the right bodies against a live daemon
if (good.status === 0) {
  let url = process.env.POSENC_URL;
  let proc = null;
  if (!url) {
    proc = spawn(BIN, ['--bind', '127.0.0.1', '--port', '0', '--web-dir', 'web'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise((res, rej) => {
      let buf = '';
      const t = setTimeout(() => rej(new Error('posencd did not start in 10 s')), 10000);
      proc.stdout.on('data', (d) => {
        buf += d;
        const m = buf.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
        if (m) { clearTimeout(t); res(m[1]); }
      });
      proc.on('exit', (c) => rej(new Error(`posencd exited ${c}`)));
    });
  }
  const run = spawnSync(process.execPath, [join(OUT, 'js', 'good.js')], { encoding: 'utf8', env: { ...process.env, POSENC_URL: url } });
  const lines = (run.stdout || '').split('\n').filter(Boolean);
  for (const l of lines) result(l.startsWith('ok '), `live ${url}: ${l.replace(/^(ok|FAIL) /, '')}`);
  if (run.status !== 0 && !lines.some((l) => l.startsWith('FAIL'))) result(false, `good.js exited ${run.status}: ${run.stderr}`);
  if (proc) {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.on('exit', r));
  }
}
console.log(`typed-client: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

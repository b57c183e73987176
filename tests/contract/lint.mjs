// tests/contract/lint.mjs -- lints openapi.yaml (or $CONTRACT_SPEC) twice:
//   1. @redocly/cli `lint` with the repository's redocly.yaml (recommended rules; every example
//      is validated against its schema);
//   2. @seriousme/openapi-schema-validator: strict validation against the official OpenAPI 3.1
//      schema (JSON Schema of the document format itself).
// Exit status 0 only when both pass. Run: node tests/contract/lint.mjs (make contract runs it).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import { Validator } from '@seriousme/openapi-schema-validator';

import { HERE, ROOT, SPEC_PATH } from './lib.mjs';

let failed = 0;
const redocly = join(HERE, 'node_modules', '.bin', 'redocly');
console.log(`lint 1/2: redocly lint ${SPEC_PATH} (config ${join(ROOT, 'redocly.yaml')})`);
const r = spawnSync(redocly, ['lint', SPEC_PATH, '--config', join(ROOT, 'redocly.yaml'), '--format', 'stylish', '--max-problems', '200'], {
  cwd: ROOT, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
process.stdout.write(r.stdout || '');
process.stdout.write((r.stderr || '').split('\n').filter((l) => l.trim()).map((l) => `  ${l}\n`).join(''));
if (r.error || r.status !== 0) { failed++; console.log(`redocly lint failed (${r.error?.message ?? `exit ${r.status}`})`); }

console.log(`lint 2/2: @seriousme/openapi-schema-validator ${SPEC_PATH}`);
const v = new Validator();
const res = await v.validate(SPEC_PATH);
if (res.valid) console.log(`  valid OpenAPI ${v.version}`);
else { failed++; console.log(JSON.stringify(res.errors, null, 2)); }
process.exit(failed ? 1 : 0);

// tests/contract/reporter.mjs -- node:test reporter: one line per test, diagnostics (the fuzz
// counts) as they come, the first lines of each failure, and at the end exactly one summary line
// "N passed, N failed" counting leaf tests (a test with subtests is counted through its subtests;
// a file that fails before defining any test counts as one failure).
export default async function* reporter(source) {
  let passed = 0;
  let failed = 0;
  const childResults = []; // childResults[level] = results seen at that level since the parent's last result
  const failures = [];
  for await (const ev of source) {
    const d = ev.data || {};
    if (ev.type === 'test:pass' || ev.type === 'test:fail') {
      if (d.details?.type === 'suite') continue;
      const L = d.nesting || 0;
      const leaf = !(childResults[L + 1] > 0);
      childResults[L + 1] = 0;
      childResults[L] = (childResults[L] || 0) + 1;
      const ok = ev.type === 'test:pass';
      const skip = d.skip !== undefined && d.skip !== false;
      const indent = '  '.repeat(L);
      if (!ok) {
        const err = d.details?.error;
        const cause = err?.cause ?? err;
        const msg = String(cause?.message ?? cause ?? 'failed');
        if (leaf) failures.push(`${d.name}: ${msg.split('\n').slice(0, Number(process.env.CONTRACT_SHOW_LINES || 40)).join('\n    ')}`);
        yield `${indent}not ok - ${d.name}\n${indent}    ${msg.split('\n').slice(0, Number(process.env.CONTRACT_SHOW_LINES || 40)).join(`\n${indent}    `)}\n`;
      } else {
        yield `${indent}ok - ${d.name}${skip ? ' # SKIP ' + (typeof d.skip === 'string' ? d.skip : '') : ''}\n`;
      }
      if (leaf && !skip) ok ? passed++ : failed++;
    } else if (ev.type === 'test:diagnostic') {
      if (/^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /.test(d.message)) continue;
      yield `${'  '.repeat(d.nesting || 0)}# ${d.message}\n`;
    } else if (ev.type === 'test:stdout' || ev.type === 'test:stderr') {
      yield d.message;
    }
  }
  if (failures.length) yield `\nfailures:\n${failures.map((f) => '  - ' + f).join('\n')}\n`;
  yield `\n${passed} passed, ${failed} failed\n`;
}

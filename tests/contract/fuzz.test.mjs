// tests/contract/fuzz.test.mjs -- property-based tests of every compute operation, generated from
// the request schemas of openapi.yaml.
//
// Generation (fast-check, fixed seed, bounded counts):
// * valid: an arbitrary is derived from each request schema (types, enums, consts, ranges,
//   required/optional members, oneOf/anyOf branches, array bounds); a few values are biased by
//   member name towards agreeing shapes (q/k rows = positions, head_dim = d, ...) so that the
//   server's cross-field rules pass often enough to reach the numerics. Candidates that Ajv2020
//   finds schema-invalid are dropped. openapi-sampler's full and required-only samples are sent
//   as well. Expected: 2xx whose body matches the 2xx schema, or a 4xx problem+json (cross-field
//   rules such as lengths are known only to the server) whose 422 pointers resolve in the body.
// * broken: requests that got a 2xx above, mutated deliberately -- wrong JSON type, unknown member
//   (in the top level or a nested object of ours), number out of range, missing required member,
//   duplicated key, invalid JSON, a body that is not an object. Every mutation is checked to make
//   the body schema-invalid (or not JSON). Expected: a 4xx problem+json; 400 malformed-json for
//   duplicate keys and invalid JSON; 422 otherwise, with every pointer naming a real location
//   of the body (an existing value, or a missing member of an existing object), the pointer
//   of an unknown member naming the added key, and a pointer at (or above/below) the mutated
//   location for the other mutations.
// Always: never a 5xx, never a transport error, never a request over the per-request timeout;
// the server answers /healthz 200 afterwards. Counts by status class are printed.
//
// The fuzz runs against its own posencd with --max-output-elements 100000, so that generated
// requests asking for huge outputs are refused quickly (422 limit-exceeded) instead of
// streaming megabytes; everything else is the default configuration.
// Knobs: CONTRACT_SEED (default 20261129), CONTRACT_FUZZ_RUNS (valid and broken requests per
// operation, default 300).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';

import fc from 'fast-check';
import { createHash } from 'node:crypto';
import OpenAPISampler from 'openapi-sampler';

import {
  checkResponse, concretePath, describe, escapePointer, getPointer, loadSpec, operations, pointerStatus,
  request, specValidator, startServer,
} from './lib.mjs';

const SEED = Number(process.env.CONTRACT_SEED || 20261129);
const RUNS = Number(process.env.CONTRACT_FUZZ_RUNS || 300);
const CONCURRENCY = 3;

const spec = loadSpec();
const sv = specValidator(spec);
// Every operation with a JSON request body (the compute POSTs and PUT /tables/{name}).
const posts = operations(spec).filter((o) => o.op.requestBody?.content?.['application/json']);

// ---- schema helpers -------------------------------------------------------------------------

const flatCache = new WeakMap();
const refName = new WeakMap();

/** Resolves $ref (keeping sibling keywords) and merges allOf parts into one schema object. */
function flatten(schema) {
  if (schema === true || schema === undefined) return {};
  if (flatCache.has(schema)) return flatCache.get(schema);
  let s = schema;
  let name;
  while (s && s.$ref) {
    const { $ref, ...sib } = s;
    name = $ref.split('/').pop();
    const target = getPointer(spec, $ref);
    s = { ...target, ...sib };
  }
  if (s.allOf) {
    const { allOf, ...own } = s;
    const merged = {};
    for (const part of [...allOf.map(flatten), own]) {
      for (const [k, v] of Object.entries(part)) {
        if (k === 'properties') {
          merged.properties = { ...(merged.properties || {}) };
          for (const [pk, pv] of Object.entries(v)) merged.properties[pk] = merged.properties[pk] ? { allOf: [merged.properties[pk], pv] } : pv;
        } else if (k === 'required') merged.required = [...new Set([...(merged.required || []), ...v])];
        else merged[k] = v;
      }
    }
    s = merged;
  }
  if (name) refName.set(s, name);
  flatCache.set(schema, s);
  return s;
}
const nameOf = (s) => refName.get(flatten(s));

/** A oneOf/anyOf branch that only adds constraints (required members) to its parent object. */
const constraintOnly = (b) => !b.$ref && !b.type && b.const === undefined && !b.enum && Object.keys(b).every((k) => ['required', 'properties', 'not'].includes(k));

const closedObject = (s) => s.additionalProperties === false || s.unevaluatedProperties === false;

// ---- arbitraries from schemas -----------------------------------------------------------------

const smallNumber = fc.oneof(
  fc.integer({ min: -4, max: 4 }),
  fc.double({ min: -4, max: 4, noNaN: true, noDefaultInfinity: true }),
);

function intArb(s, name, ctx) {
  let min = s.minimum ?? (s.exclusiveMinimum !== undefined ? Math.floor(s.exclusiveMinimum) + 1 : -1000);
  let max = s.maximum ?? (s.exclusiveMaximum !== undefined ? Math.ceil(s.exclusiveMaximum) - 1 : 2147483647);
  const m = s.multipleOf || 1;
  const small = Math.min(max, min + (m > 1 ? 32 : 16));
  let base = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min, max: small }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
  );
  const hint = {
    head_dim: ctx.d, d_model: ctx.d, rotary_dim: ctx.d, seq_len: ctx.T, num_heads: ctx.H, offset: 0,
    max_relative_position: 1, target_length: 1024,
  }[name];
  if (hint !== undefined && hint >= min && hint <= max) base = fc.oneof({ weight: 3, arbitrary: fc.constant(hint) }, { weight: 1, arbitrary: base });
  if (name === 'num_heads') base = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 8 }) }, { weight: 1, arbitrary: base });
  if (m > 1) base = base.map((v) => Math.max(Math.ceil(min / m) * m, Math.min(Math.floor(max / m) * m, Math.round(v / m) * m)));
  return base;
}

function numArb(s, name) {
  const min = s.minimum ?? s.exclusiveMinimum;
  const max = s.maximum ?? s.exclusiveMaximum;
  const d = fc.double({
    min: min ?? -1e6, max: max ?? 1e6, noNaN: true, noDefaultInfinity: true,
    minExcluded: s.exclusiveMinimum !== undefined, maxExcluded: s.exclusiveMaximum !== undefined,
  });
  const nice = {
    base: 10000, rope_theta: 500000, factor: 4, alpha: 2, beta_fast: 32, beta_slow: 1, low_freq_factor: 1,
    high_freq_factor: 4, alibi_bias_max: 8, partial_rotary_factor: 0.5, scale: 1,
  }[name];
  const arbs = [{ weight: 3, arbitrary: d }];
  if (nice !== undefined) arbs.push({ weight: 3, arbitrary: fc.constant(nice) });
  if (min === undefined && max === undefined) arbs.push({ weight: 3, arbitrary: smallNumber }, { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) });
  return fc.oneof(...arbs);
}

const positionsArb = (ctx) => fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: ctx.T, maxLength: ctx.T }) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: 0, max: 2147483646 }), { minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: 0, max: 64 }), { minLength: 0, maxLength: 6 }) },
);

const configArb = fc.oneof(
  fc.constantFrom(
    { model_type: 'llama', hidden_size: 256, num_attention_heads: 4, max_position_embeddings: 2048, rope_theta: 10000 },
    { model_type: 'mistral', hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 32768, rope_theta: 1000000.0 },
    { model_type: 'gptj', n_embd: 256, n_head: 4, rotary_dim: 32 },
    { model_type: 'gpt_neox', hidden_size: 512, num_attention_heads: 8, rotary_pct: 0.25, rotary_emb_base: 10000 },
    { model_type: 'llama', head_dim: 64, rope_theta: 500000, max_position_embeddings: 131072, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } },
    { model_type: 'phi3', hidden_size: 3072, num_attention_heads: 32, max_position_embeddings: 131072, original_max_position_embeddings: 4096, rope_scaling: { type: 'su', short_factor: Array(48).fill(1), long_factor: Array(48).fill(2) } },
    {},
  ),
  fc.record({ head_dim: fc.constantFrom(2, 4, 8, 64), rope_theta: fc.double({ min: 1.5, max: 1e7, noNaN: true }), unrelated_field: fc.string() }, { requiredKeys: [] }),
);

/** fast-check arbitrary for schema; ctx = {T, d, H} shared sizes of one request. */
function arb(schema, ctx, name = '', depth = 0) {
  const s = flatten(schema);
  const n = nameOf(schema);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (depth > 6) return fc.constant(null);
  const alts = s.oneOf || s.anyOf;
  if (alts && !alts.every(constraintOnly)) {
    const { oneOf, anyOf, ...rest } = s;
    return fc.oneof(...alts.map((a) => arb(Object.keys(rest).some((k) => !['description', 'title', 'default', 'examples'].includes(k)) ? { allOf: [rest, a] } : a, ctx, name, depth + 1)));
  }
  if (name === 'config') return configArb;
  if (name === 'table') return fc.constantFrom('demo-512x64', 'demo-512x64', 'no-such-table');
  if (name === 'inv_freq') return fc.array(fc.double({ min: 1e-6, max: 2, noNaN: true }), { minLength: Math.max(1, ctx.d / 2), maxLength: Math.max(1, ctx.d / 2) });
  if (['positions', 'q_positions', 'k_positions', 'query_positions', 'key_positions'].includes(name) && n !== 'CoordinateList') return positionsArb(ctx);
  if (['positions', 'q_positions', 'k_positions', 'query_positions', 'key_positions'].includes(name)) {
    return fc.oneof({ weight: 5, arbitrary: positionsArb(ctx) }, { weight: 1, arbitrary: fc.array(fc.array(fc.integer({ min: 0, max: 16 }), { minLength: 2, maxLength: 3 }), { minLength: 1, maxLength: 4 }) });
  }
  if (n === 'Matrix' || n === 'MaskedMatrix') {
    const rows = fc.oneof({ weight: 4, arbitrary: fc.constant(ctx.T) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 5 }) });
    const cols = fc.oneof({ weight: 4, arbitrary: fc.constant(ctx.d) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) });
    return fc.tuple(rows, cols).chain(([r, c]) => fc.array(fc.array(smallNumber, { minLength: c, maxLength: c }), { minLength: r, maxLength: r }));
  }
  if (n === 'Tensor3') {
    return fc.array(fc.array(fc.array(smallNumber, { minLength: ctx.T, maxLength: ctx.T }), { minLength: ctx.T, maxLength: ctx.T }), { minLength: ctx.H, maxLength: ctx.H });
  }
  if (n === 'Vector') {
    const len = name === 'slopes' ? ctx.H : ctx.d;
    return fc.oneof({ weight: 4, arbitrary: fc.array(smallNumber, { minLength: len, maxLength: len }) }, { weight: 1, arbitrary: fc.array(smallNumber, { maxLength: 6 }) });
  }
  const types = s.type ? [].concat(s.type) : s.properties || s.required ? ['object'] : s.items ? ['array'] : ['integer', 'number', 'string', 'boolean'];
  if (types.length > 1) return fc.oneof(...types.map((t) => arb({ ...s, type: t }, ctx, name, depth + 1)));
  switch (types[0]) {
    case 'null': return fc.constant(null);
    case 'boolean': return fc.boolean();
    case 'integer': return intArb(s, name, ctx);
    case 'number': return numArb(s, name);
    case 'string': return s.pattern ? fc.constantFrom('demo-512x64', 'x', 'A.b-c_1') : fc.string({ maxLength: 8 });
    case 'array': {
      const items = s.items ? arb(s.items, ctx, name, depth + 1) : smallNumber;
      const minLength = s.minItems || 0;
      const maxLength = Math.min(s.maxItems ?? Infinity, minLength + 4);
      return s.uniqueItems ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const props = s.properties || {};
      const keys = Object.keys(props);
      const req = (s.required || []).filter((k) => k in props);
      const variants = alts && alts.every(constraintOnly) ? alts.map((a) => a.required || []) : [[]];
      // A selector member whose values name sibling objects (/attention: "method": "alibi" with
      // an "alibi" object): pick the value first, then mostly send its object and no other.
      const selector = keys.find((k) => (flatten(props[k]).enum || []).filter((v) => v in props).length >= 2);
      const selected = selector ? flatten(props[selector]).enum.filter((v) => v in props) : [];
      const build = (must0, fixed) => {
        const must = [...new Set([...req, ...must0])];
        const optional = keys.filter((k) => !must.includes(k) && !(k in fixed) && !selected.includes(k));
        return fc.subarray(optional, { minLength: 0, maxLength: Math.min(optional.length, 3) }).chain((chosen) => {
          const rec = {};
          for (const k of [...must, ...chosen]) rec[k] = k in fixed ? fixed[k] : arb(props[k], ctx, k, depth + 1);
          for (const [k, v] of Object.entries(fixed)) rec[k] = v;
          return fc.record(rec);
        });
      };
      return fc.oneof(...variants.map((extra) => {
        const must0 = extra.filter((k) => k in props);
        if (!selector) return build(must0, {});
        return fc.tuple(fc.constantFrom(...flatten(props[selector]).enum), fc.integer({ min: 0, max: 3 })).chain(([value, r]) => {
          const fixed = { [selector]: fc.constant(value) };
          if (value in props && r > 0) fixed[value] = arb(props[value], ctx, value, depth + 1);
          return build(must0, fixed);
        });
      }));
    }
    default: return fc.constant(null);
  }
}

const requestArb = (schema) => fc.record({ T: fc.integer({ min: 1, max: 4 }), d: fc.constantFrom(2, 4, 8), H: fc.integer({ min: 1, max: 3 }) })
  .chain((ctx) => arb(schema, ctx));

// ---- locating and mutating -----------------------------------------------------------------

/** Nodes of value walked alongside schema: [{ptr, schema (flattened), value}]. */
function locate(schema, value, ptr = '', out = []) {
  const s = flatten(schema);
  const alts = s.oneOf || s.anyOf;
  if (alts && !alts.every(constraintOnly)) {
    const b = alts.find((a) => sv.validate(a, value).ok);
    if (b) {
      const { oneOf, anyOf, ...rest } = s;
      const fb = flatten(b);
      out.push({ ptr, schema: { ...rest, ...fb, properties: { ...(rest.properties || {}), ...(fb.properties || {}) } }, value });
      return locateChildren(fb, value, ptr, out);
    }
    return out;
  }
  out.push({ ptr, schema: s, value });
  return locateChildren(s, value, ptr, out);
}
function locateChildren(s, value, ptr, out) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const k of Object.keys(value)) if (s.properties?.[k] && k !== 'config') locate(s.properties[k], value[k], `${ptr}/${escapePointer(k)}`, out);
  } else if (Array.isArray(value) && s.items) {
    value.slice(0, 3).forEach((v, i) => locate(s.items, v, `${ptr}/${i}`, out));
  }
  return out;
}

const clone = (v) => JSON.parse(JSON.stringify(v));
function setAt(body, ptr, fn) {
  const b = clone(body);
  const parts = ptr.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let cur = b;
  for (const p of parts.slice(0, -1)) cur = cur[Array.isArray(cur) ? Number(p) : p];
  fn(cur, Array.isArray(cur) ? Number(parts.at(-1)) : parts.at(-1));
  return b;
}

/** JSON text of value with the first key of the object at ptr written twice. */
function stringifyDuplicate(value, ptr) {
  const dupAt = (v, at) => {
    if (Array.isArray(v)) return `[${v.map((x, i) => dupAt(x, `${at}/${i}`)).join(',')}]`;
    if (v && typeof v === 'object') {
      const parts = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${dupAt(x, `${at}/${escapePointer(k)}`)}`);
      if (at === ptr && parts.length) parts.push(parts[0]);
      return `{${parts.join(',')}}`;
    }
    return JSON.stringify(v);
  };
  return dupAt(value, '');
}

// No null: the server reads JSON null as "absent" (api/req.h), documented in the spec's conventions.
const WRONG = ['x', 1.5, true, {}, [], { a: 1 }, [1, 'a'], -7];
const related = (a, b) => a === b || a.startsWith(b + '/') || b.startsWith(a + '/') || b === '' || a === '';

/**
 * One deliberate breakage of body (a 2xx request of op). Returns {kind, text, ptr?, key?} or null
 * when this kind does not apply to the body.
 */
function mutate(op, body, kind, r1, r2) {
  const schema = op.requestBody.content['application/json'].schema;
  const invalid = (b) => !sv.validate(schema, b).ok;
  const nodes = locate(schema, body);
  const pick = (list) => (list.length ? list[r1 % list.length] : null);
  switch (kind) {
    case 'wrong-type': {
      const cands = nodes.filter((n) => n.ptr !== '');
      for (let t = 0; t < cands.length; t++) {
        const n = cands[(r1 + t) % cands.length];
        for (let i = 0; i < WRONG.length; i++) {
          const w = WRONG[(r2 + i) % WRONG.length];
          const b = setAt(body, n.ptr, (o, k) => { o[k] = clone(w); });
          if (invalid(b)) return { kind, body: b, ptr: n.ptr };
        }
      }
      return null;
    }
    case 'unknown-field': {
      const n = pick(nodes.filter((x) => closedObject(x.schema) && x.value && typeof x.value === 'object' && !Array.isArray(x.value)));
      if (!n) return null;
      const key = ['zz_unknown', 'headDim', 'rope_thetaa', 'Base', 'extra field'][r2 % 5];
      if (key in n.value) return null;
      const b = n.ptr === '' ? { ...clone(body), [key]: r2 % 7 } : setAt(body, n.ptr, (o, k) => { o[k][key] = r2 % 7; });
      return invalid(b) ? { kind, body: b, ptr: `${n.ptr}/${escapePointer(key)}` } : null;
    }
    case 'out-of-range': {
      const nums = nodes.filter((x) => typeof x.value === 'number' && ['integer', 'number'].some((t) => [].concat(x.schema.type).includes(t)));
      const cands = [];
      for (const n of nums) {
        const s = n.schema;
        const isInt = [].concat(s.type).includes('integer');
        if (s.minimum !== undefined) cands.push([n, isInt ? s.minimum - 1 : s.minimum - 0.5]);
        if (s.exclusiveMinimum !== undefined) cands.push([n, s.exclusiveMinimum]);
        if (s.maximum !== undefined) cands.push([n, isInt ? s.maximum + 1 : s.maximum * 2 + 1]);
        if (s.exclusiveMaximum !== undefined) cands.push([n, s.exclusiveMaximum]);
        if (isInt) cands.push([n, 2.5], [n, 9007199254740993], [n, -9007199254740993]);
        if (s.multipleOf) cands.push([n, n.value + 1]);
      }
      for (let t = 0; t < cands.length; t++) {
        const [n, v] = cands[(r1 + r2 + t) % cands.length];
        const b = setAt(body, n.ptr, (o, k) => { o[k] = v; });
        if (invalid(b)) return { kind, body: b, ptr: n.ptr };
      }
      return null;
    }
    case 'missing-required': {
      const cands = [];
      for (const n of nodes) {
        if (!n.value || typeof n.value !== 'object' || Array.isArray(n.value)) continue;
        for (const k of n.schema.required || []) if (k in n.value) cands.push([n, k]);
      }
      for (let t = 0; t < cands.length; t++) {
        const [n, k] = cands[(r1 + t) % cands.length];
        const b = n.ptr === '' ? clone(body) : setAt(body, n.ptr, () => {});
        const target = n.ptr === '' ? b : getPointer(b, n.ptr);
        delete target[k];
        if (invalid(b)) return { kind, body: b, ptr: `${n.ptr}/${escapePointer(k)}` };
      }
      return null;
    }
    case 'duplicate-key': {
      const n = pick(nodes.filter((x) => x.value && typeof x.value === 'object' && !Array.isArray(x.value) && Object.keys(x.value).length));
      return n ? { kind, text: stringifyDuplicate(body, n.ptr), ptr: n.ptr } : null;
    }
    case 'invalid-json': {
      const t = JSON.stringify(body);
      const variants = [
        t.slice(0, 1 + (r1 % (t.length - 1))), // a proper prefix
        t + 'x',
        t.replace(/"/g, "'"),
        t.replace(/\d+(\.\d+)?(e[+-]?\d+)?/i, 'NaN'),
        t.replace(/\d+(\.\d+)?(e[+-]?\d+)?/i, 'Infinity'),
        t.slice(0, -1) + ',}',
        '',
        Buffer.concat([Buffer.from(t.slice(0, -1) + ',"\u00e9":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
        t.replace(/\d+(\.\d+)?/, '1e400'),
        '{"a":"\u0001"}',
      ];
      const text = variants[r2 % variants.length];
      if (typeof text === 'string') { try { JSON.parse(text); return null; } catch { /* broken, as wanted */ } }
      return { kind, text };
    }
    case 'not-an-object': {
      // Arrays only here; scalar bodies (1, "text", null, true) are checked once in walk.test.mjs.
      const text = ['[]', JSON.stringify([body]), '[{}]'][r2 % 3];
      return { kind, text, ptr: '' };
    }
    default: throw new Error(kind);
  }
}

const KINDS = ['wrong-type', 'unknown-field', 'out-of-range', 'missing-required', 'duplicate-key', 'invalid-json', 'not-an-object'];

// ---- sending and judging ------------------------------------------------------------------------

const cls = (s) => (typeof s === 'number' ? `${String(s)[0]}xx` : 'error');

async function pool(items, n, fn) {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => { while (i < items.length) { const k = i++; await fn(items[k], k); } }));
}

/** Violations of a 422's pointers against the sent body. */
function pointerViolations(res, body) {
  const v = [];
  if (res.status !== 422 || !res.json) return v;
  for (const e of res.json.errors || []) {
    const st = pointerStatus(body, e.pointer);
    if (st === 'bad') v.push(`pointer ${JSON.stringify(e.pointer)} names no location of the request`);
  }
  return v;
}

let seq = 0;
async function send(server, op, path, text) {
  const method = posts.find((o) => o.op === op).method.toUpperCase();
  // Path parameters (a table's name) from a small set, so that PUTs both create and replace.
  const url = concretePath(spec, path, op, { name: `fuzz-${seq++ % 3}` });
  try {
    return await request({ base: server.url, method, path: url, headers: { 'Content-Type': 'application/json' }, body: text });
  } catch (e) {
    return { status: 'error', error: e.message, headers: {}, text: '' };
  }
}

/** Fails with the first violations; all of them go to a file named in the message. */
function report(violations, phase) {
  if (!violations.length) return;
  const file = join(tmpdir(), `posenc-fuzz-${phase}-${process.pid}.txt`);
  writeFileSync(file, violations.join('\n') + '\n');
  const show = Number(process.env.CONTRACT_SHOW || 12);
  assert.fail(`${violations.length} violations (all in ${file}); the first ${Math.min(show, violations.length)}:\n${violations.slice(0, show).join('\n')}`);
}

let server;
const counts = {}; // phase → class → n
const bump = (phase, c) => { counts[phase] ??= {}; counts[phase][c] = (counts[phase][c] || 0) + 1; };
const accepted = new Map(); // path → bodies that got 2xx
const undocumented = new Set(); // top-level members of 2xx bodies that the response schema does not name

/** Top-level member names the response schema of op/status documents (through $ref/allOf/oneOf). */
function documentedMembers(op, status) {
  const names = new Set();
  const walk = (sch, depth = 0) => {
    if (!sch || depth > 8) return;
    const f = flatten(sch);
    for (const k of Object.keys(f.properties || {})) names.add(k);
    for (const b of [...(f.oneOf || []), ...(f.anyOf || [])]) walk(b, depth + 1);
  };
  const r = op.responses[String(status)];
  const media = r && (r.$ref ? getPointer(spec, r.$ref) : r).content?.['application/json'];
  walk(media?.schema);
  return names;
}

test('fuzz', async (t) => {
  server = await startServer(['--max-output-elements', '100000']);
  t.after(() => server.stop());

  await t.test('valid requests from the request schemas → 2xx matching the schema or 4xx problem+json', async () => {
    const violations = [];
    for (const [oi, { path, op }] of posts.entries()) {
      const schema = op.requestBody.content['application/json'].schema;
      const cands = fc.sample(requestArb(schema), { seed: SEED + oi, numRuns: RUNS * 4 });
      const schemaValid = cands.filter((b) => sv.validate(schema, b).ok);
      const bodies = schemaValid.slice(0, RUNS);
      const rejected = cands.length - schemaValid.length;
      const sampled = [OpenAPISampler.sample(schema, { skipReadOnly: true, quiet: true }, spec), OpenAPISampler.sample(schema, { skipReadOnly: true, skipNonRequired: true, quiet: true }, spec)];
      const all = [...bodies.map((b) => ['generated', b]), ...sampled.map((b) => ['sampler', b])];
      const byClass = {};
      const reasons = {};
      const acceptedHere = [];
      await pool(all, CONCURRENCY, async ([origin, body], k) => {
        const text = JSON.stringify(body);
        const res = await send(server, op, path, text);
        const c = cls(res.status);
        bump('valid', c);
        byClass[c] = (byClass[c] || 0) + 1;
        const bad = [];
        if (res.status === 'error') bad.push(res.error);
        else if (res.status >= 500) bad.push('5xx');
        else if (res.status < 200 || (res.status >= 300 && res.status < 400)) bad.push('unexpected status');
        else {
          bad.push(...checkResponse(spec, sv, op, res), ...pointerViolations(res, body));
          if (res.status >= 400 && !/application\/problem\+json/.test(res.headers['content-type'] || '')) bad.push('4xx without problem+json');
          if (res.status < 300 && res.json && typeof res.json === 'object') {
            const known = documentedMembers(op, res.status);
            for (const k of Object.keys(res.json)) if (!known.has(k)) undocumented.add(`${path} ${res.status}: "${k}"`);
          }
          if (res.status < 300 && origin === 'generated') acceptedHere.push([k, body]);
        }
        if (bad.length) violations.push(`${bad.join('; ')}: ${describe('post', path, text, res)}`);
        if (res.status === 422 && res.json?.errors?.[0]) {
          const e = res.json.errors[0];
          const key = `${e.pointer.replace(/\/\d+/g, '/#')}: ${e.message.replace(/-?\d[\d.e+-]*/g, 'N')}`;
          reasons[key] = (reasons[key] || 0) + 1;
        }
      });
      // The bases of the broken-request test in the order they were generated, not the order the
      // answers came back in: the fixed seed then fixes every input, whatever the timing.
      accepted.set(path, acceptedHere.sort((x, y) => x[0] - y[0]).map(([, b]) => b));
      const basesHash = createHash('sha256').update(JSON.stringify(accepted.get(path))).digest('hex').slice(0, 12);
      t.diagnostic(`bases ${path.padEnd(12)} ${accepted.get(path).length} accepted, sha256 ${basesHash} (the same in every run)`);
      if (process.env.CONTRACT_VERBOSE) for (const [k, v] of Object.entries(reasons).sort((a, b) => b[1] - a[1]).slice(0, 8)) t.diagnostic(`    ${v} × ${k}`);
      t.diagnostic(`valid ${path.padEnd(12)} sent ${all.length} (${bodies.length} generated; ${rejected} of ${cands.length} candidates were schema-invalid; 2 sampler): ${Object.entries(byClass).sort().map(([k, v]) => `${k} ${v}`).join(', ')}`);
    }
    report(violations, 'valid');
  });

  await t.test('every member of a 2xx body is documented in its response schema', () => {
    // Extra members are allowed for clients (the API may grow), but this spec must name them all.
    assert.deepEqual([...undocumented].sort(), [], 'members the server sends but openapi.yaml does not document');
  });

  await t.test('broken requests → 4xx problem+json naming a real location', async () => {
    const violations = [];
    const byKind = {};
    for (const [oi, { path, op }] of posts.entries()) {
      let bases = accepted.get(path) || [];
      if (!bases.length) bases = Object.values(op.requestBody.content['application/json'].examples).map((e) => e.value);
      const plans = fc.sample(fc.record({ base: fc.nat(), kind: fc.constantFrom(...KINDS), r1: fc.nat(), r2: fc.nat() }), { seed: SEED + 1000 + oi, numRuns: RUNS });
      const muts = [];
      for (const p of plans) {
        const base = bases[p.base % bases.length];
        let m = null;
        for (let k = 0; !m && k < KINDS.length; k++) m = mutate(op, base, KINDS[(KINDS.indexOf(p.kind) + k) % KINDS.length], p.r1, p.r2);
        if (m) muts.push(m);
      }
      const byClass = {};
      await pool(muts, CONCURRENCY, async (m) => {
        const text = m.text ?? JSON.stringify(m.body);
        const res = await send(server, op, path, text);
        const c = cls(res.status);
        bump('broken', c);
        byClass[c] = (byClass[c] || 0) + 1;
        byKind[m.kind] ??= {};
        byKind[m.kind][c] = (byKind[m.kind][c] || 0) + 1;
        const bad = [];
        if (res.status === 'error') bad.push(res.error);
        else if (!(res.status >= 400 && res.status < 500)) bad.push(`expected 4xx, got ${res.status}`);
        else {
          bad.push(...checkResponse(spec, sv, op, res));
          if (!/application\/problem\+json/.test(res.headers['content-type'] || '')) bad.push('4xx without problem+json');
          const want = m.kind === 'duplicate-key' || m.kind === 'invalid-json' ? 400 : 422;
          if (res.status !== want) bad.push(`${m.kind}: expected ${want}, got ${res.status}`);
          else if (want === 400) {
            if (res.json?.type !== 'urn:posenc:problem:malformed-json') bad.push('expected malformed-json');
          } else {
            bad.push(...pointerViolations(res, m.body ?? JSON.parse(text)));
            const ptrs = (res.json?.errors || []).map((e) => e.pointer);
            if (m.kind === 'unknown-field') {
              if (res.json?.type !== 'urn:posenc:problem:unknown-field') bad.push(`unknown member ${m.ptr}: type ${res.json?.type}`);
              if (!ptrs.includes(m.ptr)) bad.push(`unknown member ${m.ptr} not among the pointers ${JSON.stringify(ptrs)}`);
            } else if (m.kind === 'not-an-object') {
              if (!ptrs.includes('')) bad.push(`body not an object: pointers ${JSON.stringify(ptrs)} lack ""`);
            } else if (!ptrs.some((p) => related(p, m.ptr)) && ptrs.length < 8) {
              bad.push(`${m.kind} at ${m.ptr}: no pointer at, above or below it (${JSON.stringify(ptrs)})`);
            }
          }
        }
        if (bad.length) violations.push(`${bad.join('; ')}: ${describe('post', path, typeof text === 'string' ? text : `<${text.length} bytes>`, res)}`);
      });
      t.diagnostic(`broken ${path.padEnd(12)} sent ${muts.length}: ${Object.entries(byClass).sort().map(([k, v]) => `${k} ${v}`).join(', ')}`);
    }
    for (const k of KINDS) t.diagnostic(`  ${k.padEnd(17)} ${Object.entries(byKind[k] || {}).sort().map(([c, v]) => `${c} ${v}`).join(', ') || '-'}`);
    report(violations, 'broken');
  });

  await t.test('the server is alive afterwards', async () => {
    const res = await request({ base: server.url, path: '/healthz' });
    assert.equal(res.status, 200);
    const main = await request({ path: '/healthz' });
    assert.equal(main.status, 200);
    const total = {};
    for (const ph of Object.values(counts)) for (const [c, v] of Object.entries(ph)) total[c] = (total[c] || 0) + v;
    const fmt = (o) => ['2xx', '4xx', '5xx', 'error'].map((c) => `${c} ${o?.[c] || 0}`).join(', ');
    t.diagnostic(`fuzz requests by status class: valid: ${fmt(counts.valid)}; broken: ${fmt(counts.broken)}; total ${Object.values(total).reduce((a, b) => a + b, 0)}: ${fmt(total)}`);
    assert.equal(total['5xx'] || 0, 0, 'no 5xx');
    assert.equal(total.error || 0, 0, 'no transport errors or timeouts');
  });
});

// tests/contract/lib.mjs -- shared helpers of the contract tests (issue 10).
//
// * loadSpec / specValidator: openapi.yaml parsed with `yaml`, its schemas compiled with Ajv2020
//   (OpenAPI 3.1 schemas are JSON Schema 2020-12). The spec is registered as one document with the
//   id "urn:posenc:spec", so "#/components/..." references inside it resolve as written.
// * checkResponse: one live response against the operation that documents it (status documented,
//   required headers present and valid, Content-Type documented, body valid against its schema,
//   problem+json consistent with the status and X-Request-Id).
// * request: node:http with keep-alive and a hard per-request timeout (never hangs).
// * startServer: spawns build/posencd on an ephemeral loopback port, waits for its
//   "listening on http://127.0.0.1:PORT" line, keeps its access log.
//
// Environment: POSENC_URL (server under test; set by run.mjs), POSENC_BIN (binary, default
// build/posencd), CONTRACT_SPEC (spec to test against, default openapi.yaml at the repo root),
// POSENC_LOG (access log of the server under test), CONTRACT_TIMEOUT_MS (per request, default 10000).
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(HERE, '..', '..');
export const SPEC_PATH = process.env.CONTRACT_SPEC
  ? resolve(process.env.CONTRACT_SPEC)
  : join(ROOT, 'openapi.yaml');
export const BIN = process.env.POSENC_BIN ? resolve(process.env.POSENC_BIN) : join(ROOT, 'build', 'posencd');
export const TIMEOUT_MS = Number(process.env.CONTRACT_TIMEOUT_MS || 10000);
export const SPEC_ID = 'urn:posenc:spec';
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// ---- the spec ---------------------------------------------------------------------------------

export function loadSpec(path = SPEC_PATH) {
  return YAML.parse(readFileSync(path, 'utf8'));
}

/** RFC 6901 pointer → value inside obj (undefined when absent). */
export function getPointer(obj, ptr) {
  if (ptr === '' || ptr === '#') return obj;
  const parts = ptr.replace(/^#/, '').slice(1).split('/').map(unescapePointer);
  let cur = obj;
  for (const p of parts) {
    if (cur === null || typeof cur !== 'object' || !(p in cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}
export const escapePointer = (s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');
export const unescapePointer = (s) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** Follows local "$ref"s of non-schema objects (responses, headers, parameters). */
export function deref(spec, obj) {
  let seen = 0;
  while (obj && typeof obj === 'object' && typeof obj.$ref === 'string' && obj.$ref.startsWith('#')) {
    obj = getPointer(spec, obj.$ref);
    if (++seen > 20) throw new Error('$ref loop');
  }
  return obj;
}

/** Every operation: [{path, method, op}] in document order. */
export function operations(spec) {
  const out = [];
  for (const [path, item] of Object.entries(spec.paths || {})) {
    for (const method of HTTP_METHODS) if (item[method]) out.push({ path, method, op: item[method] });
  }
  return out;
}

/** path with its {parameters} filled from overrides or the parameters' examples. */
export function concretePath(spec, path, op, overrides = {}) {
  const params = [...(spec.paths[path]?.parameters || []), ...(op?.parameters || [])].map((p) => deref(spec, p));
  return path.replace(/\{([^}]+)\}/g, (_, n) => encodeURIComponent(overrides[n] ?? params.find((p) => p.in === 'path' && p.name === n)?.example ?? 'x'));
}

/**
 * Ajv2020 over the whole spec. validate(schema, value) compiles (and caches) the schema; schema may
 * be a spec object (its "#/components/..." refs resolve against the spec) or a "#/..." pointer string.
 */
export function specValidator(spec) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: SPEC_ID, components: spec.components || {} });
  const cache = new Map();
  function compile(schema) {
    if (cache.has(schema)) return cache.get(schema);
    let v;
    if (typeof schema === 'string') v = ajv.getSchema(SPEC_ID + schema);
    else {
      const text = JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${SPEC_ID}#/`);
      v = ajv.compile(JSON.parse(text));
    }
    if (!v) throw new Error('cannot compile schema ' + JSON.stringify(schema).slice(0, 200));
    cache.set(schema, v);
    return v;
  }
  function validate(schema, value) {
    const v = compile(schema);
    const ok = v(value);
    return { ok, errors: ok ? [] : v.errors.map((e) => `${e.instancePath || '(root)'} ${e.message}`) };
  }
  return { ajv, compile, validate };
}

// ---- HTTP -------------------------------------------------------------------------------------

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export function baseUrl() {
  const u = process.env.POSENC_URL;
  if (!u) throw new Error('POSENC_URL is not set (run the tests through run.mjs)');
  return u.replace(/\/$/, '');
}

/**
 * One HTTP request. body: string | Buffer | undefined. Resolves {status, headers (lower-case),
 * text, buf (the raw body), json (parsed when the type is JSON and it parses), ms}; rejects on a transport error or
 * after timeoutMs (the socket is destroyed: a hang is a failure, never a wait).
 */
export function request({ method = 'GET', path = '/', headers = {}, body, base = baseUrl(), timeoutMs = TIMEOUT_MS, agent: ag = agent } = {}) {
  const url = new URL(path, base + '/');
  const t0 = process.hrtime.bigint();
  return new Promise((resolveP, rejectP) => {
    const h = { ...headers };
    if (body !== undefined && !Object.keys(h).some((k) => k.toLowerCase() === 'content-length' || k.toLowerCase() === 'transfer-encoding'))
      h['Content-Length'] = Buffer.byteLength(body);
    const req = http.request(url, { method, headers: h, agent: ag }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        const buf = Buffer.concat(chunks);
        const text = buf.toString('utf8');
        const ct = res.headers['content-type'] || '';
        let json;
        if (/json/i.test(ct) && text.length) {
          try { json = JSON.parse(text); } catch { json = undefined; }
        }
        resolveP({ status: res.statusCode, headers: res.headers, text, buf, json, ms: Number(process.hrtime.bigint() - t0) / 1e6 });
      });
      res.on('error', (e) => { clearTimeout(timer); rejectP(e); });
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${url.pathname}`));
    }, timeoutMs);
    req.on('error', (e) => { clearTimeout(timer); rejectP(e); });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export function postJson(path, value, headers = {}) {
  return request({ method: 'POST', path, headers: { 'Content-Type': 'application/json', ...headers }, body: typeof value === 'string' ? value : JSON.stringify(value) });
}

// ---- response checking -----------------------------------------------------------------------

function mediaType(ct) {
  const [essence, ...params] = String(ct || '').split(';');
  const p = {};
  for (const kv of params) {
    const i = kv.indexOf('=');
    if (i > 0) p[kv.slice(0, i).trim().toLowerCase()] = kv.slice(i + 1).trim().replace(/^"|"$/g, '').toLowerCase();
  }
  return { essence: essence.trim().toLowerCase(), params: p };
}

/** The documented media type key matching a response Content-Type, or null. */
export function matchMediaType(keys, ct) {
  const got = mediaType(ct);
  for (const k of keys) {
    const want = mediaType(k);
    if (want.essence !== got.essence) continue;
    if (Object.entries(want.params).every(([n, v]) => got.params[n] === v)) return k;
  }
  return null;
}

/**
 * Checks res (from request()) against operation op of spec. Returns a list of violations ([] when
 * the response is what the spec documents). opts.sentRequestId: the X-Request-Id the client sent
 * (if safe it must be echoed); opts.head: a HEAD request (no body expected).
 */
export function checkResponse(spec, sv, op, res, opts = {}) {
  const errs = [];
  const status = String(res.status);
  let rdef = op.responses?.[status] ?? op.responses?.[status[0] + 'XX'] ?? op.responses?.default;
  if (!rdef) return [`status ${status} is not documented (documented: ${Object.keys(op.responses || {}).join(', ')})`];
  rdef = deref(spec, rdef);
  for (const [name, h0] of Object.entries(rdef.headers || {})) {
    const h = deref(spec, h0);
    const v = res.headers[name.toLowerCase()];
    if (v === undefined) {
      if (h.required) errs.push(`required header ${name} missing`);
      continue;
    }
    if (h.schema) {
      const val = h.schema.type === 'integer' && /^-?\d+$/.test(v) ? Number(v) : v;
      const r = sv.validate(h.schema, val);
      if (!r.ok) errs.push(`header ${name}: ${JSON.stringify(v)} ${r.errors.join('; ')}`);
    }
  }
  const ct = res.headers['content-type'];
  const content = rdef.content || {};
  const keys = Object.keys(content);
  if (keys.length === 0) {
    if (res.text.length) errs.push(`status ${status} documents no body, got ${res.text.length} bytes`);
    return errs;
  }
  const key = matchMediaType(keys, ct);
  if (!key) {
    errs.push(`Content-Type ${JSON.stringify(ct)} not documented for ${status} (documented: ${keys.join(', ')})`);
    return errs;
  }
  if (opts.head) return errs;
  const media = content[key];
  const isJson = /(^|\/|\+)json$/.test(mediaType(key).essence);
  let value = res.text;
  if (isJson) {
    try { value = JSON.parse(res.text); } catch (e) {
      errs.push(`body is not JSON: ${e.message}`);
      return errs;
    }
  }
  if (media.schema) {
    const r = sv.validate(media.schema, value);
    if (!r.ok) errs.push(`body does not match the ${status} schema: ${r.errors.slice(0, 6).join('; ')}`);
  }
  if (mediaType(key).essence === 'application/problem+json' && value && typeof value === 'object') {
    if (value.status !== res.status) errs.push(`problem status ${value.status} != HTTP status ${res.status}`);
    const rid = res.headers['x-request-id'];
    if (rid !== undefined && value.instance !== `urn:posenc:request:${rid}`)
      errs.push(`problem instance ${JSON.stringify(value.instance)} does not carry X-Request-Id ${rid}`);
  }
  if (opts.sentRequestId !== undefined && res.status !== 431) {
    const rid = res.headers['x-request-id'];
    if (isSafeRequestId(opts.sentRequestId) && rid !== opts.sentRequestId)
      errs.push(`X-Request-Id ${JSON.stringify(rid)} does not echo the client's ${JSON.stringify(opts.sentRequestId)}`);
  }
  return errs;
}

/** docs/api.md: the client's id is kept when it has 1..64 characters of A-Z a-z 0-9 - _ . : */
export const isSafeRequestId = (s) => typeof s === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(s);

/**
 * Where an RFC 6901 pointer from a 422 lands in the sent body: 'whole' (""), 'exists', 'absent-member'
 * (the parent is an object that lacks the member -- e.g. a missing required field), or 'bad'.
 */
export function pointerStatus(body, ptr) {
  if (ptr === '') return 'whole';
  if (typeof ptr !== 'string' || !ptr.startsWith('/')) return 'bad';
  const parts = ptr.slice(1).split('/').map(unescapePointer);
  let cur = body;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    const last = i === parts.length - 1;
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(p) || Number(p) >= cur.length) return 'bad';
      cur = cur[Number(p)];
    } else if (cur !== null && typeof cur === 'object') {
      if (!Object.prototype.hasOwnProperty.call(cur, p)) return last ? 'absent-member' : 'bad';
      cur = cur[p];
    } else return 'bad';
  }
  return 'exists';
}

// ---- the server ------------------------------------------------------------------------------

/**
 * Starts posencd on 127.0.0.1 port 0 with extra args; resolves {url, port, proc, logPath, stop()}.
 * stdout (the access log) goes to logPath. stop() sends SIGTERM, waits for the exit and removes
 * the temporary directory (access log, data directory) unless keepDir.
 */
export function startServer(extraArgs = [], { bin = BIN, cwd = ROOT, logPath, keepDir = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-contract-'));
  logPath = logPath || join(dir, 'access.log');
  const args = ['--bind', '127.0.0.1', '--port', '0', '--web-dir', 'web', '--spec', SPEC_PATH,
    '--data-dir', join(dir, 'data'), '--drain-seconds', '2', ...extraArgs];
  const proc = spawn(bin, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(logPath);
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolveP, rejectP) => {
    let buf = '';
    let done = false;
    const timer = setTimeout(() => { if (!done) { done = true; proc.kill('SIGKILL'); rejectP(new Error('posencd did not start in 10 s: ' + stderr)); } }, 10000);
    proc.on('exit', (code) => { if (!done) { done = true; clearTimeout(timer); rejectP(new Error(`posencd exited (${code}): ${stderr}`)); } });
    proc.stdout.on('data', (d) => {
      log.write(d);
      if (done) return;
      buf += d;
      const m = buf.match(/listening on (http:\/\/127\.0\.0\.1:(\d+))/);
      if (m) {
        done = true;
        clearTimeout(timer);
        const exited = new Promise((r) => proc.on('exit', (code, sig) => r({ code, sig })));
        const stop = async () => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
          const t = setTimeout(() => proc.kill('SIGKILL'), 15000);
          const r = await exited;
          clearTimeout(t);
          await new Promise((r2) => log.end(r2));
          if (!keepDir) rmSync(dir, { recursive: true, force: true });
          return r;
        };
        resolveP({ url: m[1], port: Number(m[2]), proc, logPath, stop, stderr: () => stderr });
      }
    });
  });
}

// ---- reporting -------------------------------------------------------------------------------

/** Compact one-line description of a request/response for failure messages. */
export function describe(method, path, body, res) {
  const b = body === undefined ? '' : ' ' + (typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 400);
  const r = res ? ` → ${res.status} ${res.headers?.['content-type'] || ''} ${String(res.text ?? '').slice(0, 400)}` : '';
  return `${method.toUpperCase()} ${path}${b}${r}`;
}

// ---- raw HTTP/1.1 over one TCP connection (for what node:http will not send) -------------------


/**
 * One TCP connection to the server; send(rawText) writes bytes and resolves the next response
 * {status, headers, text, closed} (body by Content-Length, or until close). Used for declared
 * lengths without bodies, oversized headers and requests on a connection that outlives a SIGTERM.
 */
export class RawConn {
  constructor(base = baseUrl(), timeoutMs = TIMEOUT_MS) {
    const u = new URL(base);
    this.timeoutMs = timeoutMs;
    this.buf = Buffer.alloc(0);
    this.closed = false;
    this.waiters = [];
    this.sock = net.connect({ host: u.hostname, port: Number(u.port) });
    this.ready = new Promise((r, j) => { this.sock.once('connect', r); this.sock.once('error', j); });
    this.sock.on('data', (d) => { this.buf = Buffer.concat([this.buf, d]); this._pump(); });
    this.sock.on('close', () => { this.closed = true; this._pump(); });
    this.sock.on('error', () => {});
  }
  _parse() {
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const head = this.buf.subarray(0, end).toString('latin1').split('\r\n');
    const m = head[0].match(/^HTTP\/1\.[01] (\d{3})/);
    if (!m) return { error: 'bad status line ' + head[0] };
    const headers = {};
    for (const line of head.slice(1)) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    const len = headers['content-length'] !== undefined ? Number(headers['content-length']) : null;
    const bodyStart = end + 4;
    if (len !== null) {
      if (this.buf.length < bodyStart + len) return null;
      const text = this.buf.subarray(bodyStart, bodyStart + len).toString('utf8');
      this.buf = this.buf.subarray(bodyStart + len);
      return { status: Number(m[1]), headers, text };
    }
    if (!this.closed) return null;
    const text = this.buf.subarray(bodyStart).toString('utf8');
    this.buf = Buffer.alloc(0);
    return { status: Number(m[1]), headers, text };
  }
  _pump() {
    while (this.waiters.length) {
      const r = this._parse();
      if (r === null) {
        if (this.closed) this.waiters.shift().reject(new Error('connection closed without a response'));
        else return;
      } else {
        const w = this.waiters.shift();
        clearTimeout(w.timer);
        if (r.error) w.reject(new Error(r.error));
        else {
          if (r.json === undefined && /json/i.test(r.headers['content-type'] || '')) { try { r.json = JSON.parse(r.text); } catch { /* not JSON */ } }
          r.closed = this.closed;
          w.resolve(r);
        }
      }
    }
  }
  async send(raw) {
    await this.ready;
    const p = new Promise((resolveP, rejectP) => {
      const timer = setTimeout(() => { this.sock.destroy(); rejectP(new Error(`timeout after ${this.timeoutMs} ms`)); }, this.timeoutMs);
      this.waiters.push({ resolve: resolveP, reject: rejectP, timer });
    });
    if (raw !== null && !this.sock.destroyed) this.sock.write(raw);
    this._pump();
    return p;
  }
  close() { this.sock.destroy(); }
}

/** A raw request text: method, path, headers object, body string. */
export function rawRequestText(method, path, headers = {}, body = '') {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return lines.join('\r\n') + '\r\n\r\n' + body;
}

/** Parses a .npy v1/v2 file of '<f8' or '<i8': {shape, descr, values (flat, C order)}; throws otherwise. */
export function parseNpy(buf) {
  if (buf.subarray(0, 6).toString('latin1') !== '\x93NUMPY') throw new Error('not a .npy file (magic)');
  const major = buf[6];
  const hl = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.subarray(start, start + hl).toString('latin1');
  if ((start + hl) % 64 !== 0) throw new Error('.npy header not padded to 64 bytes');
  const descr = (header.match(/'descr': '(<f8|<i8)'/) || [])[1];
  if (!descr || !/'fortran_order': False/.test(header)) throw new Error(`.npy header ${header}`);
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').map((x) => x.trim()).filter(Boolean).map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  if (buf.length !== start + hl + 8 * n) throw new Error(`.npy data: ${buf.length - start - hl} bytes for shape (${shape})`);
  const at = (i) => start + hl + 8 * i;
  const values = Array.from({ length: n }, (_, i) => (descr === '<f8' ? buf.readDoubleLE(at(i)) : Number(buf.readBigInt64LE(at(i)))));
  return { shape, descr, values };
}

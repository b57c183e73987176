// bench/peer_node.mjs -- what a Node user would write instead of posenc: node:http + JSON.parse and
// JSON.stringify, the same small POST /rope that `make bench` sends to posencd, answered with the
// same document (bench/run.sh checks it against posenc's before timing it; bench/check_answer.py).
//
//   node bench/peer_node.mjs [HOST:PORT]     (default 127.0.0.1:0: an ephemeral port)
//
// Prints "listening on http://HOST:PORT" once it serves. Endpoints (posenc's field names, only what
// the benchmark sends):
//   GET  /healthz  {"status":"ok"}
//   POST /rope     {head_dim, positions, q, k[, rope_theta]} (q, k: one vector of head_dim numbers,
//                  rotated at every position) -> posenc's /rope answer: plain RoPE, rotate_half
//                  layout, float64, scores = q_rot . k_rot^T (no 1/sqrt(d))
// The arithmetic follows posenc's order (docs/conventions.md): inv_freq[j] = 1 / base^(2j/d), the
// angle p * inv_freq[j], out1 = x1*cos - x2*sin, out2 = x2*cos + x1*sin, dot products summed in
// index order. V8's Math.cos/sin/pow are not glibc's, so values may differ by an ulp or a few.
import http from 'node:http';

function problem(res, status, detail) {
  const s = JSON.stringify({ status, detail });
  res.writeHead(status, { 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(s) });
  res.end(s);
}

function rotate(x, cos, sin, d) {
  const h = d / 2;
  return cos.map((c, i) => {
    const s = sin[i];
    const o = new Array(d);
    for (let j = 0; j < h; j++) {
      o[j] = x[j] * c[j] - x[j + h] * s[j];
      o[j + h] = x[j + h] * c[j] + x[j] * s[j];
    }
    return o;
  });
}

function rope(body) {
  const d = body.head_dim;
  const pos = body.positions;
  if (!Number.isInteger(d) || d < 2 || d % 2 || !Array.isArray(pos) || pos.length === 0 ||
      !Array.isArray(body.q) || body.q.length !== d || !Array.isArray(body.k) || body.k.length !== d) {
    return null;
  }
  const base = body.rope_theta ?? 10000;
  const h = d / 2;
  const inv = new Array(h);
  for (let j = 0; j < h; j++) inv[j] = 1 / Math.pow(base, (2 * j) / d);
  const cos = pos.map((p) => inv.map((f) => Math.cos(p * f)));
  const sin = pos.map((p) => inv.map((f) => Math.sin(p * f)));
  const qr = rotate(body.q, cos, sin, d);
  const kr = rotate(body.k, cos, sin, d);
  const scores = qr.map((qi) => kr.map((kj) => {
    let dot = 0;
    for (let c = 0; c < d; c++) dot += qi[c] * kj[c];
    return dot;
  }));
  return {
    inv_freq: inv, attention_factor: 1, softmax_scale_factor: 1,
    q_positions: pos, q_rotated: qr, k_positions: pos, k_rotated: kr, scores,
    resolved: {
      head_dim: d, rotary_dim: d, layout: 'half', inv_freq_source: 'computed', base,
      scaling: { type: 'default' }, seq_len: Math.max(...pos) + 1, seq_len_source: 'largest position + 1',
    },
  };
}

const server = http.createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"status":"ok"}');
    return;
  }
  if (req.url !== '/rope') return problem(res, 404, 'no such route');
  if (req.method !== 'POST') return problem(res, 405, 'this route takes POST');
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (e) {
      return problem(res, 400, String(e.message));
    }
    const ans = rope(body);
    if (ans === null) return problem(res, 422, 'head_dim even, q and k of head_dim numbers, positions');
    const s = JSON.stringify(ans);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(s) });
    res.end(s);
  });
});

const arg = process.argv[2] ?? '127.0.0.1:0';
const i = arg.lastIndexOf(':');
server.keepAliveTimeout = 60000;
server.listen(Number(arg.slice(i + 1)), arg.slice(0, i), () => {
  const a = server.address();
  console.log(`listening on http://${a.address}:${a.port}`);
});

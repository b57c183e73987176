"""bench/report.py RESULTS.tsv -- the table `make bench` prints (markdown), from bench/run.sh's figures.

Each line of RESULTS.tsv is name<TAB>value<TAB>unit<TAB>note. Ratios: kernels are memcpy time /
kernel time (1.0 = as fast as copying the same bytes); JSON is jansson time / posenc time; HTTP
compares requests/s.
"""
import sys

rows = {}
for line in open(sys.argv[1]):
    parts = line.rstrip("\n").split("\t")
    if len(parts) >= 2:
        rows[parts[0]] = (float(parts[1]), parts[2] if len(parts) > 2 else "", parts[3] if len(parts) > 3 else "")


def v(name, default=float("nan")):
    return rows[name][0] if name in rows else default


def note(name):
    return rows[name][2] if name in rows else ""


def ok(cond):
    return "met" if cond else "NOT met"


out = []
out.append("| figure | measured | target | |")
out.append("|---|---|---|---|")
for key, label in [("rope_tHD_half", "RoPE apply [4096][32][128] f64, half pairs, [T][H][D]"),
                   ("rope_tHD_interleaved", "RoPE apply, interleaved pairs, [T][H][D]"),
                   ("rope_HtD_half", "RoPE apply, half pairs, [H][T][D]")]:
    out.append(f"| {label} | {v(key):.2f}x memcpy of the same bytes | >= 0.9x | {ok(v(key) >= 0.9)} |")
out.append(f"| RoPE cos/sin table 4096x64 (once per call, shared by all heads) | {v('rope_table_ms'):.1f} ms | | |")
out.append(f"| sinusoidal 8192x1024 f64 | {v('sinusoidal'):.2f}x memcpy | (sin/cos bound) | |")
out.append(f"| ALiBi bias 32x2048x2048 f64 causal | {v('alibi_bias'):.2f}x memcpy | | |")
out.append(f"| masked softmax 8x2048x2048 f64 causal | {v('softmax_masked'):.2f}x memcpy | (exp bound) | |")
j1, j2 = v("json_1e6_doubles"), v("json_1e6_streamed")
out.append(f"| 10^6 doubles to JSON, one buffer (wire_jw_doubles) | {j1:.1f}x faster than jansson json_dumps | >= 10x | {ok(j1 >= 10)} |")
out.append(f"| 10^6 doubles to JSON, streamed (the daemon's path) | {j2:.1f}x faster than jansson json_dumps | >= 10x | {ok(j2 >= 10)} |")
h, r, a = v("posenc_healthz_rps"), v("posenc_rope_rps"), v("posenc_alibi_rps")
ph, pr, pa = v("peer_healthz_rps"), v("peer_rope_rps"), v("peer_alibi_rps")
out.append(f"| posencd GET /healthz | {h:,.0f} req/s, p99 {v('posenc_healthz_p99'):.2f} ms | | |")
out.append(f"| posencd small POST /rope (head_dim 128, 8 positions, q and k) | {r:,.0f} req/s, p99 {v('posenc_rope_p99'):.2f} ms | | |")
out.append(f"| small /rope vs the same daemon's /healthz | {r / h:.2f}x | >= 0.5x | {ok(r / h >= 0.5)} |")
out.append(f"| small /rope vs FastAPI + numpy peer ({pr:,.0f} req/s) | {r / pr:.0f}x | >= 50x | {ok(r / pr >= 50)} |")
out.append(f"| small /rope p99 at 64 connections | {v('posenc_rope_p99'):.2f} ms | < 5 ms | {ok(v('posenc_rope_p99') < 5)} |")
tp, tt = v("request_parse_us"), v("request_total_us")
if tp == tp and tt == tt:  # present (not NaN)
    out.append(f"| one small /rope in process: whole handler (parse, validate, compute, format) | {tt:.0f} us | | |")
    out.append(f"| of which jansson's json_loadb of the body | {tp:.0f} us ({100 * tp / tt:.0f} %); alone it caps one CPU at {1e6 / tp:,.0f} req/s | | |")
    out.append(f"| posenc's own part (validate, compute, format the ~2,200 numbers) | {tt - tp:.0f} us | | |")
uh, ur, upr = v("posenc_u_healthz_rps"), v("posenc_u_rope_rps"), v("peer_u_rope_rps")
if uh == uh and ur == ur and upr == upr:
    out.append(f"| unpinned: posencd /healthz, small /rope (p99) | {uh:,.0f} req/s; {ur:,.0f} req/s (p99 {v('posenc_u_rope_p99'):.2f} ms) | | |")
    out.append(f"| unpinned: small /rope vs /healthz | {ur / uh:.2f}x | >= 0.5x | {ok(ur / uh >= 0.5)} |")
    out.append(f"| unpinned: small /rope vs the peer with one uvicorn worker per CPU ({upr:,.0f} req/s) | {ur / upr:.0f}x | >= 50x | {ok(ur / upr >= 50)} |")
    out.append(f"| unpinned: small /rope p99 at 64 connections | {v('posenc_u_rope_p99'):.2f} ms | < 5 ms | {ok(v('posenc_u_rope_p99') < 5)} |")
nr = int(v("rounds", 0))
if nr > 0:
    names = ["posenc", "go", "node", "fastapi", "floor", "inline"]
    labels = {"go": "the Go peer (net/http + encoding/json)", "node": "the Node peer (node:http + JSON.parse)",
              "fastapi": "the FastAPI + numpy peer", "floor": "the transport floor (same body in, prebuilt answer out)"}
    targets = {"go": 3.0, "node": 3.0, "fastapi": 25.0, "floor": 0.3}

    def med(xs):
        xs = sorted(xs)
        n = len(xs)
        return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2

    rps = {s: [v(f"round{r}_{s}_rps") for r in range(1, nr + 1)] for s in names}
    cpu = {s: [v(f"round{r}_{s}_cpu_us") for r in range(1, nr + 1)] for s in names}
    load = f"load average {v('rounds_load_before'):.1f} before, {v('rounds_load_after'):.1f} after"
    out.append(f"| small /rope, {nr} interleaved rounds ({note('rounds')}; {load}): median req/s | "
               + ", ".join(f"{s} {med(rps[s]):,.0f}" for s in names) + " | | |")
    out.append("| the same: median server CPU time per request | "
               + ", ".join(f"{s} {med(cpu[s]):,.0f} us" for s in names) + " | | |")
    for s in ["go", "node", "fastapi", "floor"]:
        ratios = [a / b for a, b in zip(rps["posenc"], rps[s]) if b > 0]
        cr = [b / a for a, b in zip(cpu["posenc"], cpu[s]) if a > 0]
        m = med(ratios) if ratios else float("nan")
        each = ", ".join(f"{x:.2f}" for x in ratios)
        out.append(f"| small /rope ÷ {labels[s]}, median of {len(ratios)} rounds | {m:.2f}x "
                   f"(rounds: {each}); by CPU time per request {med(cr):.2f}x | >= {targets[s]:g}x | "
                   f"{ok(m >= targets[s])} |")
    ri = [b / a for a, b in zip(rps["posenc"], rps["inline"]) if a > 0]
    ci = [a / b for a, b in zip(cpu["posenc"], cpu["inline"]) if b > 0]
    if ri:
        out.append(f"| posencd --inline-work 16384 ÷ posencd (tiny requests on the HTTP thread), median | "
                   f"{med(ri):.2f}x req/s (rounds: {', '.join(f'{x:.2f}' for x in ri)}); "
                   f"{med(ci):.2f}x by CPU time per request | | |")
out.append(f"| posencd POST /alibi (demo heatmap: 8 heads, 16 positions) | {a:,.0f} req/s, p99 {v('posenc_alibi_p99'):.2f} ms; {a / pa:.0f}x the peer ({pa:,.0f} req/s) | | |")
out.append(f"| FastAPI + numpy peer GET /healthz | {ph:,.0f} req/s, p99 {v('peer_healthz_p99'):.2f} ms | | |")
out.append(f"| posencd 4096x1024 /sinusoidal (82 MB JSON each), 4 connections | {v('posenc_sinusoidal_mbps'):,.0f} MB/s | | |")
out.append(f"| peak RSS (VmHWM) while serving it | {v('posenc_sinusoidal_hwm'):.1f} MiB | < 64 MiB | {ok(v('posenc_sinusoidal_hwm') < 64)} |")
out.append(f"| vectorised loops/blocks in core/rope.c (-O2) | {v('rope_vectorized'):.0f} | | |")
print("\n".join(out))
print()
for key in ("rope_tHD_half", "rope_table_ms", "sinusoidal", "alibi_bias", "softmax_masked",
            "json_1e6_doubles", "json_1e6_streamed", "request_parse_us", "request_total_us",
            "posenc_sinusoidal_hwm"):
    if note(key):
        print(f"- {key}: {note(key)}")

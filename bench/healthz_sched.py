#!/usr/bin/env python3
"""bench/healthz_sched.py -- where the /healthz probe's milliseconds go under `hostile amplify`
(issue 19; docs/operations.md, "Configuration and limits").

usage: python3 bench/healthz_sched.py [--bin build/posencd] [--runs N]

Runs tests/hostile/hostile.py's `amplify` case (16 MiB amplification bodies and 8 concurrent
16 MiB table uploads, /healthz probed every 20 ms) under `perf sched record -a` and reads the
trace back with `perf sched timehist --state`. For the two tasks a probe's answer waits on -- the
probe thread itself and the daemon's HTTP threads (MHD-worker) -- it prints, over the load
window, their wake-up delays (woken -> running: p50, p99, max) and, for every wake-up that waited
0.3 ms or more, which task held that CPU meanwhile: the daemon's compute threads, its other HTTP
thread, the load generator (the child process sending the bodies), the probe, or other processes
(anything else on the host), with how often, the longest overlaps, and how the holder's run ended
(R: preempted, S/D: it blocked). A wait is attributed to the CPU the task then ran on (one that
migrated while it waited is attributed to its last CPU). The amplify figures come first.

Needs perf (Debian's linux-perf) and the right to trace the scheduler (root, or
kernel.perf_event_paranoid <= -1). Standard library otherwise. A figure, not a test: on a shared
host "other processes" hold the CPU in most of the long waits; read it on a quiet machine.
"""
import argparse
import bisect
import collections
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROW = re.compile(r"^\s*([\d.]+)\s+\[(\d+)\]\s+(\S.*?\[[\d/]+\])\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)"
                 r"\s+(\S+)")
LONG_MS = 0.3


def ids(task):
    """(tid, pid) of a timehist task name "comm[tid/pid]" (or "comm[pid]")."""
    x = task.rsplit("[", 1)[1].rstrip("]").split("/")
    return x[0], x[-1]


def children(pid, seen):
    """Adds {pid: comm} of the processes whose parent is pid to seen."""
    for p in os.listdir("/proc"):
        if not p.isdigit() or p in seen:
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                st = f.read()
        except OSError:
            continue
        if st[st.rindex(")") + 2:].split()[1] == str(pid):
            seen[p] = st[st.index("(") + 1:st.rindex(")")]


def run_once(binary):
    data = tempfile.mktemp(prefix="posenc-sched-", suffix=".data")
    perf = subprocess.Popen(["perf", "sched", "record", "-a", "-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    env = dict(os.environ)
    env.pop("POSENC_HEALTHZ_RATIO", None)
    h = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests/hostile/hostile.py"), "--bin",
                          binary, "amplify"], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    kids = {}
    while h.poll() is None:
        children(h.pid, kids)
        time.sleep(0.2)
    out = h.stdout.read()
    perf.send_signal(signal.SIGINT)
    perf.wait()
    try:
        trace = subprocess.run(["perf", "sched", "timehist", "--state", "-i", data],
                               capture_output=True, text=True).stdout
    finally:
        os.unlink(data)
    figures = [line for line in out.splitlines() if line.startswith(("PASS", "FAIL"))]
    print(figures[0] if figures else out[-500:])
    daemon = [p for p, c in kids.items() if c.startswith("posencd")]
    load = [p for p, c in kids.items() if c.startswith("python")]
    if not daemon or not load:
        print("  (the daemon or the load generator was not seen: %s)" % kids)
        return
    report(trace, str(h.pid), daemon[0], load[0])


def report(trace, hostile, daemon, load):
    rows = []
    for line in trace.splitlines():
        m = ROW.match(line)
        if m:
            t, cpu, task, _, d, r, st = m.groups()
            rows.append((float(t) * 1e3, int(cpu), task, float(d), float(r), st))
    own = collections.Counter(ids(x[2])[0] for x in rows
                              if ids(x[2])[1] == hostile and ids(x[2])[0] != hostile)
    probe = own.most_common(1)[0][0]  # the thread running the test: the probe loop

    def who(task):
        tid, pid = ids(task)
        if tid == probe:
            return "probe"
        if pid == daemon:
            return "daemon HTTP" if task.startswith("MHD") else "daemon compute"
        if pid == load:
            return "load generator"
        return "idle" if task.startswith("<idle>") else "other processes"

    window = [x[0] for x in rows if ids(x[2])[1] == load]
    lo, hi = min(window), max(window)
    runs = collections.defaultdict(list)  # per CPU: (end, start, task, end state), by end
    for (t, cpu, task, _, r, st) in rows:
        runs[cpu].append((t, t - r, task, st))
    for cpu in runs:
        runs[cpu].sort()
    ends = {cpu: [x[0] for x in runs[cpu]] for cpu in runs}
    print("  load window %.1f s" % ((hi - lo) / 1e3))
    for name in ("probe", "daemon HTTP"):
        delays, held = [], collections.defaultdict(list)
        for (t, cpu, task, d, r, _) in rows:
            if who(task) != name or not lo <= t <= hi or d <= 0:
                continue
            delays.append(d)
            if d < LONG_MS:
                continue
            s, e = t - r - d, t - r
            i = bisect.bisect_right(ends[cpu], s)  # runs on one CPU never overlap
            while i < len(runs[cpu]):
                b, a, holder, st = runs[cpu][i]
                if a < e and min(b, e) - max(a, s) >= LONG_MS / 2:
                    held[(who(holder), st)].append(min(b, e) - max(a, s))
                if b >= e:
                    break
                i += 1
        delays.sort()
        q = lambda f: delays[min(len(delays) - 1, int(f * len(delays)))] if delays else 0.0
        print("  %s: %d wake-ups, delay p50 %.3f / p99 %.3f / max %.2f ms; %d waited >= %.1f ms"
              % (name, len(delays), q(0.5), q(0.99), delays[-1] if delays else 0.0,
                 sum(1 for x in delays if x >= LONG_MS), LONG_MS))
        for (holder, st), ov in sorted(held.items(), key=lambda kv: -sum(kv[1])):
            ov.sort()
            print("    held by %-16s (run ended %s): %4d runs, %.1f ms in all, longest %s ms"
                  % (holder, st, len(ov), sum(ov), ", ".join("%.2f" % x for x in ov[-4:])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "posencd"))
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    for _ in range(a.runs):
        run_once(os.path.abspath(a.bin))


if __name__ == "__main__":
    main()

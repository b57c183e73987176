#!/usr/bin/env python3
"""make lint: no AVX-SSE transition in the object code of the files with AVX kernels.

SSE (legacy-encoded) instructions run while the upper halves of the ymm/zmm registers are dirty
pay a state transition, or a merge with every instruction: measured on core/rope_rotate.c's
kernels, 5-7x slower, and the SSE code that runs after them (libm's cos/sin) 10x slower. GCC
clears the upper halves itself (vzeroupper before a return or a call) only at -O2 and above, and
inlines a helper into an AVX function (so VEX-encodes it) only when its heuristics say so; so
this compiles every core/ file that has a target("avx...") function at -O0, -O1, -Os, -O2 and
-O3 and reads its disassembly (objdump), function by function, in address order. A function that
uses a ymm or zmm register must:
  - contain no legacy SSE instruction (an xmm operand, no "v" prefix) after that use unless a
    vzeroupper came in between;
  - reach no call, no ret and no jmp out of the function (a tail call) with the upper halves
    dirty: a vzeroupper (or vzeroall) must come between the last ymm/zmm use and each of them.
Address order is not control flow, so the check is conservative only for code laid out in the
order it runs (GCC's layout of these kernels); it is a tripwire, not a proof.
usage: avx_sse.py [CC] -- prints "avx_sse: ok" or each finding, exits 1 on any.
"""
import os
import re
import subprocess
import sys
import tempfile

LEVELS = ["-O0", "-O1", "-Os", "-O2", "-O3"]
FLAGS = ["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE", "-I."]
FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")


def avx_files():
    out = []
    for name in sorted(os.listdir("core")):
        if name.endswith(".c"):
            with open(os.path.join("core", name), encoding="utf-8") as f:
                if re.search(r'target\("avx', f.read()):
                    out.append(os.path.join("core", name))
    return out


def check(disasm, where):
    """Findings in one object file's disassembly (objdump -d --no-show-raw-insn)."""
    found = []
    func, dirty, start = None, False, None
    for line in disasm.splitlines():
        m = FUNC.match(line)
        if m:
            func, dirty, start = m.group(1), False, None
            continue
        m = INSN.match(line)
        if func is None or not m:
            continue
        addr, op, args = m.groups()
        if op in ("vzeroupper", "vzeroall"):
            dirty = False
        elif "%ymm" in args or "%zmm" in args:
            dirty, start = True, addr
        elif dirty and "%xmm" in args and not op.startswith("v"):
            found.append(f"{where} {func}+0x{addr}: legacy SSE '{op} {args}' after the ymm/zmm "
                         f"use at 0x{start} with no vzeroupper in between")
            dirty = False  # one finding per stretch
        elif dirty and (op.startswith("call") or op.startswith("ret") or
                        (op.startswith("jmp") and "<" in args and
                         not re.search(r"<" + re.escape(func) + r"(\+0x[0-9a-f]+)?>", args))):
            found.append(f"{where} {func}+0x{addr}: '{op} {args}' with the upper halves dirty "
                         f"(ymm/zmm use at 0x{start}, no vzeroupper since)")
            dirty = False
    return found


def main():
    cc = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CC", "cc")
    files = avx_files()
    findings = []
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "k.o")
        for src in files:
            for level in LEVELS:
                subprocess.run([cc, *FLAGS, level, "-c", src, "-o", obj], check=True)
                dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], check=True,
                                     capture_output=True, text=True).stdout
                findings += check(dis, f"{src} {level}:")
    for f in findings:
        print("avx_sse: " + f)
    if not files:
        print("avx_sse: no core/ file has a target(\"avx...\") function: nothing checked")
    if not findings:
        print(f"avx_sse: ok ({len(files)} files x {len(LEVELS)} levels)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

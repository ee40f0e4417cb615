#!/usr/bin/env python3
"""sass-loops.py - issue slots per interaction of each force kernel's inner loop.

Reads `cuobjdump -sass` text (a file argument or stdin) of the sm_90 build of
sim/sim_kernels.cu and, for every kernel, finds its loops (a branch back to an
earlier address closes the loop [target, branch]) and reports, of the
innermost loops (those holding no other loop), the one holding the most
reciprocal square roots (MUFU.RSQ, or MUFU.RSQ64H for
fp64): each interaction - each pair, for `best` - has exactly one, so

    slots per interaction (or pair) = instructions in the loop / MUFU.RSQ count.

Every SASS instruction in the loop counts as one issue slot (the loop's NOPs
included, there are none in practice). For fp64 it also counts the FP64-pipe
instructions (DADD, DFMA, DMUL) per interaction. docs/PERFORMANCE.md gives the
command and sim/sim_kernels.cu keeps the results (loop_costs).

    nvcc -O3 -std=c++17 --generate-code=arch=compute_90,code=sm_90 -Isim -Ishaders -c sim/sim_kernels.cu -o k.o
    cuobjdump -sass k.o | scripts/sass-loops.py
"""
import re
import sys

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
FUNC = re.compile(r"Function : (\S+)")


def parse(text):
    kernels, cur = {}, None
    for line in text.splitlines():
        m = FUNC.search(line)
        if m:
            cur = m.group(1)
            kernels[cur] = []
            continue
        m = INSN.search(line)
        if m and cur:
            kernels[cur].append((int(m.group(1), 16), m.group(3), m.group(4).strip()))
    return kernels


def loops(insns):
    out = []
    for addr, op, args in insns:
        if op.startswith("BRA"):
            m = re.match(r"(?:`\()?\s*(0x[0-9a-f]+)", args)
            if m and int(m.group(1), 16) < addr:
                out.append((int(m.group(1), 16), addr))
    return out


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    for name, insns in parse(text).items():
        best = None
        found = loops(insns)
        for lo, hi in found:
            if any(lo <= a and b <= hi and (a, b) != (lo, hi) for a, b in found):
                continue  # not innermost
            body = [(a, op) for a, op, _ in insns if lo <= a <= hi]
            rsq = sum(1 for _, op in body if op.startswith("MUFU.RSQ"))
            if rsq == 0:
                continue
            fp64 = sum(1 for _, op in body if op.split(".")[0] in ("DADD", "DFMA", "DMUL"))
            mufu = {}
            for _, op in body:
                if op.startswith("MUFU"):
                    mufu[op] = mufu.get(op, 0) + 1
            key = (rsq, -len(body))
            if best is None or key > best[0]:
                best = (key, lo, hi, len(body), rsq, fp64, mufu)
        if best is None:
            print(f"{name}: no loop with MUFU.RSQ")
            continue
        _, lo, hi, n, rsq, fp64, mufu = best
        kinds = " + ".join(f"{c} {op}" for op, c in sorted(mufu.items()))
        print(f"{name}: loop 0x{lo:x}-0x{hi:x}: {n} instructions, {rsq} MUFU.RSQ -> "
              f"{n / rsq:.2f} slots per rsqrt" + (f", {fp64 / rsq:.2f} FP64 ops" if fp64 else "") +
              f"; {sum(mufu.values())} MUFU ({kinds}) -> {sum(mufu.values()) / rsq:.2f} per rsqrt")


if __name__ == "__main__":
    main()

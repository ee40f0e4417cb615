#!/usr/bin/env python3
"""test_sass_loops.py - scripts/sass-loops.py on a made-up SASS listing.

The counts in sim/sim_kernels.cu (loop_costs) come from this script run on
the sm_90 build (docs/bench/sass.sh, which needs nvcc). Here a listing in
cuobjdump's format with known contents checks what the script reports of a
loop: its instructions, its MUFU.RSQ (one per interaction) and every MUFU
instruction of it (RSQ, RCP, ...: the MUFU ceiling's count), and that an
outer loop and the instructions outside the loop are not counted.

    python3 tests/test_sass_loops.py
"""
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "sass-loops.py")


def listing():
    """A kernel with an outer loop 0x40-0xe0 around an inner one 0x50-0xd0
    of 9 instructions (1 MUFU.RSQ, 1 MUFU.RCP), and a MUFU.EX2 before the
    loops, which is neither loop's."""
    ops = [
        "MUFU.EX2 R1, R1",      # 0x0000: outside
        "MOV R2, R3",           # 0x0010
        "MOV R2, R3",           # 0x0020
        "MOV R2, R3",           # 0x0030
        "IADD3 R5, R5, 0x1, RZ",  # 0x0040: the outer loop starts
        "FADD R6, R7, -R8",     # 0x0050: the inner loop starts
        "FFMA R9, R6, R6, R10",
        "MUFU.RSQ R11, R9",
        "MUFU.RCP R12, R11",
        "FMUL R13, R12, R12",
        "FFMA R14, R6, R13, R14",
        "LDG.E.128 R16, [R2.64]",
        "ISETP.GE.AND P0, PT, R5, R4, PT",
        "@!P0 BRA 0x50",        # 0x00d0: the inner loop's branch back
    ]
    lines = ["\tFunction : _Z10toy_kernelv"]
    addr = 0
    for op in ops:
        lines.append(f"        /*{addr:04x}*/                   {op} ;")
        addr += 0x10
    lines.append(f"        /*{addr:04x}*/                   @P1 BRA 0x40 ;")  # 0x00e0: the outer's
    lines.append(f"        /*{addr + 0x10:04x}*/                   EXIT ;")
    return "\n".join(lines) + "\n"


def main():
    out = subprocess.run([sys.executable, SCRIPT], input=listing(), capture_output=True,
                         text=True, check=True).stdout.strip()
    print(out)
    want = ("_Z10toy_kernelv: loop 0x50-0xd0: 9 instructions, 1 MUFU.RSQ -> 9.00 slots per "
            "rsqrt; 2 MUFU (1 MUFU.RCP + 1 MUFU.RSQ) -> 2.00 per rsqrt")
    if out != want:
        print(f"FAIL: expected\n{want}", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

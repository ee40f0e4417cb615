#!/usr/bin/env python3
"""Which of one domain's tree cells another domain's boxes open, on the CPU.

A model of the tree per GPU (docs/PERFORMANCE.md, "Tried and not kept: a
tree per GPU"): a Plummer sphere in Henon units (mass cut 0.999, as
sim/sim_ic.c), 63-bit Morton keys in the cube of its box, G domains split at
quantiles of the keys, each domain's octree (leaves of <= 16 bodies) and
walk groups (cells of <= 64 bodies whose parent holds more). For each pair
it prints the share of the sender's cells that fail the walk's test
(theta's r_open, and with --alpha the relative criterion with the analytic
Plummer |a|) against at least one of the receiver's boxes, for boxes that
bound the groups of 256 equal stretches of the sorted bodies, and for boxes
that are the cells of a cut through the receiver's tree (at most n / 64
bodies, parent more). Usage: let-boxes-model.py [N] [--alpha]
"""
import sys
import numpy as np

N = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 1 << 18
REL = "--alpha" in sys.argv
G, THETA, ALPHA, STRETCHES, CUT = 4, 1.0, 0.015, 256, 64
rng = np.random.default_rng(1)
A = 3 * np.pi / 16
r = A / np.sqrt(rng.uniform(0, 0.999, N) ** (-2 / 3) - 1)
u = rng.normal(size=(N, 3))
x = u / np.linalg.norm(u, axis=1)[:, None] * r[:, None]
x -= x.mean(0)
LO = x.min(0)
SIDE = (x.max(0) - LO).max() * 1.0001
ijk = np.floor((x - LO) / SIDE * (1 << 21)).astype(np.uint64)


def spread(v):
    k = np.zeros_like(v)
    for b in range(21):
        k |= ((v >> np.uint64(b)) & np.uint64(1)) << np.uint64(3 * b)
    return k


keys = spread(ijk[:, 0]) | spread(ijk[:, 1]) << np.uint64(1) | spread(ijk[:, 2]) << np.uint64(2)
dist = np.linalg.norm(x, axis=1)
acc = dist / (dist**2 + A * A) ** 1.5
sample = np.sort(keys)
split = [0] + [int(sample[k * N // G]) for k in range(1, G)] + [2**63]


def cells(k, most, stop_at_most):
    """Per level, the [begin, end) of the cells whose parent holds more than
    `most`; with stop_at_most, the cut (cells of <= most, parent more)."""
    out, cur, level = [], np.array([[0, len(k)]]), 0
    while len(cur):
        n = cur[:, 1] - cur[:, 0]
        out.append((level, cur[n <= most] if stop_at_most else cur))
        big = cur[n > most]
        level += 1
        if level > 21 or not len(big):
            break
        pre = k >> np.uint64(3 * (21 - level))
        ch = []
        for b, e in big:
            cut = np.flatnonzero(np.diff(pre[b:e])) + 1 + b
            bounds = np.concatenate([[b], cut, [e]])
            ch.append(np.stack([bounds[:-1], bounds[1:]], 1))
        cur = np.concatenate(ch)
    return out


doms = []
for d in range(G):
    sel = np.flatnonzero((keys >= np.uint64(split[d])) & (keys < np.uint64(split[d + 1])))
    o = np.argsort(keys[sel], kind="stable")
    k, p, a = keys[sel][o], x[sel][o], acc[sel][o]
    groups = np.concatenate([c for _, c in cells(k, 64, True)])
    groups = groups[np.argsort(groups[:, 0])]
    glo, ghi = np.minimum.reduceat(p, groups[:, 0]), np.maximum.reduceat(p, groups[:, 0])
    amin = np.minimum.reduceat(a, groups[:, 0])
    amean = np.add.reduceat(a, groups[:, 0]) / (groups[:, 1] - groups[:, 0])
    inv = 1 / (ALPHA * np.maximum(amin, 0.1 * amean))
    doms.append(dict(k=k, p=p, n=len(sel), groups=groups, glo=glo, ghi=ghi, inv=inv,
                     tree=cells(k, 16, False)))


def boxes(D, which):
    g = D["groups"]
    if which == "stretches":
        at, nb = g[:, 0] * STRETCHES // D["n"], STRETCHES
    else:
        cut = np.concatenate([c for _, c in cells(D["k"], max(D["n"] // CUT, 1), True)])
        starts = np.sort(cut[:, 0])
        at, nb = np.searchsorted(starts, g[:, 0], side="right") - 1, len(cut)
    lo, hi, inv = np.full((nb, 3), np.inf), np.full((nb, 3), -np.inf), np.zeros(nb)
    np.minimum.at(lo, at, D["glo"])
    np.maximum.at(hi, at, D["ghi"])
    np.maximum.at(inv, at, D["inv"])
    return lo, hi, inv


def opened(S, box):
    lo, hi, inv = box
    failed = total = 0
    for level, c in S["tree"]:
        n = c[:, 1] - c[:, 0]
        com = np.add.reduceat(S["p"], c[:, 0]) / n[:, None]
        side = SIDE / 2**level
        pre = S["k"][c[:, 0]] >> np.uint64(3 * (21 - level))
        idx = np.zeros((len(c), 3))
        for axis in range(3):
            v = pre >> np.uint64(axis)
            for b in range(level):
                idx[:, axis] += ((v >> np.uint64(3 * b)) & np.uint64(1)).astype(float) * 2**b
        delta = np.linalg.norm(com - (LO + (idx + 0.5) * side), axis=1)
        ropen2 = (side / THETA + delta) ** 2
        err = n / N * side**3
        for i in range(0, len(c), 4096):
            cc = com[i:i + 4096]
            dd = np.maximum(0, np.maximum(lo[None] - cc[:, None], cc[:, None] - hi[None]))
            d2 = (dd**2).sum(2)
            ok = d2 > ropen2[i:i + 4096, None]
            if REL:
                ok &= err[i:i + 4096, None] * inv[None] <= d2**2.5
            failed += (~ok.all(1)).sum()
        total += len(c)
    return failed / total


print(f"N {N}, {G} domains, theta {THETA}" + (f", alpha {ALPHA}" if REL else ", theta alone"))
for which in ("stretches", "cut"):
    shares = [f"{s}>{d} {opened(doms[s], boxes(doms[d], which)):.2f}"
              for s in range(G) for d in range(G) if s != d]
    print(f"{which:9s} boxes {len(boxes(doms[1], which)[0]):4d} (domain 1): " + " ".join(shares),
          flush=True)

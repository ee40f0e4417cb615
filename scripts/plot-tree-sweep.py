#!/usr/bin/env python3
"""plot-tree-sweep.py - the tree's accuracy/speed curve as a PNG for the docs.

Reads the theta sweep that `test_tree_gpu --bench` prints (the table under
"# 1M Plummer ... theta sweep" in its logs in docs/bench/: theta,
ms/step, build_ms, walk_ms, inter/body, depth, cells, leaves, median, p99,
max) and draws the median and 99th-percentile relative force error against
the milliseconds per whole step, one point per theta, with the issue's
accuracy goals and time budget as lines.

    pip install matplotlib
    scripts/plot-tree-sweep.py SWEEP.txt docs/tree-theta-sweep.png
"""
import sys


def read_sweep(path):
    rows, inside, device = [], False, "GPU"
    with open(path) as f:
        for line in f:
            if line.startswith("device:"):
                device = line.split(":", 1)[1].split(",")[0].strip()
            if line.startswith("#"):
                inside = "theta sweep" in line
                continue
            fields = line.split()
            if not inside or not fields or fields[0] == "theta":
                if inside and not fields and rows:
                    break
                continue
            try:
                theta, ms = float(fields[0]), float(fields[1])
                median, p99 = float(fields[8]), float(fields[9])
            except (ValueError, IndexError):
                continue
            rows.append((theta, ms, median, p99))
    if not rows:
        sys.exit(f"plot-tree-sweep: no theta sweep table in {path}\n"
                 "hint: pass the output of test_tree_gpu --bench")
    return rows, device


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot-tree-sweep.py SWEEP.txt OUT.png")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, device = read_sweep(sys.argv[1])
    theta = [r[0] for r in rows]
    ms = [r[1] for r in rows]
    fig, ax = plt.subplots(figsize=(7.5, 4.6), dpi=120)
    ax.plot(ms, [r[2] for r in rows], "o-", color="tab:blue", label="median error")
    ax.plot(ms, [r[3] for r in rows], "s-", color="tab:orange", label="99th percentile")
    for t, x, r in zip(theta, ms, rows):
        ax.annotate(f"θ {t:g}", (x, r[3]), textcoords="offset points", xytext=(4, 6),
                    fontsize=8)
    ax.axhline(1e-3, color="tab:blue", ls=":", lw=1, label="goal: median ≤ 1e-3")
    ax.axhline(1e-2, color="tab:orange", ls=":", lw=1, label="goal: 99th ≤ 1e-2")
    ax.axvline(5.0, color="grey", ls="--", lw=1, label="goal: 5 ms per step")
    ax.set_xscale("log")
    ax.set_yscale("log")
    from matplotlib.ticker import FormatStrFormatter
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(FormatStrFormatter("%g"))
    ax.set_xlabel(f"milliseconds per whole step (build + walk + integrate), {device}")
    ax.set_ylabel("relative force error |a − a_exact| / |a_exact|")
    ax.set_title("Barnes-Hut tree, 1,048,576-body Plummer sphere: accuracy against speed")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(sys.argv[2])
    print(f"plot-tree-sweep: wrote {sys.argv[2]} ({len(rows)} thetas)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""test_method.py - a force method added by touching sim/ and its one table.

    test_method.py NBODY_TEST_METHOD NBODY

NBODY_TEST_METHOD is nbody built with sim's C files compiled with
NBODY_TEST_METHOD, which adds one row to the CPU backend's method table
(sim/sim_cpu.c: "naive", a slow exact sum, with its forces); the app is the
very library nbody links. Nothing of app/ knows the row, so everything here
shows the app finding it through sim's table alone:
  - nbody --help lists it among the CPU's methods; plain nbody does not;
  - --variant naive on the CPU backend runs it: the status JSON names it;
  - K steps through reference, tree, naive and back to reference;
  - its bodies after a few steps match the reference's to rounding (an
    exact sum in another order), and the tree's do not (an approximation);
  - --benchmark --variant all times it as a row of its own, with N^2
    figures (an exact method);
  - the ladder chart (I) times it as a rung: the chart's toggle message
    counts three rungs to time.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

test_nbody, nbody = sys.argv[1], sys.argv[2]
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL:", what)


def run(binary, *args, cwd):
    r = subprocess.run([binary, *args], capture_output=True, text=True, cwd=cwd, timeout=120)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
    return r


def bodies(path):
    with open(path) as f:
        return [[float(x) for x in row[:7]] for row in csv.reader(f) if row and row[0][0] != "x"]


with tempfile.TemporaryDirectory() as tmp:
    common = ["--headless", "--backend", "cpu", "--n", "301", "--width", "64", "--height", "64"]

    # --help: the methods come from sim's tables.
    methods = run(test_nbody, "--help", cwd=tmp).stdout.split("methods (")[1].split("keys (")[0]
    check(" cpu  naive " in methods, "--help lists the added method:\n" + methods)
    plain = run(nbody, "--help", cwd=tmp).stdout.split("methods (")[1].split("keys (")[0]
    check(" cpu  naive " not in plain, "plain nbody has no such method")

    # --variant naive runs it, and the status names it.
    status = os.path.join(tmp, "s.json")
    r = run(test_nbody, *common, "--variant", "naive", "--frames", "4", "--status-json", status,
            "--dump", os.path.join(tmp, "naive.csv"), cwd=tmp)
    check(r.returncode == 0, "--variant naive ran: exit %d" % r.returncode)
    if r.returncode == 0:
        s = json.loads(open(status).read().splitlines()[-1])
        check(s["variant"] == "naive" and s["backend"] == "cpu" and s["p"] is None,
              "status: %s %s p %s" % (s["variant"], s["backend"], s["p"]))
    for variant in ("best", "tree"):
        run(test_nbody, *common, "--variant", variant, "--frames", "4",
            "--dump", os.path.join(tmp, variant + ".csv"), cwd=tmp)
    try:
        naive, ref, tree = (bodies(os.path.join(tmp, v + ".csv")) for v in ("naive", "best", "tree"))

        def worst(x, y):  # the largest relative difference of a position or velocity
            return max(abs(a - b) / max(abs(b), 1e-3) for p, q in zip(x, y) for a, b in
                       zip(p[:6], q[:6]))
        # Summed in another order, an exact sum differs by rounding: 1e-16
        # relative a term, a few hundred terms, 4 steps; 1e-10 leaves room
        # and still fails for an approximation, which the tree shows.
        check(len(naive) == 301 and worst(naive, ref) < 1e-10,
              "naive against the reference: %.3g" % worst(naive, ref))
        check(worst(tree, ref) > 1e-8, "the tree is not exact: %.3g" % worst(tree, ref))
    except (OSError, ValueError) as e:
        check(False, "dumps: %s" % e)

    # K steps through the table: reference -> tree -> naive -> reference.
    script = os.path.join(tmp, "k.txt")
    with open(script, "w") as f:
        f.write("1 K\n2 K\n3 K\n")
    lines = os.path.join(tmp, "lines.json")
    r = run(test_nbody, *common, "--frames", "5", "--script", script, "--status-json", lines,
            "--status-every", "1", cwd=tmp)
    seen = [json.loads(x)["variant"] for x in open(lines).read().splitlines()] if r.returncode == 0 else []
    check(seen[:5] == ["reference", "tree", "naive", "reference", "reference"],
          "K walks the CPU's table: %s" % seen)

    # The benchmark: its own row, N^2 figures (exact).
    bench = os.path.join(tmp, "b.json")
    r = run(test_nbody, "--benchmark", "--backend", "cpu", "--variant", "all", "--n", "200",
            "--steps", "1", "--json", bench, cwd=tmp)
    rows = json.load(open(bench))["rows"] if r.returncode == 0 else []
    names = [x["variant"] for x in rows]
    check(sorted(names) == ["naive", "reference", "tree"], "benchmark rows: %s" % names)
    for x in rows:
        if x["variant"] == "naive":
            check(x["method"] == "all-pairs" and (x["interactions_per_s"] or 0) > 0,
                  "naive's row: %s" % x)

    # The ladder chart: three rungs to time at this N.
    with open(script, "w") as f:
        f.write("0 I\n")
    r = run(test_nbody, *common, "--frames", "2", "--script", script, cwd=tmp)
    check("ladder chart at N = 301:" in r.stdout and "of 3 rungs to time" in r.stdout,
          "the chart's rungs: %s" % r.stdout)

print("test_method: %s" % ("FAIL" if failures else "ok"))
sys.exit(1 if failures else 0)

#!/usr/bin/env python3
"""test_numbers.py - every number nbody reads: the ends of every range, and
one grammar for every flag, --script line and environment variable.

    test_numbers.py NBODY

The cases come from `nbody --help-markdown`, made from the tables the parser
reads, so a knob or option added with a range is covered without touching
this file. A row's range reads "[whole, ][0, or ]LO … HI".

1. Ranges. For every row with a range:
   - LO and HI are accepted by the parser: "--flag VALUE --help" exits 0 only
     when VALUE parsed (test_cli checks that flags are parsed in order);
   - every knob (the first table) also runs a tiny headless scene at LO and at
     HI, exit 0: sim_create checks the values once more, and a knob narrowed to
     float refused its own documented minimum there (--dt 1e-6 became
     9.99999997e-07, "out of range", exit 1). Knobs whose help says "merger:"
     or "galaxies:" run in the merger scene; an end that needs a partner value
     (the orbit: separation >= pericenter, inside the apocentre when bound)
     gets it from PARTNER; ends that cannot run here are in PARSE_ONLY with the
     reason;
   - just outside (the neighbouring double for reals, LO - 1 and HI + 1 for
     whole numbers) is refused: exit 2, a "nbody: --flag 'TEXT'" line, then a
     "hint:" line whose numbers include LO and HI exactly. A number in the
     message line (the user's quoted text aside) within 1e-6 of the value must
     be the value exactly: values are printed so they read back.
   - in every preset's status JSON, each knob with a range is inside it (or
     null): the value the run uses, not a placeholder such as 0.
2. One grammar. In-range values written oddly get the same verdict from every
   numeric flag (parsed as above; WxH's width), from a --script line's frame
   number and from NBODY_TEST_RUNAWAY (run headless): accepted are +V, 0V (a
   leading zero), V in E notation (1.6E+1 for 16, 2.5E-1 for 0.25) and V with
   a trailing point; refused (exit 2) are " V", "V ", hexadecimal (0x10 and
   0x1p+4 forms), "V_0", "V..", "inf", "nan", "5e", "e5", "--V" and a
   non-ASCII digit. V is the range's LO, or HI where LO is negative.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from decimal import Decimal

nbody = sys.argv[1]
failures = 0
checks = 0
RUN = ["--headless", "--backend", "cpu", "--n", "8", "--frames", "1", "--width", "16",
       "--height", "16"]
PARTNER = {  # (flag, end): values that make the orbit at that end valid
    ("separation", "lo"): ["--pericenter", "0.001"],
    ("pericenter", "hi"): ["--separation", "100000"],
    ("eccentricity", "lo"): ["--pericenter", "8", "--separation", "8"],  # bound: start at r_p
}
PARSE_ONLY = {
    ("n", "hi"): "2^31 - 1 bodies need more memory than a test machine has",
    ("steps-per-frame", "hi"): "100,000 steps of the CPU backend take too long for CI",
}
ENV = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")


def check(ok, what, detail=""):
    global failures, checks
    checks += 1
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1
        if detail:
            print("     " + detail.replace("\n", "\n     "))


def nbody_run(args, env=None, timeout=60):
    r = subprocess.run([nbody, *args], capture_output=True, text=True, env=env or ENV,
                       timeout=timeout)
    return r.returncode, r.stderr


def parses(flag, value):
    """0 when --flag VALUE parses, 2 when refused (nothing runs: --help follows)."""
    return nbody_run(["--" + flag, value, "--help"])[0]


# ---- the tables -------------------------------------------------------------

markdown = subprocess.run([nbody, "--help-markdown"], capture_output=True, text=True,
                          check=True).stdout
rows = []  # (table, flag, metavar, whole, zero_ok, lo, hi, help)
table = None
for line in markdown.splitlines():
    if line.startswith("## "):
        table = line[3:]
    m = re.match(r"\| `--([a-z0-9-]+)(?: ([^`]*))?` \| (.*?) \| (.*?) \| (.*) \|$", line)
    if not m or table not in ("Knobs", "Running and output"):
        continue
    flag, metavar, _default, rng, helptext = m.groups()
    r = re.match(r"(whole, )?(0, or )?(\S+) … (\S+)$", rng)
    if r:
        rows.append((table, flag, metavar or "", bool(r.group(1)), bool(r.group(2)), r.group(3),
                     r.group(4), helptext))
check(sum(1 for r in rows if r[0] == "Knobs") >= 10 and len(rows) >= 18,
      f"--help-markdown: {len(rows)} ranges found", markdown)


def outside(whole, text, direction):
    """The value just beyond the end `text`, as a string."""
    if whole:
        return str(int(text) + direction)
    return repr(math.nextafter(float(text), direction * math.inf))


def numbers(text):
    return [float(t) for t in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", text)]


def value_arg(metavar, text):
    return f"{text}x16" if metavar == "WxH" else text


# ---- 1. the ends of every range ----------------------------------------------

for table, flag, metavar, whole, zero_ok, lo, hi, helptext in rows:
    ends = [("lo", lo), ("hi", hi)] + ([("zero", "0")] if zero_ok else [])
    for end, text in ends:
        rc = parses(flag, value_arg(metavar, text))
        check(rc == 0, f"--{flag} {text} ({end} end) parses", f"exit {rc}")
        if table != "Knobs":
            continue
        if (flag, end) in PARSE_ONLY:
            print(f"note --{flag} {text}: parsed only ({PARSE_ONLY[(flag, end)]})")
            continue
        args = [a for a in RUN]
        if flag == "n":
            i = args.index("--n")
            del args[i:i + 2]
        if flag in ("p", "q"):  # --backend cpu refuses them; the machine's backend
            del args[1:3]
        if helptext.startswith(("merger:", "galaxies:")):
            args += ["--ic", "merger"]
        args += PARTNER.get((flag, end), []) + ["--" + flag, text]
        rc, err = nbody_run(args)
        check(rc == 0, f"--{flag} {text} ({end} end) runs", f"{' '.join(args)}: exit {rc}\n{err}")
    for end, text, direction in (("lo", lo, -1), ("hi", hi, +1)):
        value = outside(whole, text, direction)
        rc, err = nbody_run(RUN + ["--" + flag, value_arg(metavar, value)])
        lines = err.splitlines()
        message = next((l for l in lines if l.startswith(f"nbody: --{flag} '")), None)
        hint = next((l for l in lines if l.startswith("hint: ")), None)
        ok = rc == 2 and message is not None and hint is not None
        check(ok, f"--{flag} {value} (past the {end} end) refused", f"exit {rc}\n{err}")
        if not ok:
            continue
        said = numbers(re.sub(r"'[^']*'", "", message))
        near = [x for x in said if abs(x - float(value)) <= 1e-6 * abs(float(value))]
        check(all(x == float(value) for x in near),
              f"--{flag} {value}: the message's value reads back exactly", message)
        ends_said = numbers(hint.replace("2^53", ""))
        check(float(lo) in ends_said and float(hi) in ends_said,
              f"--{flag} {value}: the hint gives the range {lo} … {hi} exactly", hint)

# The status JSON reports each knob at the value the run uses: inside its
# range (or null where the scene has none), in every scene, never a
# placeholder such as 0 for "the default".
knob_ranges = {flag: (float(lo), float(hi), zero_ok)
               for table, flag, metavar, whole, zero_ok, lo, hi, helptext in rows
               if table == "Knobs" and metavar != "WxH"}
status_path = os.path.join(tempfile.mkdtemp(prefix="test_numbers."), "s.json")
for preset in ("plummer", "shell", "disk", "antennae-like", "retrograde", "minor-merger",
               "milky-way-andromeda"):
    args = [a for a in RUN if a not in ("--n", "8")] + ["--n", "600", "--preset", preset,
                                                        "--status-json", status_path]
    rc, err = nbody_run(args)
    if rc != 0:
        check(False, f"--preset {preset} runs for its status", f"exit {rc}\n{err}")
        continue
    with open(status_path) as f:
        status = json.loads(f.readline())
    bad = [(k, status.get(k)) for k, (lo, hi, zero_ok) in knob_ranges.items()
           if isinstance(status.get(k), (int, float)) and not isinstance(status.get(k), bool)
           and not (lo <= status[k] <= hi or (zero_ok and status[k] == 0))]
    check(not bad, f"--preset {preset}: every knob in the status JSON within its range",
          f"out of range: {bad}")

# ---- 2. one grammar ---------------------------------------------------------


def spellings(v):
    """(spelling, accepted) of the number v (a string)."""
    out = [("+" + v, True), ("0" + v, True), (format(Decimal(v), "E"), True),
           (" " + v, False), (v + " ", False), ("0x1p+4", False), (v + "_0", False),
           (v + "..", False), ("inf", False), ("nan", False), ("5e", False), ("e5", False),
           ("--" + v, False), ("\u0665", False)]
    if "." not in v and "e" not in v:
        out += [(v + ".", True), (hex(int(v)), False)]
    return out


for table, flag, metavar, whole, zero_ok, lo, hi, helptext in rows:
    v = lo if not lo.startswith("-") else hi
    for i, (s, accepted) in enumerate(spellings(v)):
        rc = parses(flag, value_arg(metavar, s))
        check(rc == (0 if accepted else 2),
              f"--{flag} {s!r}: {'accepted' if accepted else 'refused'}", f"exit {rc}")

with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "s.txt")
    for s, accepted in spellings("0"):
        if s != s.strip():
            continue  # a script line's words are split at spaces
        with open(script, "w") as f:
            f.write(f"{s} Space\n")
        rc, err = nbody_run(RUN + ["--script", script])
        check(rc == (0 if accepted else 2),
              f"--script line '{s} Space': {'accepted' if accepted else 'refused'}",
              f"exit {rc}\n{err}")
    for s, accepted in spellings("5"):  # a frame past --frames 1: no blow-up
        rc, err = nbody_run(RUN, env=dict(ENV, NBODY_TEST_RUNAWAY=s))
        check(rc == (0 if accepted else 2),
              f"NBODY_TEST_RUNAWAY={s!r}: {'accepted' if accepted else 'refused'}",
              f"exit {rc}\n{err}")

print(f"test_numbers: {checks} checks, {failures} failure(s)")
sys.exit(1 if failures else 0)

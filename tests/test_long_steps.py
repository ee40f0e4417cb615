#!/usr/bin/env python3
"""test_long_steps.py - long CPU steps: stopped within a block, said at start-up,
and not reached by several + in one frame.

    test_long_steps.py NBODY

On the CPU backend (nbody --backend cpu), where a step of 200,000 bodies and
its first energy sample (an O(N^2) sum) take from seconds to minutes:
  - headless, SIGTERM 2 s after the start-up warning: exit 143 within 10 s (the time to
    write 200,000 lines of --dump under AddressSanitizer, with room), the
    dump whole (200,000 bodies) and the status JSON parsed; stderr warns at
    start-up, one line with the estimate and a hint line naming the way out;
    a run of 4,096 bodies gives no warning;
  - in the window (Xvfb): Esc pressed 2 s after it (through the XTest extension;
    skipped where libXtst is missing) quits with 0 within 10 s, and SIGTERM
    with 143; the status JSON names the 200,000 bodies;
  - --script: six "5 +" from 4,096 bodies and twenty "0 +" from 1 body stop
    growing where a step would take over ~3 s here (the message says why):
    N stays below 262,144 and 1,048,576, which without the guard are reached
    in one frame (and their first step takes minutes).
Each run is bounded by a timeout, so the test fails instead of hanging.
"""
import ctypes
import ctypes.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

nbody = sys.argv[1]
failures = 0
BIG = 200000


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    failures += 0 if ok else 1


def wait(p, limit):
    """The exit status within limit seconds, or None (then the process is killed)."""
    try:
        return p.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None


def stopped_after(tmp, name, extra, stop, env=None):
    """Starts nbody, stops it with stop(p) 2 s after its start-up warning (or 60 s in,
    without one); (status, seconds it took, stderr)."""
    err = open(os.path.join(tmp, name + ".err"), "w+")
    p = subprocess.Popen([nbody, "--backend", "cpu", "--n", str(BIG), "--width", "320",
                          "--height", "200", *extra], stdout=subprocess.DEVNULL, stderr=err,
                         env=env)
    for _ in range(600):
        err.seek(0)
        if "warning" in err.read() or p.poll() is not None:
            break
        time.sleep(0.1)
    time.sleep(2)  # into the first step, or the window's first frame
    t0 = time.monotonic()
    stop(p)
    rc = wait(p, 10)
    took = time.monotonic() - t0
    err.seek(0)
    return rc, took, err.read()


def headless(tmp):
    dump, status = os.path.join(tmp, "d.csv"), os.path.join(tmp, "s.json")
    rc, took, err = stopped_after(tmp, "headless", ["--headless", "--frames", "3", "--dump", dump,
                                                    "--status-json", status],
                                  lambda p: p.send_signal(signal.SIGTERM))
    print(err)
    check(rc == 143, f"headless, SIGTERM during the first step: exit {rc} after {took:.1f} s")
    if rc == 143:
        lines = open(dump).read().splitlines()
        check(len(lines) == BIG + 1 and lines[0].startswith("x,y,z"),
              f"the dump is whole: {len(lines) - 1} bodies")
        s = json.loads(open(status).read().splitlines()[-1])
        check(s["n"] == BIG, f"the status JSON parses: n {s['n']}")
    warn = [line for line in err.splitlines() if "warning:" in line]
    check(len(warn) == 1 and f"a step of {BIG} bodies" in warn[0] and "~" in warn[0],
          f"start-up warning: {warn}")
    hint = err.splitlines()[err.splitlines().index(warn[0]) + 1] if warn else ""
    check(hint.startswith("hint:") and ("--theta" in hint or "--variant tree" in hint),
          f"and its hint: {hint}")
    small = subprocess.run([nbody, "--headless", "--backend", "cpu", "--n", "4096", "--frames",
                            "1", "--width", "64", "--height", "64"], capture_output=True,
                           text=True, timeout=120)
    check(small.returncode == 0 and "warning" not in small.stderr,
          f"4096 bodies: no warning ({small.stderr.strip()!r})")


def x11():
    x = ctypes.CDLL(ctypes.util.find_library("X11"))
    x.XOpenDisplay.restype = ctypes.c_void_p
    return x


def start_xvfb():
    """An Xvfb that answers, and its display. A display number another
    server holds (its lock file out of our sight) makes Xvfb exit or not
    answer, so numbers are tried until one does."""
    for number in range(120, 160):
        xvfb = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1280x800x24",
                                 "-nolisten", "tcp"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        for _ in range(50):
            time.sleep(0.1)
            if xvfb.poll() is not None:
                break
            dpy = x11().XOpenDisplay(f":{number}".encode())
            if dpy:
                x11().XCloseDisplay(ctypes.c_void_p(dpy))
                return xvfb, f":{number}"
        xvfb.kill()
        xvfb.wait()
    return None, None


def press_escape(display):
    """Esc through XTest (the pointer first over the window at the top left)."""
    x = x11()
    xtst = ctypes.CDLL(ctypes.util.find_library("Xtst"))
    dpy = ctypes.c_void_p(x.XOpenDisplay(display.encode()))
    xtst.XTestFakeMotionEvent(dpy, -1, 40, 40, 0)
    code = x.XKeysymToKeycode(dpy, ctypes.c_ulong(0xff1b))  # XK_Escape
    xtst.XTestFakeKeyEvent(dpy, code, 1, 0)
    xtst.XTestFakeKeyEvent(dpy, code, 0, 0)
    x.XFlush(dpy)
    x.XCloseDisplay(dpy)


def window(tmp):
    if (subprocess.run(["sh", "-c", "command -v Xvfb"], capture_output=True).returncode != 0 or
            not ctypes.util.find_library("X11")):
        print("skip the window: no Xvfb or libX11")
        return
    xvfb, display = start_xvfb()
    check(xvfb is not None, f"Xvfb answers on {display}")
    if xvfb is None:
        return
    env = dict(os.environ, DISPLAY=display)
    try:
        status = os.path.join(tmp, "w.json")
        if ctypes.util.find_library("Xtst"):
            rc, took, err = stopped_after(tmp, "esc", ["--status-json", status],
                                          lambda p: press_escape(display), env)
            print(err)
            check(rc == 0, f"window, Esc during the first step: exit {rc} after {took:.1f} s")
            if rc == 0:
                s = json.loads(open(status).read().splitlines()[-1])
                check(s["n"] == BIG, f"the status JSON: n {s['n']}")
        else:
            print("skip Esc in the window: no libXtst")
        rc, took, err = stopped_after(tmp, "term", [], lambda p: p.send_signal(signal.SIGTERM),
                                      env)
        check(rc == 143, f"window, SIGTERM during the first step: exit {rc} after {took:.1f} s")
    finally:
        xvfb.terminate()
        xvfb.wait()


def script_plus(tmp, name, n, lines, frames, below):
    path = os.path.join(tmp, name + ".txt")
    open(path, "w").write(lines)
    status = os.path.join(tmp, name + ".json")
    try:
        res = subprocess.run([nbody, "--headless", "--backend", "cpu", "--n", str(n), "--frames",
                              str(frames), "--width", "64", "--height", "64", "--script", path,
                              "--status-json", status], capture_output=True, text=True,
                             timeout=90)
    except subprocess.TimeoutExpired:
        check(False, f"{name}: still running after 90 s (the + guard let N grow too far)")
        return
    final = json.loads(open(status).read().splitlines()[-1])["n"]
    refused = [line for line in res.stdout.splitlines() if "N stays" in line]
    check(res.returncode == 0 and n < final < below and refused and "would take about" in
          refused[0], f"{name}: N {n} -> {final} (< {below}); {refused[:1]}")


with tempfile.TemporaryDirectory() as tmp:
    headless(tmp)
    window(tmp)
    script_plus(tmp, "six + in frame 5", 4096, "5 +\n" * 6, 6, 262144)
    script_plus(tmp, "twenty + in frame 0", 1, "0 +\n" * 20, 1, 1048576)
print("test_long_steps: " + ("all checks passed" if failures == 0 else f"{failures} failed"))
sys.exit(1 if failures else 0)

"""checks.py - what the Python tests share: check() prints each check and
counts the failures, done() prints the verdict and exits with the test's
status. A test imports it from its own folder (Python puts a script's folder
first on its path)."""
import sys

failures = 0


def check(ok, what):
    """Prints "ok   WHAT" or "FAIL WHAT" and counts a failure; returns ok."""
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1
    return ok


def failed():
    """How many checks have failed so far."""
    return failures


def done(name):
    """Prints NAME's verdict and exits: 0 when every check passed, else 1."""
    print(f"{name}: " + ("all passed" if failures == 0 else f"{failures} failed"))
    sys.exit(1 if failures else 0)

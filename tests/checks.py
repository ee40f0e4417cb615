"""checks.py - what the Python tests share: check() prints each check and
counts the failures, done() prints the verdict and exits with the test's
status; png_decode() reads the PNGs the program writes. A test imports it
from its own folder (Python puts a script's folder first on its path)."""
import struct
import sys
import zlib

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


def png_decode(path):
    """An 8-bit RGB or RGBA, non-interlaced PNG (what stb_image_write makes)
    -> (width, height, bytes per pixel, rows of bytes, top row first)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w, h, bpp = 8, b"", 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "not 8-bit RGB(A)"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows

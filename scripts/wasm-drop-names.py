#!/usr/bin/env python3
"""Removes the "name" custom section (function names for stack traces) from a wasm module,
in place: for tract's module it is ~2.8 MB raw / ~0.65 MB gzip of the network Worker.
Panics still print their message; stack traces show wasm-function[N] instead of names.
    scripts/wasm-drop-names.py MODULE.wasm"""
import sys


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


path = sys.argv[1]
d = open(path, "rb").read()
assert d[:4] == b"\0asm", f"{path}: not a wasm module"
out, i = bytearray(d[:8]), 8
while i < len(d):
    start, sid = i, d[i]
    size, i = leb(d, i + 1)
    end = i + size
    if sid == 0:
        n, j = leb(d, i)
        if d[j : j + n] == b"name":
            i = end
            continue
    out += d[start:end]
    i = end
open(path, "wb").write(out)

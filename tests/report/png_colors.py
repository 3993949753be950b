#!/usr/bin/env python3
"""Counts the pixels of a PNG screenshot near given colours, so a test can tell a rendered plot
from a blank page. Standard library only (zlib): 8-bit RGB or RGBA, non-interlaced, as Chromium
writes its screenshots.

  png_colors.py FILE [#rrggbb ...]
prints "WIDTHxHEIGHT non-white N" and one line "#rrggbb N" per colour (within 40 per channel).
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        sys.exit(f"{path}: only 8-bit RGB(A) non-interlaced PNGs are supported")
    return width, height, channels, unfilter(zlib.decompress(idat), width, height, channels)


def unfilter(raw, width, height, bpp):
    stride = width * bpp
    rows, previous, pos = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = previous[i], previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(line)
        previous = line
    return rows


def main():
    width, height, channels, rows = read_png(sys.argv[1])
    targets = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in sys.argv[2:]]
    counts = [0] * len(targets)
    non_white = 0
    for line in rows:
        for x in range(0, width * channels, channels):
            r, g, b = line[x], line[x + 1], line[x + 2]
            if r < 245 or g < 245 or b < 245:
                non_white += 1
                for k, (tr, tg, tb) in enumerate(targets):
                    if abs(r - tr) <= 40 and abs(g - tg) <= 40 and abs(b - tb) <= 40:
                        counts[k] += 1
    print(f"{width}x{height} non-white {non_white}")
    for colour, count in zip(sys.argv[2:], counts):
        print(f"{colour} {count}")


if __name__ == "__main__":
    main()

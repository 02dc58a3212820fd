#!/usr/bin/env python3
"""Writes PWG Raster (PWG 5102.4) and Apple Raster (URF) test pages for receipt's IPP tests,
from the formats' published layouts, not from receipt's code and without libcups (the daemon
reads them with libcups). Each page is white with a solid black bar across its first and last
`bar` rows (so the printed page's first and last inked rows give its length), and a band of
50 % gray in the middle (so a dithered print shows both inks there).

  raster_writer.py pwg TYPE DPI WIDTH_MM LENGTH_MM OUT      TYPE: black_1 sgray_8 srgb_8 cmyk_8 srgb_16
  raster_writer.py urf TYPE DPI WIDTH_MM LENGTH_MM OUT      TYPE: W8 SRGB24
  raster_writer.py samples DIR DPI                           the tree ipp-everywhere.test reads

PWG page header: 1796 bytes, big-endian, after the file's "RaS2": the cups_page_header2_t
fields (HWResolution at 276, PageSize at 352, Width 372, Height 376, BitsPerColor 384,
BitsPerPixel 388, BytesPerLine 392, ColorOrder 396, ColorSpace 400, NumColors 420,
TotalPageCount 452, PwgRaster in MediaClass 0). Lines: a repeat byte (n+1 copies), then
packets: c 0-127 the next pixel repeated c+1 times, c 129-255 257-c literal pixels.
URF: "UNIRAST\\0", a big-endian page count, then per page a 32-byte header (bits per pixel,
color space 0 = sGray / 1 = sRGB, duplex, quality, 8 bytes of media fields, width, height,
resolution as big-endian 32-bit numbers at 12, 16 and 20, 8 reserved bytes) and the same
line coding as PWG.
"""
import os
import struct
import sys

MM = 25.4


def pixels(kind, width, height, bar):
    """(bytes per pixel unit, rows) of the test page in the pixel format `kind`."""
    spec = {
        "black_1": (1, None), "sgray_8": (1, (0,)), "W8": (1, (0,)), "srgb_8": (3, (0, 0, 0)),
        "SRGB24": (3, (0, 0, 0)), "cmyk_8": (4, (0, 0, 0, 255)), "srgb_16": (6, (0,) * 6),
    }[kind]
    unit, black = spec
    if kind == "black_1":
        line = lambda v: bytes([0xFF if v == 0 else 0x00]) * ((width + 7) // 8)
        half = bytes([0xAA, 0x55]) * ((width + 15) // 16)
        gray = lambda y: (half if y % 2 == 0 else half[1:] + half[:1])[:(width + 7) // 8]
    else:
        white = {1: (255,), 3: (255, 255, 255), 4: (0, 0, 0, 0), 6: (255,) * 6}[unit]
        mid = {1: (128,), 3: (128, 128, 128), 4: (0, 0, 0, 128), 6: (128, 0) * 3}[unit]
        line = lambda v: bytes(black if v == 0 else white) * width
        gray = lambda y: bytes(mid) * width
    rows = []
    for y in range(height):
        if y < bar or y >= height - bar:
            rows.append(line(0))
        elif height * 2 // 5 <= y < height * 3 // 5:
            rows.append(gray(y))
        else:
            rows.append(line(255))
    return (1 if kind == "black_1" else unit), rows


def encode_line(line, unit):
    out = bytearray()
    units = [line[i:i + unit] for i in range(0, len(line), unit)]
    i = 0
    while i < len(units):
        run = 1
        while i + run < len(units) and run < 128 and units[i + run] == units[i]:
            run += 1
        if run > 1:
            out += bytes([run - 1]) + units[i]
            i += run
            continue
        start = i
        while i < len(units) and i - start < 128 and (i + 1 >= len(units) or units[i + 1] != units[i]):
            i += 1
        if i == start:
            i += 1
        out += bytes([257 - (i - start)]) + b"".join(units[start:i])
    return bytes(out)


def encode_rows(rows, unit):
    out = bytearray()
    i = 0
    while i < len(rows):
        repeat = 1
        while i + repeat < len(rows) and repeat < 256 and rows[i + repeat] == rows[i]:
            repeat += 1
        out += bytes([repeat - 1]) + encode_line(rows[i], unit)
        i += repeat
    return bytes(out)


def pwg(kind, dpi, width_mm, length_mm):
    width = round(width_mm / MM * dpi)
    height = round(length_mm / MM * dpi)
    bits, space, colors = {
        "black_1": (1, 3, 1), "sgray_8": (8, 18, 1), "srgb_8": (8, 19, 3), "cmyk_8": (8, 6, 4),
        "srgb_16": (16, 19, 3),
    }[kind]
    unit, rows = pixels(kind, width, height, bar=max(2, dpi // 25))
    header = bytearray(1796)
    header[0:9] = b"PwgRaster"
    put = lambda offset, value: struct.pack_into(">I", header, offset, value)
    put(276, dpi), put(280, dpi)
    put(352, round(width_mm / MM * 72)), put(356, round(length_mm / MM * 72))
    put(372, width), put(376, height), put(384, bits), put(388, bits * colors)
    put(392, len(rows[0])), put(396, 0), put(400, space), put(420, colors), put(452, 1)
    return b"RaS2" + bytes(header) + encode_rows(rows, unit)


def urf(kind, dpi, width_mm, length_mm):
    width = round(width_mm / MM * dpi)
    height = round(length_mm / MM * dpi)
    bpp, space = {"W8": (8, 0), "SRGB24": (24, 1)}[kind]
    unit, rows = pixels(kind, width, height, bar=max(2, dpi // 25))
    header = struct.pack(">BBBB8xIII8x", bpp, space, 1, 4, width, height, dpi)
    return b"UNIRAST\0" + struct.pack(">I", 1) + header + encode_rows(rows, unit)


def samples(directory, dpi):
    """Every file ipp-everywhere.test names: real pages at `dpi`, empty files for the rest (the
    tests of resolutions the printer does not have are skipped, but the files must exist)."""
    sizes = {"color.jpg-4x6": (101.6, 152.4), "gray.jpg-4x6": (101.6, 152.4), "document-a4": (210, 297),
             "document-letter": (215.9, 279.4), "onepage-a4": (210, 297), "onepage-letter": (215.9, 279.4)}
    for resolution in (150, 180, 300, 360, 600, 720):
        for kind in ("black-1", "cmyk-8", "sgray-8", "srgb-8", "srgb-16"):
            folder = os.path.join(directory, f"pwg-raster-samples-{resolution}dpi", kind)
            os.makedirs(folder, exist_ok=True)
            for name, (w, h) in sizes.items():
                path = os.path.join(folder, f"{name}-{kind}-{resolution}dpi.pwg")
                real = resolution == dpi and kind in ("black-1", "sgray-8", "srgb-8")
                with open(path, "wb") as f:
                    f.write(pwg(kind.replace("-", "_"), dpi, w, h) if real else b"")


def main():
    mode = sys.argv[1]
    if mode == "samples":
        samples(sys.argv[2], int(sys.argv[3]))
        return
    kind, dpi, width, length, out = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
    data = pwg(kind, dpi, width, length) if mode == "pwg" else urf(kind, dpi, width, length)
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()

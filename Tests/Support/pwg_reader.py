#!/usr/bin/env python3
"""An independent PWG / CUPS raster reader for receipt's tests, written from the PWG 5102.4
specification (and CUPS' raster format documentation for version 3), not from receipt's writer
and without libcups. Reads a stream on stdin; prints one JSON line per page: the header fields
the tests check and the pixel rows as hex.

Header (1796 bytes after the 4-byte sync word; big-endian for "RaS2"/"RaS3", little-endian when
CUPS wrote version 3 in a little-endian host's order, sync "3SaR"):
  276 HWResolution[2]  352 PageSize[2]  372 Width  376 Height  384 BitsPerColor
  388 BitsPerPixel  392 BytesPerLine  400 ColorSpace  404 Compression  452 TotalPageCount
PWG ("RaS2") compresses each line: a line-repeat byte (n+1 copies of the line), then packets of
a byte c: 0-127 -> the next pixel unit repeated c+1 times; 129-255 -> 257-c literal units;
128 is not used. A unit is one byte when BitsPerPixel <= 8. Version 3 ("RaS3") is uncompressed.
"""
import json
import struct
import sys


def main():
    data = sys.stdin.buffer.read()
    sync = data[:4]
    if sync not in (b"RaS2", b"RaS3", b"3SaR"):
        raise SystemExit(f"not PWG or CUPS v3 raster: {sync!r}")
    order = "<" if sync == b"3SaR" else ">"
    i = 4
    while i < len(data):
        header = data[i:i + 1796]
        if len(header) < 1796:
            raise SystemExit("truncated header")
        i += 1796
        u = lambda offset: struct.unpack(order + "I", header[offset:offset + 4])[0]
        page = {
            "mediaClass": header[0:64].split(b"\0")[0].decode(),
            "resolution": [u(276), u(280)], "pageSize": [u(352), u(356)], "width": u(372), "height": u(376),
            "bitsPerColor": u(384), "bitsPerPixel": u(388), "bytesPerLine": u(392), "colorSpace": u(400),
            "totalPageCount": u(452),
        }
        bpl, height = page["bytesPerLine"], page["height"]
        unit = max(1, page["bitsPerPixel"] // 8)
        rows = []
        if sync != b"RaS2":
            for _ in range(height):
                rows.append(data[i:i + bpl])
                i += bpl
        else:
            while len(rows) < height:
                repeat = data[i] + 1
                i += 1
                line = bytearray()
                while len(line) < bpl:
                    c = data[i]
                    i += 1
                    if c < 128:
                        line += data[i:i + unit] * (c + 1)
                        i += unit
                    elif c > 128:
                        count = (257 - c) * unit
                        line += data[i:i + count]
                        i += count
                    else:
                        raise SystemExit("packet byte 128 is not used by PWG raster")
                if len(line) != bpl:
                    raise SystemExit(f"line of {len(line)} bytes, header says {bpl}")
                rows.extend([bytes(line)] * repeat)
            if len(rows) != height:
                raise SystemExit("line repeats run past the page")
        page["rows"] = "".join(r.hex() for r in rows)
        print(json.dumps(page))


if __name__ == "__main__":
    main()

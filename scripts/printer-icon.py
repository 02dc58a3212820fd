#!/usr/bin/env python3
"""Draws the IPP printers' icon (`printer-icons`, PWG 5100.13: 48, 128 and 512 pixels square)
into Sources/ReceiptServer/Resources/printer-icon-SIZE.png: a receipt printer with a receipt
coming out. Geometry in a 128-unit square, scaled; drawn 4x larger and reduced (smooth edges).
Run once when the icon changes; the PNGs are committed (Pillow is not needed to build)."""
import pathlib
from PIL import Image, ImageDraw

BODY, SLOT, DARK, PAPER, EDGE, INK, LED = (
    (90, 98, 108), (52, 58, 64), (20, 22, 24), (255, 255, 255), (200, 200, 200), (40, 40, 40), (76, 175, 80))
LINES = [(20, 89), (29, 75), (38, 83), (47, 69), (56, 89)]  # y, right end; lines start at x 38


def draw(size: int) -> Image.Image:
    scale = size * 4 / 128
    image = Image.new("RGBA", (size * 4, size * 4), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)

    def box(x0, y0, x1, y1, fill, radius=0):
        shape = [x0 * scale, y0 * scale, x1 * scale, y1 * scale]
        if radius:
            pen.rounded_rectangle(shape, radius=radius * scale, fill=fill)
        else:
            pen.rectangle(shape, fill=fill)

    box(10, 62, 118, 118, BODY, radius=9)                 # the printer
    box(10, 62, 118, 78, SLOT, radius=9)                  # its top
    box(10, 70, 118, 78, SLOT)
    box(30, 8, 98, 72, EDGE)                              # the receipt, its edges
    box(31, 8, 97, 72, PAPER)
    for y, right in LINES:                                # printed lines
        box(38, y, right + 1, y + 3, INK)
    box(60, 64, 90, 67, INK)                              # the total
    box(24, 72, 104, 74, DARK)                            # the paper exit
    pen.ellipse([97.5 * scale, 93.5 * scale, 107.5 * scale, 103.5 * scale], fill=LED)
    return image.resize((size, size), Image.LANCZOS)


if __name__ == "__main__":
    resources = pathlib.Path(__file__).resolve().parent.parent / "Sources/ReceiptServer/Resources"
    for size in (48, 128, 512):
        draw(size).save(resources / f"printer-icon-{size}.png", optimize=True)
        print(resources / f"printer-icon-{size}.png")

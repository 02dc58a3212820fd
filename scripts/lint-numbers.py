#!/usr/bin/env python3
"""Refuses unchecked floating-point → integer conversions in Sources/ (part of `make lint`).

`Int(x)` of a Double traps on NaN, infinity or a value outside Int's range, and in the daemon a
trap stops every printer; numbers come from IPP clients, PDFs and templates. Convert with
`roundedInt(in:)` (nil when out of range) or `clampedInt(in:)` (ReceiptModel/CheckedNumber.swift).

A conversion is flagged when an integer type is called on an expression that is visibly
floating point: it rounds (`.rounded(`), converts (`Double(`, `Float(`), measures (`.points`,
`.millimetres`, `.dots(`, `.inches`) or counts time (`timeInterval`, `TimeInterval`). Labelled
initialisers that cannot trap on a float (`exactly:`, `clamping:`, `truncatingIfNeeded:`,
`bitPattern:`) are not flagged. A line may opt out with `// lint-numbers: <why it is bounded>`.
"""
import pathlib
import re
import sys

INTEGER = re.compile(r"\b(U?Int(?:8|16|32|64)?|time_t|suseconds_t|useconds_t)\(")
FLOATING = re.compile(
    r"\.rounded\(|\bDouble\(|\bFloat\(|\bCGFloat\(|\.points\b|\.millimetres\b|\.dots\(|\.inches\b"
    r"|timeInterval|TimeInterval|\bpow\(|\bsqrt\(|\bceil\(|\bfloor\(|\blog2?\(")
LABELLED = ("exactly:", "clamping:", "truncatingIfNeeded:", "bitPattern:", "rawValue:", "_ ")


def argument(line: str, start: int) -> str:
    """The text inside the parentheses that open at `start` (on this line)."""
    depth = 0
    for i in range(start, len(line)):
        if line[i] == "(":
            depth += 1
        elif line[i] == ")":
            depth -= 1
            if depth == 0:
                return line[start + 1 : i]
    return line[start + 1 :]


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    found = []
    for path in sorted((root / "Sources").rglob("*.swift")):
        if path.name == "CheckedNumber.swift":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//", 1)[0] if "lint-numbers:" not in line else ""
            for match in INTEGER.finditer(code):
                inside = argument(code, match.end() - 1)
                if inside.startswith(LABELLED):
                    continue
                if FLOATING.search(inside):
                    found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    for line in found:
        print(line)
    if found:
        print(
            f"lint-numbers: {len(found)} unchecked floating-point conversion(s); use roundedInt(in:) or "
            "clampedInt(in:) (ReceiptModel/CheckedNumber.swift), or say why the value is bounded with "
            "`// lint-numbers: …`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

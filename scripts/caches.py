#!/usr/bin/env python3
"""Every process-wide cache, pool or table of the engine is listed in one place: ARCHITECTURE.md's
"Process-wide caches" table. Finds each `static let` of a shared instance, an engine context
(`process`) or a locked table in the engine's modules (Model, Markup, Layout, Render, Print) and
fails when the table does not name it as `Type.property` (or the type alone for a `shared`
instance).   (run by `make lint`)"""
import glob, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = ["ReceiptModel", "ReceiptMarkup", "ReceiptLayout", "ReceiptRender", "ReceiptPrint"]
text = open(os.path.join(ROOT, "ARCHITECTURE.md")).read()
start = text.find("## Process-wide caches")
if start < 0:
    sys.exit("caches: ARCHITECTURE.md has no '## Process-wide caches' section")
section = text[start:text.find("\n## ", start + 1) if text.find("\n## ", start + 1) > 0 else len(text)]
declaration = re.compile(r"^\s*(?:private |fileprivate |package )?static let (\w+)(?:\s*:[^=]*)?\s*=\s*(Locked\b|(\w+)\(|\w+\?)")
enclosing = re.compile(r"^(?:(?:public|package|private|fileprivate|final|@\w+(?:\([^)]*\))?) )*(?:extension|struct|class|enum|actor) (\w+)")
missing, found = [], 0
for module in MODULES:
    for path in sorted(glob.glob(os.path.join(ROOT, "Sources", module, "**", "*.swift"), recursive=True)):
        owner = None
        for number, line in enumerate(open(path), 1):
            if m := enclosing.match(line):
                owner = m.group(1)
            m = declaration.match(line)
            if not m or not (m.group(1) in ("shared", "process") or m.group(2) == "Locked"):
                continue
            found += 1
            name = f"{owner}.{m.group(1)}"
            if f"`{name}`" not in section and not (m.group(1) == "shared" and f"`{owner}`" in section):
                missing.append(f"{os.path.relpath(path, ROOT)}:{number}: {name}")
for entry in missing:
    print(f"caches: {entry} is process-wide and not in ARCHITECTURE.md's 'Process-wide caches' table; add it "
          "(what it keeps, its bound, when it lets go)", file=sys.stderr)
if missing:
    sys.exit(1)
print(f"caches: {found} process-wide caches and tables, each listed")

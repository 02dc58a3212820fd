#!/usr/bin/env python3
"""Every promise the README makes has a test that checks it.

Two kinds of promise:
- found in the README by their form: exit codes (the exit-code table), `RECEIPT_*` variables,
  command-line options (`--name`), configuration settings (the Configuration table's first
  column) and API endpoints (the API table). Each must appear in a test: a Swift `@Test` (from
  the attribute to the next one) or a browser test file that names it — the option `--paper`,
  the variable, the setting's name, the endpoint's path, or for an exit code a comparison with
  it (`status == 75`, `exit 75`).
- said in words: `Tests/promises.txt` lists sentences quoted from the README (whitespace and
  Markdown aside) with the tests that check them (`File.swift:testFunction`). A quote the
  README no longer says fails (the list must follow the README), and so does a named test
  that does not exist.

Prints the promises with their tests; exits 1 listing every promise without a test.
  scripts/promises.py [--list]
"""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
# The manual: the README and the pages of docs/ it links, in its order.
pages = ["README.md", "docs/getting-started.md", "docs/commands.md", "docs/templates.md", "docs/printers.md",
         "docs/daemon.md", "docs/ipp.md", "docs/operations.md", "docs/benchmarks.md", "docs/development.md"]
readme = "\n".join((root / page).read_text() for page in pages)
flat = re.sub(r"\s+", " ", re.sub(r"[`*]", "", readme))

# Test units: each Swift @Test from its attribute to the next (helpers in between go with the
# test before them), and each browser test file whole.
units = {}
for path in sorted((root / "Tests").rglob("*.swift")):
    if "Support" in path.parts:
        continue
    text = path.read_text()
    marks = [m.start() for m in re.finditer(r"^\s*@Test\b", text, re.M)]
    if marks:
        # A suite's fixtures (its templates, orders, helpers) before its first test serve its tests.
        units[f"{path.name}:(fixtures)"] = text[:marks[0]]
    for i, start in enumerate(marks):
        body = text[start:marks[i + 1] if i + 1 < len(marks) else len(text)]
        name = re.search(r"func\s+([A-Za-z0-9_]+)", body)
        if name:
            units[f"{path.name}:{name.group(1)}"] = body
for path in sorted((root / "Tests").rglob("*.py")):
    units[path.name] = path.read_text()


def section(title):
    """The README text under a heading (to the next heading of the same or a higher level)."""
    match = re.search(rf"^(#+) {re.escape(title)}.*?$", readme, re.M)
    if not match:
        sys.exit(f"promises: the README has no section '{title}'")
    level = len(match.group(1))
    rest = readme[match.end():]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[:end.start()] if end else rest


def first_column(text):
    return [row.split("|")[1].strip() for row in text.splitlines() if row.startswith("| ") and "---" not in row]


promises = []  # (kind, what, pattern)
missing_options = []
for row in first_column(section("Commands")):
    if row.isdigit() and row != "0":
        promises.append(("exit code", row, rf"(status|exitCode)\s*==\s*{row}\b|exit {row}\b|\b{row}\]\.contains"))
for name in sorted(set(re.findall(r"\bRECEIPT_[A-Z_]+\b", readme))):
    promises.append(("variable", name, re.escape(name)))
# Options the README quotes from other tools' command lines.
others = {"--test": "scripts/setup.sh", "--now": "systemctl", "--tool": "valgrind", "--hint-metrics": "pango-view", "--hinting": "pango-view", "--list": "scripts/promises.py",
          "--subpixel-positions": "pango-view"}
binary = root / ".build" / "release" / "receipt"
helps = ""
if binary.exists():
    commands = re.findall(r"^  ([a-z]+) ", subprocess.run([binary, "--help"], capture_output=True, text=True).stdout, re.M)
    helps = "".join(subprocess.run([binary, c, "--help"], capture_output=True, text=True).stdout for c in commands)
for option in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", readme)) - set(others)):
    if helps and not re.search(rf"{re.escape(option)}\b", helps) and option != "--help":
        missing_options.append(f"option {option}: the README documents it, no command has it")
    promises.append(("option", option, rf'"{re.escape(option)}[="]|{re.escape(option)}\b'))
for cell in first_column(section("Configuration")):
    for name in re.findall(r"`([a-zA-Z]+)`", cell):
        promises.append(("setting", name, rf"\b{name}\b"))
for cell in first_column(section("API")):
    for endpoint in re.findall(r"`([A-Z]+) ([^`?\[]+)", cell):
        method, path = endpoint
        literal = re.sub(r"\{[a-z]+\}", "*", path.strip())
        parts = [re.escape(p) for p in literal.split("*")]
        pattern = r"[^\"\s]*".join(parts) if path.strip() != "/" else r'uri: "/"|"GET", "/"[,)]|/#token'
        if method in ("DELETE", "PUT"):
            # Both, anywhere in the test (two searches: one pattern with a look-ahead was quadratic).
            pattern = (rf"\.{method.lower()}|\"{method}\"", pattern)
        promises.append(("endpoint", f"{method} {path.strip()}", pattern))

# The template language: its elements, properties and formatters (section "The language").
language = section("The language")
blocks = re.search(r"\*\*Blocks\*\*(.*?)\n\n\*\*Text", language, re.S).group(1)
elements = set(re.findall(r"`<([a-z]+)>`", blocks)) | set(re.findall(r"`<([a-z]+)>`", language[:language.find("**Blocks**")]))
properties = set()
for row in blocks.splitlines()[2:]:
    cells = row.split("|")
    if len(cells) > 2:
        properties |= set(re.findall(r"`([a-z][a-z-]*)(?:=\"[^\"]*\")?`", cells[2]))
for label in ("**Root**", "**Text properties**", "**Paragraph properties**"):
    start = language.find(label)
    text = language[start:language.find(".\n", start) if label != "**Root**" else language.find("plus", start)]
    properties |= set(re.findall(r"`([a-z][a-z-]*)`", text.replace("`<receipt>`", "")))
for name in sorted(elements):
    promises.append(("element", f"<{name}>", rf"<{name}[\s/>]"))
for name in sorted(properties):
    promises.append(("property", name, rf"\b{re.escape(name)}=\\?[\"']"))
formatters = section("The language")
for cell in first_column(formatters[formatters.find("| formatter |"):]):
    for name in re.findall(r"`([a-z]+)", cell):
        promises.append(("formatter", name, rf"\|\s*{name}\b"))

# Development-only variables (benchmarks, the test runner) are promises of scripts, not of the
# product: they are checked where the scripts use them.
scripts = {p.name: p.read_text() for p in (root / "scripts").rglob("*") if p.is_file()}
scripts["Makefile"] = (root / "Makefile").read_text()

missing = list(missing_options)
table = []
for kind, what, pattern in promises:
    patterns = pattern if isinstance(pattern, tuple) else (pattern,)
    tests = [name for name, body in units.items() if all(re.search(p, body) for p in patterns)]
    if not tests and kind == "variable":
        tests = [f"scripts: {name}" for name, body in scripts.items() if what in body and name != "promises.py"]
    table.append((kind, what, tests))
    if not tests:
        missing.append(f"{kind} {what}: no test names it")

listed = root / "Tests" / "promises.txt"
for number, line in enumerate(listed.read_text().splitlines(), 1):
    if not line.strip() or line.startswith("#"):
        continue
    quote, _, tests = line.partition(" -> ")
    quote = re.sub(r"\s+", " ", quote.strip())
    names = [t.strip() for t in tests.split(",") if t.strip()]
    if quote not in flat:
        missing.append(f"promises.txt:{number}: the README no longer says \"{quote}\" (update the list)")
    unknown = [n for n in names if n not in units]
    if unknown or not names:
        missing.append(f"promises.txt:{number}: \"{quote}\": no such test {unknown or '(none named)'}")
    table.append(("said", quote, names))

if "--list" in sys.argv:
    for kind, what, tests in table:
        print(f"{kind:10} {what[:70]:70} {', '.join(tests[:3])}{' …' if len(tests) > 3 else ''}")
print(f"promises: {len(table)} README promises, {len(table) - len(missing)} with tests")
if missing:
    print("promises without a test (add one, or fix the README):")
    for m in missing:
        print("  " + m)
    sys.exit(1)

#!/usr/bin/env python3
"""Whole-process timings of `receipt` beside the tools people use for receipts today.

Same content (40 lines of DejaVu Sans 10 pt at the 80 mm content width, 186 pt) through:
  receipt render → PDF     vs  pango-view → PDF            (pango1.0-tools)
  receipt render → PDF     vs  WeasyPrint HTML → PDF       (PyPI weasyprint)
  receipt render → ESC/POS vs  python-escpos → ESC/POS     (PyPI python-escpos; text + QR + barcode + cut)
Each command runs after a warm-up, round-robin (so machine drift hits all alike), and the
median of the runs is reported with the ratio per pair. Outputs are checked to be comparable.
Usage: scripts/side-by-side.py [RUNS]   (run by `make side-by-side`)
"""
import json, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECEIPT = os.path.join(ROOT, ".build/release/receipt")
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 15
WARMUP = 3

WORDS = "coffee latte bagel muffin tea juice water scone toast bowl salad wrap soup cake cookie pie".split()
LINES = []
for n in range(40):
    words, i = [], n
    while len(" ".join(words)) < 24:
        words.append(WORDS[i % len(WORDS)])
        i += 7
    LINES.append(f"{n + 1:2d} {' '.join(words)[:24]:<24} {n * 1.25 + 1:6.2f}")

work = tempfile.mkdtemp(prefix="receipt-side-by-side-")
def path(name): return os.path.join(work, name)

with open(path("receipt.txt"), "w") as f: f.write("\n".join(LINES) + "\n")
with open(path("order.json"), "w") as f: json.dump({"lines": LINES}, f)
with open(path("receipt.html"), "w") as f:
    body = "".join(f"<p>{line}</p>" for line in LINES)
    # 80 mm paper; the content box is 72 mm printable minus 9 pt on each side, as in receipt.
    f.write("<!doctype html><meta charset=utf-8><style>@page{size:80mm 200mm;margin:9pt 20.34pt}"
            "body{margin:0;font:10pt/1.164 'DejaVu Sans'}p{margin:0;white-space:pre}</style>" + body)
with open(path("escpos_peer.py"), "w") as f:
    f.write(f"""import sys
from escpos.printer import Dummy
p = Dummy()
for line in {LINES!r}:
    p.text(line + "\\n")
p.qr("https://example.com/r/1042", size=3)
p.barcode("{{BRCPT-1042", "CODE128", function_type="B")
p.cut(mode="PART")
open(sys.argv[1], "wb").write(p.output)
""")

COMMANDS = {
    "receipt → PDF": [RECEIPT, "render", path("receipt.txt"), "-o", path("r.pdf"), "--font", "DejaVu Sans 10"],
    "pango-view → PDF": ["pango-view", "-q", "--dpi=72", "--font=DejaVu Sans 10", "--width=186", "--margin=9",
                         "--hinting=none", "-o", path("p.pdf"), path("receipt.txt")],
    "WeasyPrint → PDF": ["weasyprint", path("receipt.html"), path("w.pdf")],
    "receipt → ESC/POS": [RECEIPT, "render", path("order.json"), "--templates", os.path.join(ROOT, "scripts/bench"),
                          "--template", "escpos", "-o", path("r.escpos")],
    "python-escpos → ESC/POS": [sys.executable, path("escpos_peer.py"), path("p.escpos")],
}
# RECEIPT_BEFORE=/path/to/an/older/receipt adds it as a row, for before/after in one run.
if os.environ.get("RECEIPT_BEFORE"):
    COMMANDS["receipt (before) → PDF"] = [os.environ["RECEIPT_BEFORE"]] + COMMANDS["receipt → PDF"][1:4] + [
        path("rb.pdf")] + COMMANDS["receipt → PDF"][5:]
# (ours, peer, least speed-up): pango-view's is issue 35's "at most 1.0× pango-view" (the earlier
# 2× was withdrawn: see docs/benchmarks.md); python-escpos's only "faster".
PAIRS = [("receipt → PDF", "pango-view → PDF", 1.0), ("receipt → PDF", "WeasyPrint → PDF", 20),
         ("receipt → ESC/POS", "python-escpos → ESC/POS", None)]

peak_rss = {}  # KiB, the largest of the runs, from the kernel's accounting of each child (wait4)

def run(cmd):
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    assert os.waitstatus_to_exitcode(status) == 0, f"{cmd[0]} failed"
    name = next(n for n, c in COMMANDS.items() if c is cmd)
    peak_rss[name] = max(peak_rss.get(name, 0), usage.ru_maxrss)
    return elapsed

for _ in range(WARMUP):
    for cmd in COMMANDS.values(): run(cmd)
times = {name: [] for name in COMMANDS}
for _ in range(RUNS):
    for name, cmd in COMMANDS.items(): times[name].append(run(cmd))
median = {name: statistics.median(t) for name, t in times.items()}

# The outputs are comparable: the PDFs hold the same 40 lines; both ESC/POS jobs end in a cut.
def pdf_lines(name):
    out = subprocess.run(["pdftotext", "-layout", path(name), "-"], capture_output=True, text=True).stdout
    return [l.strip() for l in out.splitlines() if l.strip() and l.strip() != "\f"]
for name in ["r.pdf", "p.pdf", "w.pdf"]:
    got = pdf_lines(name)
    assert len(got) == len(LINES), f"{name} has {len(got)} lines, expected {len(LINES)}"
for name in ["r.escpos", "p.escpos"]:
    data = open(path(name), "rb").read()
    assert b"\x1dV" in data, f"{name} has no cut"
    assert len(data) > 100, f"{name} is empty"

versions = {
    "receipt": subprocess.run([RECEIPT, "versions"], capture_output=True, text=True).stdout.replace("\n", ", ").strip(", "),
    "pango-view": subprocess.run(["pango-view", "--version"], capture_output=True, text=True).stdout.strip(),
    "WeasyPrint": subprocess.run(["weasyprint", "--version"], capture_output=True, text=True).stdout.strip(),
    "python-escpos": subprocess.run([sys.executable, "-c", "import escpos; print(escpos.__version__)"],
                                    capture_output=True, text=True).stdout.strip(),
}
print(f"Side by side: {RUNS} runs after {WARMUP} warm-up, round-robin, whole process, median wall time\n")
print("| command | median | min | max | peak RSS |")
print("|---|---|---|---|---|")
for name, t in times.items():
    print(f"| {name} | {median[name] * 1000:.1f} ms | {min(t) * 1000:.1f} ms | {max(t) * 1000:.1f} ms "
          f"| {peak_rss[name] / 1024:.1f} MiB |")
print("\n| pair | ratio | target | met |")
print("|---|---|---|---|")
failed = False
for ours, peer, target in PAIRS:
    ratio = median[peer] / median[ours]
    met = ratio >= target if target else ratio > 1
    failed |= not met
    speed = f"{ratio:.2f}× faster" if ratio >= 1 else f"{1 / ratio:.2f}× slower"
    wanted = ("at least as fast" if target == 1 else f"≥ {target}× faster") if target else "faster"
    print(f"| {ours} vs {peer} | {speed} | {wanted} | {'yes' if met else 'NO'} |")
print("\nVersions: " + "; ".join(f"{k} {v}" for k, v in versions.items()))
print(f"Machine: {os.cpu_count()} cores, {os.uname().sysname} {os.uname().release}")

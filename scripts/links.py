#!/usr/bin/env python3
"""Every link of the manual (README.md and docs/*.md) leads somewhere: a relative link to a file
that exists, an anchor (#heading) to a heading of that page (GitHub's slugs). Exits 1 listing
each broken link. Run by `make test`."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def slugs(page):
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    found = set()
    for heading in re.findall(r"^#+ (.+)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


broken = []
count = 0
for page in pages:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'src="([^"]+)"', text):
        if re.match(r"^[a-z]+://", target) or target.startswith("mailto:"):
            continue
        count += 1
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{page.relative_to(root)}: {target}: no file {path}")
        elif anchor and file.suffix == ".md" and anchor not in slugs(file):
            broken.append(f"{page.relative_to(root)}: {target}: no heading #{anchor} in {file.name}")
print(f"links: {count} links in {len(pages)} pages, {len(broken)} broken")
for line in broken:
    print("  " + line)
sys.exit(1 if broken else 0)

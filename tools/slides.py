#!/usr/bin/env python3
"""make slides: the RCU lecture (docs/lecture/slides.md) rendered by
reveal.js in headless Chromium, then checked.

    tools/slides.py [--out build/slides]

Writes OUT/index.html (open it in a browser to give the lecture: arrows
to move, S for the speaker notes), OUT/lecture.pdf (Chromium's print of
reveal.js's print view, one page per slide), OUT/screenshot.png (the
title slide as a browser shows it) and OUT/page-NN.png (the pages with a
figure, by pdftoppm).  reveal.js comes from npm at the version
docs/lecture/package-lock.json pins (npm ci, into OUT/npm); Chromium and
poppler-utils from Debian (tools/deps.sh slides).

The check, after rendering: the PDF has exactly one page per slide (a
slide too long for its page spills onto a second one), each page's text
holds its slide's title and no unrendered Markdown, each figure is on its
page (an image for a PNG, the SVG's own text for the timeline), and the
screenshot is a picture of the title.  Exit status 1 if any fails.
"""
import argparse
import base64
import html
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import npm_deps  # noqa: E402
from chromium import Browser, ChromiumError  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LECTURE = os.path.join(ROOT, "docs", "lecture")
SEPARATOR = "\n---\n"
REVEAL_FILES = ["dist/reset.css", "dist/reveal.css", "dist/theme/white.css", "dist/reveal.js",
                "dist/plugin/markdown.js", "dist/plugin/notes.js"]

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="stylesheet" href="reveal/reset.css">
<link rel="stylesheet" href="reveal/reveal.css">
<link rel="stylesheet" href="reveal/white.css">
<style>
.reveal h1, .reveal h2, .reveal h3 {{ text-transform: none; }}
.reveal h1 {{ font-size: 1.9em; }}
.reveal h2 {{ font-size: 1.25em; }}
.reveal h3 {{ font-size: 1.0em; }}
.reveal section {{ font-size: 0.62em; text-align: left; }}
.reveal ul, .reveal ol {{ display: block; margin-left: 1.2em; }}
.reveal table {{ font-size: 0.85em; margin: 0.4em 0; }}
.reveal code {{ font-size: 0.85em; }}
.reveal pre {{ width: 100%; font-size: 1.0em; margin: 0.3em 0; box-shadow: none; }}
.reveal pre code {{ max-height: none; padding: 0.3em 0.6em; background: #f4f4f4; }}
.reveal img {{ max-height: 420px; margin: 0.2em auto; display: block; }}
.reveal blockquote {{ width: 95%; font-size: 0.9em; }}
</style>
</head>
<body>
<div class="reveal"><div class="slides">
<section data-markdown data-separator="^\\n---\\n$" data-separator-notes="^Note:">
<textarea data-template>
{markdown}
</textarea>
</section>
</div></div>
<script src="reveal/reveal.js"></script>
<script src="reveal/markdown.js"></script>
<script src="reveal/notes.js"></script>
<script>
Reveal.on("pdf-ready", () => {{ window.pdfReady = true; }});
Reveal.initialize({{ hash: true, width: 1024, height: 640, margin: 0.04,
                     transition: "none", plugins: [RevealMarkdown, RevealNotes] }});
</script>
</body>
</html>
"""


class Failed(Exception):
    pass


def run(cmd, cwd=None, timeout=300):
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout)
    if r.returncode != 0:
        raise Failed(f"slides: {' '.join(cmd[:3])}... failed ({r.returncode}):\n{r.stdout[-2000:]}")
    return r.stdout


def slides_of(markdown):
    """[(title, slide text without its notes)] in order."""
    out = []
    for text in markdown.strip("\n").split(SEPARATOR):
        body = re.split(r"(?m)^Note:", text)[0]
        m = re.search(r"(?m)^#{1,3} +(.+)$", body)
        if not m:
            raise Failed(f"slides: a slide has no title (#, ## or ###):\n{body[:200]}")
        out.append((m.group(1).strip(), body))
    return out


def plain(title):
    """A title as pdftotext gives it back."""
    return " ".join(re.sub(r"[`*]", "", title).split())


def reveal(out):
    """reveal.js from npm, at the pinned version, in out/npm."""
    try:
        return npm_deps.install(LECTURE, out, "reveal.js", say=lambda m: print("slides: " + m))
    except npm_deps.NpmError as e:
        raise Failed(f"slides: {e}")


def assemble(out, markdown):
    pkg = reveal(out)
    os.makedirs(os.path.join(out, "reveal"), exist_ok=True)
    for f in REVEAL_FILES:
        shutil.copy(os.path.join(pkg, f), os.path.join(out, "reveal", os.path.basename(f)))
    figures = sorted(set(re.findall(r"!\[[^\]]*\]\((img/[^)]+)\)", markdown)))
    os.makedirs(os.path.join(out, "img"), exist_ok=True)
    for fig in figures:
        src = os.path.join(ROOT, "docs", fig)
        if not os.path.exists(src):
            raise Failed(f"slides: docs/lecture/slides.md shows {fig}, and docs/{fig} is missing")
        shutil.copy(src, os.path.join(out, fig))
    title = slides_of(markdown)[0][0]
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write(PAGE.format(title=html.escape(title),
                            markdown=markdown.replace("</textarea", "&lt;/textarea")))


# Every image loaded or failed (the figures), before the PDF or the screenshot.
LOADED = "Array.from(document.images).every(i => i.complete)"
BROKEN = "Array.from(document.images).filter(i => !i.naturalWidth).map(i => i.src)"


def render(out):
    url = "file://" + os.path.join(out, "index.html")
    for f in ("lecture.pdf", "screenshot.png"):
        if os.path.exists(os.path.join(out, f)):
            os.remove(os.path.join(out, f))
    b = Browser("slides")
    try:
        b.send("Page.navigate", url=url + "?print-pdf")
        b.wait_for("window.pdfReady === true && " + LOADED,
                   "reveal.js's print view (its pdf-ready event)")
        broken = b.evaluate(BROKEN)
        if broken:
            raise Failed("slides: figures the browser cannot show: " + ", ".join(broken))
        pdf = b.send("Page.printToPDF", preferCSSPageSize=True, printBackground=True)["data"]
        with open(os.path.join(out, "lecture.pdf"), "wb") as f:
            f.write(base64.b64decode(pdf))
        b.send("Emulation.setDeviceMetricsOverride", width=1280, height=800,
               deviceScaleFactor=1, mobile=False)
        b.send("Page.navigate", url=url)
        b.wait_for("!!window.Reveal && Reveal.isReady() && " + LOADED, "reveal.js's slides")
        png = b.send("Page.captureScreenshot", format="png")["data"]
        with open(os.path.join(out, "screenshot.png"), "wb") as f:
            f.write(base64.b64decode(png))
    finally:
        b.close()


def page_text(pdf, n):
    return run(["pdftotext", "-f", str(n), "-l", str(n), "-layout", pdf, "-"])


def check(out, slides):
    pdf = os.path.join(out, "lecture.pdf")
    problems = []
    if not os.path.exists(pdf):
        raise Failed("slides: Chromium wrote no PDF")
    pages = int(re.search(r"(?m)^Pages:\s+(\d+)", run(["pdfinfo", pdf])).group(1))
    if pages != len(slides):
        problems.append(f"{pages} pages for {len(slides)} slides: a slide spills over its page, "
                        "or reveal.js did not render them all")
    figures = 0
    for i, (title, body) in enumerate(slides[:pages], 1):
        text = " ".join(page_text(pdf, i).split())
        if plain(title).lower() not in text.lower():
            problems.append(f"page {i}: no title {plain(title)!r} (its text: {text[:120]!r})")
        raw = [m for m in ("](img/", "**", "Note:", "\n## ") if m in text]
        if raw:
            problems.append(f"page {i} ({plain(title)}): unrendered Markdown {raw}")
        for fig in re.findall(r"!\[[^\]]*\]\((img/[^)]+)\)", body):
            figures += 1
            if fig.endswith(".svg"):
                svg = open(os.path.join(ROOT, "docs", fig)).read()
                words = re.search(r"<text[^>]*>([^<]{20,})</text>", svg).group(1)
                if " ".join(html.unescape(words).split()) not in text:
                    problems.append(f"page {i}: the figure {fig} is not drawn (its title "
                                    f"{words[:40]!r} is not on the page)")
            else:
                images = run(["pdfimages", "-list", "-f", str(i), "-l", str(i), pdf])
                if len(images.strip().splitlines()) < 3:	# two header lines, then one per image
                    problems.append(f"page {i}: the figure {fig} is not on the page")
        if i == 1 or re.search(r"!\[", body):
            run(["pdftoppm", "-f", str(i), "-l", str(i), "-png", "-scale-to", "960",
                 "-singlefile", pdf, os.path.join(out, f"page-{i:02d}")])
    shot = os.path.join(out, "screenshot.png")
    if not os.path.exists(shot) or os.path.getsize(shot) < 10000:
        problems.append("the screenshot of the title slide is missing or blank")
    for p in problems:
        print("slides: FAILED: " + p)
    if problems:
        raise Failed(f"slides: {len(problems)} problem(s) in {pdf}")
    print(f"slides: {len(slides)} slides rendered by reveal.js in Chromium: {pdf}, {pages} "
          f"pages, each with its title; {figures} figures, each on its page; "
          f"{os.path.join(out, 'index.html')} to give the lecture")


def main(argv=None):
    p = argparse.ArgumentParser(description="make slides: the RCU lecture, rendered and checked.")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "slides"))
    a = p.parse_args(argv)
    out = os.path.abspath(a.out)
    try:
        with open(os.path.join(LECTURE, "slides.md")) as f:
            markdown = f.read()
        slides = slides_of(markdown)
        os.makedirs(out, exist_ok=True)
        assemble(out, markdown)
        render(out)
        check(out, slides)
    except (Failed, ChromiumError, subprocess.TimeoutExpired) as e:
        print(e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

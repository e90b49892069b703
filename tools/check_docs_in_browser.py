"""Open the built documentation in headless Chromium and check that it renders.

For the home page, one gallery page, one user guide page and the benchmarks
page, at a desktop and a phone-sized window, this

- loads the page in a real browser (scripts and styles run) and reads back the
  DOM it built: the title, the navigation bar, and (on the gallery page) a
  figure whose image file exists;
- measures, inside the browser, how wide the laid-out page is: at 390 pixels
  nothing may stick out sideways (no page-wide horizontal scrolling; wide code
  and tables scroll in their own boxes);
- saves a screenshot of each, and prints its path.

Usage (after building the site; CI runs it in .ci/run):

    python tools/check_docs_in_browser.py [--html docs/_build/html]
                                          [--out docs/_build/screenshots]

Needs Chromium (Debian: apt-get install chromium). Only the standard library.
"""

import argparse
import html
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
# (page, words its <title> must hold, must it show a gallery figure)
PAGES = [
    ("index.html", "fastnb", False),
    ("auto_examples/articles/plot_iris_confusion.html", "confusion matrix", True),
    ("user_guide/from_sklearn.html", "Coming from scikit-learn", False),
    # rendered by benchmarks/render.py from the newest published run
    ("benchmarks.html", "Benchmarks", False),
]
WINDOWS = {"desktop": (1280, 900), "phone": (390, 844)}
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    sys.exit("check_docs_in_browser: no Chromium found (apt-get install -y chromium)")


def run_browser(browser, args, timeout=120):
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu",
               "--no-first-run", "--disable-extensions", "--hide-scrollbars",
               "--allow-file-access-from-files", "--virtual-time-budget=5000", *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    return result.stdout


# A page that loads the page under test in a frame of the given size, then writes
# what the browser laid out into its own DOM, which --dump-dom prints.
PROBE = """<!DOCTYPE html>
<html><body style="margin:0">
<iframe id="page" src="{url}" width="{width}" height="{height}" style="border:0"></iframe>
<pre id="result">not loaded</pre>
<script>
document.getElementById("page").addEventListener("load", function () {{
  var doc = this.contentDocument;
  var images = Array.prototype.slice.call(doc.querySelectorAll("img.sphx-glr-single-img, img.sphx-glr-multi-img"));
  document.getElementById("result").textContent = JSON.stringify({{
    title: doc.title,
    scrollWidth: doc.documentElement.scrollWidth,
    clientWidth: doc.documentElement.clientWidth,
    navbar: !!doc.querySelector("nav.bd-header, header .navbar, .bd-header"),
    figures: images.length,
    figuresLoaded: images.filter(function (i) {{ return i.complete && i.naturalWidth > 0; }}).length
  }});
}});
</script>
</body></html>
"""


def probe(browser, page, width, height, workdir):
    probe_page = workdir / f"probe-{width}.html"
    probe_page.write_text(PROBE.format(url=html.escape(page.as_uri()), width=width,
                                       height=height))
    dom = run_browser(browser, [f"--window-size={width + 20},{height + 200}",
                                "--dump-dom", probe_page.as_uri()])
    match = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    if not match:
        raise AssertionError(f"{page}: the probe page did not report:\n{dom[-2000:]}")
    import json

    return json.loads(html.unescape(match.group(1)))


def png_size(path):
    data = path.read_bytes()[:24]
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError(f"{path} is not a PNG")
    return struct.unpack(">II", data[16:24])


def check_page(browser, site, relative, title_words, needs_figure, out, workdir):
    page = site / relative
    if not page.is_file():
        raise AssertionError(f"{page} was not built")
    problems, shots = [], []
    # The DOM the browser built from the file itself.
    dom = run_browser(browser, ["--window-size=1280,900", "--dump-dom", page.as_uri()])
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    if not title or title_words.lower() not in html.unescape(title.group(1)).lower():
        problems.append(f"title {title.group(1) if title else None!r} lacks {title_words!r}")
    if 'name="viewport"' not in dom:
        problems.append("no viewport meta tag (phones would zoom out)")
    for src in re.findall(r'<img[^>]+src="([^"]+)"', dom):
        if not src.startswith(("data:", "http")) and not (page.parent / src).resolve().is_file():
            problems.append(f"image {src} is missing")
    for name, (width, height) in WINDOWS.items():
        seen = probe(browser, page, width, height, workdir)
        if not seen["navbar"]:
            problems.append(f"{name}: no navigation bar")
        if needs_figure and not seen["figuresLoaded"]:
            problems.append(f"{name}: no gallery figure loaded ({seen})")
        if seen["scrollWidth"] > seen["clientWidth"] + 1:
            problems.append(f"{name}: the page is {seen['scrollWidth']} px wide in a "
                            f"{seen['clientWidth']} px window (horizontal scrolling)")
        shot = out / f"{relative.replace('/', '_').removesuffix('.html')}-{name}.png"
        run_browser(browser, [f"--window-size={width},{height}",
                              f"--screenshot={shot}", page.as_uri()])
        if png_size(shot) != (width, height):
            problems.append(f"{shot} is {png_size(shot)}, expected {(width, height)}")
        shots.append(shot)
    return problems, shots


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", default=str(ROOT / "docs" / "_build" / "html"))
    parser.add_argument("--out", default=str(ROOT / "docs" / "_build" / "screenshots"))
    args = parser.parse_args(argv)
    site, out = pathlib.Path(args.html).resolve(), pathlib.Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    browser = find_browser()
    print(f"browser: {run_browser(browser, ['--version']).strip() or browser}")
    failures = []
    with tempfile.TemporaryDirectory() as workdir:
        for relative, title_words, needs_figure in PAGES:
            problems, shots = check_page(browser, site, relative, title_words,
                                         needs_figure, out, pathlib.Path(workdir))
            for shot in shots:
                print(f"screenshot: {os.path.relpath(shot)}")
            failures += [f"{relative}: {problem}" for problem in problems]
            print(f"{'ok' if not problems else 'FAILED'}: {relative}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

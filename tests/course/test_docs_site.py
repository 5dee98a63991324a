r"""The course site builds with warnings as errors, and a real browser, offline,
shows its maths typeset and its graphs readable.

One test, marked ``docs``: it builds the whole site (``sphinx-build -W``, which
executes every lesson, or takes it from the execution cache), then builds it
again into a new folder, which must execute no lesson again (the execution
cache's records stay as the first build left them) because no lesson
changed. No page may load a script from the network. It opens pages in
headless Chromium with every host unresolvable and asks the browser itself
what it rendered: lesson 02's drawn graph is an SVG image that loaded, a
matplotlib plot is a loaded image, no image is broken, no raw DOT text or
raw ``\(...\)`` maths shows, MathJax typeset the formulas, and the text of
the widest graph on the site is at least 8 px tall on screen. A screenshot is
saved to ``artifacts/docs_lesson02.png``.

CI installs Chromium (``setup.sh test``). Elsewhere, without Chromium or
Sphinx, the test is skipped with a reason; under CI it fails instead.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_notebooks import PAGE_WIDTHS, UNENCRYPTED_WARNING, pairs_in, picture_problems

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
BROWSER_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    # Offline: every host name fails to resolve, so nothing can come from the network.
    "--host-resolver-rules=MAP * ~NOTFOUND",
]
MIN_TEXT_PX = 8

# Runs inside the page after it loaded; leaves its findings on <body>.
PROBE = """
<script>
window.addEventListener('load', () => {
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 20 && r.height > 20; };
  const images = [...document.images];
  const isSvg = (i) => /\\.svg($|\\?)/.test(i.src) || i.src.startsWith('data:image/svg');
  const isPlot = (i) => /\\.png($|\\?)/.test(i.src) || i.src.startsWith('data:image/png');
  const loaded = (i) => i.complete && i.naturalWidth > 0;
  const inlineGraphs = [...document.querySelectorAll('svg')].filter((s) => s.querySelector('g.node'));
  const report = () => document.body.setAttribute('data-probe', JSON.stringify({
    graphs: images.filter((i) => isSvg(i) && loaded(i) && shown(i)).map((i) => i.src)
      .concat(inlineGraphs.filter(shown).map(() => 'inline')),
    widths: Object.fromEntries(images.filter((i) => isSvg(i) && loaded(i))
      .map((i) => [i.src.split('/').pop(), i.getBoundingClientRect().width])),
    plots: images.filter((i) => isPlot(i) && loaded(i) && shown(i)).map((i) => i.src),
    broken: images.filter((i) => !loaded(i)).map((i) => i.src),
    rawDot: /digraph\\s*\\{|->\\s*"?\\w+"?\\s*\\[/.test(document.body.innerText),
    mathjax: typeof window.MathJax === 'object' && !!window.MathJax.startup,
    typeset: document.querySelectorAll('mjx-container').length,
    rawMath: /\\\\\\(|\\\\\\[|\\$\\$/.test(document.querySelector('article, main, body').innerText),
  }));
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(report, report);
  } else {
    report();
  }
});
</script>
"""


def _need(found: bool, what: str) -> None:
    if not found:
        if os.environ.get("CI"):
            pytest.fail(f"{what} is missing; CI installs it with `bash setup.sh test`")
        pytest.skip(f"{what} is not installed here (bash setup.sh test installs it)")


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _build(out: Path) -> float:
    env = dict(os.environ, MINIGRAD_FAST="1")
    start = time.monotonic()
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-q",
            "-W",
            "--keep-going",
            "-b",
            "html",
            "docs",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    seconds = time.monotonic() - start
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    # The kernels ran encrypted (docs/conf.py): none warned about plain TCP.
    assert UNENCRYPTED_WARNING not in build.stdout + build.stderr, build.stderr[-3000:]
    return seconds


def _executions() -> dict:
    """``{lesson file: when it was executed}``, from the build's execution cache."""
    from jupyter_cache import get_cache

    cache = get_cache(ROOT / "docs" / "_build" / ".jupyter_cache-fast")  # MINIGRAD_FAST's
    return {Path(r.uri).name: r.created for r in cache.list_cache_records()}


def _probe(browser: str, page: Path, profile: Path) -> dict:
    """Open ``page`` offline in headless Chromium; what the browser rendered."""
    probe_page = page.with_name(page.stem + "_probe.html")
    probe_page.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    command = [browser, *BROWSER_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,2400"]
    dom = subprocess.run(
        [*command, "--virtual-time-budget=15000", "--dump-dom", probe_page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
    )
    match = re.search(r"data-probe=\"([^\"]*)\"", dom.stdout)
    assert match, f"the browser did not run the probe on {page.name}:\n{dom.stderr[-2000:]}"
    return json.loads(html.unescape(match.group(1)))


def _graphviz_svgs(site: Path) -> dict[Path, tuple[float, float]]:
    """Each Graphviz SVG of the site: (viewBox width, smallest font size), user units."""
    found = {}
    for svg in site.rglob("*.svg"):
        text = svg.read_text(errors="replace")
        box = re.search(r'viewBox="[\d.\-]+ [\d.\-]+ ([\d.]+) [\d.]+"', text)
        sizes = [float(x) for x in re.findall(r'font-size="([\d.]+)"', text)]
        if 'class="graph"' in text and box and sizes:
            found[svg] = (float(box.group(1)), min(sizes))
    return found


@pytest.mark.docs
@pytest.mark.slow
def test_site_builds_offline_with_maths_and_readable_graphs(tmp_path):
    _need(importlib.util.find_spec("sphinx") is not None, "Sphinx (the docs extra)")
    _need(importlib.util.find_spec("myst_nb") is not None, "MyST-NB (the docs extra)")
    browser = _chromium()
    _need(browser is not None, "Chromium")

    first = _build(tmp_path / "first")
    executed = _executions()
    lessons = sorted(p.name for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(executed) == lessons, f"the cache holds {sorted(executed)}, not {lessons}"
    out = tmp_path / "html"
    again = _build(out)  # no lesson changed: every notebook comes from the cache
    print(f"docs build: {first:.0f} s, then {again:.0f} s with nothing changed")
    rerun = [name for name, when in _executions().items() if when != executed[name]]
    assert not rerun, f"a rebuild with no change executed {rerun} again"
    for page in ("index.html", "course_map.html", "api.html", "lessons/02_value_graph.html"):
        assert (out / page).is_file(), f"the site has no {page}"

    # No page loads a script from the network.
    for page in out.rglob("*.html"):
        remote = re.findall(r'<script[^>]+src="((?:https?:)?//[^"]+)"', page.read_text())
        assert not remote, f"{page.relative_to(out)} loads {remote}"

    profile = tmp_path / "profile"
    lesson02 = _probe(browser, out / "lessons" / "02_value_graph.html", profile)
    assert lesson02["graphs"], f"no drawn graph is visible on lesson 02: {lesson02}"
    assert lesson02["plots"], f"no plot is visible on lesson 02: {lesson02}"
    assert not lesson02["broken"], f"broken images on lesson 02: {lesson02['broken']}"
    assert not lesson02["rawDot"], "lesson 02 shows raw DOT text instead of a picture"

    # Lesson 13's before/after pictures: side by side at a readable size, or one below
    # the other where the column is too narrow (checked on the markup, as laid out).
    passes = (out / "lessons" / "13_static_graphs_and_jit.html").read_text()
    assert pairs_in(passes) >= 4, "lesson 13's page shows fewer before/after pairs than passes"
    problems = picture_problems(passes, PAGE_WIDTHS["site"])
    assert not problems, f"lesson 13 on the site: {problems}"

    # Maths: typeset by the site's own MathJax, with no network.
    maths = _probe(browser, out / "lessons" / "08_higher_order.html", profile)
    assert maths["mathjax"], "MathJax did not load offline on lesson 08"
    assert maths["typeset"] > 5, f"MathJax typeset {maths['typeset']} formulas on lesson 08"
    assert not maths["rawMath"], "lesson 08 shows raw TeX"

    # The widest graph of the site: its smallest text, as drawn on screen.
    svgs = _graphviz_svgs(out / "_images")
    assert svgs, "the site has no Graphviz SVG"
    widest = max(svgs, key=lambda p: svgs[p][0])
    page = next(
        p for p in (out / "lessons").glob("[0-9][0-9]_*.html") if widest.name in p.read_text()
    )
    found = _probe(browser, page, profile)
    shown_width = found["widths"].get(widest.name)
    assert shown_width, f"{widest.name} is not shown on {page.name}: {found['widths']}"
    box_width, font = svgs[widest]
    text_px = font * shown_width / box_width
    assert text_px >= MIN_TEXT_PX, (
        f"{widest.name} ({box_width:.0f} units wide) on {page.name} is drawn "
        f"{shown_width:.0f} px wide: its text is {text_px:.1f} px tall"
    )

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "docs_lesson02.png"
    shot.unlink(missing_ok=True)
    command = [browser, *BROWSER_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,2400"]
    subprocess.run(
        [*command, f"--screenshot={shot}", (out / "lessons" / "02_value_graph.html").as_uri()],
        capture_output=True,
        timeout=180,
    )
    assert shot.is_file() and shot.stat().st_size > 10_000, "no screenshot was saved"

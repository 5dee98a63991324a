"""The course site builds, and a real browser shows lesson 02's graph and plot.

One test, marked ``docs``: it builds the whole site (``sphinx-build``, which
executes every lesson), opens the built lesson 02 page in headless Chromium,
and asks the browser itself what it rendered: the drawn graph must be an SVG
image that loaded and has a size on screen, a matplotlib plot must be a
loaded image, no image may be broken, and no raw DOT text may show. A
screenshot is saved to ``artifacts/docs_lesson02.png``.

CI installs Chromium (``setup.sh test``). Elsewhere, without Chromium or
Sphinx, the test is skipped with a reason; under CI it fails instead.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
]

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
  document.body.setAttribute('data-probe', JSON.stringify({
    graphs: images.filter((i) => isSvg(i) && loaded(i) && shown(i)).map((i) => i.src)
      .concat(inlineGraphs.filter(shown).map(() => 'inline')),
    plots: images.filter((i) => isPlot(i) && loaded(i) && shown(i)).map((i) => i.src),
    broken: images.filter((i) => !loaded(i)).map((i) => i.src),
    rawDot: /digraph\\s*\\{|->\\s*"?\\w+"?\\s*\\[/.test(document.body.innerText),
  }));
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


@pytest.mark.docs
@pytest.mark.slow
def test_site_builds_and_lesson_02_shows_graph_and_plot(tmp_path):
    _need(importlib.util.find_spec("sphinx") is not None, "Sphinx (the docs extra)")
    _need(importlib.util.find_spec("myst_nb") is not None, "MyST-NB (the docs extra)")
    browser = _chromium()
    _need(browser is not None, "Chromium")

    out = tmp_path / "html"
    env = dict(os.environ, MINIGRAD_FAST="1")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", "docs", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    for page in ("index.html", "course_map.html", "api.html", "lessons/02_value_graph.html"):
        assert (out / page).is_file(), f"the site has no {page}"

    page = out / "lessons" / "02_value_graph.html"
    probe_page = page.with_name("02_probe.html")
    probe_page.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    profile = tmp_path / "profile"
    common = [browser, *BROWSER_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,2400"]
    dom = subprocess.run(
        [*common, "--virtual-time-budget=10000", "--dump-dom", probe_page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
    )
    match = re.search(r"data-probe=\"([^\"]*)\"", dom.stdout)
    assert match, f"the browser did not run the probe:\n{dom.stderr[-2000:]}"
    found = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))

    assert found["graphs"], f"no drawn graph is visible on lesson 02: {found}"
    assert found["plots"], f"no plot is visible on lesson 02: {found}"
    assert not found["broken"], f"broken images on lesson 02: {found['broken']}"
    assert not found["rawDot"], "lesson 02 shows raw DOT text instead of a picture"
    # The graph pictures are Graphviz's SVG, with the graph's own labels in it.
    svgs = [out / "lessons" / src.split("/lessons/", 1)[1] for src in found["graphs"]
            if "/lessons/" in src]  # fmt: skip
    svg_text = "".join(p.read_text() for p in svgs if p.is_file())
    if svgs:
        assert 'class="graph"' in svg_text and 'class="node"' in svg_text, svg_text[:500]

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "docs_lesson02.png"
    shot.unlink(missing_ok=True)
    subprocess.run(
        [*common, f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=180,
    )
    assert shot.is_file() and shot.stat().st_size > 10_000, "no screenshot was saved"

"""Checks shared by the tests of the report pages: headless Chromium, and the estimates of a summary.json."""
from __future__ import annotations

import subprocess


def assert_renders(chromium, index_html, tmp_path) -> None:
    """Screenshot ``index_html`` in headless Chromium (``chromium``: the fixture of tests/conftest.py); fail if
    the page is (nearly) blank."""
    from PIL import Image

    shot = tmp_path / "shot.png"
    cmd = [*chromium, "--disable-quic", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}",
           "--window-size=1200,2000", f"--screenshot={shot}", index_html.resolve().as_uri()]
    subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    assert shot.exists(), "Chromium wrote no screenshot"
    with Image.open(shot) as im:
        rgb = im.convert("RGB")
        colors = rgb.getcolors(maxcolors=1 << 24)
        pixels = rgb.size[0] * rgb.size[1]
    white = sum(n for n, c in colors if min(c) >= 250)
    assert len(colors) > 200, "the page rendered with almost no colours"
    assert white / pixels < 0.95, "the page is (nearly) blank"


def estimates(node, path=""):
    """Every {"mean", "ci95", ...} dict in a summary.json tree, with its path."""
    if isinstance(node, dict):
        if "mean" in node and "ci95" in node:
            yield path, node
        for key, value in node.items():
            yield from estimates(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from estimates(value, f"{path}[{i}]")

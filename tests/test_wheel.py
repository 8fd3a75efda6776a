"""A built wheel holds the whole package: every module (pyproject's ``packages``), every data file beside
them (``package-data``: templates, weights, the board's page, the data sets the report reads), and an
installed copy finds the report's data sets in its own folder, not in a checkout.

The wheel is built from a copy of the package's sources (pip, no build isolation, no network); a full
report from a fresh environment takes minutes and is not run here."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the package's sources as the wheel names them: gnoming_sim/... and analyses/... as gnoming_sim/analyses/...
SOURCES = {"gnoming_sim": "gnoming_sim", "analyses": "gnoming_sim/analyses"}


def _files() -> dict[str, Path]:
    """Every file of the package's sources by its name in a wheel (caches and hidden files left out)."""
    found = {}
    for folder, inside in SOURCES.items():
        for path in (ROOT / folder).rglob("*"):
            rel = path.relative_to(ROOT / folder)
            if path.is_file() and not any(p == "__pycache__" or p.startswith(".") for p in rel.parts) \
                    and path.suffix not in (".pyc", ".pyo"):
                found[f"{inside}/{rel.as_posix()}"] = path
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for folder in SOURCES:
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", ".*", "*.pyc"))
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "-q", str(src), "-w", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (found,) = out.glob("gnoming_sim-*.whl")
    return found


@pytest.mark.slow
def test_the_wheel_holds_every_module_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(name for name in _files() if name not in names)
    assert not missing, ("not in the wheel (a new package goes into pyproject.toml's [tool.setuptools] packages, "
                         "a data file into [tool.setuptools.package-data]):\n" + "\n".join(missing))


@pytest.mark.slow
def test_an_installed_copy_reads_the_reports_data_from_its_own_folder(wheel, tmp_path):
    """The studies' data sets resolve inside the installed package and read back; nothing reaches the checkout."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    script = """
import sys
from pathlib import Path
import pandas as pd
import gnoming_sim
from gnoming_sim.analyses.agreement import study as agreement
from gnoming_sim.analyses.framework.study import DATA
site = Path(sys.argv[1]).resolve()
assert Path(gnoming_sim.__file__).resolve().is_relative_to(site), gnoming_sim.__file__
paths = [agreement.DECISIONS, agreement.FRESH, DATA / "oracle" / "finish.parquet"]
for p in paths:
    assert Path(p).resolve().is_relative_to(site / "gnoming_sim" / "analyses" / "data"), p
    frame = pd.read_csv(p) if str(p).endswith(".csv") else pd.read_parquet(p)
    assert len(frame) > 0, p
print(len(paths))
"""
    proc = subprocess.run([sys.executable, "-c", script, str(site)], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert proc.returncode == 0 and proc.stdout.strip() == "3", proc.stdout + proc.stderr

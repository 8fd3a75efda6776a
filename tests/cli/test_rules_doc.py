"""gnoming_sim/game/rules.md, the rules in the project's words: shipped with the package, printed by `rules --full`, and in step with the engine
(every option of its table is a RuleConfig field with the same default, and vice versa; every
worked example's total is what score_layout computes)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from gnoming_sim import RuleConfig, score_layout

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "gnoming_sim" / "game" / "rules.md"   # the one copy: the README links it, `rules --full` prints it


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def option_table(text: str) -> dict[str, str]:
    """``{option: default as written}`` from the rows of the options table."""
    rows = re.findall(r"^\| `([a-z_]+)` \| `([^`]+)` \|", text, flags=re.M)
    assert rows, "no options table found in the rules doc"
    return dict(rows)


def test_every_option_in_the_doc_is_a_rule_with_the_same_default_and_vice_versa():
    documented = option_table(doc_text())
    default = RuleConfig()
    assert set(documented) == {f.name for f in fields(RuleConfig)}
    for name, written in documented.items():
        assert tomllib.loads(f"x = {written}")["x"] == getattr(default, name), name


def test_each_option_named_in_the_text_exists():
    named = set(re.findall(r"\(`([a-z_]+)`", doc_text()))
    assert named and named <= {f.name for f in fields(RuleConfig)}, named


def _card(token: str):
    return token if token in ("H", "M") else int(token)


def test_worked_examples_total_what_the_engine_scores():
    examples = re.findall(r"^\d+\. `([^`]+)` → \*\*(−?-?\d+)\*\*", doc_text(), flags=re.M)
    assert len(examples) >= 4
    for grid, total in examples:
        layout = [_card(t) for t in grid.replace("/", " ").split()]
        assert score_layout(layout) == int(total.replace("−", "-")), grid


def test_the_doc_ships_with_the_package():
    """`rules --full` reads it from the installed package."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "rules.md" in data["tool"]["setuptools"]["package-data"]["gnoming_sim.game"]


def test_rules_full_prints_the_doc_through_the_console_script():
    script = Path(sys.executable).parent / "gnoming-sim"
    if not script.exists():
        pytest.skip("console script not installed (pip install -e .)")
    proc = subprocess.run([str(script), "rules", "--full"], capture_output=True, text=True, timeout=60,
                          cwd="/")   # not the repository: the text must come from the package
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == doc_text()


def test_rules_full_refuses_other_options(cli_run):
    result = cli_run(["rules", "--full", "--json"], code=2)
    assert "--full prints the rules text only" in result.stderr


def test_rules_json(cli_run, write_toml):
    path = write_toml("max_turns = 321\n")
    result = cli_run(["rules", "--json", "--rules", str(path)])
    data = json.loads(result.stdout)
    assert data["rules_file"] == str(path)
    assert data["rules"]["max_turns"] == {"value": 321, "default": 500,
                                          "meaning": data["rules"]["max_turns"]["meaning"]}
    assert set(data["rules"]) == {f.name for f in fields(RuleConfig)}
    assert data["deck"]["name"] == "published" and data["deck"]["size"] == 110


def test_readme_links_the_doc_not_the_spec_outside_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "../shared/RULES.md" not in readme
    assert "(gnoming_sim/game/rules.md)" in readme

"""The card's policy iteration: the per-cell sample, the improvement rule (a cell moves only when
another action beats it by more than the threshold's standard errors on enough games), the history's format and
the final card's tables (read back by the card preset's own reader); one small round is reproducible and the
same at any thread count (slow)."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import registry
from gnoming_sim.tune.card import files
from gnoming_sim.tune.card.iterate import IterationConfig, committed_cells, improve, one_round, sample

FIN = C.finish_cell_of(3, 1, 1)      # gap 0..4, rivals 2-4 face down, 4-5 players


def test_the_first_card_is_the_committed_one_with_its_defaults_explicit():
    cells = committed_cells()
    assert set(cells) == set(range(C.N_CELLS))
    printed = registry.printed_card(json.loads(registry.CARD_CELLS.read_text())["tables"])
    for c, a in cells.items():   # a banded take cell the card does not print plays as its take cell
        parent = cells[C.parent_cell_of(c)] if c >= C.SOURCE_FD_OFFSET else C.default_action_of(c)
        assert a == printed.get(registry.CELL_NAMES[c], parent)


def test_the_sample_caps_each_cell_and_keeps_small_cells_whole():
    entries = [{"cell": 1}] * 100 + [{"cell": 2}] * 5 + [{"cell": 3}] * 40
    entries = [dict(e, i=i) for i, e in enumerate(entries)]
    got = sample(entries, 45, np.random.default_rng(0))
    by = {c: sum(e["cell"] == c for e in got) for c in (1, 2, 3)}
    assert by == {1: 20, 2: 5, 3: 20}
    assert [e["i"] for e in got] == sorted(e["i"] for e in got)
    assert got == sample(entries, 45, np.random.default_rng(0))
    assert len(sample(entries, 1000, np.random.default_rng(0))) == len(entries)


def _valued(gain: float, games: int, per_game: int = 2, noise: float = 1.0, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [{"cell": FIN, "table": "finish", "game": (4, g), "win": 30.0,
             "gain": {"finish": gain + noise * rng.standard_normal(), "play on": 0.0}}
            for g in range(games) for _ in range(per_game)]


@pytest.mark.parametrize("gain, games, changes", [(3.0, 40, True), (0.1, 40, False), (3.0, 3, False),
                                                  (-3.0, 40, False)])
def test_a_cell_changes_only_when_another_action_beats_it_by_two_standard_errors(gain, games, changes):
    cells = committed_cells()
    cells[FIN] = C.A_PLAYON
    new, ch, stats = improve(cells, _valued(gain, games), IterationConfig())
    assert (new[FIN] == C.A_FINISH) == changes and len(ch) == int(changes)
    assert {c: a for c, a in new.items() if c != FIN} == {c: a for c, a in cells.items() if c != FIN}
    assert stats[FIN]["current"] == "play on" and stats[FIN]["n"] == 2 * games
    if changes:
        [c] = ch
        assert c["from"] == "play on" and c["to"] == "finish" and c["ci95"][0] > 0 and c["clusters"] == games


def _result() -> dict:
    start = committed_cells()
    cells = dict(start)
    cells[FIN] = C.A_FINISH if start[FIN] == C.A_PLAYON else C.A_PLAYON
    _, changes, stats = improve(start, [], IterationConfig())
    st = {FIN: {"table": "finish", "current": C.ACTION_NAMES[2][start[FIN] - 1], "n": 50, "clusters": 40, "win": 31.0,
                "gain": {a: {"mean": 2.5 if a != C.ACTION_NAMES[2][start[FIN] - 1] else 0.0, "se": 0.5,
                             "ci95": [1.5, 3.5], "n": 50, "clusters": 40} for a in C.ACTION_NAMES[2]}}}
    change = {"cell": FIN, "table": "finish", "from": st[FIN]["current"], "to": C.ACTION_NAMES[2][cells[FIN] - 1],
              "gain_pp": 2.5, "ci95": [1.5, 3.5], "se": 0.5, "n": 50, "clusters": 40}
    rounds = [{"round": 1, "games": 60, "covered": 900, "decisions": 300, "rollouts": 8, "cells_seen": 1,
               "cells_changed": 1, "changes": [change], "wall_s": 12.0},
              {"round": 2, "games": 60, "covered": 880, "decisions": 290, "rollouts": 8, "cells_seen": 1,
               "cells_changed": 0, "changes": [], "wall_s": 11.0}]
    return {"config": {**IterationConfig().__dict__, "sizes": [4]}, "rounds": rounds, "cells": cells, "start": start,
            "stats": st, "seen": {FIN: 100}, "converged": True, "wall_s": 23.0}


def test_the_history_and_the_final_card_files(tmp_path):
    res = _result()
    paths = files.write(tmp_path, res, "gnoming-sim card --iterate --out x")
    rows = list(csv.DictReader(io.StringIO(paths[1].read_text())))
    assert list(rows[0]) == list(files.HISTORY_FIELDS)
    assert [int(r["cells_changed"]) for r in rows] == [1, 0] and "finish" in rows[0]["changes"]
    hist = json.loads(paths[0].read_text())
    assert hist["rounds"] == res["rounds"] and hist["provenance"]["cells_changed"] == [1, 0]
    assert hist["provenance"]["iteration"] == res["rounds"]
    # the final card's tables, read back by the card preset's reader: the changed cell plays its new action
    target = tmp_path / "card_cells.json"
    target.write_text(json.dumps({"cells": {"chart.8": 2}, "tables": {}}))
    files.install(paths[2], target)
    data = json.loads(target.read_text())
    assert data["cells"] == {"chart.8": 2} and data["card_provenance"]["rounds"] == 2
    card = registry.card_from_file(target)

    def plays(c):   # what the card plays in cell c: its value, else its banded take cell's take cell, else default
        got = card.params.get(registry.CELL_NAMES[c])
        if got is not None:
            return got
        return plays(C.parent_cell_of(c)) if c >= C.SOURCE_FD_OFFSET else C.default_action_of(c)

    for c, a in res["cells"].items():
        assert plays(c) == a, c
    [fin] = [c for c in data["tables"]["finish"]["cells"] if c["cell"] == FIN]
    assert fin["origin"] == "changed in round 1" and fin["margin"] == 2.5 and fin["rival"] == res["rounds"][0]["changes"][0]["from"]
    with pytest.raises(Exception, match="--force"):
        files.write(tmp_path, res, "again")


@pytest.mark.slow
def test_one_small_round_is_reproducible_at_any_thread_count():
    cfg = IterationConfig(games=2, sizes=(3,), decisions=24, rollouts=4, seed=5)
    cells = committed_cells()
    a = one_round(cells, cfg, 1)
    b = one_round(cells, IterationConfig(**{**cfg.__dict__, "threads": 1}), 1)
    c = one_round(cells, IterationConfig(**{**cfg.__dict__, "threads": 2}), 1)
    assert a[1].decisions > 10
    for x in (b, c):
        assert x[0] == a[0] and x[2] == a[2]
        assert {**x[1].__dict__, "wall_s": 0} == {**a[1].__dict__, "wall_s": 0}


def test_a_run_that_continues_another_numbers_its_rounds_on(monkeypatch):
    """--continue-from: the earlier run's final card is the start of the new rounds, its rounds come first, the new
    ones are numbered on (their games and rollout streams are the round's own), its first card stays the start."""
    from gnoming_sim.tune.card import iterate as ci

    before = _result()
    seen = []

    def fake(cells, cfg, rnd, say=None):
        seen.append((dict(cells), rnd))
        return cells, ci.Round(rnd, 9, 90, 30, cfg.rollouts, 1, 0, [], 1.0), {}

    monkeypatch.setattr(ci, "one_round", fake)
    res = ci.iterate(IterationConfig(rounds=2, rollouts=24), before=before)
    assert seen == [(before["cells"], 3)]                       # converged at once: one round, numbered 3
    assert [r["round"] for r in res["rounds"]] == [1, 2, 3] and res["rounds"][2]["rollouts"] == 24
    assert res["start"] == before["start"] and res["cells"] == before["cells"] and res["converged"]
    assert res["configs"][-1]["first_round"] == 3 and res["wall_s"] >= before["wall_s"]


def test_focus_cells_are_sampled_up_to_their_weight_times_the_cap():
    """--focus: a focus cell may value up to focus_weight times the other cells'
    cap, the cap still the largest within the budget; weight 1 is the plain per-cell cap, draw for draw."""
    entries = [dict(cell=c, i=i) for i, c in enumerate([1] * 100 + [2] * 5 + [3] * 40)]
    got = sample(entries, 45, np.random.default_rng(0), focus=(3,), focus_weight=2.0)
    assert {c: sum(e["cell"] == c for e in got) for c in (1, 2, 3)} == {1: 13, 2: 5, 3: 26}
    assert sample(entries, 45, np.random.default_rng(0), focus=(3,)) == sample(entries, 45, np.random.default_rng(0))
    with pytest.raises(Exception, match="focus cells"):
        IterationConfig(focus=(C.N_CELLS,)).check()


def test_the_files_are_written_after_every_round(tmp_path, monkeypatch):
    """A run stopped between rounds keeps the rounds done: `card --iterate` writes its files after each round (here
    the second round fails: the first's history is on disk, with its change)."""
    from click.testing import CliRunner

    from gnoming_sim.cli.app import cli
    from gnoming_sim.tune.card import iterate as ci

    change = _result()["rounds"][0]["changes"][0]

    def fake(cells, cfg, rnd, say=None):
        if rnd == 2:
            raise ci.GnomingError("stopped")
        return cells, ci.Round(rnd, 9, 90, 30, cfg.rollouts, 1, 1, [change], 1.0), {}

    monkeypatch.setattr(ci, "one_round", fake)
    r = CliRunner().invoke(cli, ["card", "--iterate", "--out", str(tmp_path), "--rounds", "3", "--focus", str(FIN)])
    assert r.exit_code == 2 and "stopped" in r.stderr, r.output
    hist = json.loads((tmp_path / "history.json").read_text())
    assert [r["round"] for r in hist["rounds"]] == [1] and hist["rounds"][0]["changes"] == [change]
    assert hist["configs"][-1]["focus"] == [FIN]


def test_the_card_is_valued_by_the_one_oracle_by_the_chance_of_winning(monkeypatch):
    """Audit row 4b: the committed card's cells are ranked by the oracle's criterion, the chance of winning
    the game (search/evaluator.py, HORIZON "game"), with the card in the seat to move and the oracle's base player
    elsewhere; the round margin of the derivation's collector plays no part."""
    from types import SimpleNamespace

    from gnoming_sim.search import evaluator as oracle
    from gnoming_sim.tune.card import iterate as ci

    calls = []

    def fake(pos, settings, keys, threads=None):
        calls.append((keys, list(settings.policies)))
        assert settings.horizon == "game" and settings.level == "rollouts"
        return keys, np.array([[1.0, 0.0]] * settings.budget)

    monkeypatch.setattr(oracle, "win_samples", fake)
    pos = SimpleNamespace(me=2, players=4)
    card = ci.card_strategy(committed_cells())
    [e] = ci.value([{"pos": pos, "cell": FIN, "current": "play on", "actions": {"finish": "pos3", "play on": "draw"}}],
                   card, IterationConfig(rollouts=4), 1)
    [(keys, policies)] = calls
    assert oracle.HORIZON == "game" and keys == ["draw", "pos3"]
    assert policies == [oracle.BASE, oracle.BASE, card, oracle.BASE]
    assert e["gain"] == {"finish": -100.0, "play on": 0.0} and e["win"] == 100.0

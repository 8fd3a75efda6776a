"""The policy iteration's files (:mod:`gnoming_sim.tune.card.iterate`): its history (``history.json``, one
row a round in ``history.csv``), the final card's tables (``cells.json``, the format
:func:`gnoming_sim.kernel.policy.registry.card_from_file` reads), and installing that card into the committed
cells file (its ``"tables"`` and ``"card_provenance"``; the starred ``"cells"`` the ``card-starred`` preset
reads are left as they are)."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from gnoming_sim.game.errors import GnomingError

HISTORY_FIELDS = ("round", "games", "covered", "decisions", "rollouts", "cells_seen", "cells_changed", "wall_s",
                  "changes")


def history_rows(result: dict) -> list[dict]:
    """One row a round: its counts, wall time, and its changes in words (``cell from -> to +gain``)."""
    rows = []
    for r in result["rounds"]:
        words = "; ".join(f"{c['table']} {c['cell']}: {c['from']} -> {c['to']} {c['gain_pp']:+.2f} pp" for c in r["changes"])
        rows.append({k: r[k] for k in HISTORY_FIELDS if k != "changes"} | {"changes": words})
    return rows


def history_csv(result: dict) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=HISTORY_FIELDS, lineterminator="\n")
    w.writeheader()
    w.writerows(history_rows(result))
    return buf.getvalue()


def _margin(st: dict, final: str) -> dict:
    """The final action's margin over the closest other in the last round that valued the cell (pp of win chance
    per decision where they differ): ``{"rival", "margin", "lo", "hi", "margin_n"}``."""
    gain = st["gain"]
    if final == st["current"]:
        rival = max((a for a in gain if a != final), key=lambda a: gain[a]["mean"])
        g = gain[rival]
        return {"rival": rival, "margin": -g["mean"], "lo": -g["ci95"][1], "hi": -g["ci95"][0], "margin_n": g["n"]}
    g = gain[final]
    return {"rival": st["current"], "margin": g["mean"], "lo": g["ci95"][0], "hi": g["ci95"][1], "margin_n": g["n"]}


def tables(result: dict) -> dict:
    """The final card's tables: every cell that was valued in some round or whose action is not its
    default, resolved (the printed card shows its action), with its words, decisions valued over the rounds, where
    its action comes from and its last margin; a cell left out plays the card's default."""
    from gnoming_sim.kernel.policy import card as C
    from gnoming_sim.tune.card.iterate import action_name, cell_words

    cells = {int(k): int(v) for k, v in result["cells"].items()}
    start = {int(k): int(v) for k, v in result["start"].items()}
    stats = {int(k): v for k, v in result["stats"].items()}
    seen = {int(k): int(v) for k, v in result["seen"].items()}
    changed = {}
    for r in result["rounds"]:
        for c in r["changes"]:
            changed[int(c["cell"])] = r["round"]
    out = {name: {"cells": [], "decisions": 0, "tests": 0, "family": "policy iteration"} for name in C.TABLE_NAMES}
    for cell in range(C.N_CELLS):
        a = cells[cell]
        if cell >= C.SOURCE_FD_OFFSET:      # a banded take cell not printed plays as its take cell (not its default)
            if cell not in stats and a == cells[C.parent_cell_of(cell)]:
                continue
        elif cell not in stats and a == C.default_action_of(cell):
            continue
        words = cell_words(cell)
        origin = (f"changed in round {changed[cell]}" if cell in changed else
                  "the committed card" if start[cell] != C.default_action_of(cell) else "the card's default")
        entry = {**words, "cell": cell, "best": a, "action": action_name(cell, a), "resolved": True,
                 "origin": origin, "n": seen.get(cell, 0)}
        if cell in stats:
            entry.update(_margin(stats[cell], entry["action"]), win=stats[cell]["win"])
            out[words["table"]]["tests"] += 1
        out[words["table"]]["decisions"] += seen.get(cell, 0)
        out[words["table"]]["cells"].append(entry)
    return out


def provenance(result: dict, command: str) -> dict:
    cfg = result["config"]
    return {"method": "policy iteration with the oracle (gnoming_sim.tune.card.iterate): each cell valued with the "
                      "card in the seat to move and net elsewhere, by the chance of winning the game",
            "command": command, "seed": cfg["seed"], "rounds": len(result["rounds"]), "round_cap": cfg["rounds"],
            "games_per_size": cfg["games"], "sizes": cfg["sizes"], "decisions_per_round": cfg["decisions"],
            "rollouts": cfg["rollouts"], "threshold_se": cfg["threshold"],
            "decisions": sum(r["decisions"] for r in result["rounds"]),
            "cells_changed": [r["cells_changed"] for r in result["rounds"]], "converged": result["converged"],
            "wall_s": result["wall_s"], "iteration": result["rounds"], "stages": result.get("configs", [])}


def write(out: Path, result: dict, command: str, force: bool = False) -> list[Path]:
    """Write ``history.json``, ``history.csv`` and ``cells.json`` under ``out`` (refusing to overwrite without
    ``force``)."""
    out = Path(out)
    paths = [out / "history.json", out / "history.csv", out / "cells.json"]
    if not force and any(p.exists() for p in paths):
        raise GnomingError(f"{out}: holds a policy iteration's files already; use --force to replace them")
    out.mkdir(parents=True, exist_ok=True)
    prov = provenance(result, command)
    hist = {k: result[k] for k in ("config", "rounds", "converged", "wall_s")} | {"configs": result.get("configs", []),
        "start": {str(k): v for k, v in result["start"].items()}, "cells": {str(k): v for k, v in result["cells"].items()},
        "seen": {str(k): v for k, v in result["seen"].items()}, "stats": {str(k): v for k, v in result["stats"].items()},
        "provenance": prov}
    paths[0].write_text(json.dumps(hist, indent=1) + "\n")
    paths[1].write_text(history_csv(result))
    paths[2].write_text(json.dumps({"tables": tables(result), "card_provenance": prov}, indent=1) + "\n")
    return paths


def install(cells_json: Path, target: Path) -> None:
    """Put ``cells_json``'s tables and provenance into the committed cells file ``target`` (its ``"tables"`` and
    ``"card_provenance"``; every other key, the starred ``"cells"`` among them, as it is)."""
    new = json.loads(Path(cells_json).read_text())
    data = json.loads(Path(target).read_text())
    data["tables"] = new["tables"]
    data["card_provenance"] = new["card_provenance"]
    Path(target).write_text(json.dumps(data, indent=1) + "\n")


__all__ = ["history_rows", "history_csv", "tables", "provenance", "write", "install", "HISTORY_FIELDS"]


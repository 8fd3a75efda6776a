"""The policy iteration's files (:mod:`gnoming_sim.tune.card_iteration`): its history (``history.json``, one
row a round in ``history.csv``), the final card as the guide's tables (``cells.json``, the format
:func:`gnoming_sim.kernel.policy.registry.card_from_file` reads), and installing that card into the committed
cells file (its ``"tables"`` and ``"card_provenance"``; the ``"cells"`` the ``chart`` preset reads are left as
they are)."""
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
    """The final card as the guide's tables: every cell that was valued in some round or whose action is not its
    default, resolved (the printed card shows its action), with its words, decisions valued over the rounds, where
    its action comes from and its last margin; a cell left out plays the card's default."""
    from gnoming_sim.kernel.policy import chart as C
    from gnoming_sim.tune.card_iteration import action_name, cell_words

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
    return {"method": "policy iteration with the oracle (gnoming_sim.tune.card_iteration): each cell valued with the "
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
    ``"card_provenance"``; every other key, the chart's ``"cells"`` among them, as it is)."""
    new = json.loads(Path(cells_json).read_text())
    data = json.loads(Path(target).read_text())
    data["tables"] = new["tables"]
    data["card_provenance"] = new["card_provenance"]
    Path(target).write_text(json.dumps(data, indent=1) + "\n")


def load_history(path: Path) -> dict:
    return json.loads(Path(path).read_text())


__all__ = ["history_rows", "history_csv", "tables", "provenance", "write", "install", "load_history", "HISTORY_FIELDS"]


def main(argv=None) -> int:
    """``python -m gnoming_sim.tune.card_output --out DIR [--rounds --games --decisions --rollouts --seed --threads
    --focus CELLS --focus-weight W --start CELLS_JSON --continue-from DIR --force]``: run the policy iteration from the committed card and write its files
    after every round (the runner of tuning/guide-iteration/run.sh)."""
    import argparse
    import sys
    import time

    from gnoming_sim.tune.card_iteration import IterationConfig, iterate

    ap = argparse.ArgumentParser(prog="python -m gnoming_sim.tune.card_output")
    ap.add_argument("--out", help="folder for history.json, history.csv and cells.json")
    ap.add_argument("--install", metavar="CELLS_JSON", help="put a run's cells.json into the committed cells file "
                    "(gnoming_sim/kernel/policy/chart_cells.json's tables and card_provenance) and stop")
    for k, v in (("rounds", 4), ("games", 40), ("decisions", 1500), ("rollouts", 24), ("seed", 1)):
        ap.add_argument(f"--{k}", type=int, default=v)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--focus", default="", metavar="CELLS", help="cells sampled more (comma-separated cell numbers: "
                    "tuning/guide-iteration/focus.py's), up to --focus-weight times the other cells' cap")
    ap.add_argument("--focus-weight", type=float, default=1.0)
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--start", metavar="CELLS_JSON", help="the first card: that cells file's tables (a guide's "
                    "chart_cells.json), its defaults explicit (default: the committed card)")
    ap.add_argument("--continue-from", metavar="DIR", help="go on from an earlier run's history.json (its final "
                    "card, its rounds first)")
    a = ap.parse_args(argv)
    if a.install:
        from gnoming_sim.kernel.policy import registry

        try:
            install(Path(a.install), registry.CHART_CELLS)
        except (OSError, ValueError, KeyError) as e:
            print(f"error: --install {a.install}: {e}", file=sys.stderr)
            return 2
        print(f"installed {a.install} into {registry.CHART_CELLS}")
        return 0
    if not a.out:
        print("error: --out DIR is required (or --install CELLS_JSON)", file=sys.stderr)
        return 2
    command = "python -m gnoming_sim.tune.card_output " + " ".join(argv if argv is not None else sys.argv[1:])
    try:
        try:
            focus = tuple(int(c) for c in a.focus.split(",") if c.strip())
        except ValueError:
            raise GnomingError(f"--focus must be comma-separated cell numbers, got {a.focus!r}") from None
        cfg = IterationConfig(rounds=a.rounds, games=a.games, decisions=a.decisions, rollouts=a.rollouts,
                              seed=a.seed, threads=a.threads, focus=focus, focus_weight=a.focus_weight)
        cfg.check()
        out = Path(a.out)
        if not a.force and (out / "history.json").exists():
            raise GnomingError(f"{out}: holds a policy iteration's files already; use --force to replace them")
        t0 = time.perf_counter()
        before = load_history(Path(a.continue_from) / "history.json") if a.continue_from else None
        start = None
        if a.start:
            from gnoming_sim.tune.card_iteration import committed_cells

            try:
                start = committed_cells(Path(a.start))
            except (OSError, ValueError, KeyError) as e:
                raise GnomingError(f"--start {a.start}: {e}") from None
        # the files after every round (a run stopped between rounds keeps the rounds done)
        result = iterate(cfg, start=start, say=lambda s: print(s, flush=True), before=before,
                         on_round=lambda r: write(out, r, command, force=True))
        paths = write(out, result, command, force=True)
    except GnomingError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{len(result['rounds'])} rounds, cells changed per round {[r['cells_changed'] for r in result['rounds']]}, "
          f"{'converged' if result['converged'] else 'round cap reached'}, {time.perf_counter() - t0:.0f} s; wrote "
          + ", ".join(map(str, paths)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

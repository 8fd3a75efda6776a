"""What ``gnoming-sim tune`` writes: the strategies TOML, the generation log and the tuning curve.

Every file is written whole to a temporary name beside it, synced, read back and renamed
over it (:mod:`gnoming_sim.batch.safe_write`), so an interruption or a full disk leaves
either the old file or the new one, never half of one.
"""
from __future__ import annotations

import re

from gnoming_sim.batch.safe_write import write_file
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.policy.heuristic import PARAM_NAMES

NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")   # a bare TOML key that --seats A,B accepts (fullmatch)
INTEGER_PARAMS = ("bounce", "hazard_flip", "initial_flips")


def atomic_write(path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` crash-safely (:func:`gnoming_sim.batch.safe_write.write_file`):
    locked, synced, read back, renamed into place; a disk error is a one-line GnomingError."""
    write_file(path, data, "--out")


def check_name(name: str) -> str:
    """A strategy name for the TOML file: a bare TOML key, not a preset's name."""
    from gnoming_sim.kernel.policy.registry import BUILTIN

    if not isinstance(name, str) or not NAME_RE.fullmatch(name):   # fullmatch: '$' would let 'ok\n' pass
        raise GnomingError(f"--name must start with a letter and hold only letters, digits, '_' and '-' (at most 40), "
                           f"got {name!r}")
    if name in {s.name for s in BUILTIN}:
        raise GnomingError(f"--name {name!r} is a preset's name; choose another")
    return name


def strategy_toml(name: str, params: dict, description: str, comments: list[str]) -> str:
    """A ``[strategy.NAME]`` table that :func:`gnoming_sim.kernel.policy.registry.load_file` reads."""
    lines = [f"# {c}" for c in comments]
    lines += [f"[strategy.{name}]", 'base = "greedy"', f"description = {_toml_string(description)}"]
    for key in PARAM_NAMES:
        value = params[key]
        lines.append(f"{key} = {int(value)}" if key in INTEGER_PARAMS else f"{key} = {float(value)!r}")
    return "\n".join(lines) + "\n"


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_log(rows: list[dict], path) -> None:
    """The generation log: CSV, or Parquet when ``path`` ends in ``.parquet``."""
    import io

    import pandas as pd

    frame = pd.DataFrame(rows)
    if str(path).endswith(".parquet"):
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        atomic_write(path, buf.getvalue())
    else:
        atomic_write(path, frame.to_csv(index=False, float_format="%.6g"))


def plot_curve(rows: list[dict], path, title: str) -> None:
    """PNG: the incumbent's objective per generation with its 95% interval, and the best candidate's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    # the title holds strategy names: plain text, never mathtext (see analyses/framework/plots.py)
    with matplotlib.rc_context({"text.parse_math": False}):
        png = _curve_png(plt, np, rows, title)
    atomic_write(path, png)


def _curve_png(plt, np, rows: list[dict], title: str) -> bytes:
    import io

    gen = np.array([r["generation"] for r in rows])
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    inc = np.array([r["incumbent"] for r in rows])
    ax.fill_between(gen, [r["incumbent_lo"] for r in rows], [r["incumbent_hi"] for r in rows],
                    alpha=0.25, color="C0", label="95% interval")
    ax.plot(gen, inc, color="C0", lw=1.5, label="incumbent (distribution mean)")
    ax.plot(gen, [r["best"] for r in rows], color="C1", lw=0.8, alpha=0.8,
            label="best candidate of the generation (selected: biased low)")
    ax.axhline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("generation")
    ax.set_ylabel("game score minus field's, per game (lower is better)")
    games = sum(r["games"] * r["candidates"] for r in rows)
    ax.set_title(f"{title}\n{len(rows)} generations, {games:,} candidate games", fontsize=10)
    ax.legend(fontsize=8, loc="center right")
    ax2 = ax.twinx()
    ax2.step(gen, [r["games"] for r in rows], where="post", color="grey", lw=0.8, alpha=0.6)
    ax2.set_ylabel("games per candidate", color="grey")
    ax2.set_yscale("log")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()

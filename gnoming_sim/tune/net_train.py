"""Training the net player (``KIND_NET``, :mod:`gnoming_sim.kernel.policy.net`) by expert iteration.

1. **Targets** (:func:`gather`).  Self-play rounds, every seat playing the teacher's base policy
   (``expert``, ``learned`` or the installed ``net``: the next round), at each table size of ``players``, in chunks of ``chunk`` rounds; each
   chunk under one rules variant (:func:`sample_rules`: the published rules for half the chunks, else
   each of the four card-value options at its published value or uniform over its documented range).
   At a random sample of the placements, every legal answer's net inputs and its value by ``budget``
   rollouts of the base policy (:func:`gnoming_sim.search.sampler.net_targets`): the labels are the base
   policy's one-step improvement, the ``mc`` player's choice, which is stronger than the player it
   trains whenever the search beats it (``tuning/net/run.sh``'s second step says what the stronger
   teacher cost).  With ``--head source``, the
   draw-source decisions instead (every answer the draw-source head values).
2. **Fit** (:func:`fit`).  Per decision the answers' values and predictions are centred (only
   differences between answers are fitted), the inputs standardised; the loss is the mean squared
   centred error plus an L2 penalty, minimised by scipy's L-BFGS-B from a seeded start (no hand-written
   optimiser; the gradient is the network's back-propagation in numpy, checked by ``scipy.optimize.check_grad``
   in the tests).  A held-aside tenth of the decisions gives the validation loss per iteration (the curve).
   Each head (:data:`PLACE`, :data:`SOURCE`) is fitted on its own decisions; a source fit keeps the placement
   head of ``--placement-weights`` and names that file by its sha256.
3. **Check** (:func:`gnoming_sim.tune.learn.check`): one net seat among three experts at 4 players on
   validation deals.

Streams depend only on ``seed`` and the chunk, so a run is reproducible at any thread count.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gnoming_sim.game.rules import (HAZARD_VALUE_RANGE, MAX_EARLY_FINISH_BONUS, MULLIGAN_VALUE_RANGE,
                                    NEGATIVE_MULTIPLIER_RANGE, RuleConfig)
from gnoming_sim.kernel.policy import net as NN
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.registry import KIND_NET, Strategy

CHUNK_STRIDE = 2**32       # chunk c's rounds start at c * 2**32 (below tuning's 2**58)
DOCUMENTED = {"early_finish_bonus": (0, MAX_EARLY_FINISH_BONUS), "hazard_value": HAZARD_VALUE_RANGE,
              "mulligan_value": MULLIGAN_VALUE_RANGE, "negative_multiplier": NEGATIVE_MULTIPLIER_RANGE}
# the ranges sampled: the documented ones, but the bonus at most 10, the hazard at most 30 and a mulligan within
# +-10.  Past a bonus of 10 the teacher's base (expert) stops finishing: at 4 players, 200 games, it plays 34 turns a
# round at a bonus of 10, 128 at 13 (18% of rounds stalled at max_turns), 246 at 20 (44%), against 23 at 5, which
# makes a rollout many times longer and the labels those of a game nobody plays.
RULE_RANGES = {"early_finish_bonus": (0, 10), "hazard_value": (1, 30), "mulligan_value": (-10, 10),
               "negative_multiplier": NEGATIVE_MULTIPLIER_RANGE}
assert all(DOCUMENTED[k][0] <= lo <= hi <= DOCUMENTED[k][1] for k, (lo, hi) in RULE_RANGES.items())


@dataclass
class NetConfig:
    teacher: str = "expert"     # the rollouts' base policy (and the seats'): expert, learned or net (the installed
                                # weights: the next round of expert iteration)
    players: tuple = (2, 3, 4, 5, 6, 7)
    chunks: int = 8             # chunks per table size
    chunk: int = 150            # rounds per chunk
    budget: int = 16            # rollouts per answer
    p_sample: float = 0.3       # share of placements turned into targets
    l2: float = 1e-4            # L2 penalty on the weights (standardised inputs)
    maxiter: int = 300          # L-BFGS iterations
    check_games: int = 4000
    seed: int = 1
    head: str = "place"         # which decisions are gathered and fitted: placements, or draw sources ("source")
    threads: int | None = None
    log: list = field(default_factory=list)


def sample_rules(rng: np.random.Generator) -> RuleConfig:
    """The published rules half the time; else each card-value option at its published value or, with
    even odds, uniform over its range (:data:`RULE_RANGES`)."""
    if rng.random() < 0.5:
        return RuleConfig()
    change = {k: int(rng.integers(lo, hi + 1)) for k, (lo, hi) in RULE_RANGES.items() if rng.random() < 0.5}
    return RuleConfig(**change)


def _joined(parts) -> dict:
    """Chunks' rows together, in the order given (a gather's, a folder's, or several folders')."""
    return {k: np.concatenate([d[k] for d in parts]) for k in ("players", "nopt", "inputs", "vals")}


def gather_plan(seed: int, chunks: int, players) -> list:
    """A gather's chunks in order, (table size, chunk, rules): chunk j's rounds start at game (j + 1) * CHUNK_STRIDE."""
    rng = np.random.default_rng(seed)
    return [(p, c, sample_rules(rng)) for c in range(chunks) for p in players]


def gather(cfg: NetConfig, data_dir: Path, progress=print) -> dict:
    """Collect every chunk (one ``.npz`` per chunk under ``data_dir``; a chunk already there is read back,
    so an interrupted run resumes) and return the rows together (``players``, ``nopt``, ``inputs``, ``vals``)."""
    from gnoming_sim.search.sampler import net_targets

    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "settings.json").write_text(json.dumps(gather_settings(cfg)) + "\n")
    plan = gather_plan(cfg.seed, cfg.chunks, cfg.players)
    parts = []
    t0 = time.perf_counter()
    for j, (p, c, rules) in enumerate(plan):
        path = data_dir / f"p{p}-c{c}.npz"
        if not path.exists():
            d = net_targets(p, cfg.teacher, cfg.chunk, seed=cfg.seed, budget=cfg.budget, p_sample=cfg.p_sample,
                            first_game=(j + 1) * CHUNK_STRIDE, rules=rules, threads=cfg.threads,
                            source=cfg.head == "source")
            np.savez_compressed(path, **d)
            progress(json.dumps({"chunk": j, "players": p, "rows": int(d["nopt"].size),
                                 "rules": {k: getattr(rules, k) for k in RULE_RANGES},
                                 "seconds": round(time.perf_counter() - t0, 1)}))
        parts.append(_chunk(path))
    return _joined(parts)


def _chunk(path) -> dict:
    """One chunk's arrays, read into memory."""
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def gather_settings(cfg: NetConfig) -> dict:
    """What a chunk folder was gathered with (its ``settings.json``); a net teacher is the installed weights,
    named by their file's sha256 (the next round's labels depend on which net taught them)."""
    out = {"teacher": cfg.teacher, "budget": cfg.budget, "players": list(cfg.players), "chunks": cfg.chunks,
           "chunk": cfg.chunk, "p_sample": cfg.p_sample, "seed": cfg.seed, "rule_ranges": RULE_RANGES}
    if cfg.head != "place":
        out["head"] = cfg.head
    else:
        out["inputs"] = list(NN.INPUT_NAMES)
    if cfg.teacher == "net":
        import hashlib

        out["teacher_weights_sha256"] = hashlib.sha256(registry.NET_WEIGHTS.read_bytes()).hexdigest()
    return out


def widen_chunks(folder: Path, out: Path, teacher, progress=print) -> dict:
    """Rebuild the placement rows of the gather in ``folder`` under the current kernel (new inputs included) into
    ``out``: every chunk's decisions replayed (:func:`gnoming_sim.search.sampler.net_replay`, ``teacher`` the
    strategy that played them), checked to be the stored decisions (the same count per chunk and, in every input
    the stored rows have, the same values), written with the stored rollout values.  Returns ``{"chunks",
    "decisions"}``; raises ``ValueError`` on the first chunk that does not replay."""
    from gnoming_sim.search.sampler import net_replay

    st = json.loads((folder / "settings.json").read_text())
    if st.get("head", "place") != "place":
        raise ValueError(f"{folder}: a draw-source gather (only placement rows have new inputs)")
    names = st.get("inputs", list(NN.INPUT_NAMES[:NN.L.NF_P]) + list(NN.CONTEXT_NAMES))
    cols = [NN.INPUT_NAMES.index(x) for x in names]
    plan = gather_plan(st["seed"], st["chunks"], st["players"])
    out.mkdir(parents=True, exist_ok=True)
    done = rows = 0
    for j, (p, c, rules) in enumerate(plan):
        path = folder / f"p{p}-c{c}.npz"
        if not path.exists():
            continue
        old = _chunk(path)
        d = net_replay(p, teacher, st["chunk"], st["seed"], p_sample=st["p_sample"],
                       first_game=(j + 1) * CHUNK_STRIDE, rules=rules)
        if not (np.array_equal(d["nopt"], old["nopt"]) and np.array_equal(d["inputs"][..., cols], old["inputs"])):
            raise ValueError(f"{path}: the replay is not the stored gather (another teacher, or the kernel changed)")
        np.savez_compressed(out / path.name, players=old["players"], nopt=old["nopt"], inputs=d["inputs"],
                            vals=old["vals"])
        done += 1
        rows += int(old["nopt"].size)
        progress(json.dumps({"chunk": path.name, "rows": int(old["nopt"].size)}))
    (out / "settings.json").write_text(json.dumps({**st, "inputs": list(NN.INPUT_NAMES), "widened_from": str(folder)})
                                       + "\n")
    return {"chunks": done, "decisions": rows}


def read_chunks(folders) -> dict:
    """Every chunk of ``folders`` (in name order), rows together."""
    parts = []
    for folder in folders:
        for path in sorted(Path(folder).glob("*.npz")):
            parts.append(_chunk(path))
    return _joined(parts)


# ------------------------------------------------------------------ the network and its loss
@dataclass(frozen=True)
class Head:
    """The layout of one of the net's perceptrons: ``nf`` option features, then the context, ``ni`` inputs in all,
    ``hu`` hidden units (weights: W input by input, b, u, a)."""
    name: str
    nf: int
    ni: int
    hu: int

    @property
    def n_weights(self) -> int:
        return self.hu * self.ni + 2 * self.hu + self.nf


PLACE = Head("place", NN.NF, NN.NI, NN.HIDDEN_UNITS)
SOURCE = Head("source", NN.NFS, NN.NIS, NN.SOURCE_HIDDEN)
assert PLACE.n_weights == NN.N_WEIGHTS and SOURCE.n_weights == NN.S_ON


def unpack(w: np.ndarray, head: Head = PLACE):
    """(W float64[H, NI], b float64[H], u float64[H], a float64[NF]) of a weight vector (views: W is stored
    input by input, ``NI x H``, and seen transposed)."""
    H, NI, NF = head.hu, head.ni, head.nf
    b_at = H * NI
    return w[:b_at].reshape(NI, H).T, w[b_at:b_at + H], w[b_at + H:b_at + 2 * H], w[b_at + 2 * H:b_at + 2 * H + NF]


def forward(w: np.ndarray, X: np.ndarray, head: Head = PLACE) -> np.ndarray:
    """The net's values of inputs ``X`` float64[..., NI] (as :func:`gnoming_sim.kernel.policy.net.option_value`)."""
    W, b, u, a = unpack(w, head)
    return X[..., :head.nf] @ a + np.maximum(X @ W.T + b, 0.0) @ u


def loss_grad(w: np.ndarray, X: np.ndarray, y: np.ndarray, mask: np.ndarray, l2: float, head: Head = PLACE):
    """(loss, gradient) of the centred squared error: per decision (rows of ``X`` float64[D, K, NI], ``y``
    float64[D, K], ``mask`` float64[D, K] 1 for a legal answer), prediction minus value, both minus their
    mean over the decision's answers; the mean over answers plus ``l2`` times the squared weights."""
    W, b, u, a = unpack(w, head)
    n = np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
    Z = X @ W.T + b                     # [D, K, H]
    A = np.maximum(Z, 0.0)
    f = X[..., :head.nf] @ a + A @ u    # [D, K]
    e = (f - y) * mask
    r = (e - e.sum(axis=1, keepdims=True) / n) * mask
    total = mask.sum()
    loss = float((r * r).sum() / total) + l2 * float(w @ w)
    g_f = 2.0 * r / total               # d loss / d f (centring is a projection: its gradient is r itself)
    g = backprop(w, X, Z, A, g_f, head)
    g += 2.0 * l2 * w
    return loss, g


def backprop(w: np.ndarray, X: np.ndarray, Z: np.ndarray, A: np.ndarray, g_f: np.ndarray, head: Head = PLACE):
    """The gradient over the weights of a loss whose gradient over the values f [D, K] is ``g_f``, given the
    forward pass's pre-activations ``Z`` and activations ``A`` [D, K, H] (any loss of the values: the centred
    squared error of :func:`loss_grad`, or a probe's)."""
    u = unpack(w, head)[2]
    g = np.zeros_like(w)
    gW, gb, gu, ga = unpack(g, head)
    ga[:] = np.einsum("dk,dki->i", g_f, X[..., :head.nf])
    gu[:] = np.einsum("dk,dkh->h", g_f, A)
    g_z = g_f[..., None] * u * (Z > 0.0)
    gW[:] = np.einsum("dkh,dki->hi", g_z, X)
    gb[:] = g_z.sum(axis=(0, 1))
    return g


def held_aside(n: int, seed: int) -> np.ndarray:
    """The validation tenth of ``n`` decisions that a fit of ``seed`` holds aside (bool[n]); the probes read it too."""
    return np.random.default_rng(seed + 1).random(n) < 0.1


def decision_regret(f: np.ndarray, y: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per decision, the rollout value (``y``, lower is better) of the answer of the lowest predicted value ``f``
    minus the best answer's, over the legal answers (``mask`` nonzero)."""
    big = 1e9
    legal = mask > 0
    ym = np.where(legal, y, big)
    pick = np.where(legal, f, big).argmin(axis=1)
    return ym[np.arange(len(pick)), pick] - ym.min(axis=1)


def standardise(X: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per input, (mean, scale) over the legal answers (scale 1 for an input that never varies)."""
    rows = X[mask > 0]
    mu = rows.mean(axis=0)
    sd = rows.std(axis=0)
    return mu, np.where(sd > 1e-9, sd, 1.0)


def fold(w: np.ndarray, mu: np.ndarray, sd: np.ndarray, head: Head = PLACE) -> np.ndarray:
    """The weights on raw inputs of a network trained on ``(x - mu) / sd``: the kernel's weights."""
    out = w.copy()
    W, b, u, a = unpack(w, head)
    oW, ob, ou, oa = unpack(out, head)
    oW[:] = W / sd
    ob[:] = b - (W / sd) @ mu
    oa[:] = a / sd[:head.nf]   # the linear part's constant cancels within a decision
    return out


def unfold(w: np.ndarray, mu: np.ndarray, sd: np.ndarray, head: Head = PLACE) -> np.ndarray:
    """The inverse of :func:`fold` (up to the linear part's constant): the weights on ``(x - mu) / sd`` of a
    network whose kernel weights (on raw inputs) are ``w``; a warm start from installed weights."""
    out = w.copy()
    W, b, u, a = unpack(w, head)
    oW, ob, ou, oa = unpack(out, head)
    oW[:] = W * sd
    ob[:] = b + W @ mu
    oa[:] = a * sd[:head.nf]
    return out


def init_weights(seed: int, head: Head = PLACE) -> np.ndarray:
    rng = np.random.default_rng(seed)
    w = np.zeros(head.n_weights)
    W, b, u, a = unpack(w, head)
    W[:] = rng.normal(0.0, 1.0 / np.sqrt(head.ni), W.shape)
    b[:] = 0.1
    u[:] = rng.normal(0.0, 0.1, u.shape)
    return w


def fit(data: dict, cfg: NetConfig, progress=print, head: Head = PLACE) -> tuple[np.ndarray, list[dict]]:
    """The kernel's weights (float64[N_WEIGHTS]) fitted to ``data`` by L-BFGS-B, and the curve: one row per
    logged iteration (training and validation loss, the validation share of centred variance explained)."""
    from scipy.optimize import minimize

    X, y, nopt = data["inputs"], data["vals"], data["nopt"]
    mask = (np.arange(X.shape[1])[None, :] < nopt[:, None]).astype(np.float64)
    mu, sd = standardise(X, mask)
    Xs = (X - mu) / sd * mask[..., None]
    val = held_aside(len(nopt), cfg.seed)
    tr = ~val
    yv = y[val] * mask[val]
    yc = (yv - yv.sum(axis=1, keepdims=True) / mask[val].sum(axis=1, keepdims=True)) * mask[val]
    var_v = float((yc * yc).sum() / mask[val].sum())
    curve = []
    t0 = time.perf_counter()

    def note(wk):
        it = len(curve) + 1
        if it % 10 == 0 or it == 1:
            lt = loss_grad(wk, Xs[tr], y[tr], mask[tr], 0.0, head)[0]
            lv = loss_grad(wk, Xs[val], y[val], mask[val], 0.0, head)[0]
            row = {"iteration": it, "train_mse": round(lt, 4), "val_mse": round(lv, 4),
                   "val_r2": round(1.0 - lv / var_v, 4), "seconds": round(time.perf_counter() - t0, 1)}
            progress(json.dumps(row))
            curve.append(row)
        else:
            curve.append(None)

    res = minimize(loss_grad, init_weights(cfg.seed, head), args=(Xs[tr], y[tr], mask[tr], cfg.l2, head), jac=True,
                   method="L-BFGS-B", callback=note, options={"maxiter": cfg.maxiter})
    # an input that never varies in the targets (the bounce flag: bounces are not sampled) carries nothing the fit
    # could use, and its first-layer weights would stay at their random start: set them to 0, so a bounce is
    # valued as a placement is (this leaves every training row's prediction unchanged: the input is 0 there)
    const = (sd == 1.0) & (np.abs(mu) < 1e-12)
    W, _, _, _ = unpack(res.x, head)
    W[:, const] = 0.0
    rows = [r for r in curve if r is not None]
    lv = loss_grad(res.x, Xs[val], y[val], mask[val], 0.0, head)[0]
    rows.append({"iteration": int(res.nit), "train_mse": round(loss_grad(res.x, Xs[tr], y[tr], mask[tr], 0.0, head)[0], 4),
                 "val_mse": round(lv, 4), "val_r2": round(1.0 - lv / var_v, 4),
                 "seconds": round(time.perf_counter() - t0, 1)})
    return fold(res.x, mu, sd, head), rows


def strategy_of(weights: np.ndarray, name: str = "net-train", source: np.ndarray | None = None) -> Strategy:
    """A net player of placement ``weights`` and, if given, the draw-source head's ``source`` (without its on
    flag; none: learned's draw source)."""
    base = registry.get("learned")
    params = dict(base.params)
    params.update({n: float(v) for n, v in zip(NN.WEIGHT_NAMES, weights)})
    if source is not None:
        params.update({n: float(v) for n, v in zip(NN.SOURCE_WEIGHT_NAMES, list(source) + [1.0])})
    return Strategy(name, KIND_NET, "net player in training", params)


def _teachers(cfg: NetConfig, sources: dict | None) -> str:
    if not sources:
        return f"{cfg.budget} rollouts of {cfg.teacher}"
    return " and ".join(f"{v['rows']} of {v['teacher']}, {v['budget']} rollouts" for v in sources.values())


def weights_json(weights: np.ndarray, cfg: NetConfig, command: str, seconds: float, check: dict,
                 rows: int, sources: dict | None = None, source: np.ndarray | None = None,
                 placement_from: dict | None = None, source_from: dict | None = None) -> str:
    """The weights file (:func:`gnoming_sim.kernel.policy.registry.net_from_file` reads it) with its provenance;
    ``source``: the draw-source head's weights (without its on flag), fitted by this command to ``rows``
    draw-source decisions (the placement weights then come from ``placement_from``'s file) or, with a placement
    fit, kept from ``source_from``'s file; either file named by its path and sha256."""
    if source is not None and source_from is not None:
        desc = (f"net: one-ply MLPs over every placement and bounce option ({NN.NI} inputs, {NN.HIDDEN_UNITS} hidden "
                f"ReLU units, a linear skip), fitted by `{command}` to {rows} decisions' rollout values "
                f"({_teachers(cfg, sources)}, spread over the rules options; fit {seconds:.0f} s), and every "
                f"draw-source option ({NN.NIS} inputs, {NN.SOURCE_HIDDEN} hidden units; the draw-source head of "
                f"{source_from['path']}, sha256 {source_from['sha256'][:12]}); ")
    elif source is None:
        desc = (f"net: one-ply MLP ({NN.NI} inputs, {NN.HIDDEN_UNITS} hidden ReLU units, a linear skip) over every "
                f"placement and bounce option, learned's draw source; fitted by `{command}` to {rows} decisions' "
                f"rollout values ({_teachers(cfg, sources)}, spread over the rules options; fit {seconds:.0f} s); ")
    else:
        desc = (f"net: one-ply MLPs over every placement and bounce option ({NN.NI} inputs, {NN.HIDDEN_UNITS} hidden "
                f"ReLU units, a linear skip; the weights of {placement_from['path']}, sha256 "
                f"{placement_from['sha256'][:12]}) and every draw-source option ({NN.NIS} inputs, {NN.SOURCE_HIDDEN} "
                f"hidden units), the draw-source head fitted by `{command}` to {rows} draw-source decisions' rollout "
                f"values ({_teachers(cfg, sources)}, spread over the rules options; fit {seconds:.0f} s); ")
    desc += (f"validation at 4 players, one seat among three experts: {check['margin']:+.2f} "
             f"[{check['lo']:+.2f}, {check['hi']:+.2f}] points per game (95%, n = {check['games']}; lower is better)")
    layout = {"inputs": list(NN.INPUT_NAMES), "hidden": NN.HIDDEN_UNITS,
              "order": "W (inputs x hidden, row-major: one input's column after another), b, u, a (features)"}
    if source is not None:
        layout["source"] = {"inputs": list(NN.SOURCE_INPUT_NAMES), "hidden": NN.SOURCE_HIDDEN,
                            "order": "as the placement head's, then the on flag (1)"}
    data = {"description": desc, "layout": layout,
            "weights": [float(x) for x in weights],
            "provenance": {"command": command, "seconds": round(seconds, 1), "decisions": rows, "data": sources,
                           "settings": {k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.__dict__.items()
                                        if k not in ("log", "threads") and (k, v) != ("head", "place")},
                           "check": check, "log": cfg.log}}
    if source is not None:
        data["source_weights"] = [float(x) for x in source] + [1.0]
        if source_from is not None:
            data["provenance"]["source_head"] = source_from
        else:
            data["provenance"]["placement_weights"] = placement_from
    return json.dumps(data, indent=1) + "\n"


__all__ = ["NetConfig", "Head", "PLACE", "SOURCE", "sample_rules", "gather", "fit", "forward", "loss_grad", "fold", "strategy_of",
           "weights_json", "RULE_RANGES", "read_chunks", "widen_chunks"]


def main(argv=None) -> None:
    """``python -m gnoming_sim.tune.net_train --out DIR ...``: gather, fit, check; writes DIR/weights.json,
    DIR/log.csv (the fit's curve) and DIR/gather.jsonl (the chunks)."""
    import argparse
    import csv
    import shlex
    import sys

    from gnoming_sim.tune.learn import check

    ap = argparse.ArgumentParser(prog="python -m gnoming_sim.tune.net_train")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--data", help="chunk folder (default OUT/data, not committed); with --fit-only, folders "
                                   "separated by commas, every chunk in them")
    ap.add_argument("--teacher", default="expert", choices=("expert", "learned", "net"))
    ap.add_argument("--players", default="2,3,4,5,6,7")
    for k in ("chunks", "chunk", "budget", "maxiter", "check_games", "seed"):
        ap.add_argument("--" + k.replace("_", "-"), type=int, default=getattr(NetConfig, k))
    ap.add_argument("--p-sample", type=float, default=NetConfig.p_sample)
    ap.add_argument("--l2", type=float, default=NetConfig.l2)
    ap.add_argument("--head", default="place", choices=("place", "source"),
                    help="the decisions gathered and fitted: placements (the placement head), or draw sources (the "
                         "draw-source head, fitted beside --placement-weights' placement head)")
    ap.add_argument("--placement-weights", type=Path, default=registry.NET_WEIGHTS,
                    help="with --head source: the weights file whose placement head the new file keeps")
    ap.add_argument("--source-weights", type=Path,
                    help="with --head place: the weights file whose draw-source head the new file keeps (default: "
                         "none, learned's draw source)")
    ap.add_argument("--widen", type=Path, metavar="FOLDER",
                    help="replay the placement gather in FOLDER (its teacher: --teacher, or --teacher-weights) and "
                         "write its rows with the current kernel's inputs into --data; then stop")
    ap.add_argument("--teacher-weights", type=Path,
                    help="with --widen: the net that played the gather (its sha256 must be the gather's teacher's)")
    ap.add_argument("--gather-only", action="store_true")
    ap.add_argument("--fit-only", action="store_true", help="fit the chunks already in --data (gathered before)")
    a = ap.parse_args(argv)
    cfg = NetConfig(teacher=a.teacher, players=tuple(int(p) for p in a.players.split(",")), chunks=a.chunks,
                    chunk=a.chunk, budget=a.budget, p_sample=a.p_sample, l2=a.l2, maxiter=a.maxiter,
                    check_games=a.check_games, seed=a.seed, head=a.head)
    command = "python -m gnoming_sim.tune.net_train " + " ".join(shlex.quote(x) for x in (argv or sys.argv[1:]))
    t0 = time.perf_counter()
    if a.widen is not None:   # writes nothing under --out
        import hashlib

        if not a.data:
            ap.error("--widen needs --data (the folder the widened rows go to)")
        if not (a.widen / "settings.json").exists():
            ap.error(f"--widen {a.widen}: no gather there (no settings.json)")
        st = json.loads((a.widen / "settings.json").read_text())
        teacher = st["teacher"]
        if teacher == "net":
            if a.teacher_weights is None:
                ap.error("--widen: a net taught this gather; name its weights with --teacher-weights")
            if hashlib.sha256(a.teacher_weights.read_bytes()).hexdigest() != st.get("teacher_weights_sha256"):
                ap.error(f"--teacher-weights {a.teacher_weights}: not the net that taught {a.widen}")
            teacher = registry.net_from_file(a.teacher_weights, name="teacher")
        try:
            r = widen_chunks(a.widen, Path(a.data), teacher, progress=lambda s: print(s, flush=True))
        except ValueError as e:
            raise SystemExit(f"net_train: {e}")
        print(json.dumps({**r, "seconds": round(time.perf_counter() - t0, 1)}), flush=True)
        return
    a.out.mkdir(parents=True, exist_ok=True)
    sources = None
    if a.fit_only:
        sources, parts = {}, []
        a.data = a.data or str(a.out / "data")
        for d in a.data.split(","):
            if not any(Path(d).glob("*.npz")):
                ap.error(f"--data {d}: no gathered chunks there (gather them first: run.sh says how)")
            parts.append(read_chunks([Path(d)]))
            width = (SOURCE if cfg.head == "source" else PLACE).ni
            if parts[-1]["inputs"].shape[-1] != width:
                ap.error(f"--data {d}: rows of {parts[-1]['inputs'].shape[-1]} inputs, the head has {width} (a gather "
                         f"from before the layout features: widen it with --widen)")
            sources[d] = {"rows": int(parts[-1]["nopt"].size), **json.loads((Path(d) / "settings.json").read_text())}
        data = _joined(parts)  # each folder read once
    else:
        with open(a.out / "gather.jsonl", "a") as glog:
            def note(line):
                print(line, flush=True)
                glog.write(line + "\n")
                glog.flush()
            data = gather(cfg, Path(a.data) if a.data else a.out / "data", progress=note)
    print(json.dumps({"decisions": int(data["nopt"].size), "gather_seconds": round(time.perf_counter() - t0, 1)}),
          flush=True)
    if a.gather_only:
        return
    import hashlib

    placement_from = source_from = source = None
    if cfg.head == "source":
        source, curve = fit(data, cfg, progress=lambda s: print(s, flush=True), head=SOURCE)
        raw = a.placement_weights.read_bytes()
        kept = json.loads(raw)
        weights = np.array(kept["weights"], dtype=np.float64)
        if weights.size != NN.N_WEIGHTS:   # a head of an earlier layout
            weights = NN.widen(weights, kept["layout"]["inputs"])
        placement_from = {"path": str(a.placement_weights), "sha256": hashlib.sha256(raw).hexdigest()}
    else:
        weights, curve = fit(data, cfg, progress=lambda s: print(s, flush=True))
        if a.source_weights is not None:
            raw = a.source_weights.read_bytes()
            kept = json.loads(raw).get("source_weights")
            if kept is None:
                raise SystemExit(f"net_train: {a.source_weights} has no draw-source head")
            source = np.array(kept[:-1], dtype=np.float64)
            source_from = {"path": str(a.source_weights), "sha256": hashlib.sha256(raw).hexdigest()}
    cfg.log = curve
    c = check(strategy_of(weights, source=source), cfg.check_games, cfg.seed + 1000)
    c = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in c.items()}
    print(json.dumps({"check_4p_vs_expert": c}), flush=True)
    seconds = time.perf_counter() - t0
    with open(a.out / "log.csv", "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(curve[0]))
        wr.writeheader()
        wr.writerows(curve)
    (a.out / "weights.json").write_text(weights_json(weights, cfg, command, seconds, c, int(data["nopt"].size),
                                                       sources, source, placement_from, source_from))
    print(f"net_train: {int(data['nopt'].size)} decisions, {seconds:.0f} s; check at 4 players: "
          f"{c['margin']:+.2f} [{c['lo']:+.2f}, {c['hi']:+.2f}] vs expert (n = {c['games']}); wrote {a.out}/weights.json",
          flush=True)


if __name__ == "__main__":
    main()

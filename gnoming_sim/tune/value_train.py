"""Training the value network (:mod:`gnoming_sim.kernel.value`) on the outcomes of self-play.

1. **Gather** (:func:`gather`).  Whole self-play games of ``teacher`` at every seat (the oracle's base
   player), at each table size of ``players``, in chunks of ``chunk`` games, each chunk under one rules
   variant (:func:`gnoming_sim.tune.net_train.sample_rules`: the spread the net is trained on); a sample of
   positions per game with how the game ended (:func:`gnoming_sim.search.sampler.value_positions`).  Training and
   held-out chunks come from two seeds: no held-out game is a training game.
2. **Fit** (:func:`fit`).  The network's forward pass written in PyTorch (the optional ``[train]`` extra;
   the command and the tests never need it) and minimised by ``torch.optim.Adam``: the cross-entropy of the
   predicted win chances against each game's win credit (shared wins split), plus the mean squared error of
   the expected final scores against the table's mean (in tens of points).  The weights are exported as
   one float64 vector in :mod:`gnoming_sim.kernel.value`'s layout, and the held-out loss is recomputed
   with the kernel's own forward pass (:func:`held_out`), so what is published is what the kernel computes.

Run by ``tuning/value/run.py`` (``make train-value``); the weights and their provenance are committed in
``gnoming_sim/kernel/value_weights.json`` and ``tuning/value/``.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from gnoming_sim.kernel import value as V
from gnoming_sim.kernel.value_weights import FORMAT   # the weights file's format the loader checks

CHUNK_STRIDE = 2**32


@dataclass
class ValueConfig:
    teacher: str = "net"
    players: tuple = (2, 3, 4, 5, 6, 7)
    chunks: int = 8            # training chunks per table size
    held_out_chunks: int = 2   # held-out chunks per table size (another seed)
    chunk: int = 4000          # games per chunk
    p_sample: float = 0.05
    cap: int = 12
    seed: int = 11
    epochs: int = 6
    batch: int = 8192
    lr: float = 3e-3
    margin_weight: float = 0.5
    init_seed: int = 0


def gather(cfg: ValueConfig, data_dir: Path, held_out: bool = False, progress=print) -> dict:
    """Every chunk of the training (or held-out) set, one ``.npz`` each under ``data_dir`` (a chunk already
    there is read back); the rows together, and each row's rules variant and table size."""
    from gnoming_sim.search.sampler import value_positions
    from gnoming_sim.tune.net_train import RULE_RANGES, sample_rules

    seed = cfg.seed + (1 if held_out else 0)
    chunks = cfg.held_out_chunks if held_out else cfg.chunks
    rng = np.random.default_rng(seed)
    plan = [(p, c, sample_rules(rng)) for c in range(chunks) for p in cfg.players]
    data_dir.mkdir(parents=True, exist_ok=True)
    parts = []
    t0 = time.perf_counter()
    for j, (p, c, rules) in enumerate(plan):
        path = data_dir / f"{'held' if held_out else 'train'}-p{p}-c{c}.npz"
        if not path.exists():
            d = value_positions(p, cfg.teacher, cfg.chunk, seed=seed, p_sample=cfg.p_sample, cap=cfg.cap,
                                first_game=(j + 1) * CHUNK_STRIDE, rules=rules)
            d["published"] = np.full(d["players"].shape, rules == type(rules)(), dtype=bool)
            np.savez_compressed(path, **d)
            progress(json.dumps({"set": "held" if held_out else "train", "chunk": j, "players": p,
                                 "rows": int(d["players"].size), "rules": {k: getattr(rules, k) for k in RULE_RANGES},
                                 "seconds": round(time.perf_counter() - t0, 1)}))
        with np.load(path) as z:
            parts.append({k: z[k] for k in z.files})
    return {k: np.concatenate([d[k] for d in parts]) for k in parts[0]}


def _torch_forward(torch, w, x, mask):
    """The kernel's forward pass (:func:`gnoming_sim.kernel.value.forward`) on a batch: (logits, m)."""
    NI, H, NPHI = V.NI, V.HIDDEN_UNITS, V.NPHI
    W = w[V.W_AT:V.B_AT].view(NI, H)
    b = w[V.B_AT:V.U_AT]
    u = w[V.U_AT:V.V_AT]
    v = w[V.V_AT:V.A_AT]
    a = w[V.A_AT:V.S_AT]
    s = w[V.S_AT:V.N_WEIGHTS]
    h = torch.relu(x @ W + b)
    m = h @ u + x @ a
    tau = torch.exp(x[:, 0, NPHI:] @ s)
    logits = -m * tau[:, None] + h @ v
    logits = logits.masked_fill(~mask, -1e9)
    return logits, m


def _init(cfg: ValueConfig) -> np.ndarray:
    rng = np.random.default_rng(cfg.init_seed)
    w = np.zeros(V.N_WEIGHTS)
    w[V.W_AT:V.B_AT] = rng.normal(0, 1 / np.sqrt(V.NI), V.NI * V.HIDDEN_UNITS)
    w[V.U_AT:V.V_AT] = rng.normal(0, 0.1, V.HIDDEN_UNITS)
    w[V.V_AT:V.A_AT] = rng.normal(0, 0.1, V.HIDDEN_UNITS)
    w[V.A_AT + V.SEAT_NAMES.index("projected_vs_mean")] = 1.0   # m starts as the projected score against the mean
    return w


def _losses(torch, w, x, win, total, mask, margin_weight):
    logits, m = _torch_forward(torch, w, x, mask)
    logp = torch.log_softmax(logits, dim=1)
    ce = -(win * logp).sum(1).mean()
    mf = mask.float()
    n = mf.sum(1, keepdim=True)
    mc = m - (m * mf).sum(1, keepdim=True) / n
    se = (((mc - total / V.SCALE) ** 2) * mf).sum(1) / n[:, 0]
    return ce, se.mean(), ce + margin_weight * se.mean()


def fit(cfg: ValueConfig, train: dict, progress=print) -> tuple[np.ndarray, list]:
    """The fitted weight vector (float64[N_WEIGHTS]) and the per-epoch training losses."""
    try:
        import torch
    except ImportError:
        from gnoming_sim.game.errors import GnomingError

        raise GnomingError("training the value network needs PyTorch: pip install 'gnoming-sim[train]' "
                           "(torch==2.13.0, the CPU build)") from None
    torch.manual_seed(cfg.init_seed)
    x = torch.from_numpy(train["x"])
    win = torch.from_numpy(train["win"])
    total = torch.from_numpy(train["total"])
    P = torch.from_numpy(train["players"].astype(np.int64))
    mask = torch.arange(V.MAX_SEATS)[None, :] < P[:, None]
    w = torch.tensor(_init(cfg), dtype=torch.float32, requires_grad=True)
    opt = torch.optim.Adam([w], lr=cfg.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, cfg.epochs)
    gen = torch.Generator().manual_seed(cfg.init_seed)
    curve = []
    n = x.shape[0]
    for epoch in range(cfg.epochs):
        perm = torch.randperm(n, generator=gen)
        tot = 0.0
        for lo in range(0, n, cfg.batch):
            idx = perm[lo:lo + cfg.batch]
            opt.zero_grad()
            _, _, loss = _losses(torch, w, x[idx], win[idx], total[idx], mask[idx], cfg.margin_weight)
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
        sched.step()
        curve.append(tot / n)
        progress(json.dumps({"epoch": epoch, "loss": round(tot / n, 5)}))
    return w.detach().double().numpy(), curve


def held_out(w: np.ndarray, data: dict) -> dict:
    """The held-out losses by the kernel's forward pass: cross-entropy, Brier score of the observer's win, and
    the margin's mean squared error (points squared)."""
    from gnoming_sim.search.evaluator import predict

    win, margin = predict(w, data["x"], data["players"])
    mask = np.arange(V.MAX_SEATS)[None, :] < data["players"][:, None]
    ce = float(-(data["win"] * np.log(np.clip(win, 1e-12, 1)) * mask).sum(1).mean())
    brier = float(((win[:, 0] - data["win"][:, 0]) ** 2).mean())
    mse = float((((margin - data["total"]) ** 2) * mask).sum(1).mean() / mask.sum(1).mean())
    return {"cross_entropy": ce, "brier_observer": brier, "margin_mse_points2": mse, "rows": int(len(win))}


def write_weights(path: Path, w: np.ndarray, provenance: dict) -> None:
    """The weights file :mod:`gnoming_sim.search.evaluator` loads: the format, the inputs' names, the layout,
    the weights and where they came from."""
    body = {"format": FORMAT, "seat_inputs": list(V.SEAT_NAMES), "context_inputs": list(V.CONTEXT_NAMES),
            "hidden_units": V.HIDDEN_UNITS, "n_weights": V.N_WEIGHTS, "provenance": provenance,
            "weights": [float(f"{v:.9g}") for v in w]}
    path.write_text(json.dumps(body, indent=1) + "\n")


def data_digest(data: dict) -> str:
    h = hashlib.sha256()
    for k in sorted(data):
        h.update(np.ascontiguousarray(data[k]).tobytes())
    return h.hexdigest()[:16]


def config_dict(cfg: ValueConfig) -> dict:
    d = asdict(cfg)
    d["players"] = list(cfg.players)
    return d

"""The card's loss on fresh rollouts: the agreement table's held-out check.

The decision set (:mod:`gnoming_sim.experiments.oracle_decisions`) picks each decision's best option and values
it on the same rollouts, so ``best minus the card's option`` is biased up: the largest of several noisy means
overstates the best.  Here, at every covered decision where the card's option is not the set's best, the two
options alone are valued again by the oracle on **fresh** rollouts (their own seed stream, common to the two):
the fresh difference is unbiased for the loss against the set's best, which is at most the loss against the
true best, so the fresh mean loss is a lower bound of the true loss and the same-rollout one (in expectation)
an upper bound.  Where the card plays the set's best the loss is 0 and nothing is rolled out.

The result is tied to the card it was run with (card_cells.json's hash in the provenance): a table of another
card cannot use it, and says so.

    python -m gnoming_sim.experiments.agreement_fresh --decisions analyses/data/oracle/decisions.parquet \\
        --rollouts 64 --out analyses/data/agreement/fresh.parquet
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from gnoming_sim.experiments.agreement import KEYS   # what a fresh row is the loss of

FRESH_STREAM = 4   # a SeedSequence word of its own: apart from the set's rollout streams (oracle_decisions uses 2)


def fresh_seed(set_seed: int, decision: int) -> int:
    """The rollout seed of ``decision``'s fresh valuation (63 bits, like the set's own)."""
    return int(np.random.SeedSequence([int(set_seed), FRESH_STREAM, int(decision)]).generate_state(1, np.uint64)[0]
               >> 1)



def fresh_losses(answers: pd.DataFrame, set_seed: int, rollouts: int = 64, threads: int | None = None,
                 log=None, reuse: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per covered decision (:func:`gnoming_sim.experiments.agreement.card_answers`' rows): the set's best
    option minus the card's on ``rollouts`` fresh common rollouts (pp of win chance; 0 and no rollouts where
    the card plays the set's best), with its standard error.  ``reuse``: an earlier table (another card's, say)
    whose rows of the same decision, options and rollouts are copied, not rolled out again (the same seed
    stream would give the same numbers)."""
    from gnoming_sim.search.evaluator import Settings, win_samples
    from gnoming_sim.game.position_id import decode

    known = {}
    if reuse is not None:
        for r in reuse.to_dict("records"):
            if r["rollouts"] in (0, rollouts):
                known[tuple(r[k] for k in KEYS)] = r
    rows, t0 = [], time.perf_counter()
    for k, r in enumerate(answers.itertuples(index=False)):
        loss, se, n = 0.0, 0.0, 0
        old = known.get((int(r.decision), r.position_id, r.best_key, r.card_key))
        if old is not None:
            loss, se, n = float(old["loss_fresh_pp"]), float(old["se_pp"]), int(old["rollouts"])
        elif r.card_key != r.best_key:
            st = Settings(budget=rollouts, seed=fresh_seed(set_seed, r.decision))
            _, win = win_samples(decode(r.position_id), st, [r.best_key, r.card_key], threads)
            d = 100.0 * (win[:, 0] - win[:, 1])
            loss, se, n = float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size)), int(d.size)
        rows.append({"decision": int(r.decision), "position_id": r.position_id, "best_key": r.best_key,
                     "card_key": r.card_key, "loss_fresh_pp": loss, "se_pp": se, "rollouts": n})
        if log and (k + 1) % 200 == 0:
            log(f"[{time.perf_counter() - t0:6.1f} s] {k + 1} of {len(answers)} decisions")
    return pd.DataFrame(rows, columns=["decision", "position_id", "best_key", "card_key", "loss_fresh_pp", "se_pp",
                                       "rollouts"])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="agreement_fresh", description=__doc__.splitlines()[0])
    p.add_argument("--decisions", default="analyses/data/oracle/decisions.parquet")
    p.add_argument("--rollouts", type=int, default=64)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--out", default="analyses/data/agreement/fresh.parquet")
    p.add_argument("--reuse", default=None, help="an earlier fresh table: its rows of the same decision and options "
                                                 "are copied, not rolled out again")
    p.add_argument("--card", default=None, help="a cells file (card_cells.json's shape) to measure as the card, "
                                                "in this run only (default: the committed card)")
    a = p.parse_args(argv)
    src, out = Path(a.decisions), Path(a.out)
    if a.rollouts < 2:
        print("agreement_fresh: --rollouts must be at least 2", file=sys.stderr)
        return 2
    if not src.exists() or not src.with_suffix(".json").exists():
        print(f"agreement_fresh: {src} (with its .json provenance) not found", file=sys.stderr)
        return 2
    if out.exists():
        print(f"agreement_fresh: {out} exists; not overwritten (remove it first)", file=sys.stderr)
        return 2
    for opt, path in (("--reuse", a.reuse), ("--card", a.card)):
        if path is not None and not Path(path).exists():
            print(f"agreement_fresh: {opt} {path} not found", file=sys.stderr)
            return 2
    from gnoming_sim.experiments import agreement
    from gnoming_sim.kernel.policy import registry

    card = None if a.card is None else Path(a.card)
    if card is not None:
        registry.register(registry.card_from_file(card))   # this process's 'card': the file's printed card
    t0 = time.perf_counter()
    prov = json.loads(src.with_suffix(".json").read_text())
    answers = agreement.card_answers(pd.read_parquet(src))
    fresh = fresh_losses(answers, prov["seed"], a.rollouts, a.threads, log=lambda s: print(s, flush=True),
                         reuse=None if a.reuse is None else pd.read_parquet(a.reuse))
    out.parent.mkdir(parents=True, exist_ok=True)
    fresh.to_parquet(out, index=False)
    wall = time.perf_counter() - t0
    out.with_suffix(".json").write_text(json.dumps(
        {"decisions": str(src), "set_seed": prov["seed"], "rollouts": a.rollouts, "stream": FRESH_STREAM,
         "covered": len(answers), "rolled_out": int((fresh["rollouts"] > 0).sum()), "wall_s": round(wall, 1),
         "card": agreement.card_provenance(card)}, indent=1) + "\n")
    print(f"{len(fresh)} decisions ({int((fresh['rollouts'] > 0).sum())} rolled out) in {wall:.0f} s -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

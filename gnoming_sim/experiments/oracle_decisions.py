"""The oracle-valued decision set: decisions sampled from ``net`` self-play at 3 to 6 players, every
legal option valued by :func:`gnoming_sim.search.evaluator.win_samples` on common random numbers.

The set behind the player's rules (analyses/rules) and the card's agreement table.  One row per decision:

* the decision's **kind**: ``take`` (draw blind or take a discard pile's card, one pile card can be taken),
  ``hazard`` (a hazard drawn blind: keep it, face down or on a slot, or throw it), ``mulligan`` (where a
  mulligan in hand goes), ``place`` (where any other kept card goes), ``finish`` (a placement that could
  end the round: one face-down card left, nobody finished);
* every option's win chance (``keys``, ``mean`` in %, ``diff_se``: the paired standard error of its difference
  to the best option, in pp; ``best``), net's own choice in the game (``net_key``, from the trace), the card's
  cell and answer (:func:`gnoming_sim.search.card.card_view`: ``card_key``, ``card_cell``, ...), the
  options the card's actions name (``use_key``, ``fd_key``, ``throw_key``; ``finish_key``, ``playon_key``;
  per pile ``pile{k}_class``/``pile{k}_use``/``pile{k}_card_action``), the features a rule conditions on
  (the card, its class, players, round, face-down counts, the gap, ...) and the position's ID
  (:func:`gnoming_sim.game.position_id.encode`), from which anyone rebuilds the position.

Sampling: one traced self-play batch per table size (game numbers from :data:`FIRST_GAME`, the set's own
seed); every candidate decision of every game is listed, then a quota per (table size, kind) is drawn at
random without replacement (the rare kinds are oversampled: equal quotas, not the natural shares; a
decision's weight in the natural mix is kept as ``weight``: candidates of its kind and size / drawn).
Each decision is valued on its own rollout stream (the set's seed, the table size and the decision's index).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import HAZARD, HIDDEN, MULLIGAN, NO_CARD

SEED = 50_2026_12_04          # the set's own seed, never used by the card's derivation
FIRST_GAME = 2**60 + 2**56    # its game numbers (deals and play streams), apart from every other study's
KINDS = ("take", "hazard", "mulligan", "place", "finish")
PLAYERS = (3, 4, 5, 6)


def key_of_place(q: int) -> str:
    from gnoming_sim.game.observation import CHOICE_NOKEEP

    if q < 0:
        return ""
    return "discard" if q == CHOICE_NOKEEP else f"pos{q}"


def key_of_source(src: int) -> str:
    return ("draw", "pile0", "pile1")[src]


def candidates(games_of, res, players: int) -> list[tuple[int, int, str]]:
    """(game, record index, kind) of every candidate decision of a traced batch: a draw with a discard pile
    holding a card (``take``), a placement after a draw (``finish`` with one face-down card left and nobody
    finished, ``hazard`` drawn blind, ``mulligan``, else ``place``).  Cheap: read off the trace and the table;
    whether the decision is real (a pile card can be taken, finishing is legal) is checked on the sampled
    positions (:func:`build`)."""
    from gnoming_sim.game.replay import walk

    out = []
    for g in games_of:
        trace = res.traces[g]
        kinds = trace[:, 0]
        for i, (kind, seat, a, b), table in walk(res.deals[g], trace, players):
            if i + 1 < len(kinds) and kinds[i + 1] == T.DRAW:
                if table.plen[0] > 0 or table.plen[1] > 0:
                    out.append((g, i, "take"))
            elif kind == T.DRAW:
                if table.fd[seat] == 1 and table.finisher < 0:
                    k = "finish"
                elif b == HAZARD and a == T.SRC_DRAW:
                    k = "hazard"
                elif b == MULLIGAN:
                    k = "mulligan"
                else:
                    k = "place"
                out.append((g, i, k))
    return out


def build(res, g: int, i: int, kind: str, players: int, rules, deck):
    """(position, net's chosen option key) of candidate ``(g, i, kind)``, or None when it is not a decision of
    its kind (no pile card can be taken; finishing not legal)."""
    from gnoming_sim.game.fields import F_SCORE
    from gnoming_sim.game.replay import walk
    from gnoming_sim.search.options import legal_options

    trace = res.traces[g]
    scores = np.zeros(players, dtype=np.int64)
    rs = res.round_stats[g, :, :, F_SCORE]
    pos = None
    for j, (k, seat, a, b), table in walk(res.deals[g], trace, players):
        if j == i:
            origin = f"net self-play, {players} players, game {res.first_game + g}, record {i + 1}"
            if kind == "take":
                nxt = trace[i + 1]
                pos = table.position(int(nxt[1]), rules, deck, origin, scores, "draw")
                chosen = key_of_source(int(nxt[2]))
                opts = legal_options(pos)
                if len(opts) < 2:
                    return None
                return pos, chosen, opts
            pos = table.position(seat, rules, deck, origin, scores, "place", table.hand, a)
            nxt = trace[i + 1]
            chosen = f"pos{int(nxt[2])}" if nxt[0] == T.PLACE else "discard"
            opts = legal_options(pos)
            if kind == "finish" and not any(o.finishes for o in opts):
                return None
            if len(opts) < 2:
                return None
            return pos, chosen, opts
        if k == T.ROUND_END:
            scores += np.asarray(rs[a], dtype=np.int64)
    return None


def card_candidates(pos) -> dict:
    """The options the card's actions name at ``pos`` (the card module's own functions, on a table seated by the card):
    a draw's pile cells (class, best use, the card's action); a placement's best-use, face-down and throw
    options, or at a finishing chance the finishing and the play-on option, with the gap and the rivals' mean
    face-down cards the finish table reads."""
    from gnoming_sim.kernel.engine import strategy_arrays
    from gnoming_sim.kernel.game_loop import step_once
    from gnoming_sim.kernel.policy import card as C
    from gnoming_sim.kernel.policy import heuristic as H
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.kernel.policy.dispatch import C_W0, new_memo
    from gnoming_sim.kernel.state import new_table
    from gnoming_sim.kernel.step import legal_actions
    from gnoming_sim.search.start import enter, start_of_position

    kinds, params = strategy_arrays([registry.get("card")])
    start = start_of_position(pos)
    rules = pos.rules.to_array()
    t = new_table(pos.players, pos.deck.size, kinds, params, np.zeros(pos.players, dtype=np.int16),
                  np.zeros((0, 4), dtype=np.int32), new_memo())
    enter(t, rules, start, start.unseen.copy(), False)
    if pos.decision == "place":
        step_once(t, rules, pos.source)
    legal_actions(t, rules)
    prm, obs, memo, legal = params[0], t.obs, t.memo, t.legal
    c0 = np.int64(C_W0)
    out: dict = {}
    if pos.decision == "draw":
        for k in range(2):
            cell = int(C.pile_cell(obs, legal, np.int64(k)))
            if cell < 0:
                out.update({f"pile{k}_card": NO_CARD if not pos.piles[k] else int(pos.piles[k][-1]),
                            f"pile{k}_class": "", f"pile{k}_use": "", f"pile{k}_card_action": ""})
                continue
            cls, use = divmod(cell - C.CELL_OFFSET[0], C.N_USE)
            a = int(C.cell_action(prm, c0, np.int64(cell), np.bool_(True)))
            out.update({f"pile{k}_card": int(pos.piles[k][-1]), f"pile{k}_class": C.CLASS_NAMES[cls],
                        f"pile{k}_use": C.USE_NAMES[use], f"pile{k}_card_action": C.ACTION_NAMES[0][a - 1]})
        return out
    card = np.int64(pos.hand)
    H.prepare_me(prm, obs, memo, True)
    row = obs.vis[pos.me]
    q_fin = int(C.finish_slot(obs))
    if q_fin >= 0 and legal[q_fin]:
        gap, ofd = C.finish_context(obs, np.int64(q_fin), card)
        q = int(C.play_on(prm, obs, memo, row, H.unseen_mean(obs, prm), card, legal, np.int64(q_fin)))
        out.update(finish_key=f"pos{q_fin}", playon_key=key_of_place(q), finish_gap=float(gap),
                   rivals_fd_mean=float(ofd))
    cell, q_use, q_fd, q_throw = C.place_candidates(prm, obs, memo, card, legal)
    blind, rest = divmod(int(cell) - C.CELL_OFFSET[1], C.N_CLASS * C.N_USE)
    out.update(use_key=key_of_place(int(q_use)), fd_key=key_of_place(int(q_fd)),
               throw_key=key_of_place(int(q_throw)), hand_use=C.USE_NAMES[rest % C.N_USE])
    return out


def features(pos) -> dict:
    """What the player to move sees that a rule may condition on."""
    from gnoming_sim.kernel.policy.card import CLASS_NAMES, card_class
    from gnoming_sim.kernel.scoring import visible_score
    from gnoming_sim.search.finishing import finish_gap_of

    rules = pos.rules.to_array()
    fd = pos.face_down()
    others = [o for o in range(pos.players) if o != pos.me]
    vis = [int(visible_score(pos.layouts[o], rules)) for o in range(pos.players)]
    closest = min(others, key=lambda o: vis[o])
    hand = int(pos.hand) if pos.decision == "place" else NO_CARD
    scores = list(pos.scores)
    return {"players": pos.players, "round": pos.round, "turn": pos.turn, "me": pos.me,
            "hand": hand, "hand_class": CLASS_NAMES[card_class(hand)] if hand != NO_CARD else "",
            "source": int(pos.source) if pos.decision == "place" else -1,
            "own_fd": int(fd[pos.me]), "rivals_fd_min": int(fd[others].min()),
            "rivals_fd_mean": float(fd[others].mean()), "closest_rival_fd": int(fd[closest]),
            "own_visible": vis[pos.me], "best_rival_visible": vis[closest],
            "gap": finish_gap_of(pos) if pos.decision == "place" else None,
            "game_lead": int(min(scores[o] for o in others) - scores[pos.me]),
            "draw_n": int(pos.draw_n), "removed": int(pos.removed)}


def value(pos, rollouts: int, seed: int, threads: int | None = None, options=None) -> dict:
    """Every option (or those keyed in ``options``) valued by the oracle on ``rollouts`` common rollouts: keys,
    win chance (%), the best, and each option's paired standard error of its difference to the best (pp)."""
    from gnoming_sim.search.evaluator import Settings, win_samples

    keys, win = win_samples(pos, Settings(budget=rollouts, seed=seed), options, threads)
    mean = win.mean(axis=0) * 100.0
    b = int(np.argmax(mean))
    d = (win - win[:, [b]]) * 100.0
    se = d.std(axis=0, ddof=1) / np.sqrt(win.shape[0])
    return {"keys": list(keys), "mean": [float(x) for x in mean], "diff_se": [float(x) for x in se],
            "best_key": keys[b]}


SHARES = {"take": 0.25, "hazard": 0.25, "mulligan": 0.25, "place": 0.125, "finish": 0.125}


def quotas(total_per_size: int, kinds=KINDS) -> dict:
    """Decisions drawn per kind at one table size: the rules' kinds (take, a hazard, a mulligan) a quarter each,
    the rare ones thus oversampled; other placements and finishing chances (the finishing study has 7,900 of
    its own) an eighth each.  Fewer ``kinds``: equal shares of them."""
    if tuple(kinds) != KINDS:
        return {k: max(1, total_per_size // len(kinds)) for k in kinds}
    return {k: max(1, int(round(total_per_size * SHARES[k]))) for k in KINDS}


def run(players: int, games: int, per_size: int, rollouts: int, seed: int = SEED, threads: int | None = None,
        log=None, kinds=KINDS, few: bool = False) -> list[dict]:
    """The sampled, valued decisions of ``games`` net self-play games at ``players`` (of ``kinds``; ``few``: only
    the options a rule names are valued, net's own choice among them: at a finishing chance finish, the card's
    play-on and net's choice; a placement the best use, face-down, throw and net's; a draw every option)."""
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.kernel.engine import simulate
    from gnoming_sim.search.card import card_view
    from gnoming_sim.game.position_id import encode

    rules, deck = RuleConfig(), PUBLISHED
    res = simulate(players, ("net",), games, seed=seed, rules=rules, deck=deck, threads=threads, trace=True,
                   first_game=FIRST_GAME + players * 2**40)
    cands = candidates(range(res.games), res, players)
    rng = np.random.default_rng([seed, players, 1])
    by_kind = {k: [c for c in cands if c[2] == k] for k in KINDS}
    rows = []
    for kind, want in quotas(per_size, kinds).items():
        pool = by_kind[kind]
        order = rng.permutation(len(pool))
        got = 0
        for idx in order:
            if got >= want:
                break
            g, i, _ = pool[idx]
            built = build(res, g, i, kind, players, rules, deck)
            if built is None:
                continue
            pos, chosen, _opts = built
            n = len(rows)
            rseed = int(np.random.SeedSequence([seed, players, 2, n]).generate_state(1, np.uint64)[0] >> 1)
            t0 = time.perf_counter()
            cand = card_candidates(pos)
            named = None
            if few and pos.decision == "place":
                names = [cand.get(k) for k in ("finish_key", "playon_key", "use_key", "fd_key", "throw_key")] + [chosen]
                keys = [o.key for o in _opts]
                named = [k for k in keys if k in names]
            val = value(pos, rollouts, rseed, threads, named)
            view = card_view(pos)
            card_key, cell = "", {}
            if view is not None:
                src, q = view["choice"]
                card_key = key_of_place(q) if pos.decision == "place" else key_of_source(src)
                cell = view["cells"][0]
            rows.append({"kind": kind, "players": players, "game": int(res.first_game + g), "record": int(i),
                         **features(pos), **cand, **val, "net_key": chosen, "card_key": card_key,
                         "card_table": view["table"] if view else "", "card_cell": int(cell.get("cell", -1)),
                         "card_words": cell.get("words", ""), "card_action": cell.get("action", ""),
                         "card_printed": bool(cell.get("printed", False)), "rollouts": rollouts,
                         "rollout_seed": rseed, "candidates": len(pool), "position_id": encode(pos),
                         "seconds": time.perf_counter() - t0})
            got += 1
        for r in rows:
            if r["kind"] == kind:
                r["weight"] = len(pool) / max(got, 1)
        if log:
            log(f"{players} players, {kind}: {got} of {len(pool)} candidates valued")
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="oracle_decisions", description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, nargs="+", default=list(PLAYERS))
    p.add_argument("--games", type=int, default=200, help="self-play games per table size")
    p.add_argument("--per-size", type=int, default=600, help="decisions valued per table size (split over the kinds)")
    p.add_argument("--rollouts", type=int, default=64)
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--kinds", nargs="+", default=list(KINDS), help="decision kinds to sample (default: all)")
    p.add_argument("--few-options", action="store_true",
                   help="value only the options a rule names and net's choice (not every legal option)")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--out", default="analyses/data/oracle/decisions.parquet")
    a = p.parse_args(argv)
    if any(n not in PLAYERS for n in a.players) or a.games < 1 or a.per_size < len(a.kinds) or a.rollouts < 2 \
            or any(k not in KINDS for k in a.kinds):
        print(f"oracle_decisions: --players 3..6, --games >= 1, --per-size >= the kinds, --rollouts >= 2, --kinds of "
              f"{', '.join(KINDS)}", file=sys.stderr)
        return 2
    out = Path(a.out)
    if out.exists():
        print(f"oracle_decisions: {out} exists; not overwritten (remove it first)", file=sys.stderr)
        return 2
    import pandas as pd

    t0 = time.perf_counter()
    rows = []
    for players in a.players:
        rows += run(players, a.games, a.per_size, a.rollouts, a.seed, a.threads, kinds=tuple(a.kinds),
                    few=a.few_options, log=lambda s: print(f"[{time.perf_counter() - t0:7.1f} s] {s}", flush=True))
    frame = pd.DataFrame(rows)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(out, index=False)
    wall = time.perf_counter() - t0
    prov = {"seed": a.seed, "first_game": FIRST_GAME, "players": a.players, "games": a.games,
            "per_size": a.per_size, "rollouts": a.rollouts, "kinds": a.kinds, "few_options": a.few_options,
            "decisions": len(frame), "wall_s": round(wall, 1),
            "oracle": "gnoming_sim.search.evaluator (net at every seat, the chance of winning the game)",
            "by_kind": frame.groupby(["players", "kind"]).size().rename("n").reset_index().to_dict("records")}
    out.with_suffix(".json").write_text(json.dumps(prov, indent=1) + "\n")
    print(f"{len(frame)} decisions in {wall:.0f} s -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The card derivation's raw material: at sampled self-play decisions, the card's candidate answers and their
rollout values.

The card's data set on the self-play sampler (:mod:`gnoming_sim.search.sampler`: the round ``game % 3`` of each
game, decisions sampled from a stream of their own, identical at any thread count).  At a sampled decision it
names the candidate answers the way the card-starred player does (:mod:`gnoming_sim.kernel.policy.card`, from the
decider's observation only):

* a draw source with a pile that can be taken: drawing blind and taking each such pile
  (one record per pile, in that pile's take-table cell; a second pile in the same cell is left out);
* a placement that could finish (the last face-down card, nobody finished; sampled with
  ``p_finish``): covering it, and expert's best answer that plays on;
* any other placement: expert's position among those of the card's best use, its face-down
  position and not keeping it (when legal), when at least two of them exist;

notes which of them expert's own rules would take (the card-starred player's answer where no cell applies), values
every candidate by :func:`gnoming_sim.search.sampler.rollout_values` (every seat playing the *rollout
policy*: the decider's own strategy, or the family ``roll_kind`` with the decider's parameters —
``KIND_HEURISTIC`` for a learned decider is expert, whose parameters a learned strategy carries for the
decisions it does not model) and writes one record (``R_*``).
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.observation import O_ME, O_PLAYERS, O_TOP0, SRC_DRAW
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.state import DEC_PLACE, DEC_SOURCE, S_HAND, S_PENDING, S_SEAT, S_SRC, seat_params
from gnoming_sim.kernel.step import legal_actions
from gnoming_sim.search.sampler import rollout_values, sample, sample_game

STREAM_GUIDE = 41   # which decisions are sampled (beside the games', the rollouts' and the targets' streams)

# one record: its table and cell, the values of the table's actions 1..3 (NaN: not a candidate), and
# what the cell was computed from
R_TABLE = 0
R_CELL = 1
R_V = 2            # R_V + a - 1: the value of action a (card.A_*), points (own round score - others' mean)
R_PLAYERS = 5
R_CARD = 6         # the card (taken from the pile, or in hand)
R_USE = 7          # its best use (card.U_*); finish table: -1
R_BLIND = 8        # place table: 1 if drawn blind
R_GAP = 9          # finish table: the gap and the rivals' mean face-down cards
R_OFD = 10
R_GAME = 11        # the game (the round's deal) it comes from
R_EXPERT = 12      # the action (card.A_*) expert's own rules take here, 0 when that is none of the candidates
NR = 13


@jit(inline="always")
def _record(rec, n, table, cell, players, card, use, game):
    for j in range(NR):
        rec[n, j] = np.nan
    rec[n, R_TABLE] = table
    rec[n, R_CELL] = cell
    rec[n, R_PLAYERS] = players
    rec[n, R_CARD] = card
    rec[n, R_USE] = use
    rec[n, R_GAME] = game


@jit(nrt=True)
def _source(t, rules, s, budget, roll_kind, rec, n, game):
    """Records of a draw-source decision from ``rec[n]`` on; the new n."""
    obs = t.obs
    pub = obs.pub
    cap = rec.shape[0]
    c0 = C.pile_cell(obs, t.legal, 0)
    c1 = C.pile_cell(obs, t.legal, 1)
    if c1 == c0:
        c1 = -1
    opts = np.empty(3, dtype=np.int64)
    cells = np.empty(3, dtype=np.int64)
    opts[0] = SRC_DRAW
    K = np.int64(1)   # not a literal: the callees compile once
    for k in range(2):
        c = c0 if k == 0 else c1
        if c >= 0:
            opts[K] = 1 + k
            cells[K] = c
            K += 1
    if K < 2:
        return n
    prm = seat_params(t, s)
    mine = H.draw_source(prm, obs, t.memo, t.legal)   # expert's own answer (what card-starred falls back to)
    v = rollout_values(t, rules, opts, K, budget, roll_kind)
    for k in range(1, K):
        if n >= cap:
            break
        top = pub[O_TOP0 + opts[k] - 1]
        cell = cells[k]
        _record(rec, n, C.T_SOURCE, cell, pub[O_PLAYERS], top, (cell - C.CELL_OFFSET[C.T_SOURCE]) % C.N_USE, game)
        rec[n, R_V + C.A_TAKE - 1] = v[k]
        rec[n, R_V + C.A_DRAW - 1] = v[0]
        rec[n, R_EXPERT] = C.A_TAKE if mine == opts[k] else (C.A_DRAW if mine == SRC_DRAW else 0)
        n += 1
    return n


@jit(nrt=True)
def _place(t, rules, s, budget, roll_kind, rec, n, game):
    """The record of a placement decision (if it has two candidates) at ``rec[n]``; the new n."""
    obs = t.obs
    pub = obs.pub
    prm = seat_params(t, s)
    memo = t.memo
    card = t.st[S_HAND]
    src = t.st[S_SRC]
    q_fin = C.finish_slot(obs)
    finishing = q_fin >= 0 and t.legal[q_fin] != 0
    H.prepare_me(prm, obs, memo, True)
    opts = np.empty(3, dtype=np.int64)
    acts = np.empty(3, dtype=np.int64)
    if finishing:
        q_on = C.play_on(prm, obs, memo, obs.vis[pub[O_ME]], H.unseen_mean(obs, prm), card, t.legal, q_fin)
        if q_on < 0:
            return n
        opts[0] = q_fin
        opts[1] = q_on
        acts[0] = C.A_FINISH
        acts[1] = C.A_PLAYON
        K = 2
        table = C.T_FINISH
        cell = C.finish_cell_at(obs, q_fin, card)
        use = -1
    else:
        cell, q_use, q_fd, q_throw = C.place_candidates(prm, obs, memo, card, t.legal)
        K = np.int64(0)   # not a literal: the callees compile once
        for a in range(1, 4):
            q = q_use if a == C.A_USE else (q_fd if a == C.A_FACEDOWN else q_throw)
            if q >= 0:
                opts[K] = q
                acts[K] = a
                K += 1
        if K < 2:
            return n
        table = C.T_PLACE
        use = (cell - C.CELL_OFFSET[C.T_PLACE]) % C.N_USE
    mine = H.placement(prm, obs, memo, card, t.legal)   # expert's own answer (what card-starred falls back to)
    v = rollout_values(t, rules, opts, K, budget, roll_kind)
    _record(rec, n, table, cell, pub[O_PLAYERS], card, use, game)
    rec[n, R_EXPERT] = 0
    for k in range(K):
        rec[n, R_V + acts[k] - 1] = v[k]
        if opts[k] == mine:
            rec[n, R_EXPERT] = acts[k]
    if finishing:
        gap, ofd = C.finish_context(obs, q_fin, card)
        rec[n, R_GAP] = gap
        rec[n, R_OFD] = ofd
    else:
        rec[n, R_BLIND] = 1.0 if src == SRC_DRAW else 0.0
    return n + 1


@jit(nrt=True)
def _chance(t, rules, sampling):
    """A draw source's chance of being sampled ``p_sample``, a placement's too, or ``p_finish`` if it can finish."""
    _, p_sample, p_finish, _ = sampling
    kind = t.st[S_PENDING]
    if kind != DEC_PLACE and kind != DEC_SOURCE:
        return -1.0
    legal_actions(t, rules)
    q_fin = C.finish_slot(t.obs) if kind == DEC_PLACE else -1
    return p_finish if q_fin >= 0 and t.legal[q_fin] != 0 else p_sample


@jit(nrt=True)
def _write(t, rules, sampling, out, i, n, game):
    budget, _, _, roll_kind = sampling
    if t.st[S_PENDING] == DEC_SOURCE:
        return _source(t, rules, t.st[S_SEAT], budget, roll_kind, out[0][i], n, game)
    return _place(t, rules, t.st[S_SEAT], budget, roll_kind, out[0][i], n, game)


@jit(py=True, nrt=True)
def collect_batch(g, sampling, out, lo, hi):
    """Games lo .. hi - 1 of ``g`` (:class:`gnoming_sim.kernel.game_loop.Games`), their records into ``out`` =
    (rec float64[G, cap, NR],) (rows past the last stay NaN); ``sampling`` = (rollouts per candidate, chance of
    sampling a decision, ... a finishing chance, the rollout policy's family or -1)."""
    for i in range(lo, hi):
        sample_game(g, i, False, STREAM_GUIDE, _chance, _write, sampling, out)


def collect(players: int, strategy, games: int, seed: int, *, budget: int = 8, p_sample: float = 0.1,
            p_finish: float = 1.0, cap: int = 16, first_game: int = 0, rules=None, deck=None,
            threads: int | None = None, roll_kind: int = -1) -> np.ndarray:
    """The records (float64[n, NR], ``R_*``) of ``games`` self-play rounds of ``strategy`` at ``players`` seats;
    the rollouts play family ``roll_kind`` with the strategy's parameters (-1: the strategy itself)."""
    rec = np.full((games, cap, NR), np.nan)
    sample(collect_batch, players, [strategy], games, seed, first_game, rules, deck, threads,
           (int(budget), float(p_sample), float(p_finish), int(roll_kind)), (rec,))
    rec = rec.reshape(-1, NR)
    return rec[~np.isnan(rec[:, R_TABLE])]


__all__ = ["collect", "collect_batch", "NR", "R_TABLE", "R_CELL", "R_V", "R_PLAYERS", "R_CARD",
           "R_USE", "R_BLIND", "R_GAP", "R_OFD", "R_GAME", "R_EXPERT"]

"""Split-half regret of a player against its own rollouts, per decision kind (issue #34 diagnostic).

Self-play rounds of one strategy in every seat, published rules; at a sample of the draw-source and placement
decisions, two independent sets of BUDGET rollouts of every answer: the first picks the best answer, the second
values it and the player's own answer.  Their difference (second set) is what a search of BUDGET rollouts would
gain at that decision, without the winner's curse of one set; summed per seat and round, and times 3 a game.

    python tuning/net/regret.py PLAYERS STRATEGY ROUNDS BUDGET P_SAMPLE
"""
import sys, time, numpy as np
from gnoming_sim.game.cards import NO_CARD
from gnoming_sim.game.observation import N_CHOICES, N_SOURCES
from gnoming_sim.game.rules import ROUNDS
from gnoming_sim.kernel.game_loop import decide_once, self_play_table, step_once
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.rng import seed_stream, uniform01
from gnoming_sim.kernel.state import DEC_NONE, DEC_PLACE, DEC_SOURCE, RNG_WORDS, S_HAND, S_PENDING, S_SEAT, S_SRC
from gnoming_sim.kernel.step import legal_actions, start_round
from gnoming_sim.search.bot import COST_PLACE, COST_SOURCE, option_values
import numba as nb

@nb.njit
def collect_round(t, rules, r, starter, order, deck_counts, budget, p_sample, srng, out):
    dk, K_, ch, vA, vB = out
    start_round(t, rules, r, starter, order, deck_counts)
    cap = dk.shape[0]
    n = 0
    opts = np.empty(N_CHOICES, dtype=np.int64)
    while t.st[S_PENDING] != DEC_NONE:
        kind = t.st[S_PENDING]
        if n < cap and (kind == DEC_PLACE or kind == DEC_SOURCE) and uniform01(srng) < p_sample:
            s = t.st[S_SEAT]
            legal_actions(t, rules)
            K = np.int64(0)
            last = N_SOURCES if kind == DEC_SOURCE else N_CHOICES
            for a in range(last):
                if t.legal[a]:
                    opts[K] = a
                    K += 1
            if K >= 2:
                for h in range(2):
                    if kind == DEC_SOURCE:
                        v = option_values(t, rules, s, np.int64(COST_SOURCE), np.int64(NO_CARD), np.int64(-1), opts, K, budget)
                    else:
                        v = option_values(t, rules, s, np.int64(COST_PLACE), t.st[S_HAND], t.st[S_SRC], opts, K, budget)
                    for k in range(K):
                        if h == 0:
                            vA[n, k] = v[k]
                        else:
                            vB[n, k] = v[k]
                a = decide_once(t, rules)
                c = -1
                for k in range(K):
                    if opts[k] == a:
                        c = k
                dk[n] = kind; K_[n] = K; ch[n] = c
                n += 1
                step_once(t, rules, a)
                continue
        step_once(t, rules, decide_once(t, rules))
    return n

def run(players, strategy, games, seed, budget, p_sample, cap=60):
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.kernel.engine import deck_counts, seat_table, strategy_arrays
    rules = RuleConfig().to_array(); deck = PUBLISHED.to_array(); counts = deck_counts(deck)
    distinct, table = seat_table(players, strategy, games, 0, rotate=True)
    kinds, params = strategy_arrays(distinct)
    rows = []
    for g in range(games):
        t, order = self_play_table(g, np.uint64(seed), players, kinds, params, table[g], deck)
        srng = np.empty(RNG_WORDS, dtype=np.uint64); seed_stream(srng, np.uint64(seed), g, 41)
        out = (np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros((cap, N_CHOICES)), np.zeros((cap, N_CHOICES)))
        r = g % ROUNDS
        n = collect_round(t, rules, r, r % players, order[r], counts, budget, p_sample, srng, out)
        for i in range(n):
            rows.append((g, out[0][i], out[1][i], out[2][i], out[3][i].copy(), out[4][i].copy()))
    return rows

def summarise(rows, p_sample, players, games):
    from scipy import stats
    for kind, name in ((DEC_SOURCE, "source"), (DEC_PLACE, "place")):
        R = [(g, vB[c] - vB[int(np.argmin(vA[:K]))], vB[c] - vB[:K].min()) for g, k, K, c, vA, vB in rows if k == kind]
        reg = np.array([x[1] for x in R]); biased = np.array([x[2] for x in R])
        # per round (the unit): summed unbiased regret / p_sample / players = per seat per round
        per_round = np.zeros(games)
        for g, x, _ in R:
            per_round[g] += x
        per_round /= p_sample * players
        m = per_round.mean(); se = per_round.std(ddof=1) / np.sqrt(games)
        print(f"{name}: decisions {len(reg)}, split-half gain/decision {reg.mean():+.3f} (se {reg.std(ddof=1)/np.sqrt(len(reg)):.3f}), "
              f"biased {biased.mean():.3f}; per seat per round {m:+.2f} [{m-1.96*se:+.2f}, {m+1.96*se:+.2f}], x3 per game {3*m:+.2f}")

if __name__ == "__main__":
    P, strat, games, budget, ps = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    t0 = time.time()
    rows = run(P, strat, games, 77, budget, ps)
    print(P, strat, games, "rounds, budget", budget, "seconds", round(time.time() - t0))
    summarise(rows, ps, P, games)

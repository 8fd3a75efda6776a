"""The card's derivation: Holm's step-down, the cells' recommendations and resolution on synthetic
records whose truth is known, and the collector's records from real self-play."""
import numpy as np
import pandas as pd
import pytest

from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import registry
from gnoming_sim.tune.card import derive


def test_holm_is_step_down():
    # 0.001, 0.01, 0.04, 0.6 among 4: compared in order with 0.05/4, 0.05/3, 0.05/2: the first two only
    assert derive.holm([0.6, 0.001, 0.04, 0.01]) == [False, True, False, True]
    assert derive.holm([0.03, 0.03]) == [False, False]
    assert derive.holm([]) == []


def _records(rng, cell, table, means, n, expert):
    """n decisions of one cell: the candidates' values (normal, these means) and expert's own choice
    (an action, or a sequence of them: one per decision, cycled)."""
    vals = {f"v{a + 1}": rng.normal(m, 6.0, n) if m is not None else np.full(n, np.nan)
            for a, m in enumerate(means)}
    for a in range(len(means), 3):
        vals[f"v{a + 1}"] = np.full(n, np.nan)
    mine = np.resize(np.atleast_1d(expert), n)
    return pd.DataFrame({"table": table, "cell": cell, **vals, "expert": mine})


def test_a_clear_cell_is_resolved_and_a_null_cell_is_not():
    rng = np.random.default_rng(7)
    take = C.source_cell_of(C.CC_NEG, C.U_REPL6)
    null = C.source_cell_of(C.CC_MID, C.U_FACEDOWN)
    tiny = C.source_cell_of(C.CC_HIGH, C.U_PAIR)
    fin = C.finish_cell_of(0, 2, 1)
    place = C.place_cell_of(1, C.CC_HIGH, C.U_REPL1)
    df = pd.concat([_records(rng, take, C.T_SOURCE, [-3.0, 0.0], 400, [1, 2]),       # taking saves 3; expert draws half
                    _records(rng, null, C.T_SOURCE, [0.0, 0.0], 400, 1),             # no difference
                    _records(rng, tiny, C.T_SOURCE, [-5.0, 0.0], 5, 2),              # too few decisions
                    _records(rng, fin, C.T_FINISH, [-4.0, 0.0], 300, 1),             # finishing saves 4; expert finishes
                    _records(rng, place, C.T_PLACE, [1.0, 0.0, 2.0], 500, 1)])       # face-down wins; expert: best use
    tables = derive.cell_stats(df)
    src = {c["cell"]: c for c in tables["source"]["cells"]}
    assert src[take]["resolved"] and src[take]["action"] == "take"
    assert src[take]["lo"] <= src[take]["margin"] <= src[take]["hi"]
    assert src[take]["margin"] == pytest.approx(3.0, abs=1.2) and src[take]["margin_n"] == 400
    assert not src[null]["resolved"]
    assert not src[tiny]["resolved"] and "fewer than" in src[tiny]["note"]
    f = tables["finish"]["cells"][0]
    assert f["resolved"] and f["action"] == "finish" and f["players"] == "4-5" and f["gap"] == "< -10"
    assert f["expert_agrees"] == 1.0 and not f["chart"]          # expert finishes there anyway: not starred
    assert src[take]["chart"] and src[take]["expert_agrees"] == 0.5
    assert src[take]["versus_expert"]["margin"] == pytest.approx(1.5, abs=0.8)   # half the decisions differ
    p = tables["place"]["cells"][0]
    assert p["resolved"] and p["action"] == "face-down" and p["rival"] == "best use"   # the closer rival
    assert {c["rival"] for c in p["comparisons"]} == {"best use", "throw away"}
    cells = derive.starred_cells(tables)
    assert cells == {registry.CELL_NAMES[take]: C.A_TAKE, registry.CELL_NAMES[place]: C.A_FACEDOWN}


def test_the_collector_records_real_decisions():
    """A few self-play rounds of learned: every record's cell lies in its table, its candidates have
    values, the take table's card is a pile card, and the finishing chances carry their gap."""
    cfg = derive.DeriveConfig(players=(3,), games=24, budget=2, seed=3, threads=1)
    df = derive.collect(cfg, registry.get("learned"))
    assert len(df) > 20 and cfg.rounds == {3: 24}
    for t in range(3):
        sub = df[df["table"] == t]
        lo = C.CELL_OFFSET[t]
        hi = lo + (C.N_SOURCE_CELLS, C.N_PLACE_CELLS, C.N_FINISH_CELLS)[t]
        assert ((sub["cell"] >= lo) & (sub["cell"] < hi)).all()
        n_vals = np.isfinite(sub[["v1", "v2", "v3"]].to_numpy()).sum(axis=1)
        assert (n_vals >= 2).all()
    assert set(df["table"]) >= {C.T_SOURCE, C.T_PLACE}
    fin = df[df["table"] == C.T_FINISH]
    assert np.isfinite(fin["gap"]).all() and np.isfinite(fin["rivals_fd"]).all()
    place = df[df["table"] == C.T_PLACE]
    assert (np.isfinite(place["v3"]) == (place["blind"] == 1)).all()   # only a blind draw may be thrown away
    assert df["expert"].isin([0, 1, 2, 3]).all() and (df["expert"] > 0).mean() > 0.8   # expert's own choice, mostly a candidate
    again = derive.collect(derive.DeriveConfig(players=(3,), games=24, budget=2, seed=3, threads=1), registry.get("learned"))
    pd.testing.assert_frame_equal(df, again)
    # learned's own rollouts: the same decisions are sampled (the games are learned's either way), valued otherwise
    own = derive.collect(derive.DeriveConfig(players=(3,), games=24, budget=2, seed=3, threads=1, rollouts="self"),
                     registry.get("learned"))
    assert len(own) > 20 and not np.allclose(own[["v1", "v2"]].to_numpy()[:10], df[["v1", "v2"]].to_numpy()[:10],
                                             equal_nan=True)


def test_a_cells_interval_is_clustered_by_round():
    """Decisions of one round share its deal: when the paired differences within a round are perfectly
    correlated (each round's 9 decisions one value), the interval clustered by round is wider than the
    one that counts every decision as independent (about sqrt(9) times)."""
    rng = np.random.default_rng(11)
    cell = C.source_cell_of(C.CC_LOW, C.U_REPL3)
    rounds, per = 60, 9
    shift = np.repeat(rng.normal(0.0, 3.0, rounds), per)        # one draw per round, shared by its decisions
    df = pd.DataFrame({"table": C.T_SOURCE, "cell": cell, "v1": 1.0 + shift, "v2": 0.0 * shift,
                       "v3": np.nan, "expert": 2, "game": np.repeat(np.arange(rounds), per)})
    clustered = derive.cell_stats(df)["source"]["cells"][0]
    alone = derive.cell_stats(df.assign(game=np.arange(len(df))))["source"]["cells"][0]
    assert clustered["margin"] == pytest.approx(alone["margin"]) and clustered["margin_n"] == rounds * per
    w_c, w_a = clustered["hi"] - clustered["lo"], alone["hi"] - alone["lo"]
    assert w_c > 2.0 * w_a, (w_c, w_a)
    assert clustered["comparisons"][0]["p"] > alone["comparisons"][0]["p"]


def _fixed(cell, table, mean, n, expert):
    """n decisions of one cell whose paired difference (v1 - v2) is ``mean`` +- 1, alternating: a known z."""
    d = mean + np.resize([1.0, -1.0], n)
    return pd.DataFrame({"table": table, "cell": cell, "v1": d, "v2": 0.0, "v3": np.nan, "expert": expert})


def test_holm_runs_once_over_the_whole_card(monkeypatch):
    """One family for the three tables: holm is called once with every test of every table.  A take cell
    at z = 2.5 (p = 0.012, twice: against draw and against expert, who draws) would be resolved within
    its table (2 tests, 0.05 / 2); among the card's 14 tests (12 finishing cells far from significance)
    it is not (0.05 / 14)."""
    src = C.source_cell_of(C.CC_NEG, C.U_REPL6)
    parts = [_fixed(src, C.T_SOURCE, -0.125, 400, 2)]
    parts += [_fixed(C.finish_cell_of(g, o, 1), C.T_FINISH, -0.01, 400, 1) for g in range(C.N_GAP) for o in range(2)]
    df = pd.concat(parts)
    calls = []
    real = derive.holm
    monkeypatch.setattr(derive, "holm", lambda p, alpha=0.05: calls.append(list(p)) or real(p, alpha))
    tables = derive.cell_stats(df)
    per_table = [tables[t]["tests"] for t in C.TABLE_NAMES]
    assert len(calls) == 1 and len(calls[0]) == sum(per_table) == 14 and per_table == [2, 0, 12]
    assert all(tables[t]["family"] == 14 for t in C.TABLE_NAMES)
    take = tables["source"]["cells"][0]
    p = take["comparisons"][0]["p"]
    assert 0.05 / 14 < p < 0.05 / 2 and take["versus_expert"]["p"] == pytest.approx(p)
    assert real([p, p]) == [True, True]                          # Holm within the take table: resolved
    assert not take["resolved"] and "whole card" in take["note"]


def test_a_comparison_within_one_round_is_not_tested():
    """All of a cell's decisions from one round: no interval between rounds, p = 1 (never resolved)."""
    m, lo, hi, p = derive._clustered_test(np.array([1.0, 2.0, 3.0]), np.array([7, 7, 7]))
    assert m == 2.0 and np.isnan(lo) and np.isnan(hi) and p == 1.0

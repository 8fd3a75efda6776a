"""The value network's answers for a position: the weights refused in one sentence when they are not this
network's, the position's values, and the 0-ply table (common deals, thread-count free, the kernel's rules)."""
import json
from pathlib import Path

import numpy as np
import pytest

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import from_toml
from gnoming_sim.kernel import value as V
from gnoming_sim.kernel import value_weights as VW
from gnoming_sim.search import evaluator as E

from _examples import FAST

EXAMPLES = Path(__file__).parents[2] / "examples"


def _body():
    return json.loads(VW.WEIGHTS.read_text())


@pytest.mark.parametrize("change, words", [
    (None, "missing"),
    ({"format": 99}, "another format"),
    ({"seat_inputs": ["x"]}, "other inputs"),
    ({"hidden_units": 7}, "other inputs"),
    ({"weights": [0.0] * 5}, "numbers"),
    ({"weights": "many"}, "numbers"),
    ({"weights": [True] * V.N_WEIGHTS}, "numbers"),
    ("nan", "not finite"),
    ("text", "cannot be read"),
])
def test_weights_that_are_not_this_networks_are_one_sentence(tmp_path, change, words):
    path = tmp_path / "value_weights.json"
    if change == "text":
        path.write_text("{not json")
    elif change == "nan":
        body = _body()
        body["weights"][3] = float("nan")
        path.write_text(json.dumps(body))
    elif change is not None:
        path.write_text(json.dumps({**_body(), **change}))
    with pytest.raises(GnomingError) as exc:
        VW.read_weights(path)
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_the_installed_weights_are_read_and_have_provenance():
    w = VW.weights()
    assert w.shape == (V.N_WEIGHTS,) and np.all(np.isfinite(w))
    prov = _body()["provenance"]
    assert prov["script"] == "tuning/value/run.py" and prov["train_rows"] > 0 and "held_out" in prov


@pytest.fixture(scope="module")
def position():
    return from_toml(EXAMPLES / "position.toml")


def test_position_values_are_chances_of_winning(position):
    v = E.position_values(position)
    assert len(v["win"]) == position.players
    assert sum(v["win"]) == pytest.approx(100.0)
    assert sum(v["margin"]) == pytest.approx(0.0, abs=1e-9)


def test_zero_ply_values_every_legal_option_on_common_deals(position):
    from gnoming_sim.search.options import legal_options

    a = E.zero_ply(position, determinizations=32, seed=4, threads=1)
    b = E.zero_ply(position, determinizations=32, seed=4, threads=2)
    assert [o["key"] for o in a["options"]] == [o.key for o in legal_options(position)]
    assert a == b                                         # the same at any thread count
    best = [o for o in a["options"] if o["best"]]
    assert len(best) == 1 and best[0]["diff"] == 0 and best[0]["rank"] == 1
    for o in a["options"]:
        assert 0 <= o["mean"] <= 100 and o["n"] == 32
        assert o["diff"] >= 0 and o["diff_ci95"][0] <= o["diff"] <= o["diff_ci95"][1]
    c = E.zero_ply(position, determinizations=32, seed=5)
    assert c["options"] != a["options"]                   # another seed deals other cards


@pytest.mark.parametrize("n", [0, -1, 10**9, 2.5, True, "8"])
def test_a_determinization_count_out_of_range_is_one_sentence(position, n):
    with pytest.raises(GnomingError, match="determinizations must be a whole number"):
        E.zero_ply(position, determinizations=n)


def _last_round(position):
    """The example position moved to the last round (its scores kept)."""
    from gnoming_sim.game.position import from_mapping

    d = position.to_dict()
    d["round"] = 3
    d["starter"] = 2 % position.players
    d["turn"] = (position.me - d["starter"]) % position.players + 12   # the same seat to move, later in the round
    return from_mapping(d, position.rules, position.deck)


def test_truncated_rollouts_play_the_full_rollouts_round_and_end_in_the_network(position):
    from gnoming_sim.search.estimates import run_rollouts
    from gnoming_sim.search.rollout import X_SCORE, X_WIN

    s = E.setup(position)
    full, _ = run_rollouts(s, 64, 9, 0, "game")
    cut, _ = run_rollouts(s, 64, 9, 0, "game", truncated=True)
    np.testing.assert_array_equal(full[:, :, X_SCORE], cut[:, :, X_SCORE])   # rollout i: the same round
    assert np.all((cut[:, :, X_WIN] >= 0) & (cut[:, :, X_WIN] <= 1))
    assert len(np.unique(cut[:, :, X_WIN])) > 10                            # the network's chances, not credits
    last = _last_round(position)
    s3 = E.setup(last)
    full3, _ = run_rollouts(s3, 32, 9, 0, "game")
    cut3, _ = run_rollouts(s3, 32, 9, 0, "game", truncated=True)
    np.testing.assert_array_equal(full3, cut3)                               # the last round: full rollouts


def test_truncated_rollouts_go_with_the_game_horizon_only(position):
    from gnoming_sim.search.estimates import run_rollouts

    with pytest.raises(GnomingError, match="game horizon"):
        run_rollouts(E.setup(position), 8, 0, 0, "round", truncated=True)


# ---------------------------------------------------------------- the settings record and the stop rules
@pytest.mark.parametrize("changes, words", [
    ({"level": "2-ply"}, "level must be one of"),
    ({"stop": "never"}, "stop must be one of"),
    ({"budget": 1}, "the budget must be a whole number of at least 2"),
    ({"first": -1}, "the first rollout's index must be a whole number of at least 0"),
    ({"first": 5, "stop": "half-width", "half_width": 1.0}, "runs its pilot from the first rollout"),
    ({"budget": 2.5}, "the budget must be"),
    ({"budget": True}, "the budget must be"),
    ({"cap": 0}, "the cap must be"),
    ({"level": "0-ply", "budget": E.MAX_DETERMINIZATIONS + 1}, "at most 100,000"),
    ({"level": "0-ply", "stop": "lead"}, "runs no rollouts"),
    ({"level": "truncated", "horizon": "round"}, "horizon game only"),
    ({"level": "truncated", "peek": True}, "no peek"),
    ({"stop": "half-width"}, "needs a positive half-width"),
    ({"stop": "half-width", "half_width": float("nan")}, "needs a positive half-width"),
    ({"stop": "lead", "k": 0.0}, "needs a positive k"),
])
def test_a_setting_out_of_range_is_one_sentence(changes, words):
    with pytest.raises(GnomingError, match=words) as e:
        E.Settings(**changes).check()
    assert "\n" not in str(e.value)


def test_the_stop_rules():
    st = E.Settings(stop="lead", k=3.0, cap=1000)
    lead = {"lead": 3.0, "half_width": 1.96}          # 3 standard errors ahead
    assert E.stop_reason({}, 100, st) == "no rival"
    assert E.lead_in_se(lead) == pytest.approx(3.0)
    assert E.stop_reason(lead, E.MIN_STOP - 1, st) == ""             # never before MIN_STOP
    assert E.stop_reason(lead, E.MIN_STOP, st) == "separated"
    assert E.stop_reason({"lead": 2.9, "half_width": 1.96}, 999, st) == ""
    assert E.stop_reason({"lead": 2.9, "half_width": 1.96}, 1000, st) == "cap"
    hw = E.Settings(stop="half-width", half_width=0.5, cap=1000)
    assert E.stop_reason({"lead": 0.1, "half_width": 0.5}, 10, hw) == "reached"
    assert E.stop_reason({"lead": 0.1, "half_width": 0.6}, 10, hw) == ""
    assert E.stop_reason({"lead": 9.0, "half_width": 0.1}, 10, E.Settings(budget=10)) == "cap"   # fixed: the budget
    assert E.schedule(2500) == [100, 200, 400, 800, 1000] and sum(E.schedule(150)) == 150


def test_batches_joined_are_one_evaluation_of_their_size_at_each_level(position):
    budget = 150 if FAST else 300   # two batches either way: 100 + 50, or 100 + 200
    for level in ("rollouts", "truncated"):
        st = E.Settings(level=level, budget=budget, seed=4)
        ev = E.Evaluation(position, st)
        res = ev.run()
        assert ev.batches == 2 and ev.n == budget and res["stopped"] == "cap"
        once = E.evaluate(position, st)
        assert [(o["key"], o["mean"], o["diff"]) for o in res["options"]] == \
            [(o["key"], o["mean"], o["diff"]) for o in once["options"]]
    zero = E.evaluate(position, E.Settings(level="0-ply", budget=8, seed=1))
    assert zero == E.zero_ply(position, determinizations=8, seed=1)


def test_advice_is_what_analyse_prints_beside_the_options(position):
    from click.testing import CliRunner

    from gnoming_sim.cli.app import cli
    from gnoming_sim.game.position_id import encode

    res = E.evaluate(position, E.Settings(budget=200, seed=0))
    said = E.advice(position, res)
    assert said["position_id"] == encode(position)
    out = CliRunner().invoke(cli, ["analyse", "--position-id", encode(position), "--rollouts", "200",
                                    "--second-policy", "none", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    for k in ("card", "finish_gap", "position_id"):
        assert got.get(k) == said.get(k), k


# ---------------------------------------------------------------- the oracle's constants and the raw rollouts
def test_the_oracle_is_the_strongest_fast_player_ranked_by_win_chance():
    from gnoming_sim.search import criterion
    from gnoming_sim.search.estimates import DEFAULT_POLICY

    assert E.BASE == "net" == DEFAULT_POLICY
    assert E.HORIZON == "game" and criterion.CRITERION[E.HORIZON].startswith("chance of winning the game")


def test_a_subset_of_options_is_valued_on_the_very_rollouts_of_the_whole_set(position):
    st = E.Settings(budget=24, seed=3)
    keys, whole = E.win_samples(position, st)
    part_keys, part = E.win_samples(position, st, ["discard", "pos1"])
    assert part_keys == ["discard", "pos1"]
    np.testing.assert_array_equal(part, whole[:, [keys.index("discard"), keys.index("pos1")]])
    _, later = E.win_samples(position, E.Settings(budget=12, seed=3, first=12), ["discard", "pos1"])
    np.testing.assert_array_equal(later, part[12:])   # rollout i depends on (seed, i) alone


def test_seats_with_puts_the_strategy_in_the_seat_to_move_only(position):
    seats = E.seats_with(position, "card")
    assert seats[position.me] == "card" and seats.count("net") == position.players - 1


def test_an_option_that_is_not_legal_is_one_sentence(position):
    with pytest.raises(GnomingError, match="'pile7' is not a legal option here"):
        E.rollouts(position, E.Settings(budget=4), ["pile7"])
    with pytest.raises(GnomingError, match="level 0-ply runs no rollouts"):
        E.rollouts(position, E.Settings(level="0-ply", budget=4))

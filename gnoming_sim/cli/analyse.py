"""``gnoming-sim analyse``: which option of a decision is best, and by how much, by rollouts."""
from __future__ import annotations

import json
from dataclasses import replace

import click

from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import cli
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.search import evaluator

# the base player and the criterion are the oracle's (gnoming_sim.search.evaluator, a light module: `--help` does
# not import the rollouts).  SECOND_POLICY is the search's (gnoming_sim.search.estimates.SECOND_POLICY), spelt here
# for the same reason (tests/cli/test_analyse_cli.py checks that the two agree): the player a sensitivity check
# may name, off unless asked (--second-policy expert): a second player answering the same question is no advice
DEFAULT_POLICY = evaluator.BASE
DEFAULT_HORIZON = evaluator.HORIZON
SECOND_POLICY = "expert"
NO_SECOND = "none"
PROGRESS_DELAY = 2.0   # seconds before the bar shows: a quicker analysis shows none
LEVELS = ("rollouts", "truncated", "0-ply")
ZERO_PLY_DEALS = 64


@cli.command()
@opt.table_options
@click.option("--position", "position_path", type=click.Path(dir_okay=True), default=None, metavar="FILE",
              help="A position file (TOML; see examples/position.toml) instead of a simulated game.")
@click.option("--position-id", "position_id", default=None, metavar="ID",
              help="A position ID (g1:...; analyse's output shows one) instead of a file: the position with its "
                   "rules and deck.")
@click.option("--game", type=int, default=None, metavar="G", help="Analyse game G of --seed (as `simulate` plays it).")
@click.option("--turn", type=int, default=None, metavar="T",
              help="... at the start of its turn T (counted from 0 over all rounds): the draw decision.")
@click.option("--policy", default=DEFAULT_POLICY, show_default=True, metavar="NAME|A,B,...",
              help=f"Base policy of the rollouts: one strategy for every seat, or one per seat (default: the "
                   f"oracle's, {evaluator.BASE} at every seat: the strongest fast player on the ladder; it beats learned "
                   "on held-out deals at 2, 4 and 6 players).")
@click.option("--second-policy", default=NO_SECOND, show_default=True, metavar="NAME|A,B,...|none",
              help=f"A sensitivity check, not advice (off by default): analyse the position again under this base "
                   f"policy (such as {SECOND_POLICY}), on the same rollout seeds, and say whether the verdict holds "
                   "(robust) or depends on the policy. The advice is the oracle's alone.")
@click.option("--follow-card", "follow_card", is_flag=True,
              help="Value the options again with the card player in the seat to move (the base policy at the "
                   "others), on the same rollout seeds, and say whether a difference from the card's answer comes "
                   "from this position or from the play that follows it.")
@click.option("--level", type=click.Choice(LEVELS), default="rollouts", show_default=True,
              help="How the options are valued: rollouts to the end of the game; truncated rollouts (this round "
                   "played out, then the value network's chance of winning at the next round's first decision; full "
                   "rollouts in the last round); or 0-ply (the value network after each option, the mean over "
                   "deals of the unseen cards: no rollout, milliseconds).")
@click.option("--rollouts", type=int, default=2000, show_default=True, metavar="N",
              help=f"Rollouts per option, at most {opt.MAX_ROLLOUTS:,} (with --half-width: the pilot batch; with "
                   f"--level 0-ply: the deals, default {ZERO_PLY_DEALS}).")
@click.option("--half-width", type=float, default=None, metavar="H",
              help="Size a confirmatory batch so that the best option's lead is resolved to +-H (points of margin "
                   "with --horizon round, percentage points of win chance with --horizon game).")
@click.option("--max-rollouts", type=int, default=400_000, show_default=True, metavar="N",
              help="Cap of the confirmatory batch of --half-width.")
@click.option("--horizon", type=click.Choice(["round", "game"]), default=DEFAULT_HORIZON, show_default=True,
              help="Play the rollouts to the end of the game and rank by the chance of winning it (the oracle's "
                   "criterion, the default), or to the end of the round and rank by the margin over the rivals.")
@click.option("--peek", is_flag=True,
              help="Use the true hidden cards of the simulated game: the perfect-information value.")
@click.option("--why", "why", is_flag=True,
              help="Explain the verdict: split the best option's lead over --versus into own cards, the finishing "
                   "bonus and what the rivals scored, and tell sample continuations of both on the same cards.")
@click.option("--versus", default=None, metavar="KEY",
              help="With --why: the option to explain against the best (an option key such as pos4, discard, pile0; "
                   "default: the runner-up).")
@opt.threads
@opt.as_json
def analyse(players, strategy, seats, strategies_path, seed, rotate, rules_path, deck_path, position_path,
            position_id, game, turn, policy, second_policy, follow_card, level, rollouts, half_width, max_rollouts,
            horizon, peek, why, versus, threads, as_json):
    """Roll out every legal option of a decision and rank them by what the player wants: the chance of
    winning the game (the default; equal chances by the margin) or the margin over the rivals (--horizon
    round); print each option's value and how far it is behind the best, with a paired 95% interval
    (common random numbers over the rollouts)."""
    opt.check_range("--rollouts", rollouts, 2, opt.MAX_ROLLOUTS)
    opt.check_range("--max-rollouts", max_rollouts, 2, opt.MAX_ROLLOUTS)
    opt.check_threads(threads)
    opt.check_seed(seed)
    if versus is not None and not why:
        raise GnomingError("--versus names the option --why explains: give --why too")
    if why and peek:
        raise GnomingError("--why tells continuations of the imperfect-information analysis: drop --peek")
    if half_width is not None and not opt.MIN_HALF_WIDTH <= half_width <= opt.MAX_HALF_WIDTH:
        # a tinier target sizes the batch as (pilot / target)**2 rollouts: a float overflow, and far past the cap
        raise GnomingError(f"--half-width must be a number of points in {opt.MIN_HALF_WIDTH:g}.."
                           f"{opt.MAX_HALF_WIDTH:g}, got {half_width}")
    given = click.get_current_context().get_parameter_source
    _check_level(level, horizon, peek, why, half_width, second_policy, follow_card, given)
    if position_path is not None and position_id is not None:
        raise GnomingError("give --position FILE or --position-id ID, not both")
    if position_path is not None or position_id is not None:
        flag = "--position" if position_path is not None else "--position-id"
        if game is not None or turn is not None:
            raise GnomingError(f"{flag} excludes --game/--turn: analyse a position or a simulated game")
        if peek:
            raise GnomingError("--peek needs a simulated game (--game/--turn): a position has no hidden cards")
        opt.load_strategies_file(strategies_path)
        if position_id is not None:
            from gnoming_sim.game.position_id import decode

            for name, path in (("--rules", rules_path), ("--deck", deck_path)):
                if path is not None:
                    raise GnomingError(f"{name} does not go with --position-id: the ID holds its own rules and deck")
            pos = decode(position_id)
        else:
            from gnoming_sim.game.position import from_toml

            rules_ = opt.load_rules_file(rules_path)
            deck_ = opt.load_deck_file(deck_path)
            pos = from_toml(position_path, rules_, deck_)
        if given("players") is click.core.ParameterSource.COMMANDLINE and players != pos.players:
            raise GnomingError(f"--players {players} contradicts the position, which has {pos.players} players; "
                               "drop --players (a position file sets its own table)")
        players = pos.players
    else:
        if game is None or turn is None:
            raise GnomingError("give --position FILE, --position-id ID, or --game G and --turn T (a simulated game's "
                               "decision)")
        opt.check_range("--game", game, 0, opt.MAX_GAME)
        opt.check_range("--turn", turn, 0, opt.MAX_TURN)
        names, rules_, deck_ = opt.table_spec(players, strategy, seats, seed, rules_path, deck_path,
                                              strategies_path)
    policies = opt.strategy_names("--policy", policy, players, (1, players))
    _check_rollout_policies("--policy", policies)
    second = None
    if second_policy.strip().lower() != NO_SECOND:
        second = opt.strategy_names("--second-policy", second_policy, players, (1, players))
        _check_rollout_policies("--second-policy", second)
    from gnoming_sim.search.estimates import position_from_game
    from gnoming_sim.search.evaluator import Settings, advice, evaluate

    if position_path is None and position_id is None:
        from gnoming_sim.batch.runner import BatchSpec

        spec = BatchSpec.make(players, names, 1, seed, rotate, rules_, deck_)
        pos = position_from_game(seed, game, turn, players, spec.seats, rules_, deck_, spec.rotate)
    if level == "0-ply":
        _zero_ply(pos, policies, seed, rollouts if given("rollouts") is click.core.ParameterSource.COMMANDLINE
                  else ZERO_PLY_DEALS, threads, as_json)
        return
    view = follow = None
    if follow_card:   # refused before any rollout where the card has nothing to say
        from gnoming_sim.search.card import CARD, card_view, follow_base

        follow = evaluator.seats_with(pos, CARD, follow_base(policies))
        view = card_view(pos)
        if view is None:
            raise GnomingError("--follow-card: the card has no cell for this decision (a hazard flip, a bounce, or a "
                               "draw with no pile card to take): there is no card answer to follow")
    from gnoming_sim.cli import group

    # on a terminal, a bar of the rollouts with the running leader (as simulate's of its games); none elsewhere
    runs = 1 + (second is not None)
    with group.progress_bar(rollouts * (runs + follow_card), "rollouts", delay=PROGRESS_DELAY) as advance:
        bar = {"done": 0, "more": rollouts if follow_card else 0}

        def tell(done, leader, planned):
            bar["last"] = (done, planned)
            advance(bar["done"] + done, item=leader, total=bar["done"] + planned + bar["more"])

        tell = tell if group.on_terminal() else None
        settings = Settings(level=level, policies=tuple(policies), horizon=horizon, budget=rollouts,
                            stop="fixed" if half_width is None else "half-width", half_width=half_width,
                            cap=max_rollouts, seed=seed, peek=peek)
        res = evaluate(pos, settings, threads, tell, second)
        if follow_card:
            bar["done"], bar["more"] = bar.get("last", (0, 0))[0], 0
            tell_card = (lambda done, leader, planned: tell(done, f"card seat: {leader}", planned)) if tell else None
            followed = evaluate(pos, replace(settings, policies=tuple(follow)), threads, tell_card)
    if why:
        res["why"] = _why(pos, res, policies, seed, rollouts, horizon, threads, versus)
    said = advice(pos, res)   # the card's answer, the finishing gap, the position ID: the board's too
    res.update({k: v for k, v in said.items() if k != "position_id"})
    if follow_card:
        from gnoming_sim.search.card import judge
        from gnoming_sim.search.options import legal_options

        res["follow_card"] = judge(view, res, followed, legal_options(pos), pos.me)
    res["position_id"] = said["position_id"]   # the position whole, to paste into --position-id or the board
    if as_json:
        res["position_record"] = pos.to_dict()
        click.echo(json.dumps(res, indent=1))
    else:
        click.echo(render(res))


def _check_level(level, horizon, peek, why, half_width, second_policy, follow_card, given) -> None:
    """Refuse what a level does not go with, in one line, before any work."""
    if level == "rollouts":
        return
    if given("horizon") is click.core.ParameterSource.COMMANDLINE and horizon != "game":
        raise GnomingError(f"--level {level} values the chance of winning the game: it goes with --horizon game only")
    if peek:
        raise GnomingError(f"--level {level} reads the value network from what the player sees: drop --peek")
    if level == "0-ply":
        for name, on in (("--why", why), ("--half-width", half_width is not None),
                         ("--second-policy", second_policy.strip().lower() != NO_SECOND),
                         ("--follow-card", follow_card)):
            if on:
                raise GnomingError(f"{name} needs rollouts: drop it, or use --level rollouts or truncated")


def _zero_ply(pos, policies, seed, deals, threads, as_json) -> None:
    """The 0-ply table of ``pos`` (:func:`gnoming_sim.search.evaluator.zero_ply`), printed."""
    from gnoming_sim.search.evaluator import MAX_DETERMINIZATIONS, Settings, advice, evaluate

    opt.check_range("--rollouts", deals, 1, MAX_DETERMINIZATIONS,
                    f"1..{MAX_DETERMINIZATIONS:,} deals with --level 0-ply")
    res = evaluate(pos, Settings(level="0-ply", policies=tuple(policies), budget=deals, seed=seed), threads)
    res.update(position=pos.describe(), seed=seed, policies=[getattr(p, "name", p) for p in policies])
    res.update(advice(pos, res))
    if as_json:
        click.echo(json.dumps(res, indent=1))
        return
    width = max(len(r["option"]) for r in res["options"])
    lines = [f"position: {res['position']}", f"position ID: {res['position_id']}",
             f"value: 0-ply: the value network after each option ({_policy_text(res['policies'])} decides the "
             f"player's own steps inside the turn), the mean over {res['n']:,} deals of the unseen cards, "
             f"common to every option; seed {seed}",
             "ranked by: chance of winning the game (higher is better); the interval is the deals' only, not the "
             "network's own error",
             f"{'option':<{width}}  {'win chance %':>13}  {'behind the best [95% CI]':>26}  {'final vs mean':>14}"]
    for r in sorted(res["options"], key=lambda r: r["rank"]):
        lo, hi = r["diff_ci95"]
        behind = "best" if r["best"] else f"{r['diff']:+.2f} [{lo:+.2f}, {hi:+.2f}]"
        lines.append(f"{r['option']:<{width}}  {r['mean']:>13.1f}  {behind:>26}  {r['margin']:>+14.1f}")
    lines.append("final vs mean: the expected final game score against the table's mean, points (lower is better)")
    if res.get("card"):
        from gnoming_sim.search.card import card_line

        lines.append(card_line(res["card"]))
    lines.append(f"best: {next(r['option'] for r in res['options'] if r['best'])} (0-ply; `--level rollouts` "
                 "or `truncated` confirms it by rollouts)")
    click.echo("\n".join(lines))


def _why(pos, res, policies, seed, rollouts, horizon, threads, versus):
    """:func:`gnoming_sim.search.why.explain` of the best option against ``versus`` (default the runner-up),
    on the analysis's own first rollouts."""
    from gnoming_sim.search.why import explain

    other = versus if versus is not None else res.get("runner_up")
    if other is None:
        raise GnomingError("--why: no option differs from the best in any rollout: nothing to explain")
    if other == res["best"]:
        raise GnomingError(f"--versus {other}: that is the best option itself; name another option")
    from gnoming_sim.cli.why_text import tell_samples

    return tell_samples(explain(pos, [res["best"], other], policies, seed=seed, rollouts=rollouts, horizon=horizon,
                                threads=threads), pos)


def _check_rollout_policies(option: str, names) -> None:
    """Refuse a Monte Carlo policy here, before a simulated game is played to reach the decision
    (the search refuses it too, but only after that game)."""
    from gnoming_sim.search.estimates import refuse_mc

    refuse_mc(names, option)


def _pct(p: dict) -> str:
    lo, hi = p["ci95"]
    return f"{100 * p['p']:5.1f}% [{100 * lo:.0f},{100 * hi:.0f}]"


def _ratio(x: float) -> str:
    return "n/a" if x != x else f"{x:.3f}"   # nan: no variance at all (--peek)


def _lead_unit(res: dict, on: str) -> str:
    return "points of margin (the win chances are equal)" if res["horizon"] == "game" and on == "margin" \
        else res["unit"]


def render(res: dict) -> str:
    """The text table: one row per option, best first, then the verdict and the variance reduction."""
    game = res["horizon"] == "game"
    lines = [f"position: {res['position']}"]
    if res.get("position_id"):
        lines.append(f"position ID: {res['position_id']}")
    lines += [f"value: {res['value']}",
              f"base policy: {_policy_text(res['policies'])}; horizon: {res['horizon']}; "
              f"seed {res['seed']}; n = {res['n']:,} rollouts per option, common random numbers",
              f"ranked by: {res['criterion']}"]
    if res.get("level"):
        lines.append(f"level: {res['level']}")
    a = res.get("adaptive")
    if a:
        lines.append(f"adaptive: a pilot of {a['pilot']:,} rollouts (half-width {a['pilot_half_width']:.3f}; "
                     f"not used below) sized a confirmatory batch of {a['confirmatory']:,} fresh rollouts; "
                     f"target +-{a['target_half_width']} {'reached' if a['reached'] else 'NOT reached'}"
                     f"{' (capped by --max-rollouts)' if a['capped'] else ''}")
    width = max(len(r["option"]) for r in res["options"])
    wins = all("p_win" in r for r in res["options"])   # the game horizon: who wins the game
    shares = ("P(finish)", "P(-bonus)", "P(lowest)") + (("P(win)",) if wins else ())
    crit = "win chance % (adj.)" if game else "margin (adj.)"
    extra = ("margin", f"mean {res['points_metric']}") if game else (f"mean {res['points_metric']}",)
    head = (f"{'option':<{width}}  {crit:>20}  {'behind the best [95% CI]':>26}  "
            + "".join(f"{name:>16}  " for name in extra)
            + "".join(f"{name:>16}  " for name in shares) + f"{'n':>8}")
    lines += ["", f"signs: 'behind the best' is how much worse than the best option, in {res['unit']} "
                  "(positive: worse); margin = own round score minus the rivals' mean (lower is better)",
              head, "-" * len(head)]
    for r in sorted(res["options"], key=lambda r: r["rank"]):
        lo, hi = r["ci95"]
        mean = f"{r['mean']:7.2f} +-{(hi - lo) / 2:.2f}"
        diff = "best" if r["best"] else f"{r['diff']:+.2f} [{r['diff_ci95'][0]:+.2f}, {r['diff_ci95'][1]:+.2f}]"
        if not r["best"] and r.get("diff_on") == "margin" and game:
            diff += " m"
        cols = ([r["margin"]] if game else []) + [r["points"]]
        extra_cells = "".join(f"{_pm(c):>16}  " for c in cols)
        fin = _pct(r["p_finish"])
        bonus = _pct(r["p_bonus"]) if r["p_finish"]["p"] > 0 else "-"
        win = f"  {_pct(r['p_win']):>16}" if wins else ""
        lines.append(f"{r['option']:<{width}}  {mean:>20}  {diff:>26}  {extra_cells}{fin:>16}  {bonus:>16}  "
                     f"{_pct(r['p_lowest']):>16}{win}  {r['n']:>8,}")
    if game and any(r.get("diff_on") == "margin" and not r["best"] for r in res["options"]):
        lines.append("m: the same win chance as the best; behind it in points of margin")
    lines.append("")
    best = next(r for r in res["options"] if r["best"])
    same = [r["option"] for r in res["options"] if r["same_as_best"]]
    if same:
        lines.append(f"equal to {best['option']} in every rollout: {', '.join(same)}")
    if "lead" not in res:
        lines.append(f"verdict: {best['option']}: no other option differs from it in any rollout")
    else:
        second = next(r for r in res["options"] if r["key"] == res["runner_up"])
        lo, hi = res["lead_ci95"]
        unit = _lead_unit(res, res.get("lead_on", ""))
        if res["separated"]:
            lines.append(f"verdict: {best['option']} is recommended: best by {res['lead']:.2f} {unit} "
                         f"(95% CI {lo:.2f}..{hi:.2f}) over {second['option']}")
        else:
            lines.append(f"verdict: not separated at this budget: {best['option']} leads {second['option']} by "
                         f"{res['lead']:.2f} {unit} (95% CI {lo:.2f}..{hi:.2f} includes 0); more --rollouts "
                         "or --half-width")
        v = res["variance"]
        lines.append("variance of that difference vs independent rollouts: CRN x{}, + strata (first draw "
                     "card) x{}, + control (own face-down cards) x{}, + blind-draw luck x{}".format(
                         *(_ratio(v.get(k, float("nan"))) for k in
                           ("crn", "crn+strata", "crn+strata+control", "crn+strata+control+luck"))))
    if res.get("finish_gap") is not None:
        lines.append(f"finish gap: {res['finish_gap']:+d} (your score after finishing minus the best rival's visible "
                     "score: the gap of the report's finish rule and of the card)")
    if res.get("card"):
        from gnoming_sim.search.card import card_line

        lines.append(card_line(res["card"]))
    if res.get("follow_card"):
        from gnoming_sim.search.card import follow_line

        lines.append(follow_line(res["follow_card"]))
    lines += _robustness_lines(res)
    if res.get("why"):
        from gnoming_sim.cli.why_text import render_text

        lines += render_text(res["why"])
    return "\n".join(lines)


def _pm(e: dict) -> str:
    lo, hi = e["ci95"]
    return f"{e['mean']:6.2f} +-{(hi - lo) / 2:.2f}"


def _policy_text(policies) -> str:
    return f"{policies[0]} (every seat)" if len(set(policies)) == 1 else f"{', '.join(policies)} (seat by seat)"


def _separation(res: dict) -> str:
    if "lead" not in res:
        return "no other option differs from it in any rollout"
    return "separated" if res["separated"] else "not separated at this budget"


def _robustness_lines(res: dict) -> list[str]:
    """The sensitivity check (--second-policy, off unless asked): both rankings, option by option, and whether
    the recommended option is the same under both base policies."""
    rob = res.get("robustness")
    if rob is None:
        return []
    if not rob["checked"]:
        return ["", f"robustness: not checked: {rob['reason']} ({rob['policies'][0]})"]
    second = rob["second"]
    first_name, second_name = rob["policies"]
    ranks = [{r["key"]: r for r in ranking} for ranking in rob["rankings"]]
    width = max(len(r["option"]) for r in res["options"])
    cols = [f"{name}: rank, {res['metric']} [95% CI]" for name in (first_name, second_name)]
    cw = max(28, *(len(c) for c in cols))
    n2 = second["n"]
    a = second.get("adaptive")
    sized = (f"; its own pilot sized them, target +-{a['target_half_width']} "
             f"{'reached' if a['reached'] else 'NOT reached'}" if a else "")
    lines = ["", f"sensitivity check (asked for; not advice: the verdict above is the oracle's): "
                 f"second base policy: {_policy_text(second['policies'])}, the same position on the same rollout "
                 f"seeds (n = {n2:,} rollouts per option{sized}); both rankings, best first:",
             (f"{'option':<{width}}  " + "  ".join(f"{c:<{cw}}" for c in cols)).rstrip()]
    lines.append("-" * len(lines[-1]))
    for r in rob["rankings"][0]:
        cells = []
        for rk in ranks:
            x = rk[r["key"]]
            cells.append(f"{x['rank']:>2}. {x['mean']:7.2f} [{x['ci95'][0]:.2f}, {x['ci95'][1]:.2f}]")
        lines.append(f"{r['option']:<{width}}  " + "  ".join(f"{c:<{cw}}" for c in cells).rstrip())
    best = [next(r["option"] for r in a["options"] if r["best"]) for a in (res, second)]
    sep = f"{first_name}: {_separation(res)}; {second_name}: {_separation(second)}"
    if rob["robust"]:
        same = best[0] if best[0] == best[1] else f"{best[0]} (equal to {best[1]} in every rollout)"
        lines.append(f"robustness: robust: {same} is recommended under {first_name} and under {second_name} ({sep})")
    else:
        lines.append(f"robustness: depends on the policy: {first_name} recommends {best[0]}, {second_name} "
                     f"recommends {best[1]} ({sep}); the rankings above are conditional on their base policy")
    return lines

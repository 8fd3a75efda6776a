"""The page of ``gnoming-sim review``: one self-contained HTML file (inline CSS, no script, no external
asset) of a review result (:func:`gnoming_sim.search.review.review` plus the game's facts), and the
text summary the command prints.

Per decision the page shows the board as the seat saw it (face-down cards as ``?``), the card in hand,
the options table, the move played and the mark.  **Extra sections**: a decision dict may carry
``"extras"``, a list of ``{"title": str, "html": str}`` (the html already escaped / trusted, written
by the project's own code), rendered in order under the options table inside ``<div class="extras">``:
the place for later per-decision analyses (sample continuations, what makes the difference).
"""
from __future__ import annotations

import jinja2
from markupsafe import Markup

from gnoming_sim.game.cards import card_name, parse_card

_CSS = """
body{font-family:system-ui,Segoe UI,Helvetica,Arial,sans-serif;margin:1.5em auto;max-width:1100px;color:#222;
background:#fcfcfa;line-height:1.35}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin:0 0 .4em}
.verdict{font-size:1.25em;padding:.5em .8em;background:#eef3fb;border-left:6px solid #3467b3;margin:.8em 0}
table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th{background:#f0f0ec}td.l,th.l{text-align:left}
.decision{border:1px solid #ddd;border-radius:6px;padding:.8em 1em;margin:1.2em 0;background:#fff}
.decision.forced{opacity:.75;background:#f7f7f7}
.boards{display:flex;flex-wrap:wrap;gap:1em;margin:.5em 0}
.board{border:1px solid #ccc;padding:.3em;border-radius:4px;background:#fafafa}.board.me{border:2px solid #3467b3;
background:#eef3fb}
.grid{display:grid;grid-template-columns:repeat(3,2.2em);gap:3px}
.card{height:2.4em;display:flex;align-items:center;justify-content:center;border-radius:3px;font-weight:600;
background:#fff;border:1px solid #999}.card.down{background:#b9c3cf;color:#556;border-color:#889}
.card.neg{background:#e3f4e3}.card.H{background:#f7c8c8}.card.M{background:#f6e7b0}
.mark{font-weight:700;padding:.1em .5em;border-radius:4px;color:#fff}
.mark.ok{background:#4a9a4a}.mark.inaccuracy{background:#c9a227}.mark.mistake{background:#d9731a}
.mark.blunder{background:#c0302b}.mark.forced{background:#888}
tr.played td{font-weight:700}tr.best td:first-child{border-left:4px solid #4a9a4a}
.small{color:#666;font-size:.9em}.extras{margin-top:.6em}
"""

_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Review: {{ title }}</title><style>{{ css }}</style></head>
<body>
<h1>Review of seat {{ game.seat }}{% if game.seats %} ({{ game.seats[game.seat] }}){% endif %}</h1>
<p class="small">{{ title }}; {{ game.players }} players; rules: {{ rules_text }}; deck {{ game.deck }};
gnoming-sim {{ game.version }}; {{ "%.0f"|format(seconds) }} s</p>
<div class="verdict">Verdict: <b>{{ s.verdict }}</b> &mdash; error rate {{ "%.2f"|format(s.error_rate_pp) }} pp of
win chance per decision over {{ s.graded }} graded decisions</div>
<section id="summary"><h2>Summary</h2>
<table><tbody>
<tr><th class="l">decisions</th><td>{{ s.decisions }} ({{ s.graded }} graded, {{ s.forced }} forced)</td></tr>
<tr><th class="l">error rate</th><td>{{ "%.2f"|format(s.error_rate_pp) }} pp of win chance per graded decision{% if s.graded > 1 %} (95% CI {{ "%.2f"|format(s.error_rate_ci95[0]) }}..{{ "%.2f"|format(s.error_rate_ci95[1]) }}, n = {{ s.graded }}){% endif %}</td></tr>
<tr><th class="l">win chance lost</th><td>{{ "%.1f"|format(s.win_chance_lost_pp) }} pp in all</td></tr>
{% for name, sym in (("ok", ""), ("inaccuracy", "?!"), ("mistake", "?"), ("blunder", "??")) %}
<tr><th class="l">{{ name }} {{ sym }}</th><td>{{ s.marks[name] }}</td></tr>{% endfor %}
</tbody></table>
<p class="small">Method: {% if m.screening is defined %}each decision screened at 0-ply ({{ m.screen }} deals of the
unseen cards: the value network after every option) to pick the candidates, then rolled out with {{ m.policies|join(", ") }}
at every seat (common random numbers; truncated rollouts: this round played out, then the value network, full in the last
round): {{ m.select if m.select is defined else m.confirm }} rollouts of the candidates and the move played choose the
alternative (the table shows them), then {{ m.confirm }} more fresh rollouts measure the loss of the move played against it
{% else %}each decision rolled out to the end of the game with {{ m.policies|join(", ") }} at every
seat (common random numbers): {{ m.screen }} screening rollouts per option choose the best move (win chance; equal
chances by the margin over the rivals); {{ m.select if m.select is defined else m.confirm }} fresh rollouts of its
{{ m.candidates }} best and the move played choose the alternative (the table shows them), then {{ m.confirm }} more
fresh rollouts measure the loss of the move played against it {% endif %}(an ordinary paired interval). Marks by that loss in win
chance shrunk with the game's others, only where the move's one-sided test survives Benjamini-Hochberg over the game's
decisions at a false discovery rate of {{ "%.0f"|format(100 * m.mark_rate) }}%:
{% for x in m.marks %}{{ x.mark }} {{ x.symbol }} {% if x.least_loss_pp > 0 %}&ge; {{ x.least_loss_pp }} pp{% else %}below
that{% endif %}{% if not loop.last %}, {% endif %}
{%- endfor %}.
The error rate counts every loss, shrunk by empirical Bayes with the game's others (never below 0), none zeroed; its
interval is cut at 0. Verdict bands (error rate, pp): {% for v in m.verdicts %}{{ v.verdict }}{% if v.below_pp is not none %} &lt;
{{ v.below_pp }}{% endif %}{% if not loop.last %}; {% endif %}{% endfor %}.</p>
</section>
<section id="decisions"><h2>Decisions</h2>
{% for d in decisions %}
<div class="decision{% if d.forced %} forced{% endif %}" id="d{{ loop.index0 }}">
<h2>{{ loop.index }}. {{ d.where }} &mdash; {{ d.decision|replace("_", " ") }}
{% if d.forced %}<span class="mark forced">forced</span>{% else %}<span class="mark {{ d.mark }}">{{ d.mark }}
{{ d.symbol }}</span>{% endif %}</h2>
<p class="small">{{ d.describe }}{% if d.get('position_id') %}<br>position ID <code>{{ d.position_id }}</code>
(<code>gnoming-sim analyse --position-id</code> takes it){% endif %}</p>
<div class="boards">
{% for lay in d.boards %}<div class="board{% if loop.index0 == d.position.me %} me{% endif %}">
<div class="small">seat {{ loop.index0 }}{% if loop.index0 == d.position.me %} (you){% endif %}{% if
d.position.scores %}, {{ d.position.scores[loop.index0] }} pts{% endif %}</div>
<div class="grid">{% for c in lay %}<div class="card {{ c.cls }}">{{ c.name }}</div>{% endfor %}</div></div>
{% endfor %}
<div class="board"><div class="small">discard piles (top)</div>
{% for p in d.piles %}<div>pile {{ loop.index0 }}: <b>{{ p.top }}</b> <span class="small">({{ p.n }} cards)</span></div>
{% endfor %}<div class="small">draw pile: {{ d.position.draw_pile }} cards</div>
{% if d.hand %}<div>in hand: <b>{{ d.hand }}</b></div>{% endif %}</div>
</div>
<p>Played: <b>{{ d.played_label }}</b>{% if d.forced %} &mdash; {{ d.forced_reason }}{% elif d.best != d.played %};
best: <b>{{ d.best_label }}</b>, win chance lost {{ "%.1f"|format(100 * d.loss_win.est) }} pp
[{{ "%.1f"|format(100 * d.loss_win.ci95[0]) }}, {{ "%.1f"|format(100 * d.loss_win.ci95[1]) }}]{% if d.loss_win.shrunk is defined %}, shrunk {{ "%.1f"|format(100 * d.loss_win.shrunk) }} pp{% endif %}{% if not d.separated %}
(not kept by the game's false-discovery control: no mark){% endif %}{% else %} (the best move){% endif %}</p>
{% if d.options|length > 1 %}
<table><thead><tr><th class="l">option</th><th>P(win)</th><th>win chance behind the alternative [95% CI] (positive: worse; the selection batch)</th>
<th>margin over the rivals (lower is better)</th><th>mean game score</th><th>n</th></tr></thead><tbody>
{% for r in d.options %}<tr class="{% if r.key == d.played %}played {% endif %}{% if r.key == d.best %}best{% endif %}">
<td class="l">{{ r.option }}{% if r.key == d.played %} &larr; played{% endif %}</td>
<td>{{ "%.1f"|format(100 * r.p_win) }}%</td>
<td>{% if r.get('behind_alternative') %}{{ "%+.1f"|format(100 * r.behind_alternative.est) }} [{{ "%.1f"|format(100 * r.behind_alternative.ci95[0]) }},
{{ "%.1f"|format(100 * r.behind_alternative.ci95[1]) }}]{% elif r.zero_ply_behind_alternative is defined %}<span class="small">screened only (0-ply: {{ "%+.1f"|format(100 * r.zero_ply_behind_alternative) }})</span>{% else %}<span class="small">screened only</span>{% endif %}</td>
<td>{% if r.margin is defined %}{{ "%.2f"|format(r.margin.mean) }}{% else %}&mdash;{% endif %}</td>
<td>{% if r.points is defined %}{{ "%.2f"|format(r.points.mean) }}{% else %}&mdash;{% endif %}</td><td>{{ r.n }}</td></tr>
{% endfor %}</tbody></table>{% endif %}
<div class="extras">{% for x in d.extras or [] %}<section><h3>{{ x.title }}</h3>{{ x.html }}</section>{% endfor %}</div>
</div>
{% endfor %}
</section>
</body></html>
"""


def _card(name: str) -> dict:
    if name == "?":
        return {"name": "?", "cls": "down"}
    code = parse_card(name)
    cls = {"H": "H", "M": "M"}.get(name, "neg" if code < 0 else "")
    return {"name": card_name(code), "cls": cls}


def _view(d: dict) -> dict:
    pos = d["position"]
    v = dict(d)
    v["boards"] = [[_card(c) for c in lay] for lay in pos["layouts"]]
    v["piles"] = [{"top": p[-1] if p else "empty", "n": len(p)} for p in pos["piles"]]
    v["hand"] = pos["decision"].get("card")
    v["extras"] = [{"title": x["title"], "html": Markup(x["html"])} for x in d.get("extras", [])]
    return v


def page(res: dict) -> str:
    """The review page (HTML text) of ``res``."""
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    game = res["game"]
    src = game["source"]
    title = (f"record {src['file']}" if src["kind"] == "record" else f"seed {src['seed']} game {src['game']}")
    from gnoming_sim.game.rules import RuleConfig

    defaults = RuleConfig().to_dict()
    rules_text = ", ".join(f"{k}={v}" for k, v in game["rules"].items() if defaults.get(k) != v) or "the defaults"
    return env.from_string(_TEMPLATE).render(
        title=title, css=Markup(_CSS), game=game, s=res["summary"], m=res["method"], seconds=res.get("seconds", 0.0),
        decisions=[_view(d) for d in res["decisions"]], rules_text=rules_text)


def _seats_text(policies: list[str]) -> str:
    """``net at every seat``, or the seats' policies in seat order where they differ."""
    if len(set(policies)) == 1:
        return f"{policies[0]} at every seat"
    return f"{', '.join(policies)} (one per seat)"


def summary_lines(res: dict) -> list[str]:
    """The text the command prints: the verdict, the counts, then one line per marked decision."""
    s = res["summary"]
    marks = s["marks"]
    ci = (f", 95% CI {s['error_rate_ci95'][0]:.2f}..{s['error_rate_ci95'][1]:.2f}" if s["graded"] > 1 else "")
    lines = [f"seat {res['game']['seat']}: {s['verdict']} (error rate {s['error_rate_pp']:.2f} pp of win chance per "
             f"decision{ci}; {s['graded']} graded, {s['forced']} forced)",
             f"ok {marks['ok']}, inaccuracies ?! {marks['inaccuracy']}, mistakes ? {marks['mistake']}, "
             f"blunders ?? {marks['blunder']}; win chance lost {s['win_chance_lost_pp']:.1f} pp "
             f"(every loss, shrunk; marks at a false discovery rate of {s['mark_rate']:.0%} per game)",
             f"rolled out with {_seats_text(res['method']['policies'])} (--policy; by default net, the strongest "
             f"fast player)"]
    for d in res["decisions"]:
        if d["symbol"]:
            lines.append(f"  {d['symbol']:<2} {d['where']}: played {d['played_label']}, best {d['best_label']} "
                         f"(-{100 * d['loss_win']['est']:.1f} pp)"
                         + (f"; it comes mostly from {d['why']['deciding']['text']}" if d.get("why") else ""))
    return lines

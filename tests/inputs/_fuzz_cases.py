"""The hostile command lines of tests/inputs/test_fuzz_cli.py: a fixed list, made by rules, not at random.

A case is ``(id, argv)``; an argument ``@KIND`` stands for a hostile file made by
:func:`make_files` (``@fifo``, ``@deep_array``, ...), ``@tmp`` for a scratch folder.  Every case
must end in exit code 2 with one line, ``gnoming-sim: error: ...``, on stderr: each is a mistake
the command has to refuse before it plays a game.

The list: every file option of every command x every kind of bad file; every number option x
its out-of-range values; the string options x empty, odd and unknown values; hostile contents of
each kind of TOML file; and the hostile inputs of the input audit, each by name.

More cases come from the case files beside this one (:data:`EXTRA_MODULES`, each loaded when it is
there): a module ``_fuzz_cases_X.py`` gives ``cases()`` (a list of ``(id, argv)``) and may give
``make_files(root)`` (more ``@KIND`` files, ``{KIND: path}``), ``REGRESSIONS`` (ids `make test-fast`
runs) and ``check(case_id, result, argv)`` (an outcome other than one line and exit 2; return True
when it checked the case).  ``@copy:KIND`` gives a case its own copy of a ``@KIND`` file.
"""
from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

BIG = 10**29             # "10^29 reaches 8.6 GB before it is killed"
DEEP = 3000              # TOML nested 3,000 deep ended in a RecursionError

# ------------------------------------------------------------------ hostile files
_TEXT_FILES = {
    "nonutf8": b"name = '\xff\xfe'\n",
    "deep_array": ("a = " + "[" * DEEP + "]" * DEEP + "\n").encode(),
    "deep_table": ("a = " + "{b = " * DEEP + "1" + "}" * DEEP + "\n").encode(),
    "deep_dotted": ("a." * DEEP + "a = 1\n").encode(),
    "deep_header": ("[" + "a." * DEEP + "a]\nb = 1\n").encode(),
    "hugeint": b"a = " + b"9" * 5000 + b"\n",
    "hexint": b"a = 0x" + b"f" * 5000 + b"\n",
    "int64": b"a = 18446744073709551616\n",
    "malformed": b"[[[x\n= = =\n",
    "binary": bytes(range(256)) * 4,
    "empty_table": b"[]\n",
}


# case files of other items, beside this one: wired in when present (a missing one is skipped)
EXTRA_MODULES = ("_fuzz_cases_meta", "_fuzz_cases_cache", "_fuzz_cases_locks", "_fuzz_cases_decks", "_fuzz_cases_wrong")


def extra_modules() -> list:
    """The :data:`EXTRA_MODULES` that exist, imported, in that order."""
    here = Path(__file__).parent
    return [importlib.import_module(name) for name in EXTRA_MODULES if (here / f"{name}.py").exists()]


def make_files(root: Path) -> dict[str, str]:
    """Create every hostile file under ``root`` (the case files' under ``root/NAME``); ``{kind: path}``."""
    files = _make_own_files(root)
    for mod in extra_modules():
        if hasattr(mod, "make_files"):
            files.update(mod.make_files(root / mod.__name__))
    return files


def _make_own_files(root: Path) -> dict[str, str]:
    """Create this module's hostile files under ``root``; ``{kind: path}`` (a few are system paths)."""
    root.mkdir(parents=True, exist_ok=True)
    files = {"devzero": "/dev/zero", "procmem": "/proc/self/mem", "missing": str(root / "missing.toml"),
             "dir": str(root)}
    for kind, body in _TEXT_FILES.items():
        path = root / f"{kind}.toml"
        path.write_bytes(body)
        files[kind] = str(path)
    fifo = root / "fifo.toml"
    os.mkfifo(fifo)
    files["fifo"] = str(fifo)
    a, b = root / "loop_a.toml", root / "loop_b.toml"
    os.symlink(b, a)
    os.symlink(a, b)
    files["loop"] = str(a)
    plain = root / "plain.toml"
    plain.write_text("x = 1\n")
    files["through"] = str(plain / "child.toml")          # ENOTDIR
    files["longname"] = str(root / ("n" * 300 + ".toml"))  # ENAMETOOLONG
    big = root / "big.toml"
    with open(big, "wb") as fh:                           # sparse: 17 MiB of NUL bytes, no disk used
        fh.truncate(17 * 2**20)
    files["big"] = str(big)
    odd = os.fsencode(str(root)) + b"/\xff\xfe-name.toml"   # a name that is not UTF-8
    with open(odd, "wb") as fh:
        fh.write(b"[[[broken\n")
    files["oddname"] = os.fsdecode(odd)
    return files


BAD_FILES = ("fifo", "devzero", "procmem", "dir", "missing", "loop", "through", "longname", "big", "oddname",
             *_TEXT_FILES)
# a Parquet reader has its own checks of what it reads; these kinds are about the path itself
BAD_PATHS = ("fifo", "devzero", "procmem", "dir", "missing", "loop", "through", "longname", "nonutf8", "binary",
             "oddname")

# ------------------------------------------------------------------ commands
OUT = "@tmp/out.toml"
# the smallest argv that gets each command to the option under test (nothing else wrong in it)
BASE = {
    "simulate": ["simulate", "--games", "4"],
    "play": ["play"],
    "analyse": ["analyse", "--game", "0", "--turn", "0", "--rollouts", "10"],
    "analyse-position": ["analyse", "--rollouts", "10"],
    "compare": ["compare", "--games", "4"],
    "report": ["report", "--out", "@tmp/rep"],
    "tune": ["tune", "--out", OUT, "--generations", "1", "--games", "8"],
    "held-out": ["held-out", "--candidate", "builder", "--baseline", "greedy", "--games", "8"],
    "rules": ["rules"],
    "strategies": ["strategies"],
    "ladder": ["ladder", "--players", "2", "--strategies", "random,greedy", "--games", "4", "--bootstrap", "100"],
    "train": ["train", "--out", "@tmp/learned", "--iterations", "1", "--games", "4", "--check-games", "8"],
    "review": ["review", "--game", "0", "--seat", "0", "--rollouts", "20", "--out", "@tmp/rev"],
    "card": ["card", "--out", "@tmp/card", "--games", "4", "--check-deals", "0"],
    "board": ["board", "--no-browser"],   # a case that wrongly passed would serve: the alarm stops it
    "drill": ["drill"],
}
FILE_OPTIONS = {
    "simulate": ("--rules", "--deck", "--strategies-file"),
    "play": ("--rules", "--deck", "--strategies-file"),
    "analyse": ("--rules", "--deck", "--strategies-file"),
    "analyse-position": ("--position",),
    "compare": ("--strategies-file",),
    "report": ("--rules", "--deck", "--strategies-file"),
    "tune": ("--rules", "--deck", "--strategies-file"),
    "held-out": ("--rules", "--deck", "--strategies-file"),
    "rules": ("--rules", "--deck"),
    "strategies": ("--strategies-file",),
    "ladder": ("--rules", "--deck", "--strategies-file"),
    "review": ("--rules", "--deck", "--strategies-file"),
    "board": ("--rules", "--deck"),
}
# a drill deck is made where it is missing (board, review): every other bad kind
DRILL_DECK_OPTIONS = {"drill": "--deck", "board": "--drill-deck", "review": "--drill-deck"}
DRILL_DECK_KINDS = tuple(k for k in BAD_FILES if k != "missing")

# values each number option must refuse (every one of them is out of range or not a number)
NUMBERS = {
    "simulate": {"--players": ["0", "1", "8", "-1", str(BIG), "x", ""], "--games": ["0", "-1", str(2**63), str(BIG), "nan"],
                 "--threads": ["0", "4097", str(BIG)], "--workers": ["0", "500", str(BIG)],
                 "--chunk-size": ["0", str(BIG)], "--seed": ["-1", str(2**64), "1.5"]},
    "play": {"--game": ["-1", str(2**63)], "--round": ["0", "4"], "--seat": ["-1", "4", str(BIG)],
             "--players": ["8", str(BIG)], "--seed": [str(2**64)]},
    "analyse": {"--players": ["1", "8", str(BIG)], "--rollouts": ["1", "500001", "10000000", str(BIG)], "--max-rollouts": ["1", "500001", str(BIG)],
                "--half-width": ["0", "-1", "nan", "1e-300", "1e9", "x"], "--turn": ["-1", "1000000", str(BIG)],
                "--game": ["-1", str(2**63)], "--threads": ["0", str(BIG)], "--seed": ["-1", str(2**64)]},
    "compare": {"--games": ["0", str(10**10), str(BIG)], "--threads": ["0", str(BIG)], "--players": ["1", "8"],
                "--seed": ["-1", str(2**64)]},
    "report": {"--games": ["0", str(BIG), str(10**8)], "--workers": ["0", "500", str(BIG)],
               "--threads": ["0", str(BIG)], "--seed": ["-1", str(2**64)]},
    "tune": {"--popsize": ["1", "129", str(BIG)], "--games": ["0", str(BIG), str(2 * 10**6)],
             "--max-games": ["0", "4", str(BIG)], "--generations": ["0", "-1"], "--budget": ["0", "-1", "nan"],
             "--threads": ["0", str(BIG)], "--workers": ["0", "500"], "--players": ["1", "8"],
             "--seed": ["-1", str(2**64)]},
    "held-out": {"--games": ["0", str(BIG), str(10**8)], "--threads": ["0", str(BIG)], "--workers": ["0", "500"],
                 "--players": ["3,3", "", "1", "3,,4", str(BIG), "x", "4,4,4"], "--seed": ["-1", str(2**64)]},
    "ladder": {"--games": ["0", "-1", str(BIG), str(10**6)], "--bootstrap": ["0", "99", str(BIG)],
               "--threads": ["0", str(BIG)], "--seed": ["-1", str(2**64)],
               "--players": ["1", "8", "9", "2,2", "", "2,,4", "x", str(BIG)]},
    "card": {"--games": ["0", "-1", str(BIG)], "--decisions": ["0", str(BIG)], "--budget": ["0", str(BIG)],
              "--check-deals": ["1", "-1", str(BIG)], "--ladder-games": ["-1", str(BIG)], "--rounds": ["0", "-1", str(BIG)],
              "--players": ["3,3", "", "1", "3,,4", str(BIG), "x", "8"], "--threads": ["0", str(BIG)],
              "--seed": ["-1", str(2**64)]},
    "train": {"--iterations": ["0", "51", str(BIG)], "--games": ["0", str(BIG)], "--budget": ["0", str(BIG)],
              "--check-games": ["0", "3", str(BIG)], "--players": ["3,3", "", "1", "3,,4", str(BIG), "x", "8"],
              "--threads": ["0", str(BIG)], "--seed": ["-1", str(2**64)]},
    "board": {"--port": ["-1", "1023", "65536", str(BIG), "x"], "--seed": ["-1", str(2**64)],
              "--threads": ["0", str(BIG)]},
    "review": {"--players": ["1", "8", str(BIG)], "--game": ["-1", str(2**63)], "--seat": ["-1", "4", str(BIG)],
               "--rollouts": ["1", "19", str(10**6), str(BIG)], "--screen-deals": ["0", "19", str(10**6), "x"],
               "--confirm": ["0", str(10**6), "x"],
               "--rollout-seed": ["-1", str(2**64)], "--seed": ["-1", str(2**64)], "--threads": ["0", str(BIG)],
               "--why-rollouts": ["-1", "1", "19", str(10**6), str(BIG), "x"]},
}

ODD_NAMES = ["", " ", "nobody", "ok\n", "$\\frac{$", "a,b,c", "\udcff"]
STRINGS = {
    "card": {"--rollouts": ["", "learned", "ok\n"], "--focus": ["x", "1,,a"], "--focus-weight": ["0", "-1", "nan"],
             "--start": ["@tmp/missing.json", ""], "--continue-from": ["@tmp/nowhere"],
             "--install": ["@tmp/missing.json", ""]},
    "simulate": {"--strategy": ODD_NAMES, "--seats": ["", ",", "random", "a,,b,c", "ok\n,x,y,z"],
                 "--scheduler": ["", " "]},
    "play": {"--strategy": ODD_NAMES, "--seats": ["", "random,random"]},
    "analyse": {"--policy": ["", "mc", "nobody", "ok\n", "a,b,c"], "--strategy": ["", "ok\n"],
                "--second-policy": ["", "mc", "nobody", "ok\n", "a,b,c"],
                "--seats": ["", "random", "a,,b,c"],
                "--horizon": ["week", ""], "--versus": ["", "zzz", "ok\n"], "--level": ["", "3-ply", "0-PLY", "ok\n"]},
    "compare": {"--variant": ["", "=", "x=", "=a.toml", "x=a,b,c", "x=@missing"], "--strategy": ["", "$x$"],
                "--seats": ["", ","]},
    "tune": {"--name": ["ok\n", "", "1x", "a" * 41, "random", "$x", "a b", "\udcff"],
             "--field": ["", "mix:", "mix:a,", "nobody", "mix:builder,,greedy"],
             "--start": ["random", "nobody", "", "ok\n"], "--scheduler": [""]},
    "held-out": {"--candidate": ["", "nobody", "ok\n", "greedy"], "--baseline": ["", "ok\n"],
                 "--scheduler": [""]},
    "report": {"--scheduler": [""]},
    "board": {"--policy": ["", "nobody", "ok\n"]},
    "analyse-position": {"--position-id": ["", " ", "x", "g1:", "g1:zzzz", "g9:AAAA", "g1:" + "A" * 5000, "ok\n"]},
    "review": {"--policy": ["", "mc", "nobody", "ok\n", "a,b,c"], "--strategy": ["", "ok\n"],
               "--seats": ["", "random", "a,,b,c"]},
    "ladder": {"--strategies": ["", ",", "greedy", "nobody", "ok\n", "greedy,,expert", "greedy,greedy", "$\\frac{$",
                                "mcz,greedy", "mc0,greedy"]},
}

# hostile contents of each kind of TOML file: (id, option, body, command)
CONTENTS = [
    ("finish_margin_400_digits", "--strategies-file", '[strategy.x]\nbase = "greedy"\nfinish_margin = ' + "9" * 400,
     "simulate"),
    ("finish_margin_1e400", "--strategies-file", '[strategy.x]\nbase = "greedy"\nfinish_margin = 1e400', "simulate"),
    ("finish_margin_1e300", "--strategies-file", '[strategy.x]\nbase = "greedy"\nfinish_margin = 1e300', "simulate"),
    ("finish_margin_2_62", "--strategies-file", f'[strategy.x]\nbase = "greedy"\nfinish_margin = {2**62}',
     "simulate"),
    ("bounce_huge", "--strategies-file", f'[strategy.x]\nbase = "greedy"\nbounce = {2**62}', "strategies"),
    ("mc_budget_huge", "--strategies-file", f'[strategy.x]\nbase = "mc"\nmc_budget = {2**62}', "strategies"),
    ("name_newline", "--strategies-file", '[strategy."ok\\n"]\nbase = "greedy"', "strategies"),
    ("name_mathtext", "--strategies-file", '[strategy."$\\\\frac{$"]\nbase = "greedy"', "strategies"),
    ("name_empty", "--strategies-file", '[strategy.""]\nbase = "greedy"', "strategies"),
    ("strategy_not_table", "--strategies-file", "strategy = 1", "strategies"),
    # a base family selected without its weights (it played the net or learned family with all 0)
    ("mc_net_base_without_weights", "--strategies-file", '[strategy.x]\nbase = "mc"\nmc_learned_base = 2',
     "strategies"),
    ("mc_learned_base_without_weights", "--strategies-file", '[strategy.x]\nbase = "mc"\nmc_learned_base = 1',
     "simulate"),
    ("rules_max_turns_int64", "--rules", f"max_turns = {2**63 - 1}", "rules"),
    ("rules_max_turns_huge", "--rules", "max_turns = " + "9" * 30, "rules"),
    ("rules_bonus_huge", "--rules", f"early_finish_bonus = {2**62}", "rules"),
    ("rules_table_deep", "--rules", "[rules]\n" + "a." * DEEP + "a = 1", "rules"),
    ("deck_count_int64", "--deck", f'[cards]\n"6" = {2**62}', "rules"),
    ("deck_count_huge", "--deck", '[cards]\n"6" = ' + "9" * 30, "rules"),
    ("deck_card_huge", "--deck", '[cards]\n"' + "9" * 400 + '" = 4', "rules"),
]
_LAYOUT = '["5", "6", "?", "?", "?", "?", "?", "?", "?"]'   # the two initial flips up, 7 face down
_POSITION = (f"players = 2\nme = 0\nround = {{round}}\nscores = {{scores}}\ndraw_pile = 92   # 110 cards - 4 seen - 14 face down\n"
             f"layouts = [{_LAYOUT}, {_LAYOUT}]\npiles = [[], []]\n")
POSITIONS = [
    ("scores_near_2_63", 3, f"[{2**63 - 1}, {2**63 - 2}]"),
    ("scores_1e26", 3, f"[{10**26}, 0]"),
    ("scores_negative_2_63", 2, f"[{-2**63}, 0]"),
    ("scores_past_two_rounds", 3, "[1000, 0]"),
    ("scores_in_round_1", 1, "[5, 0]"),
    ("round_huge", 2**62, "[0, 0]"),
]
# positions that cannot happen, each accepted before (the template's seat 0 moves at turn 0)
IMPOSSIBLE_POSITIONS = {
    "turn_gives_the_turn_to_seat_1": "turn = 1\n",
    "hazard_in_hand_from_a_pile": ('[decision]\nkind = "place"\ncard = "H"\nsource = "pile0"\n', "draw_pile = 91"),
    "starter_not_the_rules": "starter = 1\n",
    "finisher_without_a_turn": ("finisher = 1\n", '["5", "6", "3", "4", "7", "8", "-1", "-2", "3"]'),
    "seat_1_past_its_first_flips": ("", '["5", "6", "7", "8", "?", "?", "?", "?", "?"]'),
}


def _impossible(extra) -> str:
    """The 2-player template (round 1, no turn yet) with one change: a key added, the draw pile or
    seat 1's layout replaced (a card turned up leaves the draw pile as it is)."""
    key, change = (extra, None) if isinstance(extra, str) else extra
    body = _POSITION.format(round=1, scores="[0, 0]")
    if change and change.startswith("draw_pile"):
        body = body.replace("draw_pile = 92", change)
    elif change:
        body = body.replace(f"layouts = [{_LAYOUT}, {_LAYOUT}]", f"layouts = [{_LAYOUT}, {change}]")
    if key.startswith("["):
        return body + key                 # a table goes last
    return key + body


def cases() -> list[tuple[str, list[str]]]:
    """Every hostile command line, in a fixed order, with a unique id."""
    out: list[tuple[str, list[str]]] = []
    for cmd, options in FILE_OPTIONS.items():
        for option in options:
            for kind in BAD_FILES:
                out.append((f"{cmd}{option}={kind}", [*BASE[cmd], option, f"@{kind}"]))
    for kind in BAD_PATHS:
        out.append((f"report--from={kind}", ["report", "--from", f"@{kind}"]))
    for cmd, option in DRILL_DECK_OPTIONS.items():
        for kind in DRILL_DECK_KINDS:
            out.append((f"{cmd}{option}={kind}", [*BASE[cmd], option, f"@{kind}"]))
    for kind in BAD_FILES:   # review's RECORD argument
        out.append((f"review-record={kind}", ["review", f"@{kind}", "--out", "@tmp/rev"]))
    for kind in ("fifo", "deep_array", "deep_table", "devzero", "loop"):
        out.append((f"compare--variant=rules:{kind}", [*BASE["compare"], "--variant", f"x=@{kind}"]))
        out.append((f"compare--variant=deck:{kind}", [*BASE["compare"], "--variant", f"x=,@{kind}"]))
    for cmd, options in NUMBERS.items():
        for option, values in options.items():
            for v in values:
                out.append((f"{cmd}{option}={v[:40]!r}", [*BASE[cmd], option, v]))
    for cmd, options in STRINGS.items():
        for option, values in options.items():
            for v in values:
                out.append((f"{cmd}{option}={v[:40]!r}", [*BASE[cmd], option, v]))
    for name, option, body, cmd in CONTENTS:
        out.append((f"content:{name}", [*BASE[cmd], option, f"@write:{name}"]))
    for name, _, _ in POSITIONS:
        out.append((f"position:{name}", [*BASE["analyse-position"], "--position", f"@write:{name}"]))
    for name in IMPOSSIBLE_POSITIONS:
        out.append((f"position:{name}", [*BASE["analyse-position"], "--position", f"@write:{name}"]))
    for mod in extra_modules():
        out += mod.cases()
    return out


def regressions() -> list[str]:
    """The case files' regression ids (this module's are test_fuzz_cli.REGRESSIONS)."""
    return [r for mod in extra_modules() for r in getattr(mod, "REGRESSIONS", ())]


def checked_elsewhere(case_id: str, result, argv) -> bool:
    """True when a case file checks this case's outcome itself (its ``check`` returned True)."""
    return any(hasattr(mod, "check") and mod.check(case_id, result, argv) for mod in extra_modules())


def bodies() -> dict[str, str]:
    """The TOML text of every ``@write:NAME`` argument."""
    made = {name: body for name, _, body, _ in CONTENTS}
    made.update({name: _POSITION.format(round=rnd, scores=scores) for name, rnd, scores in POSITIONS})
    made.update({name: _impossible(extra) for name, extra in IMPOSSIBLE_POSITIONS.items()})
    return made


def resolve(argv: list[str], files: dict[str, str], tmp: Path) -> list[str]:
    """``argv`` with ``@KIND``, ``@write:NAME`` and ``@tmp`` replaced by real paths under ``tmp``."""
    texts = bodies()
    out = []
    for arg in argv:
        if arg.startswith("@write:"):
            name = arg[len("@write:"):]
            path = tmp / f"{name}.toml"
            path.write_text(texts[name], encoding="utf-8")
            arg = str(path)
        elif arg.startswith("@copy:"):
            kind = arg[len("@copy:"):]
            path = tmp / f"copy-{Path(files[kind]).name}"
            shutil.copyfile(files[kind], path)
            arg = str(path)
        elif arg.startswith("x=@") or arg.startswith("x=,@"):
            head, kind = arg.split("@", 1)
            arg = head + files[kind]
        elif arg.startswith("@tmp"):
            arg = str(tmp) + arg[len("@tmp"):]
        elif arg.startswith("@"):
            arg = files[arg[1:]]
        out.append(arg)
    return out

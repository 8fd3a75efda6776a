"""Drills from reviewed mistakes: a deck of marked decisions that spans games, scheduled in
Leitner boxes, and the grading of an answer.

``review`` adds every marked decision (``?!``, ``?``, ``??``) of the seat it grades (:func:`cards_from_review`,
:func:`add`): its position (as a position ID, :mod:`gnoming_sim.game.position_id`), the move played, the
best move, the win chance the move played lost with its interval, and every option's win chance behind
the best with its paired 95% interval, as the review measured them.  ``drill`` (the command, or the
board) shows a position without its answer; the player picks an option or skips.

Grading (:func:`right_keys`, :func:`grade`): the best move is right, and so is every other option the
rollouts cannot tell from it: its interval behind the best on the review's confirmation rollouts reaches 0.
An option the review's 0-ply screening left out has no interval (its 0-ply value is kept, never a
screening interval), so it is never right.  The move played is never right: the review marked it for
losing win chance.  A skip counts as a miss.  A drill runs no rollouts of its own: its answers are the
review's confirmed values, valued by the evaluator (:mod:`gnoming_sim.search.evaluator`: the oracle's base
player at every seat, the chance of winning the game).

Schedule (:func:`reschedule`): Leitner boxes 1..5; a new card is in box 1 and due at once; a hit moves
it up one box, a miss (or a skip) back to box 1; it is then due :data:`INTERVAL_DAYS` ``[box]`` days
later.  :func:`select` gives the due cards (or, with ``retry``, the missed ones at once) at a
threshold of marks: ``?`` and ``??`` by default, ``?!`` too with ``include_inaccuracies``.

The deck is one Parquet file (:func:`default_path`: ``$XDG_DATA_HOME/gnoming-sim/drills.parquet``),
written whole by the crash-safe writer (:func:`gnoming_sim.batch.safe_write.write_file`: a kill at
any moment leaves the old deck or the new one), read and rewritten under its lock (:func:`locked`: a run
waits up to :data:`LOCK_WAIT_S` for another one writing it).  A symbolic link is read and written through
to its target (:func:`_resolved`).  The deck is checked whole at the door (:func:`_parse`: every column's
type, nulls, ranges, dates, the ``options`` JSON, the position IDs); a file that is not a sound deck of this
version is refused in one line and never written over, and :func:`save` refuses to write one.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from gnoming_sim.game.errors import GnomingError, one_line

FORMAT = 1
META_KEY = b"gnoming_sim_drills"
BOXES = 5
INTERVAL_DAYS = (0, 1, 3, 7, 14, 30)   # days until a card in box b is due again (index b)
DEFAULT_MARKS = ("??", "?")
INACCURACY = "?!"
MAX_DECK_BYTES = 256 * 2**20
OPTION = "--deck"


@dataclass(frozen=True)
class Choice:
    """One option of a card's decision, as the review measured it: its win chance behind the best
    (percentage points; positive: worse) with a paired 95% interval (None: not measured), ``batch``
    the rollouts that measured it (``confirm``, ``screen``)."""

    key: str
    label: str
    win_pct: float
    behind_pp: float | None
    lo_pp: float | None
    hi_pp: float | None
    batch: str


@dataclass(frozen=True)
class Card:
    """One drill: a marked decision and its schedule.  Dates are :class:`datetime.date`."""

    id: str
    position_id: str
    describe: str
    source: str
    mark: str
    symbol: str
    played: str
    played_label: str
    best: str
    best_label: str
    loss_pp: float
    loss_lo_pp: float
    loss_hi_pp: float
    options: tuple
    added: dt.date
    box: int = 1
    due: dt.date | None = None
    attempts: int = 0
    hits: int = 0
    last_result: str = ""
    last_seen: dt.date | None = None

    def option(self, key: str) -> Choice:
        for o in self.options:
            if o.key == key:
                return o
        raise GnomingError(f"'{key}' is not an option of this position (options: "
                           f"{', '.join(o.key for o in self.options)})")


# ------------------------------------------------------------------ from a review
def card_id(position_id: str, played: str) -> str:
    """A card's name: the same position with the same move played is the same card, whichever game."""
    return hashlib.blake2b(f"{position_id}|{played}".encode(), digest_size=6).hexdigest()


def cards_from_review(res: dict, source: str, today: dt.date | None = None) -> list[Card]:
    """The marked decisions of a review result (``review.json``: each decision with its ``position_id``)
    as new cards, due ``today``."""
    from gnoming_sim.batch.safe_write import show

    today = today or dt.date.today()
    cards = []
    for g in res["decisions"]:
        if g.get("forced") or g.get("mark") in (None, "ok") or not g.get("symbol"):
            continue
        if "position_id" not in g:
            raise GnomingError(f"{source}: the review's decision {g.get('where', '?')} has no position ID "
                               "(a review of an earlier version); review the game again")
        loss = g["loss_win"]
        options = tuple(_choice(r, g["best"]) for r in g["options"])
        cards.append(Card(card_id(g["position_id"], g["played"]), g["position_id"], g.get("describe", ""),
                          show(f"{source}, {g.get('where', '')}".rstrip(", "))[:MAX_TEXT], g["mark"], g["symbol"],
                          g["played"],
                          g.get("played_label", g["played"]), g["best"], g.get("best_label", g["best"]),
                          100 * loss["est"], 100 * loss["ci95"][0], 100 * loss["ci95"][1], options, today, 1, today))
    return cards


def _choice(row: dict, best: str) -> Choice:
    """An option row of a graded decision: the confirmed ones' interval behind the alternative on the
    confirmation rollouts; the screened ones' 0-ply value alone (no interval: never counted right)."""
    behind = row.get("behind_alternative")
    win = 100 * row["p_win_adj"] if "p_win_adj" in row else row["mean"]
    if row["key"] == best:
        return Choice(row["key"], row["option"], float(win), 0.0, 0.0, 0.0, row.get("batch", ""))
    if behind is None:
        return Choice(row["key"], row["option"], float(win), None, None, None, row.get("batch", ""))
    return Choice(row["key"], row["option"], float(win), 100 * behind["est"], 100 * behind["ci95"][0],
                  100 * behind["ci95"][1], row.get("batch", ""))


# ------------------------------------------------------------------ grading and schedule
def right_keys(card: Card) -> list[str]:
    """The options that count as right: the best, and every option but the move played whose interval
    behind the best reaches 0 (the rollouts cannot tell it from the best)."""
    keys = [card.best]
    keys += [o.key for o in card.options if o.key not in (card.best, card.played)
             and o.lo_pp is not None and o.lo_pp <= 0]
    return keys


def grade(card: Card, answer: str | None) -> dict:
    """The verdict on ``answer`` (an option key; None: skipped): right or not, and the facts to show."""
    chosen = None if answer is None else card.option(answer)
    right = answer is not None and answer in right_keys(card)
    return {"answer": answer, "skipped": answer is None, "right": right, "best": card.best,
            "best_label": card.best_label, "right_keys": right_keys(card),
            "answer_label": None if chosen is None else chosen.label,
            "answer_behind_pp": None if chosen is None else chosen.behind_pp,
            "answer_ci95_pp": None if chosen is None or chosen.lo_pp is None else [chosen.lo_pp, chosen.hi_pp],
            "played": card.played, "played_label": card.played_label, "mark": card.mark, "symbol": card.symbol,
            "loss_pp": card.loss_pp, "loss_ci95_pp": [card.loss_lo_pp, card.loss_hi_pp]}


def reschedule(card: Card, right: bool, skipped: bool = False, today: dt.date | None = None) -> Card:
    """The card after an attempt: a hit up one box (at most :data:`BOXES`), a miss or a skip to box 1;
    due :data:`INTERVAL_DAYS` of its new box after ``today``."""
    today = today or dt.date.today()
    box = min(card.box + 1, BOXES) if right else 1
    return replace(card, box=box, due=today + dt.timedelta(days=INTERVAL_DAYS[box]), attempts=card.attempts + 1,
                   hits=card.hits + int(right), last_result="hit" if right else "skip" if skipped else "miss",
                   last_seen=today)


def marks_for(include_inaccuracies: bool = False) -> tuple[str, ...]:
    return DEFAULT_MARKS + ((INACCURACY,) if include_inaccuracies else ())


def select(cards: list[Card], today: dt.date | None = None, retry: bool = False,
           include_inaccuracies: bool = False) -> list[Card]:
    """The cards to drill now, at the threshold of marks: the due ones (due on or before ``today``), or
    with ``retry`` the ones last missed or skipped, whatever their date; the earliest due first, then
    the lower box, then the larger loss."""
    today = today or dt.date.today()
    marks = marks_for(include_inaccuracies)
    chosen = [c for c in cards if c.symbol in marks
              and (c.last_result in ("miss", "skip") if retry else c.due <= today)]
    return sorted(chosen, key=lambda c: (c.due, c.box, -c.loss_pp, c.id))


# ------------------------------------------------------------------ the file
def default_path() -> Path:
    """``$XDG_DATA_HOME/gnoming-sim/drills.parquet`` (``~/.local/share`` when unset or not absolute)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "gnoming-sim" / "drills.parquet"


def _schema():
    import pyarrow as pa

    s, f, i8, i32, d = pa.string(), pa.float64(), pa.int8(), pa.int32(), pa.date32()
    return pa.schema([("id", s), ("position_id", s), ("describe", s), ("source", s), ("mark", s), ("symbol", s),
                      ("played", s), ("played_label", s), ("best", s), ("best_label", s), ("loss_pp", f),
                      ("loss_lo_pp", f), ("loss_hi_pp", f), ("options", s), ("added", d), ("box", i8), ("due", d),
                      ("attempts", i32), ("hits", i32), ("last_result", s), ("last_seen", d)],
                     metadata={META_KEY: json.dumps({"format": FORMAT}).encode()})


def to_bytes(cards: list[Card]) -> bytes:
    """The deck as the bytes of its Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _schema()
    rows = [{**asdict(c), "options": json.dumps([list(asdict(o).values()) for o in c.options])} for c in cards]
    table = pa.Table.from_pylist(rows, schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def load(path, option: str = OPTION) -> list[Card]:
    """The cards of the deck at ``path`` (none when there is no file; a symbolic link is read through to its
    target); a file that is not a readable deck, or a deck with any damaged value (:func:`_parse`), raises a
    one-line GnomingError (and is left as it is)."""
    from gnoming_sim.game.input_file import read_bytes

    shown, path = path, _resolved(path, option)
    try:
        there = path.exists() or path.is_symlink()
        if not there and path.parent.exists() and not path.parent.is_dir():
            raise GnomingError(f"drill deck {shown}: {path.parent} is a file, not a folder: no deck can be made "
                               f"there (give another {option})")
    except OSError as exc:   # a name too long, a loop of links, ...: one line, not a traceback
        raise GnomingError(f"drill deck {shown}: {one_line(exc.strerror or exc)} (give another {option})") from None
    if not there:
        return []
    raw = read_bytes(path, "drill deck", MAX_DECK_BYTES)
    try:
        return _parse(raw)
    except GnomingError as exc:
        raise GnomingError(f"drill deck {shown}: {exc}; it is left as it is (move it away or give another "
                           f"{option})") from None


def _resolved(path, option: str = OPTION) -> Path:
    """The file the deck at ``path`` is: ``path`` itself, or the target of the symbolic link ``path`` (every
    link followed), so that a deck kept elsewhere (a synced folder) is written through the link and its lock
    taken beside the file itself.  A dangling link names the deck to make at its target, whose folder must
    exist; a loop of links is one line."""
    path = Path(path)
    try:
        if not os.path.islink(path):
            return path
        try:
            return Path(os.path.realpath(path, strict=True))
        except FileNotFoundError:
            target = Path(os.path.realpath(path))
        there = target.parent.is_dir()
    except OSError as exc:
        raise GnomingError(f"drill deck {path}: {one_line(exc.strerror or exc)} (give another {option})") from None
    if not there:
        raise GnomingError(f"drill deck {path} is a symbolic link to {target}, whose folder does not exist: no "
                           f"deck can be made there (make the folder, or give another {option})")
    return target


def _parse(raw: bytes) -> list[Card]:
    """The cards of a deck file's bytes, the whole deck checked at the door: its format, every column's type,
    every value's nulls and range (dates within Python's, numbers finite, boxes 1..5, marks and results of the
    known kinds, ``options`` a flat list of well-formed rows); the first damage found is one GnomingError."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        # one thread: pq.read_table starts Arrow's thread pool even with use_threads=False, and a worker of it
        # still alive as the process ends aborts it ("terminate called without an active exception", exit 134)
        parquet = pq.ParquetFile(pa.BufferReader(raw))
        rows = parquet.metadata.num_rows
        table = parquet.read(use_threads=False) if rows <= MAX_CARDS else None
    except (pa.ArrowException, OSError, ValueError, MemoryError) as exc:
        raise GnomingError(f"not a readable Parquet file ({_first_sentence(exc)})") from None
    if table is None:
        raise GnomingError(f"a drill deck of {rows:,} cards; a deck holds at most {MAX_CARDS:,}")
    meta = (table.schema.metadata or {}).get(META_KEY)
    if meta is None:
        raise GnomingError("a Parquet file, but not a drill deck (no deck metadata)")
    try:
        fmt = json.loads(meta).get("format")
    except (ValueError, AttributeError, RecursionError):
        fmt = None
    if fmt != FORMAT:
        raise GnomingError(f"a drill deck of format {_short(fmt)}, which this gnoming-sim does not read "
                           f"(it reads {FORMAT})")
    _check_columns(table)
    _check_values(table)
    cards, seen = [], set()
    for row in table.to_pylist():
        card = _card(row)
        if card.id in seen:
            raise GnomingError(f"card {card.id!r} is in the deck twice")
        seen.add(card.id)
        cards.append(card)
    return cards


MAX_CARDS = 1_000_000
MAX_TEXT = 8192            # a card's text (a source names a record file: a path of up to 4,096 bytes)
MAX_OPTIONS_TEXT = 65536   # a card's options as JSON (a decision has at most 23 options)
MAX_OPTIONS = 64
MAX_PP = 1000.0            # a loss or a gap in percentage points (an interval's end may pass 100 a little)
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
RESULTS = ("", "hit", "miss", "skip")
_NULLABLE = ("last_seen",)
_DATES = ("added", "due", "last_seen")
_DAY_RANGE = ((dt.date.min - dt.date(1970, 1, 1)).days, (dt.date.max - dt.date(1970, 1, 1)).days)


def _check_columns(table) -> None:
    """Each column of the deck's schema, of its type, and no other."""
    want = _schema()
    names = table.schema.names
    for field in want:
        if field.name not in names:
            raise GnomingError(f"a drill deck without the column {field.name!r}")
        if names.count(field.name) > 1:
            raise GnomingError(f"a drill deck with the column {field.name!r} twice")
        got = table.schema.field(field.name).type
        if not got.equals(field.type):
            raise GnomingError(f"a drill deck whose column {field.name!r} holds {_short(str(got))}, not {field.type}")
    extra = [n for n in names if n not in want.names]
    if extra:
        raise GnomingError(f"a drill deck with a column a deck has not ({_short(extra[0])!r})")


def _check_values(table) -> None:
    """Nulls where a deck has none, and dates out of Python's range, found before any value is converted."""
    import pyarrow.compute as pc

    for name in table.schema.names:
        column = table.column(name)
        if name not in _NULLABLE and column.null_count:
            row = pc.index(pc.is_null(column), True).as_py()
            raise GnomingError(f"card {row + 1} has no {name} (a null)")
        if name in _DATES and len(column) and column.null_count < len(column):
            days = column.cast("int32")
            lo, hi = pc.min(days).as_py(), pc.max(days).as_py()
            bad = lo if lo < _DAY_RANGE[0] else hi if hi > _DAY_RANGE[1] else None
            if bad is not None:
                row = pc.index(days, bad).as_py()
                raise GnomingError(f"card {row + 1}'s {name} is {bad:,} days from 1970-01-01, outside the dates "
                                   "a deck holds (years 1..9999)")


def _card(row: dict) -> Card:
    """One row as a card, every value checked (a one-line GnomingError naming the card otherwise)."""
    name = row["id"]
    shown = repr(_short(name, 40))
    if len(name) != 12 or any(c not in "0123456789abcdef" for c in name):
        raise GnomingError(f"card {shown} is damaged (its id is not 12 hex digits)")
    for key, value in row.items():
        if isinstance(value, str) and len(value) > (MAX_OPTIONS_TEXT if key == "options" else MAX_TEXT):
            raise GnomingError(f"card {shown} is damaged (its {key} is {len(value):,} characters long)")
        if isinstance(value, float) and not _number(value):
            raise GnomingError(f"card {shown} is damaged (its {key} is {value}, not a number of percentage "
                               f"points in -{MAX_PP:g}..{MAX_PP:g})")
    _check_position(row["position_id"], shown)
    if MARKS.get(row["mark"]) != row["symbol"]:
        raise GnomingError(f"card {shown} is damaged (mark {_short(row['mark'])!r} with symbol "
                           f"{_short(row['symbol'])!r}; a mark is one of "
                           f"{', '.join(f'{m} {s}' for m, s in MARKS.items())})")
    if not 1 <= row["box"] <= BOXES:
        raise GnomingError(f"card {shown} is damaged (box {row['box']}; a box is 1..{BOXES})")
    if not 0 <= row["hits"] <= row["attempts"]:
        raise GnomingError(f"card {shown} is damaged ({row['hits']} hit(s) in {row['attempts']} attempt(s))")
    if row["last_result"] not in RESULTS:
        raise GnomingError(f"card {shown} is damaged (last result {_short(row['last_result'])!r}; one of "
                           f"{', '.join(repr(r) for r in RESULTS)})")
    options = _options(row.pop("options"), shown)
    keys = [o.key for o in options]
    for key in ("best", "played"):
        if row[key] not in keys:
            raise GnomingError(f"card {shown} is damaged (its {key} move {_short(row[key])!r} is not one of its "
                               "options)")
    return Card(**row, options=options)


def _check_position(text: str, shown: str) -> None:
    """The card's position ID decodes to a position the loader accepts (what ``drill`` and the board show)."""
    from gnoming_sim.game.position_id import decode

    try:
        decode(text)
    except GnomingError as exc:
        raise GnomingError(f"card {shown} is damaged ({_short(exc, 120)})") from None
    except (ValueError, TypeError, LookupError, ArithmeticError, RecursionError) as exc:   # never a traceback
        raise GnomingError(f"card {shown} is damaged (its position ID does not decode: "
                           f"{_short(exc, 80)})") from None


def _options(text: str, shown: str) -> tuple:
    """A card's ``options`` column: a JSON list of [key, label, win %, behind, lo, hi, batch] rows."""
    try:
        rows = json.loads(text)
    except (ValueError, RecursionError):
        raise GnomingError(f"card {shown} is damaged (its options are not JSON of this version)") from None
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_OPTIONS:
        raise GnomingError(f"card {shown} is damaged (its options are not a list of 1..{MAX_OPTIONS} options)")
    out = []
    for r in rows:
        if not (isinstance(r, list) and len(r) == 7 and all(isinstance(x, str) for x in (r[0], r[1], r[6]))
                and r[0] and _number(r[2]) and all(x is None or _number(x) for x in r[3:6])
                and (r[3] is None) == (r[4] is None) == (r[5] is None)):
            raise GnomingError(f"card {shown} is damaged (an option is not [key, label, win %, behind, low, "
                               "high, batch] with finite numbers)")
        out.append(Choice(*r[:2], float(r[2]), *(None if x is None else float(x) for x in r[3:6]), r[6]))
    if len({o.key for o in out}) != len(out):
        raise GnomingError(f"card {shown} is damaged (an option is in it twice)")
    return tuple(out)


def _number(x, low: float = -MAX_PP, high: float = MAX_PP) -> bool:
    """A number (never a boolean, a string, NaN or an infinity) in ``low``..``high``."""
    return type(x) in (int, float) and low <= x <= high and math.isfinite(x)


def _short(value, limit: int = 60) -> str:
    text = one_line(str(value))
    return text if len(text) <= limit else text[:limit] + "..."


def _first_sentence(exc: BaseException, limit: int = 100) -> str:
    text = one_line(exc).split(". ")[0].rstrip(".")
    return text if len(text) <= limit else text[:limit] + "..."


def save(path, cards: list[Card], option: str = OPTION) -> None:
    """Write the deck whole, crash-safely (its folder made if need be); a symbolic link is written through to
    its target (:func:`_resolved`), never replaced by a file."""
    from gnoming_sim.batch.safe_write import write_file

    data = to_bytes(cards)
    try:
        _parse(data)   # never write a deck the door would refuse
    except GnomingError as exc:
        raise GnomingError(f"drill deck {path}: the deck to write is damaged ({exc}); it is left as it "
                           "was") from None
    write_file(_folder_made(_resolved(path, option), option), data, option)


def _folder_made(path, option: str) -> Path:
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GnomingError(f"{option} {path}: cannot make its folder ({exc.strerror or exc})") from None
    return path


LOCK_WAIT_S = 60.0   # how long :func:`add` and :func:`answer` wait for another run writing the deck
LOCK_POLL_S = 0.1


def locked(path, option: str = OPTION, wait_s: float | None = None, waiting=None):
    """The deck's lock (:class:`~gnoming_sim.batch.safe_write.OutputLock` beside the deck's own file), waiting
    up to ``wait_s`` seconds (default :data:`LOCK_WAIT_S`) while another run holds it; ``waiting(line)`` is
    told once when it waits.  Still held then: :class:`~gnoming_sim.batch.safe_write.Busy`, one line."""
    from gnoming_sim.batch.safe_write import Busy, OutputLock

    wait_s = LOCK_WAIT_S if wait_s is None else wait_s
    target = _folder_made(_resolved(path, option), option)
    deadline = time.monotonic() + wait_s
    told = False
    while True:
        try:
            return OutputLock(target, option)
        except Busy as exc:
            if time.monotonic() >= deadline:
                if not wait_s:
                    raise
                raise Busy(f"{option} {path} is still being written by another gnoming-sim run after "
                           f"{wait_s:g} s") from None
            if not told and waiting is not None:
                waiting(f"{exc}".split("; ")[0] + f"; waiting for it (at most {wait_s:g} s)")
                told = True
            time.sleep(min(LOCK_POLL_S, max(0.0, deadline - time.monotonic())))


def add(path, new: list[Card], option: str = OPTION, wait_s: float | None = None,
        waiting=None) -> tuple[int, int]:
    """Add ``new`` to the deck at ``path`` (made if missing); a card already there keeps its schedule.
    Waits for another run writing the deck as :func:`locked` does.  Returns (cards added, cards in the deck)."""
    with locked(path, option, wait_s, waiting):
        cards = load(path, option)
        have = {c.id for c in cards}
        fresh = []
        for c in new:
            if c.id not in have:
                have.add(c.id)
                fresh.append(c)
        if fresh:
            save(path, cards + fresh, option)
        return len(fresh), len(cards) + len(fresh)


def answer(path, card: str, key: str | None, today: dt.date | None = None,
           option: str = OPTION, wait_s: float | None = None, waiting=None) -> tuple[dict, Card]:
    """Grade ``key`` (None: a skip) on the card named ``card`` of the deck at ``path``, reschedule it and
    save the deck (waiting for another run writing it as :func:`locked` does): (the verdict of :func:`grade`,
    the card rescheduled)."""
    with locked(path, option, wait_s, waiting):
        cards = load(path, option)
        at = next((i for i, c in enumerate(cards) if c.id == card), None)
        if at is None:
            raise GnomingError(f"drill deck {path} has no card {card!r}")
        verdict = grade(cards[at], key)
        cards[at] = reschedule(cards[at], verdict["right"], verdict["skipped"], today)
        save(path, cards, option)
        return verdict, cards[at]

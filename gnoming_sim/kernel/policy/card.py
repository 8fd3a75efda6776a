"""The card as the kernel plays it (``KIND_CARD``, ``KIND_CARD_STARRED``): one action per cell, by lookup.

The card (``gnoming-sim card``, :mod:`gnoming_sim.tune.card`) groups three decisions by what a player
sees at the table and recommends one action per group (a *cell*):

* **take or draw** (``T_SOURCE``): a discard pile's top card against drawing blind, by the card's
  class (:func:`card_class`) and its best use in the own layout (:func:`best_use`: completes a line,
  pairs in a line, replaces a face-up card that costs ``d`` more, or goes on a face-down slot);
* **where to put a kept card** (``T_PLACE``): by where it came from (a pile or a blind draw), its
  class and its best use: that use, a face-down slot, or (a blind draw) throwing it away; a
  mulligan and a hazard are classes of their own;
* **finish or play on** (``T_FINISH``): when placing over the last face-down card would end the
  round, by the gap of the finished layout's score to the best rival's visible score, the rivals'
  mean face-down cards and the table size.

Each cell's action is a small number in the parameter vector, at ``params[c0 + cell]`` (``c0`` =
:data:`gnoming_sim.kernel.policy.dispatch.C_W0`; 0 = no resolved recommendation).

The card (``KIND_CARD``, ``card_mode``): the lookup as a person plays the printed card.  Its cells
are every resolved cell of the card; where the card shows ``?`` (or nothing) it plays the card's stated
default (:func:`default_action_of`), and where an action cannot be played (no face-down slot left, say)
a fixed order of the others (:func:`card_fallback`): never expert's rules for a decision the card covers.
Within a recommended action the position is expert's (its one-ply estimate,
:func:`gnoming_sim.kernel.policy.heuristic.place_delta`, among the positions of that action).

The card's starred cells (``KIND_CARD_STARRED``, the ``card-starred`` preset): a decision whose cell is set plays
the cell's action, any other as expert (the heuristic with the parameters at ``params[:H.N_PARAMS]``).  The
derivation's collector (:mod:`gnoming_sim.search.card_samples`) uses the same functions to name the candidate answers it
rolls out, so the card plays what was measured.

Net with given cells (``KIND_NET_CELLS``): the net player, except at a draw source or placement whose cell is set,
where it plays the cell's action (:func:`cells_source`, :func:`cells_placement`): net's own choice when that
already belongs to the action, else the card's option for it (:func:`cell_option`; net's where it has none).
"""
from __future__ import annotations

from gnoming_sim.game.cards import HIDDEN, MULLIGAN, NO_CARD, HAZARD
from gnoming_sim.game.observation import (
    CHOICE_NOKEEP,
    O_FINISHER,
    O_FROM_PILE,
    O_HAZARD_VALUE,
    O_ME,
    O_MULLIGAN_VALUE,
    O_MULLIGANS_PER_LINE,
    O_NEGATIVE_MULTIPLIER,
    O_PLAYERS,
    O_TOP0,
    SRC_DRAW,
)
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy.estimate import estimate, pair_value
from gnoming_sim.kernel.scoring import LINES, line_match_value

# card classes (rows of the take and place tables)
CC_NEG, CC_LOW, CC_MID, CC_HIGH, CC_MULLIGAN, CC_HAZARD = 0, 1, 2, 3, 4, 5
CLASS_NAMES = ("negative", "3-4", "5-6", "7-8", "mulligan", "hazard")
N_CLASS = len(CLASS_NAMES)
# a card's use at a position, best first (columns of the take and place tables)
U_COMPLETE, U_PAIR, U_REPL6, U_REPL3, U_REPL1, U_FACEDOWN, U_NONE = 0, 1, 2, 3, 4, 5, 6
USE_NAMES = ("completes a line", "pairs in a line", "replaces d>=6", "replaces d=3-5", "replaces d=1-2",
             "face-down slot", "no use")
N_USE = len(USE_NAMES)
# finish table: gap (finished score - best rival's visible score) bins, rivals' mean face-down bins, table sizes
GAP_EDGES = (-10.0, -5.0, 0.0, 5.0, 10.0)      # bins: < -10, [-10, -5), [-5, 0), [0, 5), [5, 10), >= 10
GAP_NAMES = ("< -10", "-10..-6", "-5..-1", "0..4", "5..9", ">= 10")
N_GAP = len(GAP_NAMES)
OFD_EDGES = (2.0, 4.0)                         # bins: < 2, [2, 4), >= 4
OFD_NAMES = ("< 2", "2-4", ">= 4")
N_OFD = len(OFD_NAMES)
SIZE_NAMES = ("2-3", "4-5", "6-7")
N_SIZE = len(SIZE_NAMES)

# the tables, their cells laid out one after the other in the parameter vector
T_SOURCE, T_PLACE, T_FINISH = 0, 1, 2
TABLE_NAMES = ("source", "place", "finish")
N_SOURCE_CELLS = N_CLASS * N_USE
N_PLACE_CELLS = 2 * N_CLASS * N_USE            # (from a pile, blind) x class x use
N_FINISH_CELLS = N_GAP * N_OFD * N_SIZE
CELL_OFFSET = (0, N_SOURCE_CELLS, N_SOURCE_CELLS + N_PLACE_CELLS)
# the take-or-draw table by the player's own face-down cards (appended after the three tables, so every cell
# before it keeps its number): one cell per (class, use, band); where a banded cell is set (nonzero) it decides,
# else the take table's cell does (every banded cell 0: play exactly as the three tables alone)
FD_BAND_EDGES = (5, 3)                          # own face-down cards: >= 5, 3-4, <= 2
FD_BAND_NAMES = (">= 5", "3-4", "<= 2")
N_FD_BAND = len(FD_BAND_NAMES)
N_SOURCE_FD_CELLS = N_SOURCE_CELLS * N_FD_BAND
SOURCE_FD_OFFSET = N_SOURCE_CELLS + N_PLACE_CELLS + N_FINISH_CELLS
T_SOURCE_FD = 3                                 # its table number (not one of TABLE_NAMES': its actions are source's)
SOURCE_FD_NAME = "source by own face-down"
N_CELLS = SOURCE_FD_OFFSET + N_SOURCE_FD_CELLS

# actions (the value of a cell; 0: not resolved, expert decides)
A_NONE = 0
A_TAKE, A_DRAW = 1, 2                          # source
A_USE, A_FACEDOWN, A_THROW = 1, 2, 3           # place
A_FINISH, A_PLAYON = 1, 2                      # finish
ACTION_NAMES = (("take", "draw"), ("best use", "face-down", "throw away"), ("finish", "play on"))
N_ACTIONS = 3                                  # most actions of a table
GAP_AHEAD = GAP_EDGES.index(0.0) + 1           # gap bins below this one: the finished score is below the best rival's


def source_cell_of(cls: int, use: int) -> int:
    return CELL_OFFSET[T_SOURCE] + cls * N_USE + use


def place_cell_of(blind: int, cls: int, use: int) -> int:
    return CELL_OFFSET[T_PLACE] + (blind * N_CLASS + cls) * N_USE + use


def finish_cell_of(gap_bin: int, ofd_bin: int, size_bin: int) -> int:
    return CELL_OFFSET[T_FINISH] + (gap_bin * N_OFD + ofd_bin) * N_SIZE + size_bin


def source_fd_cell_of(cls: int, use: int, band: int) -> int:
    return SOURCE_FD_OFFSET + (cls * N_USE + use) * N_FD_BAND + band


def fd_band_of(fd: int) -> int:
    """The band (0: >= 5, 1: 3-4, 2: <= 2) of ``fd`` own face-down cards."""
    b = 0
    for e in FD_BAND_EDGES:
        if fd < e:
            b += 1
    return b


def table_of(cell: int) -> int:
    """The table of ``cell``: T_SOURCE, T_PLACE, T_FINISH or T_SOURCE_FD."""
    if cell >= SOURCE_FD_OFFSET:
        return T_SOURCE_FD
    return T_FINISH if cell >= CELL_OFFSET[T_FINISH] else (T_PLACE if cell >= CELL_OFFSET[T_PLACE] else T_SOURCE)


def parent_cell_of(cell: int) -> int:
    """The take table's cell of a banded cell (T_SOURCE_FD); any other cell itself."""
    if cell >= SOURCE_FD_OFFSET:
        return CELL_OFFSET[T_SOURCE] + (cell - SOURCE_FD_OFFSET) // N_FD_BAND
    return cell


def default_action_of(cell: int) -> int:
    """The card's stated default in a cell it shows as ``?`` or blank (docs/card.md): take a pile's card
    when it is negative or when its best use completes a line, pairs in a line or lowers a face-up card,
    else draw; put a kept card to its best use (the column), else on a face-down slot, else throw a blind
    draw away; finish only when the finished score is below the best rival's visible score (gap < 0).  A banded
    take cell: its take-table cell's default."""
    if cell >= SOURCE_FD_OFFSET:
        cell = CELL_OFFSET[T_SOURCE] + (cell - SOURCE_FD_OFFSET) // N_FD_BAND
    if cell < CELL_OFFSET[T_PLACE]:
        cls, use = divmod(cell - CELL_OFFSET[T_SOURCE], N_USE)
        return A_TAKE if use < U_FACEDOWN or cls == CC_NEG else A_DRAW
    if cell < CELL_OFFSET[T_FINISH]:
        blind, rest = divmod(cell - CELL_OFFSET[T_PLACE], N_CLASS * N_USE)
        use = rest % N_USE
        if use < U_FACEDOWN:
            return A_USE
        return A_THROW if blind == 1 and use == U_NONE else A_FACEDOWN
    gap_bin = (cell - CELL_OFFSET[T_FINISH]) // (N_OFD * N_SIZE)
    return A_FINISH if gap_bin < GAP_AHEAD else A_PLAYON


source_cell = jit(inline="always")(source_cell_of)
place_cell = jit(inline="always")(place_cell_of)
finish_cell = jit(inline="always")(finish_cell_of)
fd_band = jit(inline="always")(fd_band_of)
default_action = jit(default_action_of)


@jit(inline="always")
def card_class(c):
    if c == MULLIGAN:
        return CC_MULLIGAN
    if c == HAZARD:
        return CC_HAZARD
    if c < 0:
        return CC_NEG
    if c <= 4:
        return CC_LOW
    if c <= 6:
        return CC_MID
    return CC_HIGH


@jit(inline="always")
def _at(row, q, c, p):
    return c if p == q else row[p]


@jit
def position_use(row, q, c, pub):
    """The use (U_*) of putting ``c`` at ``q`` of ``row`` (int8[9] as seen): it completes a line through q
    (a line of three face-up cards that matches, and did not), pairs in a line (it makes a pair in a line
    through q that the old card did not), replaces a face-up card costing ``d`` > 0 more, goes on a
    face-down slot, or none of these (it replaces a face-up card that costs no more).  ``pub``: the
    observation's scalars (mulligans per line and the card values of the rules)."""
    mpl = pub[O_MULLIGANS_PER_LINE]
    pair = False
    for li in (q // 3, 3 + q % 3):
        a = LINES[li, 0]
        b = LINES[li, 1]
        d = LINES[li, 2]
        x = _at(row, q, c, a)
        y = _at(row, q, c, b)
        z = _at(row, q, c, d)
        if line_match_value(x, y, z, mpl) >= 0 and line_match_value(row[a], row[b], row[d], mpl) < 0:
            return U_COMPLETE
        if pair_value(x, y, z, mpl) > pair_value(row[a], row[b], row[d], mpl):
            pair = True
    if pair:
        return U_PAIR
    old = row[q]
    if old == HIDDEN:
        return U_FACEDOWN
    gain = H.seen_cost(old, pub) - H.seen_cost(c, pub)
    if gain >= 6:
        return U_REPL6
    if gain >= 3:
        return U_REPL3
    if gain >= 1:
        return U_REPL1
    return U_NONE


@jit
def best_use(row, c, pub, legal, use_mask):
    """The best (lowest) use of ``c`` over the positions (those ``legal`` allows if ``use_mask``)."""
    best = U_NONE
    for q in range(LAYOUT):
        if use_mask and not legal[q]:
            continue
        u = position_use(row, q, c, pub)
        if u < best:
            best = u
    return best


@jit
def expert_among(prm, obs, memo, row, eu, c, legal, use_mask, mask):
    """(expert's estimate change, position) of the best position for ``c`` in bit set ``mask`` (and in
    ``legal`` if ``use_mask``); position -1 when none.  ``memo.scratch`` must hold this layout's
    :func:`H.prepare_me`."""
    pub = obs.pub
    best = 1e18
    best_q = -1
    for q in range(LAYOUT):
        if not (mask >> q) & 1:
            continue
        if use_mask and not legal[q]:
            continue
        d = H.place_delta(prm, pub, obs.vis, obs.fd, memo.scratch, row, eu, q, c)
        if d < best:
            best = d
            best_q = q
    return best, best_q


@jit
def use_mask_of(row, c, pub, use):
    """Bit set of the positions where ``c``'s use is ``use`` (U_FACEDOWN: every face-down position)."""
    m = 0
    for q in range(LAYOUT):
        if use == U_FACEDOWN:
            if row[q] == HIDDEN:
                m |= 1 << q
        elif position_use(row, q, c, pub) == use:
            m |= 1 << q
    return m


@jit
def finish_slot(obs):
    """The face-down position whose covering would finish the round now, or -1 (not one face-down card
    left, or somebody has finished)."""
    pub = obs.pub
    me = pub[O_ME]
    if obs.fd[me] != 1 or pub[O_FINISHER] >= 0:
        return -1
    row = obs.vis[me]
    for q in range(LAYOUT):
        if row[q] == HIDDEN:
            return q
    return -1


@jit(py=True)
def finish_gap(vis, me, players, q, c, mpl, hz, mv, nm):
    """The gap of finishing with card ``c`` at ``q``: the finished layout's score (the card in hand counted)
    minus the lowest visible score of a rival (face-down cards count 0).  The one definition of "gap" that
    the finish study, the card's derivation and ``analyse`` share (``vis`` int8[P, 9] as seen, ``mpl`` mulligans per line;
    ``hz``, ``mv``, ``nm`` the rules' card values: hazard, unmatched mulligan, negative multiplier)."""
    mine = estimate(vis[me], q, c, 0.0, mpl, 0.0, 0.0, hz, mv, nm)
    best = 1e18
    for o in range(players):
        if o == me:
            continue
        e = estimate(vis[o], -1, 0, 0.0, mpl, 0.0, 0.0, hz, mv, nm)
        if e < best:
            best = e
    return mine - best


@jit
def finish_context(obs, q, c):
    """(gap, rivals' mean face-down cards) of finishing with ``c`` at ``q`` (the gap of :func:`finish_gap`)."""
    pub = obs.pub
    me = pub[O_ME]
    P = pub[O_PLAYERS]
    fd = 0.0
    for o in range(P):
        if o != me:
            fd += obs.fd[o]
    gap = finish_gap(obs.vis, me, P, q, c, pub[O_MULLIGANS_PER_LINE], pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE],
                     pub[O_NEGATIVE_MULTIPLIER])
    return gap, fd / (P - 1)


@jit
def finish_cell_at(obs, q, c):
    """The finish table's cell of finishing with ``c`` at ``q``."""
    gap, ofd = finish_context(obs, q, c)
    g = 0
    for e in GAP_EDGES:
        if gap >= e:
            g += 1
    f = 0
    for e in OFD_EDGES:
        if ofd >= e:
            f += 1
    P = obs.pub[O_PLAYERS]
    size = 0 if P <= 3 else (1 if P <= 5 else 2)
    return finish_cell(g, f, size)


@jit
def play_on(prm, obs, memo, row, eu, c, legal, q_fin):
    """Expert's answer for ``c`` among everything but covering ``q_fin``: a face-up position, or not
    keeping it (when legal) unless a position improves the estimate by more than its keep threshold."""
    d, q = expert_among(prm, obs, memo, row, eu, c, legal, True, ((1 << LAYOUT) - 1) & ~(1 << q_fin))
    if legal[CHOICE_NOKEEP] and (q < 0 or d > -prm[H.H_KEEP]):
        return CHOICE_NOKEEP
    return q


@jit
def place_candidates(prm, obs, memo, c, legal):
    """The place table's cell of ``c`` in hand and its candidate answers, (cell, use, face-down, throw):
    expert's position among those of the best use (if that is not a face-down slot), its face-down
    position, and not keeping it (``CHOICE_NOKEEP``, when legal); -1 where there is none.
    ``memo.scratch`` must hold this layout's :func:`H.prepare_me`."""
    pub = obs.pub
    row = obs.vis[pub[O_ME]]
    eu = H.unseen_mean(obs, prm)
    use = best_use(row, c, pub, legal, True)
    q_use = -1
    if use < U_FACEDOWN:
        d, q_use = expert_among(prm, obs, memo, row, eu, c, legal, True, use_mask_of(row, c, pub, use))
    d, q_fd = expert_among(prm, obs, memo, row, eu, c, legal, True, use_mask_of(row, c, pub, U_FACEDOWN))
    q_throw = CHOICE_NOKEEP if legal[CHOICE_NOKEEP] else -1
    blind = 1 if pub[O_FROM_PILE] < 0 else 0
    return place_cell(blind, card_class(c), use), q_use, q_fd, q_throw


@jit
def pile_cell(obs, legal, k):
    """The take table's cell of discard pile k's top, or -1 when it cannot be taken (not legal, empty,
    or a mulligan the layout cannot hold)."""
    pub = obs.pub
    top = pub[O_TOP0 + k]
    if not legal[1 + k] or top == NO_CARD:
        return -1
    row = obs.vis[pub[O_ME]]
    if top == MULLIGAN and not H.mulligan_fits(row, pub):
        return -1
    return source_cell(card_class(top), best_use(row, top, pub, legal, False))


@jit
def source_fd_cell_at(obs, cell):
    """The banded cell (T_SOURCE_FD) of take-table cell ``cell`` at ``obs``: by the own face-down cards."""
    return SOURCE_FD_OFFSET + (cell - CELL_OFFSET[T_SOURCE]) * N_FD_BAND + fd_band(obs.fd[obs.pub[O_ME]])


@jit
def acting_source_cell(prm, c0, obs, cell):
    """The cell that decides a pile whose take-table cell is ``cell``: its banded cell where that is set
    (nonzero), else ``cell``."""
    b = source_fd_cell_at(obs, cell)
    if prm[c0 + b] != A_NONE:
        return b
    return cell


# ----------------------------------------------------------------- decisions
@jit
def cell_action(prm, c0, cell, card_mode):
    """The action of ``cell``: its value in the parameter vector; where that is 0 (not on the card), the
    card's default in ``card_mode``, else 0 (expert decides)."""
    a = prm[c0 + cell]
    if a == A_NONE and card_mode:
        return float(default_action(cell))
    return a


@jit
def card_fallback(row, pub, legal, q_use, q_fd, q_throw):
    """The card's answer when a cell's action cannot be played: the best use, else a face-down slot, else
    throwing a blind draw away, else over the face-up card that costs the most under the rules (the least
    loss; ``pub`` the public observation, holding the card values)."""
    if q_use >= 0:
        return q_use
    if q_fd >= 0:
        return q_fd
    if q_throw >= 0:
        return q_throw
    best = -1
    top = -(1 << 30)
    for q in range(LAYOUT):
        if legal[q] and row[q] != HIDDEN and H.seen_cost(row[q], pub) > top:
            top = H.seen_cost(row[q], pub)
            best = q
    if best >= 0:
        return best
    for q in range(LAYOUT):
        if legal[q]:
            return q
    return -1


@jit
def draw_source(prm, c0, obs, memo, legal, card_mode):
    """Take a pile whose cell says take (the better use first, then the cheaper card); draw blind when
    every pile that can be taken says draw; expert's choice when a cell is not resolved (``card_mode``:
    the card's default, and draw blind when no pile can be taken)."""
    pub = obs.pub
    take = -1
    rank = 1 << 30
    piles = 0
    draws = 0
    for k in range(2):
        cell = pile_cell(obs, legal, k)
        if cell < 0:
            continue
        piles += 1
        a = cell_action(prm, c0, acting_source_cell(prm, c0, obs, cell), card_mode)
        if a == A_TAKE:
            top = pub[O_TOP0 + k]
            cost = H.seen_cost(top, pub)
            r = ((cell - CELL_OFFSET[T_SOURCE]) % N_USE) * 256 + cost + 128   # a cost is within -128..127
            if r < rank:
                rank = r
                take = 1 + k
        elif a == A_DRAW:
            draws += 1
    if take >= 0:
        return take
    if card_mode or (piles > 0 and draws == piles):
        return SRC_DRAW
    return H.draw_source(prm, obs, memo, legal)


@jit
def placement(prm, c0, obs, memo, card, legal, card_mode):
    """The card's answer for ``card`` in hand: the finish table's when covering the last face-down card
    would finish, else the place table's; expert's where the cell is not resolved (``card_mode``: the
    card's default, and :func:`card_fallback` where the action cannot be played)."""
    H.prepare_me(prm, obs, memo, True)
    pub = obs.pub
    row = obs.vis[pub[O_ME]]
    q_fin = finish_slot(obs)
    if q_fin >= 0 and legal[q_fin]:
        a = cell_action(prm, c0, finish_cell_at(obs, q_fin, card), card_mode)
        if a == A_FINISH:
            return q_fin
        if a == A_PLAYON:
            q = play_on(prm, obs, memo, row, H.unseen_mean(obs, prm), card, legal, q_fin)
            if q >= 0:
                return q
        if card_mode:
            return q_fin
        return H.placement(prm, obs, memo, card, legal)
    cell, q_use, q_fd, q_throw = place_candidates(prm, obs, memo, card, legal)
    a = cell_action(prm, c0, cell, card_mode)
    if a == A_USE and q_use >= 0:
        return q_use
    if a == A_FACEDOWN and q_fd >= 0:
        return q_fd
    if a == A_THROW and q_throw >= 0:
        return q_throw
    if card_mode:
        return card_fallback(row, pub, legal, q_use, q_fd, q_throw)
    return H.placement(prm, obs, memo, card, legal)


# ------------------------------------------------- the net family with given cells (KIND_NET_CELLS)
@jit
def cells_source(prm, c0, obs, legal, choice):
    """(answer, applied) of the net-with-cells family (``KIND_NET_CELLS``) at a draw source whose own choice is
    ``choice``: the cells of the piles that can be taken (:func:`pile_cell`; 0 = not set: ``applied`` False and
    ``choice`` kept when neither pile's cell is set).  A pile whose cell says take: ``choice`` if it takes such a
    pile, else the card's pile among them (the better use, then the cheaper card); a pile whose cell says draw and
    ``choice`` takes it: draw blind; else ``choice``."""
    pub = obs.pub
    take = -1
    rank = 1 << 30
    applied = False
    own = 0.0
    for k in range(2):
        cell = pile_cell(obs, legal, k)
        if cell < 0:
            continue
        a = prm[c0 + acting_source_cell(prm, c0, obs, cell)]
        if a == A_NONE:
            continue
        applied = True
        if choice == 1 + k:
            own = a
        if a == A_TAKE:
            cost = H.seen_cost(pub[O_TOP0 + k], pub)
            r = ((cell - CELL_OFFSET[T_SOURCE]) % N_USE) * 256 + cost + 128   # as draw_source ranks them
            if r < rank:
                rank = r
                take = 1 + k
    if not applied or own == A_TAKE:
        return choice, applied
    if take >= 0:
        return take, True
    if own == A_DRAW and legal[SRC_DRAW]:
        return SRC_DRAW, True
    return choice, True


@jit
def cell_option(prm, obs, memo, card, legal, a, q_fin):
    """The card's option for action ``a`` of the decision's cell with ``card`` in hand, or -1 where it cannot be
    played: at a finishing chance (``q_fin`` >= 0) finish = ``q_fin``, play on = :func:`play_on`; else the place
    table's best use, face-down slot or throwing away (:func:`place_candidates`)."""
    H.prepare_me(prm, obs, memo, True)
    if q_fin >= 0:
        if a == A_FINISH:
            return q_fin
        if a == A_PLAYON:
            return play_on(prm, obs, memo, obs.vis[obs.pub[O_ME]], H.unseen_mean(obs, prm), card, legal, q_fin)
        return -1
    cell, q_use, q_fd, q_throw = place_candidates(prm, obs, memo, card, legal)
    if a == A_USE:
        return q_use
    if a == A_FACEDOWN:
        return q_fd
    if a == A_THROW:
        return q_throw
    return -1


@jit
def cells_placement(prm, c0, obs, memo, card, legal, choice):
    """(answer, applied) of the net-with-cells family at a placement whose own choice is ``choice``: the finish
    table's cell at a finishing chance, else the place table's (as :func:`placement`); a cell not set (0): ``choice``,
    not applied.  ``choice`` when it belongs to the cell's action (finish: covers the finishing slot; play on: does
    not; best use: a position of that use; face-down: a face-down position; throw: not keeping), else
    :func:`cell_option` (``choice`` where that is -1)."""
    pub = obs.pub
    row = obs.vis[pub[O_ME]]
    q_fin = finish_slot(obs)
    if q_fin >= 0 and legal[q_fin]:
        a = prm[c0 + finish_cell_at(obs, q_fin, card)]
        if a == A_NONE:
            return choice, False
        own = choice == q_fin if a == A_FINISH else (choice != q_fin if a == A_PLAYON else False)
    else:
        q_fin = -1
        use = best_use(row, card, pub, legal, True)
        blind = 1 if pub[O_FROM_PILE] < 0 else 0
        a = prm[c0 + place_cell(blind, card_class(card), use)]
        if a == A_NONE:
            return choice, False
        if choice >= LAYOUT:
            own = a == A_THROW and choice == CHOICE_NOKEEP
        elif a == A_USE:
            own = position_use(row, choice, card, pub) == use
        else:
            own = a == A_FACEDOWN and row[choice] == HIDDEN
    if own:
        return choice, True
    q = cell_option(prm, obs, memo, card, legal, a, q_fin)
    return (q if q >= 0 else choice), True


__all__ = ["N_CELLS", "CELL_OFFSET", "TABLE_NAMES", "SOURCE_FD_OFFSET", "FD_BAND_NAMES", "source_fd_cell_of",
           "fd_band_of", "table_of", "parent_cell_of", "source_fd_cell_at", "acting_source_cell", "CLASS_NAMES", "USE_NAMES", "GAP_NAMES", "OFD_NAMES",
           "SIZE_NAMES", "ACTION_NAMES", "card_class", "position_use", "best_use", "finish_slot", "finish_context",
           "finish_cell_at", "play_on", "place_candidates", "pile_cell", "default_action_of", "cell_action",
           "card_fallback", "draw_source", "placement", "cells_source", "cell_option", "cells_placement"]

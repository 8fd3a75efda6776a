"""Search on the action-level kernel API (:mod:`gnoming_sim.kernel.step`): the start of a
rollout (``start``: one builder, from a position or a live table), the rollouts (``rollout``),
the Monte Carlo bot (``bot``; ``allocate``, how it spends its rollouts; ``cost``, its games with the
rollouts counted; ``probe``, its decisions asked twice for the hygiene tests) and the decision
estimates (``estimates``), and the value player (``value_player``: 0-ply by the value network).

May import :mod:`gnoming_sim.game` and :mod:`gnoming_sim.kernel`; the later stages (``drills``, ``tune``,
``experiments``, ``analyses``, ``cli``) may import it.  Importing it registers the bot's batch kernel for ``KIND_MC`` with the
engine (:mod:`gnoming_sim.kernel.kinds`; loaded, and compiled, only when a game needs it).
"""
from gnoming_sim.kernel.kinds import KIND_MC, KIND_VALUE, register_batch_kernel


def _mc_batch_kernel():
    from gnoming_sim.search.bot import play_range_mc

    return play_range_mc


def _value_batch_kernel():
    from gnoming_sim.search.value_player import play_range_value

    return play_range_value


register_batch_kernel(KIND_MC, _mc_batch_kernel)
register_batch_kernel(KIND_VALUE, _value_batch_kernel)

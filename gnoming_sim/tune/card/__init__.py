"""The card: its derivation by rollouts at self-play decisions (:mod:`.derive`), its policy iteration with the
oracle (:mod:`.iterate`) and that run's files (:mod:`.files`), its page in words (:mod:`.page`) and the printed A4
card (:mod:`.printed`).  The kernel plays it (:mod:`gnoming_sim.kernel.policy.card`); ``gnoming-sim card`` runs it.

May import :mod:`gnoming_sim.game`, :mod:`gnoming_sim.kernel`, :mod:`gnoming_sim.batch` and
:mod:`gnoming_sim.search`.
"""

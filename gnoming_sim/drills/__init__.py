"""The drill deck: the user's cards of reviewed mistakes, their Leitner schedule and the deck's file
(:mod:`gnoming_sim.drills.deck`).  It stores what a review measured (the review runs the evaluator; a drill
runs no rollouts) and may import game, batch (the crash-safe writer and its lock) and search (the position ID)."""

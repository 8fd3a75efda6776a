"""``gnoming-sim board``: the local analysis page.

:mod:`.inputs` reads what the user named (a position, a game record, a review) and what the page sends
(a position as a TOML-shaped dict, an imported TOML text, a rules file's text), through the loaders of
``analyse`` and ``review``; :mod:`.live` runs one position's rollouts in batches with the oracle and the
criterion of ``analyse``; :mod:`.server` serves the page (``static/``, plain JavaScript) and the API on
127.0.0.1 (Starlette, the ``[board]`` extra, imported only when the command runs); :mod:`.command` is the
click command.  Part of the CLI stage: it may import every other stage.
"""

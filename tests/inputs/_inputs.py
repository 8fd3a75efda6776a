"""The check every hostile-input test makes: exit 2 and one error line on stderr."""
from __future__ import annotations


def one_line(result, *fragments) -> str:
    """Assert ``result`` (click's CliRunner) is exit 2 with one ``gnoming-sim: error:`` line holding
    every fragment; return that line."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: "), result.stderr
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]

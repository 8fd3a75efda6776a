"""The package's and the studies' modules parsed once per test process: the scans of the tree (layout, wording,
one definition, the architecture page) share each module's syntax tree instead of each parsing every module
again.  The trees are shared: a scan reads them and never changes them."""
from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def tree(path: Path | str) -> ast.Module:
    """The syntax tree of the module at ``path`` (a link and its target are one module)."""
    return _parsed(Path(path).resolve())

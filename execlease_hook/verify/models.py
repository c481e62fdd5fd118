"""The models of a run, each on its own: a manifest that is refused (it cannot be read, its tools
cannot be had, its plan is refused: a library, an operator the spec may not use, a module nothing
supplies) becomes that model's `verify/result.Refused`, exit 2 named by its manifest, and the run
goes on with the others; `verify` and `verify --deep` both take their models from here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from execlease_hook.core.errors import CannotRun, CannotRunAny
from execlease_hook.manifest import find, read
from execlease_hook.manifest.model import Manifest
from execlease_hook.verify.result import Refused, refused

T = TypeVar('T')


def load(tree: Path, model: str | None) -> list[Manifest | Refused]:
    """Every model under `tree` (or the one `--model` names), in the order they were found."""
    loaded: list[Manifest | Refused] = []
    for path in find.find_models(tree, model):
        try:
            loaded.append(read.load(path, tree))
        except CannotRun as e:
            loaded.append(refused(path, tree, e))
    return loaded


def each(loaded: list[Manifest | Refused], step: Callable[[Manifest], T]) -> list[T | Refused]:
    """`step` of every loaded model, or its refusal: the one it had, or what `step` refused
    (CannotRunAny, which no model owns, stops the run)."""
    out: list[T | Refused] = []
    for m in loaded:
        if isinstance(m, Refused):
            out.append(m)
            continue
        try:
            out.append(step(m))
        except CannotRunAny:
            raise
        except CannotRun as e:
            out.append(refused(m.path, m.root, e))
    return out

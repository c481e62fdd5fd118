"""The slow stage run in the test's process as `execlease verify` runs it (verify/pipeline.run on
a repository's working tree, its pool, timings, live lines and per-model tools), with what it
prints captured: for tests that read each model's result, not only the text."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

from execlease_hook.core.settings import from_environ
from execlease_hook.formats.emit import Outputs
from execlease_hook.verify import pipeline
from execlease_hook.verify.result import ModelResult


@dataclass(frozen=True)
class Verified:
    code: int
    models: list[ModelResult]  # every model's result, none refused
    out: str
    err: str


def verify(root: Path, mode: pipeline.Mode = pipeline.Mode()) -> Verified:
    """`execlease verify` in the repository at `root`, asked what `mode` says; no report file."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        ran = pipeline.run(mode, Outputs('verify', None, None, None), root, root, from_environ())
    models = [r for r in ran.results if isinstance(r, ModelResult)]
    assert len(models) == len(ran.results), out.getvalue()
    return Verified(ran.code, models, out.getvalue(), err.getvalue())

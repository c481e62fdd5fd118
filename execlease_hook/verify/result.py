"""One model's result in a run: its jobs, coverage, what did not hold (exit 1), what could not
run (exit 2), notes; and an entry's JSON (the run's JSON details are
report_build.results_json's).

The models of a run are each on their own (`load`, `each`): a manifest that is refused (it cannot
be read, its tools cannot be had, its plan is refused: a library, an operator the spec may not
use, a module nothing supplies) becomes that model's `Refused`, exit 2 named by its manifest, and
the run goes on with the others."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from execlease_hook.core import paths
from execlease_hook.core.errors import CannotRun, CannotRunAny
from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.manifest import find, read
from execlease_hook.manifest.model import Manifest
from execlease_hook.tlc.jar import Tools
from execlease_hook.tlc.kinds import KINDS
from execlease_hook.tlc.result import JobResult

T = TypeVar('T')


@dataclass
class ModelResult:
    manifest: Manifest
    jobs: list[JobResult] = field(default_factory=list)
    coverage: list[EntryStatus] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # exit 1
    problems: list[str] = field(default_factory=list)  # exit 2
    notes: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)  # --update-coverage
    plan: list[str] = field(default_factory=list)  # 'kind:name' of every job (before --shard)
    tools: Tools | None = None  # the tools its jobs ran with (verify/pipeline.finish)
    # what the model reads (spec/modules.listing)
    modules: list[dict[str, Any]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 2 if self.problems else 1 if self.failures else 0


@dataclass
class Refused:
    """A model none of whose jobs ran: its manifest, its tools or its plan was refused."""

    path: Path  # its manifest.json
    root: Path  # the repository (or the commit's tree) it was found in
    message: str  # what was refused, beginning with the manifest's path

    @property
    def exit_code(self) -> int:
        return 2


def states_moved(
    jobs: Sequence[JobResult], recorded: dict[str, int | None], deep: bool
) -> list[str]:
    """A note per check job that passed with a distinct-state count other than the one
    `recorded` for it at the last sync (`deep`: in its deep block)."""
    label, where = (' (deep)', 'in its deep block') if deep else ('', 'at the last sync')
    return [
        f'check {j.job.name}{label}: {j.verdict.distinct:,} distinct states, {before:,} '
        f"recorded {where}: the model's meaning changed?"
        for j in jobs
        if KINDS[j.job.kind].records_states
        and j.verdict is not None
        and j.verdict.outcome == 'passed'
        and (before := recorded.get(j.job.name)) is not None
        and j.verdict.distinct != before
    ]


def _or_refused(path: Path, root: Path, step: Callable[[], T]) -> T | Refused:
    """`step()`, or the refusal of the model at `path`: what it raised, after the manifest's path
    (CannotRunAny, which no model owns, stops the run)."""
    try:
        return step()
    except CannotRunAny:
        raise
    except CannotRun as e:
        where = paths.rel(root, path)
        text = str(e).replace(str(path), where).removeprefix(f'{where}: ')
        return Refused(path, root, f'{where}: not run: {text}')


def load(tree: Path, model: str | None) -> list[Manifest | Refused]:
    """Every model under `tree` (or the one `--model` names), in the order they were found."""
    return [
        _or_refused(p, tree, partial(read.load, p, tree)) for p in find.find_models(tree, model)
    ]


def each(loaded: list[Manifest | Refused], step: Callable[[Manifest], T]) -> list[T | Refused]:
    """`step` of every loaded model, or its refusal: the one it had, or what `step` refused."""
    return [
        m if isinstance(m, Refused) else _or_refused(m.path, m.root, partial(step, m))
        for m in loaded
    ]


def entry_json(status: EntryStatus) -> dict[str, Any]:
    return {
        'id': status.entry.id,
        'path': status.entry.path,
        'line': None if status.located is None else status.located.start_line,
        'action': status.entry.action,
        'status': status.status,
        'recorded': status.entry.hash,
        'current': status.current,
        'problem': status.problem,
    }

"""One model's result in a run: its jobs, coverage, what did not hold (exit 1), what could not
run (exit 2), notes; and the run's exit code and JSON details over every model.

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

from execlease_hook.core import outcomes, paths
from execlease_hook.core.errors import CannotRun, CannotRunAny
from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.manifest import find, read
from execlease_hook.manifest.model import Manifest
from execlease_hook.tlc.jar import Tools
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


def _jar_json(root: Path, t: Tools) -> dict[str, Any]:
    return {
        'jar': paths.in_report(root, t.jar.path),
        'sha256': t.jar.sha256,
        'source': t.jar.source,
        'verified': t.jar.verified,
        'tlc_version': t.jar.tlc_version,
    }


def _model_json(root: Path, r: ModelResult | Refused) -> dict[str, Any]:
    if isinstance(r, Refused):
        return {
            'manifest': str(r.path),
            'exit_code': 2,
            'refused': True,
            'jobs': [],
            'coverage': [],
            'did_not_hold': [],
            'could_not_run': [r.message],
            'notes': [],
            'moved': [],
        }
    m, pin = r.manifest, r.manifest.tools
    data: dict[str, Any] = {'manifest': str(m.path)}
    if pin is not None and r.tools is not None:  # its own TLA+ tools (nothing: the run's)
        data['tools'] = {
            **_jar_json(root, r.tools),
            **({'url': pin.url} if pin.url else {}),
            **({'minTlc': pin.min_tlc} if pin.min_tlc else {}),
        }
    if m.libraries:  # as the manifest pins them
        data['libraries'] = [
            {'folder': lib.folder}
            if lib.folder is not None
            else {'name': lib.label, 'url': lib.url, 'sha256': lib.sha256}
            for lib in m.libraries
        ]
    data.update(exit_code=r.exit_code, actionMap=m.action_map)
    data['jobs'] = [
        {
            'kind': j.job.kind,
            'name': j.job.name,
            'config': j.job.config,
            'expect': j.job.expect,
            'outcome': j.outcome,
            'message': j.message,
            'cached': j.cached,
            'verdict': None if j.verdict is None else j.verdict.to_json(),
        }
        for j in r.jobs
    ]
    data['coverage'] = [entry_json(s) for s in r.coverage]
    if r.modules:
        data['modules'] = r.modules
    data.update(did_not_hold=r.failures, could_not_run=r.problems, notes=r.notes, moved=r.moved)
    return data


def results_json(
    results: Sequence[ModelResult | Refused], t: Tools, code: int, root: Path
) -> dict[str, Any]:
    """The run's details for its reports, every model in the run's order, a refused one too;
    `root`: the repository, which the jar's and Java's paths are named relative to
    (core/paths.in_report)."""
    return {
        'exit_code': code,
        'result': outcomes.RESULT_TEXT[code],
        'tools': _jar_json(root, t),
        'java': {
            'path': paths.in_report(root, t.java.path),
            'major': t.java.major,
            'version': t.java.version_text,
        },
        'models': [_model_json(root, r) for r in results],
    }

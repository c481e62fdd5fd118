"""A model's result gathered once its pool work is done (`finish`: coverage, trace results, the
map both ways, notes), in a run of `execlease verify` (pipeline.py). Each other part has a module
of its own: planning in plan.py, judging a verdict in violations.py, the result in result.py, the one
pool of every model's jobs in pool.py (longest first, schedule.py), the human text in show.py and
report.py, a sync in sync.py, trace validation in traces/suite.py (as pool tasks:
trace_stage.py), the deep tier in deep.py.
"""

from __future__ import annotations

from typing import Any

from execlease_hook.core.outcomes import COULD_NOT_RUN, DID_NOT_HOLD
from execlease_hook.coverage import compare, watch
from execlease_hook.git.blobs import WorktreeSource
from execlease_hook.manifest.model import Manifest
from execlease_hook.spec import action_map, cfg, modules, record
from execlease_hook.tlc.jar import Tools
from execlease_hook.tlc.kinds import KINDS
from execlease_hook.tlc.result import JobResult
from execlease_hook.verify import violations
from execlease_hook.verify.plan import Prepared
from execlease_hook.verify.result import ModelResult


def coverage_results(m: Manifest, r: ModelResult, max_bytes: int) -> None:
    r.coverage = compare.compare(m, WorktreeSource(m.root), None, max_bytes)
    for s in r.coverage:
        if s.status in ('missing', 'ambiguous'):
            r.problems.append(
                f'coverage entry {s.entry.id} ({s.entry.action}) at {s.entry.path}: {s.problem}; '
                'update the anchors in manifest.json',
            )
        elif s.status == 'changed':
            r.failures.append(
                f'covered code changed: entry {s.entry.id} at {s.where}, action {s.entry.action}; '
                're-read the action, make the model match the code, run execlease verify, then '
                'execlease verify --update-coverage',
            )
        elif s.status == 'never synced':
            r.failures.append(
                f'covered code never synced: entry {s.entry.id} at {s.where}, action {s.entry.action}: '
                'no hash recorded yet; once the model describes it, run execlease verify '
                '--update-coverage',
            )


def map_results(m: Manifest, r: ModelResult) -> None:
    """Both directions of the map between the spec's actions and the covered entries, and the
    protocol code that the watch rules find outside them."""
    view = record.read(m, WorktreeSource(m.root))
    r.modules = modules.listing(view.module_list())
    mapped = action_map.check(m, view.model_index, view.actions())
    r.problems.extend(mapped.problems)
    r.failures.extend(mapped.gaps)

    watched = watch.check_worktree(m, r.coverage)
    r.problems.extend(watched.problems)
    r.failures.extend(u.message() for u in watched.uncovered)


def _notes(m: Manifest, r: ModelResult) -> None:
    if m.coverage.model_hash is not None:
        source = WorktreeSource(m.root)
        compared = record.compare(record.read(m, source), source)
        if compared.changes:
            r.notes.append(
                'the model (spec or a cfg) changed since the last sync ('
                + '; '.join(compared.changes)
                + '); once everything holds, '
                'run execlease verify --update-coverage to record it',
            )
        if compared.upgrade:
            r.notes.append(
                'the model record an older execlease wrote differs from the modules '
                'the model reads (' + '; '.join(compared.upgrade) + '); once '
                'everything holds, run execlease verify --update-coverage to record them'
            )
    recorded = {c.name: c.states for c in m.checks}
    for j in r.jobs:
        if (
            not KINDS[j.job.kind].records_states
            or j.verdict is None
            or j.verdict.outcome != 'passed'
        ):
            continue
        before = recorded.get(j.job.name)
        if before is not None and j.verdict.distinct != before:
            r.notes.append(
                f'check {j.job.name}: {j.verdict.distinct:,} distinct states, {before:,} recorded at '
                "the last sync: the model's meaning changed?",
            )


def finish(p: Prepared, ran: list[JobResult], t: Tools, stage: Any = None) -> ModelResult:
    """The model's result once its pool work is done (`ran`: its TLC jobs, in plan order;
    `stage`: its trace_stage.Stage, whose tasks ran in the pool): coverage, trace jobs, the map, notes."""
    m, selection = p.manifest, p.selection
    translated = cfg.translation_note(
        sorted({q.job.config for q in p.planned if q.translated}), t.jar.tlc_version
    )
    notes = [translated] if translated else []
    r = ModelResult(m, jobs=ran, notes=[*notes, *p.notes], plan=p.plan, tools=t)
    if (migration := violations.deadlock_default_note(m, r.jobs)) is not None:
        r.notes.append(migration)
    # The coverage check, and the trace jobs that need it, run once: in shard 1, not with --only.
    runs_coverage = selection is None or selection.runs_coverage
    if runs_coverage:
        coverage_results(m, r, t.settings.max_covered_bytes)
    if stage is not None:  # its tasks ran in the pool, beside the TLC jobs
        r.jobs += stage.results(r.coverage)
        r.notes += stage.notes
    for j in r.jobs:
        if j.outcome == DID_NOT_HOLD:
            r.failures.append(j.message)
        elif j.outcome == COULD_NOT_RUN:
            r.problems.append(j.message)
    if runs_coverage and m.covers_code:  # a model of no code has no map to check
        map_results(m, r)
    _notes(m, r)
    return r

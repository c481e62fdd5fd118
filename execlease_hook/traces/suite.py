"""The `traces` and `codeMutations` jobs of `execlease verify`.

It is kept whole: a code mutation's verdict is the trace jobs' run in a mutated copy, through
the same cache, so both kinds share one loop.

How they run, in the shared pool beside the TLC jobs (verify/trace_stage.py makes them its
tasks), is drawn in docs/architecture.md#trace-validation-traces. A trace job accepted is a pass;
a rejection is exit 1 (the code did something the model does not allow); a broken command or an
unreadable trace is exit 2. A code mutation must be rejected by one of the trace jobs it names.
Results are cached (traces/cache.py says by what key); `--no-cache` runs every command again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlease_hook.core import scratch
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.outcomes import COULD_NOT_RUN, DID_NOT_HOLD, HELD
from execlease_hook.core.settings import Settings
from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.manifest.model import CodeMutation, Manifest, TraceJob
from execlease_hook.spec.syntax import imports
from execlease_hook.tlc import libraries
from execlease_hook.tlc.cache import ResultCache
from execlease_hook.tlc.jar import Tools
from execlease_hook.tlc.job import DEFAULT_TIMEOUT, TlcJob, run_job
from execlease_hook.tlc.output import Verdict
from execlease_hook.tlc.result import JobResult
from execlease_hook.traces import code_mutations, own, report, validation
from execlease_hook.traces.cache import cache_key, cached_run, store
from execlease_hook.traces.module import MODULE, BadTrace, Trace, compile_traces
from execlease_hook.traces.validation import TraceRun, TraceVerdict


@dataclass(frozen=True)
class Collected:
    """A trace job's traces (written by its command or read from its files) and the TLC job that
    checks them: what a trace job does before TLC, done apart by verify/trace_stage.py."""

    key: str
    found: list[Trace]
    tlc_jobs: tuple[TlcJob, ...]  # one; a project's own trace spec: one per trace (traces/own.py)
    said: str
    seconds: float  # the command and the conversion
    unused: tuple[str, ...] = ()  # fields left out of TLA+ (traces/module.Compiled)
    line: str | None = None  # a project's own trace spec: its line variable


def run_trace_job(
    m: Manifest,
    job: TraceJob,
    root: Path,
    t: Tools,
    cache: ResultCache,
    live: Any = None,
    label: str | None = None,
    copy: code_mutations.Mutated | None = None,
) -> TraceRun:
    """Run one trace job with `root` as the repository root (the repository or a mutated copy,
    described by `copy`). `live`: a verify/live.Live that shows it while it runs, as `label`."""
    key = cache_key(m, job, root, t, copy)
    hit = cached_run(cache, key)
    if hit is not None:
        return hit
    label = label or f'traces {job.name}'
    with contextlib.nullcontext() if live is None else live.showing(label) as shown:
        collected = collect(m, job, root, t, key, shown)
        return collected if isinstance(collected, TraceRun) else check(collected, cache, shown)


def collect(
    m: Manifest, job: TraceJob, root: Path, t: Tools, key: str, shown: Any = None
) -> Collected | TraceRun:
    """The traces of a trace job and their TLC job; a TraceRun if that failed (exit 2).
    `key`: its cache_key. `shown`: its verify/live.py line, or None."""
    if shown is not None:
        shown.phase = 'running its trace command' if job.command else 'reading its traces'
    folder = root / m.folder.relative_to(m.root)
    started = time.monotonic()
    said, what = '', f'trace job {job.name}'
    timeout = job.timeout or DEFAULT_TIMEOUT
    found: list[Trace] | None = None
    with scratch.folder(f'execlease-traces-{job.name}-') as out:  # a killed run's: swept
        try:
            if job.command:
                output = validation.run_command(
                    job.command, root, Path(out), timeout, what, job.env
                )
                said = '\n'.join(output.strip().splitlines()[-3:])
                found = validation.read_folder(Path(out), what)
            else:
                found = validation.read_files(job.files, folder, what)
            # A project's own trace spec (traces/own.py): it does not EXTEND TraceData.
            mine = all(name != MODULE for name, _, _ in imports((folder / job.spec).read_bytes()))
            base = validation.base_job(
                job.name,
                job.spec,
                job.config,
                t.java.path,
                t.jar.path,
                timeout,
                libraries.of(m, t.settings, t.root),
                settings=t.settings,
            )
            if mine:
                jobs, unused = own.tlc_jobs(
                    base, folder, found, job.fields, t.jar.tlc_version, root=root
                )
            else:
                compiled = compile_traces(found, job.fields)
                jobs = [validation.tlc_job(base, folder, found, compiled, root=root)]
                unused = compiled.unused
        except CannotRun as e:
            return TraceRun(
                TraceVerdict('error', 0, 0, reason=str(e)),
                None,
                seconds=round(time.monotonic() - started, 3),
                # Its run, or what it wrote (no trace, or one that does not convert).
                command_failed=bool(job.command) and (found is None or isinstance(e, BadTrace)),
            )
        except OSError as e:
            reason = f'{what}: cannot read {e.filename}: {e.strerror}'
            return TraceRun(TraceVerdict('error', 0, 0, reason=reason), None)
    line = job.line if mine else None
    return Collected(key, found, tuple(jobs), said, time.monotonic() - started, unused, line)


def check(collected: Collected, cache: ResultCache, shown: Any = None) -> TraceRun:
    """The TLC run of collected traces, judged, and cached."""
    started = time.monotonic()
    if shown is not None:
        shown.phase = 'starting Java'
    found, feed = collected.found, None if shown is None else shown.feed
    if collected.line is None:
        verdict = run_job(collected.tlc_jobs[0], feed)
        judged = validation.judge(verdict, found)
    else:  # a project's own trace spec, one TLC run per trace, up to the first not accepted
        total = sum(len(t.lines) for t in found)
        for trace, job in zip(found, collected.tlc_jobs):
            verdict = run_job(job, feed)
            judged = own.judge(verdict, collected.line, trace, len(found), total)
            if judged.outcome != 'accepted':
                break
        else:
            judged = TraceVerdict('accepted', len(found), total)
    run = TraceRun(
        judged,
        verdict,
        validation.action_counts(found),
        round(collected.seconds + time.monotonic() - started, 3),
        said=collected.said,
        unused=collected.unused,
    )
    store(cache, collected.key, run)
    return run


def placeholder_job(kind: str, name: str, job: TraceJob) -> TlcJob:
    # Never run: it names the job in the report.
    return TlcJob(kind, name, job.spec, b'', job.config, b'', settings=Settings())


def _shown(run: TraceRun) -> Verdict | None:
    # The table's seconds are the whole job's (command, conversion and TLC), not TLC's alone.
    return None if run.tlc is None else dataclasses.replace(run.tlc, seconds=run.seconds)


def trace_job_result(
    m: Manifest, job: TraceJob, run: TraceRun, statuses: Sequence[EntryStatus]
) -> JobResult:
    v = run.verdict
    unused = report.unused_text(run.unused)
    if v.outcome == 'accepted':
        outcome, message = HELD, report.accepted(job.name, run) + unused
    elif v.outcome == 'rejected':
        outcome, message = DID_NOT_HOLD, report.rejected(m, job, v, statuses, run.said) + unused
    else:
        outcome, message = COULD_NOT_RUN, f'trace job {job.name}: {v.reason}'
    return JobResult(
        placeholder_job('traces', job.name, job), _shown(run), run.cached, outcome, message
    )


def action_coverage_result(m: Manifest, counts: dict[str, int]) -> JobResult:
    placeholder = placeholder_job('traces', 'action-coverage', m.traces[0])
    missing = report.unreached(m, counts)
    exempted = report.untraced_text(m)
    if missing:
        return JobResult(placeholder, None, False, DID_NOT_HOLD, '; '.join(missing) + exempted)
    every = 'every action' if not m.coverage.untraced else 'every action but the exempted'
    reached = f'{every} of the covered code is reached by the traces: {report.counts_text(counts)}'
    return JobResult(placeholder, None, False, HELD, reached + exempted)


def mutation_jobs(m: Manifest, mutation: CodeMutation) -> list[TraceJob]:
    return [j for j in m.traces if not mutation.traces or j.name in mutation.traces]


def cached_mutation(
    m: Manifest, mutation: CodeMutation, t: Tools, cache: ResultCache, ids: Mapping[str, str]
) -> list[tuple[TraceJob, TraceRun]] | None:
    """The runs of the mutation's trace jobs, if the cache holds every one it needs; else None."""
    try:
        planned = code_mutations.mutated(m.root, mutation, ids)
    except CannotRun:
        return None
    return _mutation_runs(m, mutation, t, cache, planned, lambda job: None)


def code_mutation_result(
    m: Manifest,
    mutation: CodeMutation,
    t: Tools,
    cache: ResultCache,
    live: Any = None,
    ids: Mapping[str, str] | None = None,
) -> JobResult:
    """`ids`: git/worktree.worktree_ids(m.root), when known. The copy of the repository
    is made only for a trace job the cache does not answer."""
    jobs = mutation_jobs(m, mutation)
    placeholder = placeholder_job('code-mutation', mutation.name, jobs[0])
    try:
        planned = code_mutations.mutated(m.root, mutation, ids)
    except CannotRun as e:
        return JobResult(placeholder, None, False, COULD_NOT_RUN, str(e))
    with contextlib.ExitStack() as stack:
        copy: code_mutations.Mutated | None = None

        def run_in_copy(job: TraceJob) -> TraceRun:
            nonlocal copy
            if copy is None:
                folder = stack.enter_context(
                    code_mutations.mutated_copy(m.root, mutation, planned.files)
                )
                # The key of what was copied: the working tree may have changed meanwhile.
                copy = code_mutations.in_copy(folder, planned)
            label = f'code-mutation {mutation.name} ({job.name})'
            return run_trace_job(m, job, copy.root, t, cache, live, label, copy)

        runs = _mutation_runs(m, mutation, t, cache, planned, run_in_copy)
    assert runs is not None  # run_in_copy always gives a run
    return mutation_result(mutation, placeholder, runs)


def _mutation_runs(
    m: Manifest,
    mutation: CodeMutation,
    t: Tools,
    cache: ResultCache,
    planned: code_mutations.Mutated,
    missing: Callable[[TraceJob], TraceRun | None],
) -> list[tuple[TraceJob, TraceRun]] | None:
    """The runs of the mutation's trace jobs up to the first one not accepted, each from the
    cache, else from `missing(job)`; None once that gives none."""
    runs: list[tuple[TraceJob, TraceRun]] = []
    for job in mutation_jobs(m, mutation):
        run = cached_run(cache, cache_key(m, job, m.root, t, planned))
        if run is None:
            run = missing(job)
            if run is None:
                return None
        runs.append((job, run))
        if run.verdict.outcome != 'accepted':
            break
    return runs


def mutation_result(
    mutation: CodeMutation, placeholder: TlcJob, runs: Sequence[tuple[TraceJob, TraceRun]]
) -> JobResult:
    job, run = runs[-1]
    v = run.verdict
    if v.outcome == 'rejected':
        outcome, message = HELD, report.caught(mutation, job, v)
    elif v.outcome == 'error' and run.command_failed:
        # The mutated program broke its own trace command: caught, though not by the model. A
        # refusal of the model's files in the copy is no catch: it could not run.
        outcome = HELD
        message = (
            f'code mutation {mutation.name} is caught by the trace command of {job.name} '
            f'(it fails on the mutated code): {v.reason}'
        )
    elif v.outcome == 'error':
        outcome = COULD_NOT_RUN
        message = f'code mutation {mutation.name}: trace job {job.name}: {v.reason}'
    else:
        outcome, message = DID_NOT_HOLD, report.not_caught(mutation, [j.name for j, _ in runs])
    return JobResult(placeholder, _shown(run), all(r.cached for _, r in runs), outcome, message)

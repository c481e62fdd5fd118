"""(a) of benchmarks/suite_time.py: the work of `execlease verify --no-cache --jobs 1`, done the naive way.

One thing after another, each TLC run a bare `java ... tlc2.TLC` as `TlcJob.argv` says (no spare
JVM, no class-data archive, no JIT flags):
  every planned TLC job (checks, mutations, findings), with the further runs verify makes to
  name what TLC leaves out (violations.refine);
  every trace job: its command run in the repository (or its files read), the traces compiled
  into TLA+ (traces.py) and one TLC run;
  every code mutation: the trace jobs it names, run in its mutated copy of the repository,
  stopping at the first that does not accept it, as verify does.
The planned jobs' folders and the mutated copies are made by `prepare`, before the clock starts;
`run` is what the clock times. A trace job's traces are collected by verify's own code
(trace_suite.collect) and every verdict is judged by its rules (suite.judge, validation.judge,
trace_suite's trace_job_result, action_coverage_result and mutation_result), so that
`differences` can hold them against verify's report (`verify --json FILE`) job by job.
NOT_TIMED names what verify does that (a) does not.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execlease_hook.core.errors import CannotRun
from execlease_hook.core.outcomes import COULD_NOT_RUN
from execlease_hook.manifest.model import CodeMutation, Manifest, TraceJob
from execlease_hook.tlc import jar, output
from execlease_hook.tlc.job import TlcJob, _write_files
from execlease_hook.traces import suite as trace_suite
from execlease_hook.traces import validation
from execlease_hook.traces.code_mutations import mutated_copy
from execlease_hook.traces.validation import TraceRun
from execlease_hook.verify import plan, violations

KINDS = ('check', 'mutation', 'finding', 'traces', 'code-mutation')
NOT_TIMED = (
    'Python start-up, reading the manifest and planning; the coverage check and the map '
    '(tree-sitter); the cache keys; the report; the spec scan before each TLC run; making the code '
    "mutations' copies (verify makes each while its clock runs; (a) before its clock)"
)


@dataclass(frozen=True)
class Done:
    """One job of (a), judged as verify judges it."""

    kind: str  # one of KINDS ('traces' also for the action coverage)
    name: str
    outcome: str  # HELD | DID_NOT_HOLD | COULD_NOT_RUN
    verdict: output.Verdict | None  # the TLC verdict verify shows for it (None: TLC did not run)
    seconds: float


@dataclass
class Prepared:
    m: Manifest
    t: jar.Tools
    planned: list[tuple[plan.PlannedJob, Path | None]]  # None: not run (a planning problem)
    copies: list[tuple[CodeMutation, Path | str]]  # the copy, or why there is none
    seconds: float = 0.0  # spent preparing (not timed in (a))


@dataclass
class Timed:
    seconds: float = 0.0
    done: list[Done] = field(default_factory=list)

    def split(self) -> dict[str, tuple[int, float]]:
        """Jobs and seconds per kind."""
        jobs = [d for d in self.done if (d.kind, d.name) != ('traces', 'action-coverage')]
        return {
            k: (sum(1 for d in jobs if d.kind == k), sum(d.seconds for d in jobs if d.kind == k))
            for k in KINDS
        }


def bare_tlc(job: TlcJob, folder: Path | None = None) -> output.Verdict:
    """One bare TLC run of `job` in `folder` (holding its files), or in a folder of its own."""
    own = folder is None
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix='execlease-bare-'))
        _write_files(job, folder)
    started = time.monotonic()
    try:
        with open(folder / 'tlc.out', 'wb') as out:
            proc = subprocess.run(
                job.argv(folder),
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=job.timeout,
            )
        seconds = round(time.monotonic() - started, 3)
        return output.classify(
            proc.returncode,
            (folder / 'tlc.out').read_bytes(),
            seconds,
            job.config_text.decode('utf-8', 'replace'),
        )
    except subprocess.TimeoutExpired:
        return output.Verdict(
            'error', time.monotonic() - started, None, reason=f'timed out after {job.timeout:g} s'
        )
    finally:
        if own:
            shutil.rmtree(folder, ignore_errors=True)


def trace_run(m: Manifest, job: TraceJob, root: Path, t: jar.Tools) -> TraceRun:
    """One trace job with `root` as the repository root (the repository or a mutated copy):
    collected as verify collects it (trace_suite.collect), its TLC run bare."""
    collected = trace_suite.collect(m, job, root, t, key='')  # (a) caches nothing: no key
    if isinstance(collected, TraceRun):
        return collected  # the command failed, or its traces could not be read
    # The shipped model's trace specs EXTEND TraceData: one TLC run over every trace.
    assert collected.line is None and len(collected.tlc_jobs) == 1, "a project's own trace spec"
    started = time.monotonic()
    (tlc_job,) = collected.tlc_jobs
    verdict = bare_tlc(dataclasses.replace(tlc_job, jar=tlc_job.jar.resolve()))
    return TraceRun(
        validation.judge(verdict, collected.found),
        verdict,
        validation.action_counts(collected.found),
        round(collected.seconds + time.monotonic() - started, 3),
        said=collected.said,
        unused=collected.unused,
    )


@contextlib.contextmanager
def prepare(m: Manifest, t: jar.Tools) -> Iterator[Prepared]:
    """Every planned job's folder with its files, and every code mutation's copy; removed after."""
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        planned: list[tuple[plan.PlannedJob, Path | None]] = []
        for p in plan.plan(m, False, t):
            if p.problem is not None:
                planned.append((p, None))
                continue
            folder = Path(tempfile.mkdtemp(prefix='execlease-bare-'))
            stack.callback(shutil.rmtree, folder, True)
            _write_files(p.job, folder)
            planned.append((p, folder))
        copies: list[tuple[CodeMutation, Path | str]] = []
        for mutation in m.code_mutations:
            try:
                copies.append((mutation, stack.enter_context(mutated_copy(m.root, mutation))))
            except CannotRun as e:
                copies.append((mutation, str(e)))
        yield Prepared(m, t, planned, copies, time.monotonic() - started)


def run(p: Prepared) -> Timed:
    """(a): every job of `p`, one after another; `seconds` is the wall time of them all."""
    timed = Timed()
    started = time.monotonic()
    for planned, folder in p.planned:
        job = planned.job
        if folder is None:
            timed.done.append(Done(job.kind, job.name, COULD_NOT_RUN, None, 0.0))
            continue
        began = time.monotonic()
        verdict = violations.refine(job, bare_tlc(job, folder), bare_tlc)
        timed.done.append(
            Done(
                job.kind,
                job.name,
                violations.judge(job, verdict, False).outcome,
                verdict,
                time.monotonic() - began,
            )
        )
    counts: dict[str, int] = {}
    accepted_all = True
    for trace_job in p.m.traces:
        r = trace_run(p.m, trace_job, p.m.root, p.t)
        result = trace_suite.trace_job_result(p.m, trace_job, r, ())
        timed.done.append(Done('traces', trace_job.name, result.outcome, r.tlc, r.seconds))
        accepted_all = accepted_all and r.verdict.outcome == 'accepted'
        for action, n in r.counts.items():
            counts[action] = counts.get(action, 0) + n
    if p.m.traces and accepted_all:
        coverage = trace_suite.action_coverage_result(p.m, counts)
        timed.done.append(Done('traces', 'action-coverage', coverage.outcome, None, 0.0))
    for mutation, copy in p.copies:
        if isinstance(copy, str):
            timed.done.append(Done('code-mutation', mutation.name, COULD_NOT_RUN, None, 0.0))
            continue
        began = time.monotonic()
        jobs = trace_suite.mutation_jobs(p.m, mutation)
        runs: list[tuple[TraceJob, TraceRun]] = []
        for trace_job in jobs:
            runs.append((trace_job, trace_run(p.m, trace_job, copy, p.t)))
            if runs[-1][1].verdict.outcome != 'accepted':
                break
        result = trace_suite.mutation_result(
            mutation, trace_suite.placeholder_job('code-mutation', mutation.name, jobs[0]), runs
        )
        timed.done.append(
            Done(
                'code-mutation',
                mutation.name,
                result.outcome,
                runs[-1][1].tlc,
                time.monotonic() - began,
            )
        )
    timed.seconds = time.monotonic() - started
    return timed


Key = tuple[str, str]  # (kind, name)
Said = tuple[str, str | None, str | None, str | None]  # outcome; TLC's outcome, kind, property


def _said(outcome: str, verdict: Mapping[str, Any] | None) -> Said:
    if verdict is None:
        return (outcome, None, None, None)
    return (outcome, verdict['outcome'], verdict['kind'], verdict['property'])


def verdicts(timed: Timed) -> dict[Key, Said]:
    return {
        (d.kind, d.name): _said(d.outcome, None if d.verdict is None else d.verdict.to_json())
        for d in timed.done
    }


def report_verdicts(report: Mapping[str, Any]) -> dict[Key, Said]:
    """The same, from verify's --json report (one model)."""
    (model,) = report['models']
    return {(j['kind'], j['name']): _said(j['outcome'], j['verdict']) for j in model['jobs']}


def report_split(report: Mapping[str, Any]) -> dict[str, tuple[int, float]]:
    """Jobs and seconds per kind as verify's report gives them (a trace job's seconds are its
    command's, the conversion's and TLC's; a code mutation's, those of the trace run that ended it)."""
    (model,) = report['models']
    jobs = [j for j in model['jobs'] if j['name'] != 'action-coverage' or j['kind'] != 'traces']
    return {
        k: (
            sum(1 for j in jobs if j['kind'] == k),
            sum(
                j['verdict']['seconds'] for j in jobs if j['kind'] == k and j['verdict'] is not None
            ),
        )
        for k in KINDS
    }


def differences(a: Mapping[Key, Said], other: Mapping[Key, Said], label: str) -> list[str]:
    """Each job whose verdict in (a) is not the one `label` gave, and each job only one of them has."""
    found = []
    for key in sorted(set(a) | set(other)):
        mine, theirs = a.get(key), other.get(key)
        if mine != theirs:
            found.append(f'{key[0]} {key[1]}: (a) {_text(mine)}, {label} {_text(theirs)}')
    return found


def _text(said: Said | None) -> str:
    if said is None:
        return 'not run'
    outcome, verdict, kind, prop = said
    return (
        outcome
        if verdict is None
        else f'{outcome} (TLC: {" ".join(x for x in (verdict, kind, prop) if x)})'
    )

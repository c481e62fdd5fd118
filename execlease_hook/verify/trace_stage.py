"""A model's trace jobs and code mutations as work of the shared pool of `execlease verify`.

One task per trace job and one per code mutation (traces/suite.py runs them), ordered with the
TLC jobs (pool.py), so that the cores stay busy to the end. What the report shows is what
running them stage after stage showed: every trace job, then the action coverage (judged once
the model's last trace job is done, and only when every one was accepted), then every code
mutation, each in plan order; `progress` gets each as it ends.

The commands of the trace jobs run first, one at a time, before the pool starts anything
(pool.Work.first); their TLC runs are then tasks like the others. Why alone: a fault-injection
command (the shipped fault run) races real worker processes against kills, stops and expiring
leases, and what it exercises changes with a job beside it. Measured on 2 cores
(benchmarks/fault_run_beside.py: 15 runs of the shipped fault run's command, alternating alone
and with one CPU-bound process beside it, the machine otherwise shared at a load of 6 to 9;
medians): beside a job it took 16.6 s
instead of 10.3 s, injected more faults (takeovers 39 against 26, stale resumptions 15 against
10), but left fewer deposed effects, the race the fencing exists for (an effect by a worker
whose lease was taken over before it completed): 3 against 5 (0-5 against 3-11). Fewer of that
race is a weaker trace job, so the commands keep the machine to themselves; a code mutation's
command runs in the pool, as it did before (the trace jobs it names must reject the mutation,
which the shipped scenarios do deterministically, in one process).

A task the cache answers is answered before the pool starts (its result kept, so it is not
looked up twice); a code mutation's copy of the repository is made only on a miss
(traces/suite.code_mutation_result).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any

from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.git import worktree
from execlease_hook.manifest.model import CodeMutation, Manifest, TraceJob
from execlease_hook.tlc import libraries
from execlease_hook.tlc.cache import ResultCache
from execlease_hook.tlc.jar import Tools
from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.result import JobResult
from execlease_hook.traces.cache import cache_key, cached_run
from execlease_hook.traces.report import reached_exemptions
from execlease_hook.traces.suite import (
    Collected,
    action_coverage_result,
    cached_mutation,
    check,
    code_mutation_result,
    collect,
    mutation_jobs,
    mutation_result,
    placeholder_job,
    trace_job_result,
)
from execlease_hook.traces.validation import TraceRun, base_job
from execlease_hook.verify.pool import Task


@dataclass(eq=False)  # a stage is itself, compared by identity
class Stage:
    """The module's tasks of one model: `tasks()` before the pool runs, `results(statuses)`
    after."""

    m: Manifest
    t: Tools
    cache: ResultCache
    progress: Callable[[JobResult], None]
    live: Any
    # --only: the trace jobs and code mutations named; no action coverage then.
    only: frozenset[tuple[str, str]] | None

    def __post_init__(self) -> None:
        m, only = self.m, self.only
        self.jobs = tuple(j for j in m.traces if only is None or ('traces', j.name) in only)
        self.mutations = tuple(
            c for c in m.code_mutations if only is None or ('code-mutation', c.name) in only
        )
        self._runs: list[TraceRun | None] = [None] * len(self.jobs)
        self._mutations: list[JobResult | None] = [None] * len(self.mutations)
        self._coverage: JobResult | None = None
        self.notes: list[str] = []  # exemptions from action coverage the traces now reach
        # What must run before the pool starts anything, one at a time: the commands of the
        # trace jobs the cache does not answer (filled by tasks()).
        self.first: list[Callable[[], None]] = []
        self._collected: list[Collected | TraceRun | None] = [None] * len(self.jobs)

    def tasks(self) -> list[Task]:
        m, t = self.m, self.t
        libs = libraries.of(m, t.settings, t.root)
        spare = base_job('', '', '', t.java.path, t.jar.path, libraries=libs, settings=t.settings)
        tasks: list[Task] = []
        for i, job in enumerate(self.jobs):
            key = cache_key(m, job, m.root, t)
            hit = cached_run(self.cache, key)
            tasks.append(
                Task(
                    placeholder_job('traces', job.name, job),
                    partial(self._run_trace, i, job, hit, key),
                    partial(self._trace_done, job),
                    hit is not None,
                    (spare,),
                )
            )
            if hit is None and job.command:
                self.first.append(partial(self._command, i, job, key))
        ids = worktree.worktree_ids(m.root) if self.mutations else {}
        for k, mutation in enumerate(self.mutations):
            runs = cached_mutation(m, mutation, t, self.cache, ids)
            placeholder = placeholder_job(
                'code-mutation', mutation.name, mutation_jobs(m, mutation)[0]
            )
            tasks.append(
                Task(
                    placeholder,
                    partial(self._run_mutation, k, mutation, placeholder, runs, ids),
                    self.progress,
                    runs is not None,
                    (spare,),
                )
            )
        return tasks

    def _showing(self, label: str) -> AbstractContextManager[Any]:
        return nullcontext() if self.live is None else self.live.showing(label)

    def _command(self, i: int, job: TraceJob, key: str) -> None:
        with self._showing(f'traces {job.name}') as shown:
            self._collected[i] = collect(self.m, job, self.m.root, self.t, key, shown)

    def _run_trace(self, i: int, job: TraceJob, hit: TraceRun | None, key: str) -> TraceRun:
        done = hit or self._collected[i]  # a job of trace files: None, its traces read here
        if not isinstance(done, TraceRun):
            with self._showing(f'traces {job.name}') as shown:
                done = done or collect(self.m, job, self.m.root, self.t, key, shown)
                if not isinstance(done, TraceRun):
                    done = check(done, self.cache, shown)
        self._runs[i] = done
        return done

    def _trace_done(self, job: TraceJob, run: TraceRun) -> None:
        # The words of a rejection name covered code (the coverage statuses): in results().
        self.progress(trace_job_result(self.m, job, run, ()))
        # Once every trace job has run, and only when every one was accepted.
        runs = [r for r in self._runs if r is not None and r.verdict.outcome == 'accepted']
        if self.only is None and len(runs) == len(self._runs):
            counts: Counter[str] = Counter()
            for r in runs:
                counts.update(r.counts)
            self._coverage = action_coverage_result(self.m, dict(counts))
            self.notes = reached_exemptions(self.m, dict(counts))
            self.progress(self._coverage)

    def _run_mutation(
        self,
        k: int,
        mutation: CodeMutation,
        placeholder: TlcJob,
        runs: list[tuple[TraceJob, TraceRun]] | None,
        ids: Mapping[str, str],
    ) -> JobResult:
        result = (
            mutation_result(mutation, placeholder, runs)
            if runs is not None
            else code_mutation_result(self.m, mutation, self.t, self.cache, self.live, ids)
        )
        self._mutations[k] = result
        return result

    def results(self, statuses: Sequence[EntryStatus]) -> list[JobResult]:
        """Once the pool has run every task."""
        results: list[JobResult] = []
        for job, run in zip(self.jobs, self._runs):
            assert run is not None, f'trace job {job.name} did not run'
            results.append(trace_job_result(self.m, job, run, statuses))
        if self._coverage is not None:
            results.append(self._coverage)
        for mutation, result in zip(self.mutations, self._mutations):
            assert result is not None, f'code mutation {mutation.name} did not run'
            results.append(result)
        return results

"""A model's trace jobs and code mutations as work of the shared pool of `execlease verify`.

One task per trace job and one per code mutation (trace_suite.py runs them), scheduled with the
TLC jobs, longest first by their last wall times (schedule.Timings; a task the cache answers
weighs 0), so that the cores stay busy to the end instead of idling while a model's trace jobs
run one at a time after the pool has drained. What the report shows is what running them stage
after stage showed: every trace job, then the action coverage (judged once the model's last
trace job is done, and only when every one was accepted), then every code mutation, each in
plan order; `progress` gets each as it ends.

A task the cache answers is answered before the pool starts (its result kept, so it is not
looked up twice); a code mutation's copy of the repository is made only on a miss
(trace_suite.code_mutation_result).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from execlease_hook import code_mutations
from execlease_hook.manifest import CodeMutation, Manifest, TraceJob
from execlease_hook.report import JobResult
from execlease_hook.tlc import TlcJob
from execlease_hook.trace_suite import (TraceRun, cached_run, cached_mutation, mutation_jobs, mutation_result,
                                        placeholder_job, action_coverage_result, cache_key, code_mutation_result,
                                        run_trace_job, trace_job_result)

if TYPE_CHECKING:
    from execlease_hook.cache import ResultCache
    from execlease_hook.coverage import EntryStatus
    from execlease_hook.pool import Task
    from execlease_hook.suite import Tools


class Stage:
    """One model's trace jobs, its action coverage and its code mutations, as tasks of the shared
    pool (pool.py): `tasks()` before the pool runs, `results(statuses)` after, in plan order
    (every trace job, the action coverage, every code mutation). `progress` gets each result
    as it ends."""

    def __init__(self, m: Manifest, t: Tools, cache: ResultCache,
                 progress: Callable[[JobResult], None] = lambda r: None, live: Any = None) -> None:
        self.m, self.t, self.cache, self.progress, self.live = m, t, cache, progress, live
        self._runs: list[TraceRun | None] = [None] * len(m.traces)
        self._mutations: list[JobResult | None] = [None] * len(m.code_mutations)
        self._coverage: JobResult | None = None

    def tasks(self) -> list[Task]:
        from execlease_hook.pool import Task

        m, t = self.m, self.t
        expected = TlcJob(kind='traces', name='', spec='', spec_text=b'', config='', config_text=b'',
                          java=t.java.path, jar=t.jar.path)
        tasks: list[Task] = []
        for i, job in enumerate(m.traces):
            hit = cached_run(self.cache, cache_key(m, job, m.root, t))
            tasks.append(Task(placeholder_job('traces', job.name, job), self._trace_task(i, job, hit),
                              self._trace_done(i, job), hit is not None, (expected,)))
        files = code_mutations.repository_files(m.root) if m.code_mutations else []
        for k, mutation in enumerate(m.code_mutations):
            runs = cached_mutation(m, mutation, t, self.cache, files)
            placeholder = placeholder_job('code-mutation', mutation.name, mutation_jobs(m, mutation)[0])
            tasks.append(Task(placeholder, self._mutation_task(k, mutation, placeholder, runs, files),
                              self._mutation_done(k), runs is not None, (expected,)))
        return tasks

    def _trace_task(self, i: int, job: TraceJob, hit: TraceRun | None) -> Callable[[], bool]:
        def run() -> bool:
            done = hit if hit is not None else run_trace_job(self.m, job, self.m.root, self.t, self.cache,
                                                             live=self.live)
            self._runs[i] = done
            return done.cached
        return run

    def _trace_done(self, i: int, job: TraceJob) -> Callable[[], None]:
        def done() -> None:
            run = self._runs[i]
            assert run is not None
            # The words of a rejection name covered code (the coverage statuses): in results().
            self.progress(trace_job_result(self.m, job, run, ()))
            runs = [r for r in self._runs if r is not None]
            if len(runs) == len(self._runs) and all(r.verdict.outcome == 'accepted' for r in runs):
                counts: dict[str, int] = {}
                for r in runs:
                    for action, n in r.counts.items():
                        counts[action] = counts.get(action, 0) + n
                self._coverage = action_coverage_result(self.m, counts)
                self.progress(self._coverage)
        return done

    def _mutation_task(self, k: int, mutation: CodeMutation, placeholder: TlcJob,
                       runs: list[tuple[TraceJob, TraceRun]] | None, files: Sequence[str]) -> Callable[[], bool]:
        def run() -> bool:
            result = (mutation_result(mutation, placeholder, runs) if runs is not None else
                      code_mutation_result(self.m, mutation, self.t, self.cache, self.live, files))
            self._mutations[k] = result
            return result.cached
        return run

    def _mutation_done(self, k: int) -> Callable[[], None]:
        def done() -> None:
            result = self._mutations[k]
            assert result is not None
            self.progress(result)
        return done

    def results(self, statuses: Sequence[EntryStatus]) -> list[JobResult]:
        """Once the pool has run every task."""
        results: list[JobResult] = []
        for job, run in zip(self.m.traces, self._runs):
            assert run is not None, f'trace job {job.name} did not run'
            results.append(trace_job_result(self.m, job, run, statuses))
        if self._coverage is not None:
            results.append(self._coverage)
        for mutation, result in zip(self.m.code_mutations, self._mutations):
            assert result is not None, f'code mutation {mutation.name} did not run'
            results.append(result)
        return results

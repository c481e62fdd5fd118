"""One pool of work across every model of a run: `--jobs N` is N at once, for one model or
fifty, started longest first (schedule.py). The work is each model's planned TLC jobs
(verify/plan.py) and its tasks: its trace jobs and code mutations (verify/trace_stage.Stage), which run
their commands and TLC beside the TLC jobs, so that the cores stay busy to the end.

Each model brings its planned jobs, how to judge a verdict, where its progress goes, its
tasks and what must run alone before them (`first`: trace commands, trace_stage.py); the answer is each model's results in its plan's order, so the per-model report and
exit codes are what one model alone would give (a task keeps its own result, traces/suite.py).
A job or task the cache answers weighs nothing in the order; a job that cannot run (a bad
anchor) is not started at all. Ctrl-C stops every TLC process group and trace command at once
(core/procs.py), whichever model it belongs to.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from execlease_hook.core import procs
from execlease_hook.core.outcomes import COULD_NOT_RUN
from execlease_hook.manifest.model import Manifest
from execlease_hook.tlc.cache import ResultCache
from execlease_hook.tlc.jar import Tools, file_sha256
from execlease_hook.tlc.job import TlcJob, expect_jobs, run_job
from execlease_hook.tlc.output import Verdict
from execlease_hook.tlc.result import JobResult
from execlease_hook.verify import schedule, violations
from execlease_hook.verify.plan import PlannedJob


@dataclass(frozen=True)
class Task:
    """Work of the pool that is not a planned TLC job: a trace job or a code mutation."""

    job: TlcJob  # names it (kind, name): its key in the timings, its place in ties
    run: Callable[[], bool]  # does it, in a pool thread; True: the cache answered it all
    done: Callable[[], None]  # reports it, in the thread that called pool.run, as it ends
    cached: bool = False  # the cache answers it (known before it starts): it weighs 0
    expects: Sequence[TlcJob] = ()  # the TLC jobs it will start, for tlc/job.expect_jobs


@dataclass(frozen=True)
class Work:
    manifest: Manifest
    planned: Sequence[PlannedJob]
    judge: Callable[[TlcJob, Verdict, bool], JobResult]
    progress: Callable[[JobResult], None]
    tasks: Sequence[Task] = ()
    first: Sequence[Callable[[], None]] = ()  # run one at a time, alone, before the pool starts


def run(
    works: Sequence[Work],
    t: Tools,
    cache: ResultCache,
    jobs: int,
    timings: schedule.Timings | None = None,
    live: Any = None,
) -> list[list[JobResult]]:
    """`live`: a verify/live.Live that shows each running TLC job, or None."""

    def _key(job: TlcJob) -> str:
        # The job's own jar: a model may pin its own TLA+ tools (tlc/pin.py).
        return job.cache_key(
            t.jar.sha256 if job.jar == t.jar.path else file_sha256(job.jar), t.java.major
        )

    results: list[dict[int, JobResult]] = [{} for _ in works]
    pending: list[tuple[int, int, TlcJob]] = []  # (work, job index, job)
    cost: list[float | None] = []  # 0 for a job the cache answers
    for w, work in enumerate(works):
        for i, p in enumerate(work.planned):
            if p.problem is not None:
                results[w][i] = JobResult(p.job, None, False, COULD_NOT_RUN, p.problem)
                continue
            pending.append((w, i, p.job))
            cost.append(0.0 if cache.get(_key(p.job)) is not None else None)
    tasks = [(w, task) for w, work in enumerate(works) for task in work.tasks]

    def run_one(w: int, job: TlcJob, timed: bool = True) -> tuple[Verdict, bool]:
        key = _key(job)
        verdict = cache.get(key)
        if verdict is not None:
            return verdict, True
        shown = None if live is None else live.start(f'{job.kind} {job.name}')
        try:
            verdict = run_job(job, None if shown is None else shown.feed)
        finally:
            if shown is not None:
                live.finish(shown)
        cache.put(key, verdict)
        if timings is not None and timed:
            timings.record(schedule.job_key(works[w].manifest, job), verdict.seconds)
        return verdict, False

    def one(w: int, job: TlcJob) -> JobResult:
        verdict, cached = run_one(w, job)
        # The names TLC leaves out: an assumption's, a temporal property's (more TLC runs, here).
        refined = violations.refine(job, verdict, lambda sub: run_one(w, sub, False)[0])
        return works[w].judge(job, refined, cached)

    def one_task(w: int, task: Task) -> None:
        started = time.monotonic()
        if not task.run() and timings is not None:
            timings.record(
                schedule.job_key(works[w].manifest, task.job), time.monotonic() - started
            )

    everything = [(works[w].manifest, job) for w, _, job in pending] + [
        (works[w].manifest, k.job) for w, k in tasks
    ]
    order = schedule.longest_first(
        everything, timings, cost + [0.0 if k.cached else None for _, k in tasks]
    )
    procs.reset_cancel()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix='tlc')
    try:
        # What needs the machine to itself (a fault-injection trace command, trace_stage.py), with
        # nothing beside it: not even the spare JVMs, started next.
        for work in works:
            for alone in work.first:
                alone()
        # Spare JVMs (tlc/spare.py) for the jobs the cache does not answer, and no more.
        expect_jobs(
            [job for (_, _, job), c in zip(pending, cost) if c is None]
            + [j for _, k in tasks if not k.cached for j in k.expects]
        )
        # The executor starts work in the order it is submitted: longest first.
        futures: dict[concurrent.futures.Future[Any], int] = {}
        for n in order:
            if n < len(pending):
                futures[pool.submit(one, pending[n][0], pending[n][2])] = n
            else:
                futures[pool.submit(one_task, *tasks[n - len(pending)])] = n
        for future in concurrent.futures.as_completed(futures):
            n = futures[future]
            if n < len(pending):
                w, i, _ = pending[n]
                results[w][i] = future.result()
                works[w].progress(results[w][i])
            else:
                future.result()
                tasks[n - len(pending)][1].done()
    except BaseException:
        # Ctrl-C (or a bug): stop every TLC process group and trace command; each removes its folders.
        procs.cancel_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        if timings is not None:
            timings.save()
    pool.shutdown(wait=True)
    return [[done[i] for i in range(len(work.planned))] for work, done in zip(works, results)]

"""One pool of work across every model of a run, started longest first (below): each
model's planned TLC jobs and its tasks (its trace jobs and code mutations, trace_stage.py), each
model's results given back in its plan's order; docs/architecture.md says why and how at length.

A job or task the cache answers weighs nothing in the order; a job that cannot run (a bad
anchor) is not started at all. Jobs with the same cache key (two findings on one cfg, a finding
and the check it reproduces) start TLC once in a run, in one pool slot, and each is judged by its
own entry; so does a job `violations.refine` asks for twice.

Longest job first: on a machine with few cores the makespan is decided by the big checks:
started last, they run alone at the end while the other cores idle. So every job gets an
estimate of its seconds, and the pool starts the longest first. The estimate is, in this order:

1. the job's wall time at its last run in this repository (<git common dir>/execlease/timings.json,
   beside the result cache, written after every run; keyed by model folder, kind and name);
2. else its recorded states: a check's `states` in manifest.json, a mutation or finding those
   of the check with the same cfg, else the largest count recorded (plan.weight), at
   STATES_PER_SECOND after a JVM start of JVM_START seconds. A trace job or a code mutation
   (a pool task, trace_stage.py; kind `traces` or `code-mutation`) with no last time weighs
   as the largest count recorded: work of unknown length starts early.

Ties keep checks before findings before mutations, then the plan's order. The order changes
only when jobs start, never a verdict.
"""

from __future__ import annotations

import concurrent.futures
import json
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlease_hook.core import procs
from execlease_hook.core.atomic import write_text_atomic
from execlease_hook.core.outcomes import COULD_NOT_RUN
from execlease_hook.manifest.model import Manifest
from execlease_hook.tlc.cache import ResultCache
from execlease_hook.tlc.jar import Tools, file_sha256
from execlease_hook.tlc.job import TlcJob, expect_jobs, run_job
from execlease_hook.tlc.kinds import KINDS
from execlease_hook.tlc.output import Verdict
from execlease_hook.tlc.result import JobResult
from execlease_hook.verify import violations
from execlease_hook.verify.plan import PlannedJob, shown_path, weight

FILE = 'timings.json'
FORMAT = 1
JVM_START = 1.0  # seconds a TLC job costs before its first state (measured: 0.7-1.2 s)
STATES_PER_SECOND = 10_000  # one TLC worker on the shipped model: 37,886 states in 3-6 s


def job_key(m: Manifest, job: TlcJob) -> str:
    return f'{shown_path(m, m.folder)}::{job.kind}:{job.name}'


class Timings:
    """The last wall time of each job. A missing, corrupt or unwritable file costs the order
    only: the estimate falls back to the recorded states."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / FILE
        self.seconds = _read(self.path)
        self._new: dict[str, float] = {}
        self._lock = threading.Lock()

    def record(self, key: str, seconds: float) -> None:
        with self._lock:
            self._new[key] = round(float(seconds), 3)

    def save(self) -> None:
        if not self._new:
            return
        with self._lock:
            merged = {**_read(self.path), **self._new}  # another run may have written meanwhile
            self.seconds.update(self._new)
            self._new = {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(
                self.path,
                json.dumps({'format': FORMAT, 'seconds': merged}, indent=0, sort_keys=True) + '\n',
            )
        except OSError:
            pass  # the result cache says once that its folder cannot be written


def _read(path: Path) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding='utf-8'))
    except (OSError, ValueError):
        return {}
    if (
        not isinstance(data, dict)
        or data.get('format') != FORMAT
        or not isinstance(data.get('seconds'), dict)
    ):
        return {}
    return {
        k: float(v)
        for k, v in data['seconds'].items()
        if isinstance(k, str)
        and isinstance(v, (int, float))
        and not isinstance(v, bool)
        and 0 <= v < 1e7
    }


def estimate(m: Manifest, job: TlcJob, timings: Timings | None) -> float:
    """Seconds the job is expected to take (see the module's docstring)."""
    last = None if timings is None else timings.seconds.get(job_key(m, job))
    return last if last is not None else JVM_START + weight(m, job) / STATES_PER_SECOND


def longest_first(
    jobs: Sequence[tuple[Manifest, TlcJob]], timings: Timings | None, known: Sequence[float | None]
) -> list[int]:
    """Indices into `jobs`, longest estimate first (`known[i]`, when not None, is job i's cost:
    0 for a job the result cache answers)."""
    costs = [
        estimate(m, j, timings) if given is None else given
        for (m, j), given in zip(jobs, known, strict=True)
    ]
    # A kind of no row of tlc/kinds.py comes after every known kind.
    order = {name: kind.order for name, kind in KINDS.items()}
    last = max(order.values()) + 1
    return sorted(range(len(jobs)), key=lambda i: (-costs[i], order.get(jobs[i][1].kind, last), i))


@dataclass(frozen=True)
class Task:
    """Work of the pool that is not a planned TLC job: a trace job or a code mutation."""

    job: TlcJob  # names it (kind, name): its key in the timings, its place in ties
    run: Callable[[], Any]  # does it, in a pool thread: what ran (`cached`: the cache answered)
    done: Callable[[Any], None]  # reports what `run` gave, in the thread that called pool.run
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
    timings: Timings | None = None,
    live: Any = None,
) -> list[list[JobResult]]:
    """`live`: a verify/live.Live that shows each running TLC job, or None."""

    def _key(job: TlcJob) -> str:
        # The job's own jar: a model may pin its own TLA+ tools (tlc/pin.py).
        return job.cache_key(
            t.jar.sha256 if job.jar == t.jar.path else file_sha256(job.jar), t.java.major
        )

    results: list[dict[int, JobResult]] = [{} for _ in works]
    # The jobs to start, one per cache key, each with every planned job that key answers. The
    # deadline is no part of the cache key (a later run reads an entry whatever its own
    # deadline): two jobs that differ only in theirs run apart here, each judged by its own.
    by_key: dict[tuple[str, float], list[tuple[int, int, TlcJob]]] = {}
    for w, work in enumerate(works):
        for i, p in enumerate(work.planned):
            if p.problem is not None:
                results[w][i] = JobResult(p.job, None, False, COULD_NOT_RUN, p.problem)
            else:
                by_key.setdefault((_key(p.job), p.job.timeout), []).append((w, i, p.job))
    pending = list(by_key.values())  # [(work, job index, job)] per key
    cost = [0.0 if cache.get(key) is not None else None for key, _ in by_key]  # 0: cached
    tasks = [(w, task) for w, work in enumerate(works) for task in work.tasks]
    # A key's one run in this run, whoever asked first (with --no-cache too): the others wait.
    once: dict[tuple[str, float], concurrent.futures.Future[tuple[Verdict, bool]]] = {}
    once_lock = threading.Lock()

    def run_one(job: TlcJob) -> tuple[Verdict, bool]:
        key = _key(job)
        with once_lock:
            first = (key, job.timeout) not in once
            if first:
                once[key, job.timeout] = concurrent.futures.Future()
            ran = once[key, job.timeout]
        if not first:
            return ran.result()
        try:
            verdict = cache.get(key)
            cached = verdict is not None
            if verdict is None:
                label = f'{job.kind} {job.name}'
                with nullcontext() if live is None else live.showing(label) as shown:
                    verdict = run_job(job, None if shown is None else shown.feed)
                cache.put(key, verdict)
        except BaseException as e:
            ran.set_exception(e)
            raise
        ran.set_result((verdict, cached))
        return verdict, cached

    def one(same: list[tuple[int, int, TlcJob]]) -> list[JobResult]:
        verdict, cached = run_one(same[0][2])
        judged = []
        for w, _, job in same:
            if timings is not None and not cached:
                timings.record(job_key(works[w].manifest, job), verdict.seconds)
            # The names TLC leaves out: an assumption's, a temporal property's (more TLC runs, here).
            refined = violations.refine(job, verdict, lambda sub: run_one(sub)[0])
            judged.append(works[w].judge(job, refined, cached))
        return judged

    def one_task(w: int, task: Task) -> Any:
        started = time.monotonic()
        ran = task.run()
        if not ran.cached and timings is not None:
            timings.record(job_key(works[w].manifest, task.job), time.monotonic() - started)
        return ran

    everything = [(works[same[0][0]].manifest, same[0][2]) for same in pending] + [
        (works[w].manifest, k.job) for w, k in tasks
    ]
    order = longest_first(everything, timings, cost + [0.0 if k.cached else None for _, k in tasks])
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
            [same[0][2] for same, c in zip(pending, cost) if c is None]
            + [j for _, k in tasks if not k.cached for j in k.expects]
        )
        # The executor starts work in the order it is submitted: longest first.
        futures: dict[concurrent.futures.Future[Any], int] = {}
        for n in order:
            if n < len(pending):
                futures[pool.submit(one, pending[n])] = n
            else:
                futures[pool.submit(one_task, *tasks[n - len(pending)])] = n
        for future in concurrent.futures.as_completed(futures):
            n = futures[future]
            if n < len(pending):
                for (w, i, _), result in zip(pending[n], future.result()):
                    results[w][i] = result
                    works[w].progress(result)
            else:
                tasks[n - len(pending)][1].done(future.result())
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

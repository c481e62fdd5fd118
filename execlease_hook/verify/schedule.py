"""Longest job first: the order in which the one pool of `execlease verify` starts TLC jobs.

On a machine with few cores the makespan is decided by the big checks: started last, they run
alone at the end while the other cores idle. So every job gets an estimate of its seconds, and
the pool starts the longest first. The estimate is, in this order:

1. the job's wall time at its last run in this repository (<git common dir>/execlease/timings.json,
   beside the result cache, written after every run; keyed by model folder, kind and name);
2. else its recorded states: a check's `states` in manifest.json, a mutation or finding those
   of the check with the same cfg, else the largest count recorded (shard.weight), at
   STATES_PER_SECOND after a JVM start of JVM_START seconds. A trace job or a code mutation
   (a pool task, trace_stage.py; kind `traces` or `code-mutation`) with no last time weighs
   as the largest count recorded: work of unknown length starts early.

Ties keep checks before findings before mutations, then the plan's order. The order changes
only when jobs start, never a verdict.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

from execlease_hook.core.atomic import write_text_atomic
from execlease_hook.manifest.model import Manifest
from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.kinds import KINDS
from execlease_hook.verify import shard
from execlease_hook.verify.plan import shown_path

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
    return last if last is not None else JVM_START + shard.weight(m, job) / STATES_PER_SECOND


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

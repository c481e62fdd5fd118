"""A TLC job judged: its verdict, whether it came from the cache, the outcome (core/outcomes) and the
message a person acts on. Every job kind's result has this shape (checks, mutations, findings,
trace jobs, code mutations, the deep tier's runs)."""

from __future__ import annotations

from dataclasses import dataclass

from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.output import Verdict


@dataclass(frozen=True)
class JobResult:
    job: TlcJob
    verdict: Verdict | None  # None: the job could not even be started (e.g. a bad anchor)
    cached: bool
    outcome: str  # HELD | DID_NOT_HOLD | COULD_NOT_RUN
    message: str  # what held or did not, in words a person acts on
    show_trace: bool = False

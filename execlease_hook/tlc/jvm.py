"""The JVM a TLC job runs in: JIT flags by the job's size and the class-data archive
(docs/architecture.md#the-jvm-of-a-tlc-job).

A mutation or a finding stops at its first counterexample, a few thousand states at most: for
those the C2 compiler costs more than it earns (it compiles on a second core while the job is
already ending), so they run with C1 only (`-XX:TieredStopAtLevel=1`). A check or a trace job
explores everything and keeps the full JIT. `EXECLEASE_JVM_TUNING=0` runs every job exactly as
`TlcJob.argv` says (no archive, no JIT flags).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from execlease_hook.core.settings import Settings
from execlease_hook.tlc import cds
from execlease_hook.tlc.cds import Plan
from execlease_hook.tlc.kinds import KINDS

C1_ONLY = '-XX:TieredStopAtLevel=1'


def jit_flags(kind: str) -> tuple[str, ...]:
    known = KINDS.get(kind)
    return (C1_ONLY,) if known is not None and known.short else ()


@dataclass(frozen=True)
class Launch:
    flags: tuple[str, ...]  # JVM flags of execlease's own, inserted after the java binary
    cds: Plan  # its `finish` must be called with the JVM's exit code

    def argv(self, argv: tuple[str, ...]) -> tuple[str, ...]:
        return (argv[0], *self.flags, *argv[1:])


PLAIN = Launch((), cds.NO_ARCHIVE)


def prepare(kind: str, java: Path, jar: Path, settings: Settings) -> Launch:
    """The flags of one job's JVM: C1 only for a short job, and the class-data plan."""
    if not settings.jvm_tuning:
        return PLAIN
    archive = cds.plan(java, jar, settings)
    return Launch((*jit_flags(kind), *archive.flags), archive)


def without_archive(kind: str, settings: Settings) -> Launch:
    """The job's JVM as `prepare` makes it, but neither using nor building the archive."""
    return Launch(jit_flags(kind) if settings.jvm_tuning else (), cds.NO_ARCHIVE)

"""Every kind of job `execlease verify` runs, one row each: the one place a job kind is
described. A new kind is one row here (and the module that plans and runs it); nothing else
matches kind strings. A short kind ends at its first counterexample, so C2's compile on a second
core costs more than it earns: its JVM runs C1 only (`jit_flags`).
"""

from __future__ import annotations

from dataclasses import dataclass

PASS = 'pass'  # TLC must find no error
VIOLATION = 'violation'  # TLC must violate the job's named property (`TlcJob.expect`)
TRACES = 'traces'  # judged by trace validation (traces/), not by a TLC verdict alone


@dataclass(frozen=True)
class Kind:
    name: str  # TlcJob.kind: the first word of a job's label (`check main`)
    expects: str  # PASS, VIOLATION or TRACES
    short: bool = False  # ends at its first counterexample: C1 only
    order: int = 3  # among jobs of equal cost, lower starts first (verify/pool.py)
    records_states: bool = False  # counts the model's states for the manifest
    anchored: bool = False  # runs the spec changed at an anchor (the report points at it)
    summary: bool = False  # its message is worth showing when it held (what the traces exercised)
    failed_rule: str = 'job-failed'  # did not hold: TLC found an error, or (VIOLATION) passed
    wrong_rule: str = 'job-failed'  # VIOLATION: violated another property
    no_longer: str = ''  # VIOLATION: the message when TLC passed ({name})
    still: str = ''  # VIOLATION: the words when it held (`still fails`)


KINDS = {
    k.name: k
    for k in (
        Kind('check', PASS, order=0, records_states=True, failed_rule='check-failed'),
        Kind(
            'finding',
            VIOLATION,
            short=True,
            order=1,
            failed_rule='finding-gone',
            wrong_rule='finding-wrong-property',
            still='still reproduces',
            no_longer='{name} no longer reproduces: move its config into checks in manifest.json and update NOTES.md',
        ),
        Kind(
            'mutation',
            VIOLATION,
            short=True,
            order=2,
            anchored=True,
            failed_rule='mutation-escaped',
            wrong_rule='mutation-wrong-property',
            still='still fails',
            no_longer=(
                'mutation {name} no longer fails: the check has lost the ability to catch it; '
                'fix the model before anything else'
            ),
        ),
        Kind('traces', TRACES, summary=True),
        Kind('code-mutation', TRACES),
    )
}


C1_ONLY = '-XX:TieredStopAtLevel=1'


def jit_flags(kind: str) -> tuple[str, ...]:
    """The JIT flags of a job's JVM (a check or a trace job explores everything: the full JIT)."""
    known = KINDS.get(kind)
    return (C1_ONLY,) if known is not None and known.short else ()


def kind_of(name: str) -> Kind:
    if (found := KINDS.get(name)) is None:
        raise ValueError(f'unknown job kind {name!r} (known: {", ".join(KINDS)})')
    return found

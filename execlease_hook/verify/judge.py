"""A TLC verdict judged against what its job expects: a check must pass, a mutation must still
fail on its named property, a finding must still reproduce (verify/violations.py says whether a
violation is the named one)."""

from __future__ import annotations

from execlease_hook.core.outcomes import COULD_NOT_RUN, DID_NOT_HOLD, HELD
from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.kinds import PASS, kind_of
from execlease_hook.tlc.output import Verdict
from execlease_hook.tlc.result import JobResult
from execlease_hook.verify import violations


def judge(job: TlcJob, verdict: Verdict, cached: bool) -> JobResult:
    kind = kind_of(job.kind)
    label = f'{kind.name} {job.name}'

    def result(outcome: str, message: str, show_trace: bool = False) -> JobResult:
        return JobResult(job, verdict, cached, outcome, message, show_trace)

    if verdict.outcome == 'error':
        return result(
            COULD_NOT_RUN,
            f'{label} ({job.config}): TLC error: {verdict.reason}',
        )
    if kind.expects == PASS:
        if verdict.outcome == 'passed':
            return result(HELD, f'{label} passed')
        return result(
            DID_NOT_HOLD,
            f'{label} ({job.config}) failed: {verdict.describe()}; a real bug or a modelling error: '
            'walk its counterexample (printed above) step by step against the cited code',
            show_trace=True,
        )
    assert job.expect is not None
    if verdict.outcome == 'passed':
        return result(DID_NOT_HOLD, kind.no_longer.format(name=job.name))
    if verdict.kind == 'property' and verdict.property is None:
        return result(
            COULD_NOT_RUN,
            f'{label}: TLC reported a temporal property violation without naming it, and one TLC '
            f'run per PROPERTY entry of {job.config} did not single it out; give it a cfg whose '
            f'only PROPERTY is {job.expect}',
            show_trace=True,
        )

    if violations.matches(job, verdict, job.expect):
        return result(HELD, f'{label} {kind.still} on {job.expect}')
    return result(
        DID_NOT_HOLD,
        WRONG_REASON.format(what=label, expected=job.expect, got=violations.got(verdict)),
        show_trace=True,
    )


WRONG_REASON = '{what} fails for the wrong reason: expected {expected}, got {got}'

"""What a violation is called, whether it is the one a mutation or finding names, and a TLC
verdict judged against what its job expects (`judge`): a check must pass, a mutation must still
fail on its named property, a finding must still reproduce.

A manifest's `violates` names one kind of outcome, each listed in
docs/manifest.md#what-violates-names. TLC names an invariant and an action property; it does not
name an assumption (only its location) nor a temporal property. `refine` reads the assumption's name
and expression from the spec, and names a temporal property, when the cfg lists several, by running
TLC again once per property (each run alone says whether that property fails; the runs are cached
like any job).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from execlease_hook.core.outcomes import COULD_NOT_RUN, DID_NOT_HOLD, HELD
from execlease_hook.manifest.model import Manifest
from execlease_hook.spec import cfg
from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.kinds import PASS, kind_of
from execlease_hook.tlc.output import Verdict, location_text, parse_location
from execlease_hook.tlc.result import JobResult

_ASSUME_NAME = re.compile(r'\b(?:ASSUME|ASSUMPTION|AXIOM)\s+(\w+)\s*==\s*$')


def _span(job: TlcJob, where: tuple[int, int, int, int, str] | None) -> tuple[str, str] | None:
    """(the text before the span on its first line, the span) of TLC's location `where` (1-based,
    inclusive positions, parse_location) in the job's modules; None when it is not in them."""
    if where is None:
        return None
    line, col, end_line, end_col, module = where
    texts = ((Path(job.spec).name, job.spec_text), *job.modules)
    text = next((t for name, t in texts if Path(name).stem == module), None)
    lines = [] if text is None else text.decode('utf-8', 'replace').splitlines()
    if not (1 <= line <= end_line <= len(lines)):
        return None
    if line == end_line:
        return lines[line - 1][: col - 1], lines[line - 1][col - 1 : end_col]
    body = [lines[line - 1][col - 1 :], *lines[line : end_line - 1], lines[end_line - 1][:end_col]]
    return lines[line - 1][: col - 1], '\n'.join(body)


def assumption(job: TlcJob, verdict: Verdict) -> Verdict:
    """An assumption's verdict with `property` its name (a named ASSUME) or its expression, and
    `location` TLC's text; as it was when the location is not in the job's modules."""
    where = parse_location(verdict.property or '')
    found = _span(job, where)
    if found is None or where is None:
        return verdict
    before, expression = found
    named = _ASSUME_NAME.search(before)
    return dataclasses.replace(
        verdict,
        property=named.group(1) if named else ' '.join(expression.split()),
        location=location_text(*where),
    )


def _same_place(a: str, b: str | None) -> bool:
    left, right = parse_location(a), parse_location(b or '')
    return left is not None and left == right


def matches(job: TlcJob, verdict: Verdict, expected: str) -> bool:
    if expected.lower() == 'deadlock' or verdict.kind == 'deadlock':
        return expected.lower() == 'deadlock' and verdict.kind == 'deadlock'
    if verdict.kind == 'assert' or expected == 'assert' or expected.startswith('assert:'):
        if verdict.kind != 'assert' or not (expected == 'assert' or expected.startswith('assert:')):
            return False
        wanted = expected.partition(':')[2].strip()
        return not wanted or wanted == verdict.property or _same_place(wanted, verdict.location)
    if verdict.kind == 'assumption':  # its name, its place, or its expression (spaces aside)
        found = _span(job, parse_location(verdict.location or ''))
        return (
            expected == verdict.property
            or _same_place(expected, verdict.location)
            or (found is not None and ' '.join(expected.split()) == ' '.join(found[1].split()))
        )
    return verdict.property is not None and expected in verdict.property.split(', ')


def got(verdict: Verdict) -> str:
    if verdict.kind == 'deadlock':
        return 'deadlock'
    if verdict.kind == 'assert':
        at = f' (at {verdict.location})' if verdict.location else ''
        return f'assert: {verdict.property}{at}'
    return f'{verdict.property} ({verdict.kind})'


def name_temporal(job: TlcJob, verdict: Verdict, run: Callable[[TlcJob], Verdict]) -> Verdict:
    """A temporal violation TLC did not name, named by one TLC run per listed property; every
    property whose run fails is named ('P, Q'). As it was if the runs do not agree with it."""
    listed = list(dict.fromkeys(cfg.names(job.config_text, cfg.PROPERTY_KEYWORDS)))
    if len(listed) < 2:
        return verdict
    failing = []
    for name in listed:
        alone = dataclasses.replace(job, config_text=cfg.only_property(job.config_text, name))
        sub = run(alone)
        if sub.outcome == 'error':
            return verdict
        if sub.outcome == 'violated' and sub.kind == 'property':
            failing.append(name)
    if not failing:
        return verdict
    return dataclasses.replace(verdict, property=', '.join(failing))


def refine(job: TlcJob, verdict: Verdict, run: Callable[[TlcJob], Verdict]) -> Verdict:
    """The verdict with the names TLC leaves out filled in (see the module's docstring)."""
    if verdict.outcome != 'violated':
        return verdict
    if verdict.kind == 'assumption':
        return assumption(job, verdict)
    if verdict.kind == 'property' and verdict.property is None:
        return name_temporal(job, verdict, run)
    return verdict


def judge(job: TlcJob, verdict: Verdict, cached: bool) -> JobResult:
    kind = kind_of(job.kind)
    label = f'{kind.name} {job.name}'

    def result(outcome: str, message: str, show_trace: bool = False) -> JobResult:
        return JobResult(job, verdict, cached, outcome, message, show_trace)

    if verdict.outcome == 'error':
        return result(COULD_NOT_RUN, f'{label} ({job.config}): TLC error: {verdict.reason}')
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
    if matches(job, verdict, job.expect):
        return result(HELD, f'{label} {kind.still} on {job.expect}')
    return result(
        DID_NOT_HOLD,
        f'{label} fails for the wrong reason: expected {job.expect}, got {got(verdict)}',
        show_trace=True,
    )


MIGRATION = (
    'deadlock checking follows TLC now: on, unless the cfg says CHECK_DEADLOCK FALSE or the manifest '
    'entry "deadlock": false (an earlier execlease ran every job with -deadlock, so this model had no deadlock '
    'checked before). A deadlock with neither: {jobs}. If the model is meant to stop (every process '
    'done), add CHECK_DEADLOCK FALSE to the cfg or "deadlock": false to the entry; otherwise it is a '
    'real deadlock: record it as a finding ("violates": "deadlock") or fix the model'
)


def deadlock_default_note(m: Manifest, jobs: Sequence[JobResult]) -> str | None:
    """One note for the jobs that reached a deadlock only because checking it is now the default
    (no `deadlock` key, no CHECK_DEADLOCK): what changed and what to write."""
    entries: dict[tuple[str, str], bool | None] = {
        **{('check', c.name): c.deadlock for c in m.checks},
        **{('mutation', mu.name): mu.deadlock for mu in m.mutations},
        **{('finding', f.id): f.deadlock for f in m.findings},
    }
    names = []
    for j in jobs:
        key = (j.job.kind, j.job.name)
        if (
            j.verdict is None
            or j.verdict.kind != 'deadlock'
            or key not in entries
            or entries[key] is not None
            or (j.job.expect or '').lower() == 'deadlock'
        ):
            continue
        try:
            said = cfg.check_deadlock((m.folder / j.job.config).read_bytes(), j.job.config)
        except (OSError, cfg.CfgProblem):
            continue
        if said is None:
            names.append(f'{j.job.kind} {j.job.name} ({j.job.config})')
    return MIGRATION.format(jobs=', '.join(names)) if names else None

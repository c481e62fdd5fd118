"""Words for trace validation results: accepted, rejected at line N, caught, unreached actions.

A rejection names the trace and the line no step of the model matches, the event as logged,
the code that emitted it (the line's `where`), the model action it claims to be with where the
spec defines it and the covered code that implements it, and the last matched state. TLC does
not say which conjunct of the action failed (a trace spec step is one action: it either has a
successor or not); the logged line and the last matched state side by side show it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from execlease_hook.coverage.compare import EntryStatus, code_for
from execlease_hook.manifest.model import CodeMutation, Manifest, TraceJob
from execlease_hook.spec.record import in_worktree
from execlease_hook.traces.validation import LINE_VAR, TRACE_VAR, TraceRun, TraceVerdict


def counts_text(counts: Mapping[str, int]) -> str:
    return ', '.join(f'{action} {n:,}' for action, n in sorted(counts.items()))


def accepted(name: str, run: TraceRun) -> str:
    v = run.verdict
    tlc = '' if run.tlc is None else f', TLC {run.tlc.seconds:.1f} s of it'
    return (
        f'trace job {name}: {v.traces:,} traces, {v.lines:,} lines accepted '
        f'({run.seconds:.1f} s{tlc}); lines per action: {counts_text(run.counts)}'
    )


UNUSED_SHOWN = 10


def unused_text(unused: Sequence[str]) -> str:
    """The fields of trace lines left out of TLA+ (traces/module.py), each named by trace, line and
    field; empty when none was."""
    if not unused:
        return ''
    more = len(unused) - UNUSED_SHOWN
    lines = ''.join(f'\n      {u}' for u in unused[:UNUSED_SHOWN])
    return (
        f'\n    {len(unused):,} fields of trace lines have no TLA+ form and were left out (list a '
        f'field under the job\'s "fields": {{"drop": [...]}} to leave it out on purpose):{lines}'
        + (f'\n      ... and {more:,} more' if more > 0 else '')
    )


def rejected(
    m: Manifest, job: TraceJob, v: TraceVerdict, statuses: Sequence[EntryStatus], said: str = ''
) -> str:
    assert v.rejection is not None
    r = v.rejection
    event = r.event or {}
    action = str(event.get('action', '?'))
    # Where the model defines the action: the spec or a module it EXTENDS or INSTANCEs.
    view = in_worktree(m)
    unit = None if view is None else view.definition(action)
    spec = (
        '(not defined in the spec nor a module it reads)'
        if unit is None
        else f'{unit.file or m.spec}:{unit.start_line}-{unit.end_line}'
    )
    lines = [
        f'trace job {job.name}: the code did something the model does not allow: '
        f'trace {r.trace} is rejected at line {r.line}: {r.kind}',
        f'    event: {"none (past the last line)" if r.event is None else json.dumps(r.event)}',
        f'    emitted by: {event.get("where", "(the line has no where)")}',
        f'    model action: {action} (spec: {spec})',
    ]
    lines += [f'    code: {c}' for c in code_for(action, statuses)]
    matched = (
        'no line matched'
        if r.line <= 1
        else 'line 1 matched'
        if r.line == 2
        else f'lines 1-{r.line - 1} matched'
    )
    lines.append(f'    last state reached ({matched}; TLC does not name the failing conjunct):')
    for name, value in r.state:
        if name in (TRACE_VAR, LINE_VAR):
            continue
        lines.append(f'      {name} = ' + value.replace('\n', '\n' + ' ' * (9 + len(name))))
    if said:
        lines.append('    the trace command said (replay it with the same settings):')
        lines += [f'      | {line}' for line in said.splitlines()]
    lines.append(
        '    If the code is right, the model is missing this step: change the model (then '
        'execlease verify); if not, fix the code.'
    )
    return '\n'.join(lines)


def caught(mutation: CodeMutation, job: TraceJob, v: TraceVerdict) -> str:
    assert v.rejection is not None
    r = v.rejection
    event = r.event or {}
    return (
        f'code mutation {mutation.name} ({mutation.path}) is caught: trace job {job.name} rejects '
        f'{r.trace} at line {r.line} ({event.get("action", "?")} by {event.get("run", "?")}, '
        f'{event.get("where", "?")}): {r.kind}'
    )


def not_caught(mutation: CodeMutation, jobs: Sequence[str]) -> str:
    return (
        f'code mutation {mutation.name} is not caught: trace job{"s" if len(jobs) > 1 else ""} '
        f'{", ".join(jobs)} accept{"" if len(jobs) > 1 else "s"} the code with {mutation.path} broken; '
        'the traces no longer check that guard: make a trace reach it (a scenario) before anything else'
    )


def unreached(m: Manifest, counts: Mapping[str, int]) -> list[str]:
    """Every action the covered code implements must be the action of some trace line, but those
    `coverage.untraced` exempts."""
    exempt = {u.action for u in m.coverage.untraced}
    actions = sorted({e.action for e in m.coverage.entries} - exempt)
    return [
        f'no trace line exercises action {a} (covered by '
        f'{", ".join(e.id for e in m.coverage.entries if e.action == a)}): add a trace (a scenario) '
        'in which the code does it, or exempt it with a reason under coverage.untraced'
        for a in actions
        if counts.get(a, 0) == 0
    ]


def untraced_text(m: Manifest) -> str:
    """The exempted actions, each with its reason: shown with every action coverage verdict."""
    if not m.coverage.untraced:
        return ''
    return '\n    exempted from trace action coverage (coverage.untraced):' + ''.join(
        f'\n      {u.action}: {u.reason}' for u in m.coverage.untraced
    )


def reached_exemptions(m: Manifest, counts: Mapping[str, int]) -> list[str]:
    """A note per exemption the traces now reach: it can go."""
    return [
        f'trace action coverage: {u.action} is exempted (coverage.untraced: {u.reason}), but the '
        f'traces now reach it ({counts[u.action]:,} lines); remove the exemption so that it stays reached'
        for u in m.coverage.untraced
        if counts.get(u.action, 0) > 0
    ]

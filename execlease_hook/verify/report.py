"""Human output of the suite: the job table, counterexamples mapped to code, and JSON.

A counterexample is printed step by step: the action as TLC names it, the covered code that
implements it (path:line of every manifest entry whose `action` matches, located afresh in the
working tree), and only the variables that changed in that step.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from execlease_hook.core import table
from execlease_hook.coverage.compare import EntryStatus, code_for
from execlease_hook.tlc.output import PRINTED_KEPT, TraceStep, Verdict, parse_location
from execlease_hook.tlc.result import JobResult


def _verdict_cell(result: JobResult) -> str:
    v = result.verdict
    if v is None:
        return 'not run'
    if v.outcome != 'violated':
        return v.outcome  # 'passed' or 'error'
    if v.kind == 'deadlock':
        return 'violated deadlock'
    return f'violated {v.property or "(unnamed " + str(v.kind) + ")"}'


def summary_table(results: Sequence[JobResult], width: int | None = None) -> list[str]:
    """One row per job. Within `width` (the terminal's, less the indent): the verdict column is
    left out first (what a failed job got is in its DID NOT HOLD line), then names are clipped."""
    columns = (
        table.Column('kind'),
        table.Column('name', clip=table.keep_ends, least=12),
        table.Column('verdict', clip=table.keep_start, least=12, optional=True),
        table.Column('result'),
        table.Column('distinct', right=True),
        table.Column('seconds', right=True),
        table.Column('cached', right=True),
    )
    rows = []
    for r in results:
        v = r.verdict
        rows.append(
            (
                r.job.kind,
                r.job.name,
                _verdict_cell(r),
                r.outcome,
                '-' if v is None or v.distinct is None else f'{v.distinct:,}',
                '-' if v is None else f'{v.seconds:.1f}',
                'yes' if r.cached else 'no',
            )
        )
    kept, cells = table.layout(columns, rows, width if width is not None else 10**6)
    lines = table.render(kept, cells)
    if len(kept) < len(columns):
        lines.append("(no verdict column: cut to the terminal's width; COLUMNS=N widens it)")
    return lines


def action_name(step: TraceStep) -> str:
    """TLC may print an action with its parameters (`Claim(w)`); the manifest names `Claim`."""
    return step.action.split('(', 1)[0].strip()


def changes(trace: Sequence[TraceStep]) -> Iterator[tuple[TraceStep, list[tuple[str, str]]]]:
    """Each step and the variables it changed (a step without variables, such as a loop back,
    leaves the state compared against as it was)."""
    previous: dict[str, str] = {}
    for step in trace:
        yield step, [(n, v) for n, v in step.variables if previous.get(n) != v]
        previous = dict(step.variables) or previous


def counterexample(
    verdict: Verdict,
    statuses: Sequence[EntryStatus],
    abstract: Mapping[str, str] | None = None,
) -> list[str]:
    """`abstract`: the manifest's abstract actions and why no code implements them."""
    lines = [f'  counterexample ({verdict.violation()}), {len(verdict.trace)} steps:']
    for step, changed in changes(verdict.trace):
        if step.action == 'Stuttering':
            lines.append(f'  {step.number}. Stuttering: from here on nothing changes forever')
            continue
        loops = (
            '' if step.back_to is None else f': back to state {step.back_to} (the behaviour loops)'
        )
        lines.append(f'  {step.number}. {step.action}{loops}')
        # 'line 79, col 1 to line 90, col 30 of module M' -> 'M.tla:79-90': where TLC took the step.
        where = parse_location(step.location)
        if where is not None:
            start, _, end, _, module = where
            lines.append(f'       spec: {module}.tla:{start}' + ('' if start == end else f'-{end}'))
        if step.action != 'Initial predicate':
            cited = code_for(action_name(step), statuses)
            lines += [f'       code: {c}' for c in cited]
            reason = (abstract or {}).get(action_name(step))
            if not cited and step.back_to is None:
                lines.append(
                    f'       code: (abstract: {reason})'
                    if reason
                    else '       code: (no covered entry names this action)'
                )
        for name, value in changed:
            label = f'       {name} = '
            lines.append(label + value.replace('\n', '\n' + ' ' * len(label)))
        if step.variables and not changed:
            lines.append('       (no variable changed)')
    return lines


def spec_output(jobs: Sequence[JobResult], shown: int) -> list[str]:
    """What the spec printed (Print, PrintT), apart from the verdicts: once per distinct output,
    naming the jobs that printed it, each line as TLC wrote it (`shown` of them at most)."""
    groups: dict[tuple[str, ...], list[JobResult]] = {}
    for j in jobs:
        if j.verdict is not None and j.verdict.printed_total:
            groups.setdefault(j.verdict.printed, []).append(j)
    lines: list[str] = []
    for printed, group in groups.items():
        total = max(j.verdict.printed_total for j in group if j.verdict is not None)
        names = ', '.join(f'{j.job.kind} {j.job.name}' for j in group[:3])
        if len(group) > 3:
            names += f' and {len(group) - 3} more jobs'
        head = (
            f'printed by the spec ({names}; {total} line{"" if total == 1 else "s"}, '
            "its Print/PrintT output, not TLC's: no verdict is read from it):"
        )
        lines += ['', head]
        lines += [f'  > {line}' for line in printed[:shown]]
        if total > min(shown, len(printed)):
            more = total - min(shown, len(printed))
            lines.append(
                f'  > ... {more} more line{"" if more == 1 else "s"}'
                + (f' (-v shows the first {PRINTED_KEPT})' if shown < len(printed) else '')
            )
    return lines


def error_details(verdict: Verdict) -> list[str]:
    lines = [f'  {verdict.reason}']
    if verdict.last_lines:
        lines.append('  last lines of TLC output:')
        lines += [f'    | {line}' for line in verdict.last_lines[-15:]]
    return lines


def result_json(result: JobResult) -> dict[str, Any]:
    return {
        'kind': result.job.kind,
        'name': result.job.name,
        'config': result.job.config,
        'expect': result.job.expect,
        'outcome': result.outcome,
        'message': result.message,
        'cached': result.cached,
        'verdict': None if result.verdict is None else result.verdict.to_json(),
    }


def entry_json(status: EntryStatus) -> dict[str, Any]:
    return {
        'id': status.entry.id,
        'path': status.entry.path,
        'line': None if status.located is None else status.located.start_line,
        'action': status.entry.action,
        'status': status.status,
        'recorded': status.entry.hash,
        'current': status.current,
        'problem': status.problem,
    }

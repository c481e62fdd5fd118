"""The human text of `execlease verify`: each model's job table, counterexamples, errors, notes
and verdict lines on stdout; a line per finished job on stderr.

A counterexample is printed step by step: the action as TLC names it, the covered code that
implements it (path:line of every manifest entry whose `action` matches, located afresh in the
working tree), and only the variables that changed in that step.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from execlease_hook.core import paths, table, term
from execlease_hook.core.outcomes import COULD_NOT_RUN, HELD
from execlease_hook.coverage.compare import EntryStatus, code_for
from execlease_hook.manifest.model import Manifest
from execlease_hook.spec.action_map import MAP_RULES
from execlease_hook.tlc.kinds import KINDS
from execlease_hook.tlc.output import PRINTED_KEPT, TraceStep, Verdict, parse_location
from execlease_hook.tlc.result import JobResult
from execlease_hook.verify.plan import shown_path
from execlease_hook.verify.result import ModelResult, Refused


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
    rows = [
        (
            r.job.kind,
            r.job.name,
            _verdict_cell(r),
            r.outcome,
            '-' if r.verdict is None or r.verdict.distinct is None else f'{r.verdict.distinct:,}',
            '-' if r.verdict is None else f'{r.verdict.seconds:.1f}',
            'yes' if r.cached else 'no',
        )
        for r in results
    ]
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
    verdict: Verdict, statuses: Sequence[EntryStatus], abstract: Mapping[str, str] | None = None
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


def print_lines(*lines: str) -> None:
    for line in lines:
        print(line, flush=True)


def say(*texts: str) -> None:
    """Each text wrapped to the terminal (term.wrap), a line of its own."""
    print_lines(*map(term.wrap, texts))


def print_model(r: ModelResult, verbosity: int = 0) -> None:
    m = r.manifest
    print_lines('', f'model {shown_path(m, m.folder)}:')
    if m.tools is not None and r.tools is not None and verbosity >= 0:
        used = r.tools.jar
        least = f'; at least TLC {m.tools.min_tlc}' if m.tools.min_tlc else ''
        say(
            f"  TLA+ tools (the manifest's): {used.tlc_version}, sha256 {used.sha256[:16]}... ({used.source}){least}"
        )
    if m.libraries and verbosity >= 0:
        say(
            '  libraries: '
            + ', '.join(
                f'{lib.folder} (folder)'
                if lib.folder is not None
                else f'{lib.label} (jar, sha256 {(lib.sha256 or "")[:16]}...)'
                for lib in m.libraries
            )
        )
    if verbosity >= 0:
        print_lines(*('  ' + line for line in summary_table(r.jobs, term.width() - 2)))
    if verbosity > 0:
        say(*(f'  {j.message}' for j in r.jobs if j.outcome == HELD))
    if r.coverage:
        counts = Counter(s.status for s in r.coverage)
        print_lines('  coverage: ' + ', '.join(f'{n} {k}' for k, n in sorted(counts.items())))
    if verbosity >= 0:
        say(f'  action map: {MAP_RULES[m.action_map]}')
    # What the accepted traces exercised (lines per action): the trace jobs' own summary.
    say(*(f'  {j.message}' for j in r.jobs if KINDS[j.job.kind].summary and j.outcome == HELD))
    if verbosity >= 0:
        printed = spec_output(r.jobs, PRINTED_KEPT if verbosity > 0 else 10)
        # What TLC printed (its `> ` lines) as printed.
        print_lines(*(line if line.startswith('  > ') else term.wrap(line) for line in printed))
    shown: dict[str | None, str] = {}  # error reason -> the job whose details were printed
    for j in r.jobs:
        if j.show_trace and j.verdict is not None and j.verdict.trace:
            print_lines('', f'{j.job.kind} {j.job.name} ({j.job.config}):')
            abstract = {a.action: a.reason for a in r.manifest.coverage.abstract}
            print_lines(*counterexample(j.verdict, r.coverage, abstract))
        elif j.outcome == COULD_NOT_RUN and j.verdict is not None and j.verdict.outcome == 'error':
            # A parse error in the spec fails every job the same way: show its details once.
            label = f'{j.job.kind} {j.job.name}'
            if j.verdict.reason in shown:
                say(
                    f'{label} ({j.job.config}): could not run: the same error as '
                    f'{shown[j.verdict.reason]}'
                )
                continue
            shown[j.verdict.reason] = label
            print_lines('', f'{label} ({j.job.config}): could not run', *error_details(j.verdict))
    say(*(f'note: {note}' for note in r.notes))
    if r.moved:
        print_lines('', f'coverage updated in {m.path.relative_to(m.root).as_posix()}:')
        say(*(f'  {line}' for line in r.moved))
    say(*(f'DID NOT HOLD: {f}' for f in r.failures))
    say(*(f'COULD NOT RUN: {p}' for p in r.problems))


def print_refused(r: Refused) -> None:
    print_lines(
        '', f'model {paths.rel(r.root, r.path.parent)}:', term.wrap(f'COULD NOT RUN: {r.message}')
    )


def progress_of(
    m: Manifest, several: bool, verbosity: int, live: Any = None
) -> Callable[[JobResult], None]:
    """The progress line of one model's jobs; named by the model folder when the pool holds
    several models' jobs at once."""
    if verbosity < 0:
        return lambda r: None
    model = f'{shown_path(m, m.folder)}: ' if several else ''

    def progress(result: JobResult) -> None:
        # Progress goes to stderr as each job ends (and, while jobs run, verify/live.py's live
        # lines, which `live` clears first), so a long run shows it is alive.
        seconds = '-' if result.verdict is None else f'{result.verdict.seconds:.1f} s'
        cached = ', cached' if result.cached else ''
        line = term.wrap(
            f'  {model}{result.job.kind} {result.job.name}: {result.outcome} ({seconds}{cached})',
            term.width(sys.stderr),
        )
        if live is not None:
            live.print(line)
        else:
            print(line, file=sys.stderr, flush=True)

    return progress

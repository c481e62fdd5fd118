"""The human text of `execlease verify`: each model's job table, counterexamples, errors, notes
and verdict lines on stdout; a line per finished job on stderr."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from execlease_hook.core import paths, term
from execlease_hook.core.outcomes import COULD_NOT_RUN, HELD
from execlease_hook.manifest.model import Manifest
from execlease_hook.spec.action_map import MAP_RULES
from execlease_hook.tlc.kinds import KINDS
from execlease_hook.tlc.result import JobResult
from execlease_hook.verify import report
from execlease_hook.verify.plan import shown_path
from execlease_hook.verify.result import ModelResult, Refused


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
        print_lines(*('  ' + line for line in report.summary_table(r.jobs, term.width() - 2)))
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
        printed = report.spec_output(r.jobs, report.PRINTED_KEPT if verbosity > 0 else 10)
        # What TLC printed (its `> ` lines) as printed.
        print_lines(*(line if line.startswith('  > ') else term.wrap(line) for line in printed))
    shown: dict[str | None, str] = {}  # error reason -> the job whose details were printed
    for j in r.jobs:
        if j.show_trace and j.verdict is not None and j.verdict.trace:
            print_lines('', f'{j.job.kind} {j.job.name} ({j.job.config}):')
            abstract = {a.action: a.reason for a in r.manifest.coverage.abstract}
            print_lines(*report.counterexample(j.verdict, r.coverage, abstract))
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
            print_lines('', f'{label} ({j.job.config}): could not run')
            print_lines(*report.error_details(j.verdict))
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

"""Results of verify, guard and coverage -> `Report` items with locations in code and spec.

Job kinds are handled generically: any kind the suite runs becomes an item; checks, mutations
and findings get rules of their own, any other kind 'job-failed'.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from execlease_hook.core import paths
from execlease_hook.core.outcomes import COULD_NOT_RUN, HELD
from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.coverage.items import (
    definition_line,
    entry_item,
    entry_location,
    in_model,
    line_of,
    model_folder,
    problem_items,
    spec_text,
)
from execlease_hook.formats.report import Item, Location, Report
from execlease_hook.manifest.model import Manifest
from execlease_hook.tlc.kinds import KINDS, VIOLATION
from execlease_hook.tlc.output import Verdict, parse_location
from execlease_hook.tlc.result import JobResult
from execlease_hook.verify import show
from execlease_hook.verify.result import Refused

_NO_CODE = ('Initial predicate', 'Stuttering')  # steps that no covered code implements
_TLC_LOCATION = re.compile(r'line (\d+), col (\d+) to line (\d+), col (\d+) of module (\w+)')
_PARSE_AT = re.compile(r'at line (\d+), column \d+')
_PARSE_MODULE = re.compile(r'(?:In module|in file|from file) (\w+)')
# A TLC error's category by the words of its reason. First: a stack overflow's reason quotes what
# TLC was doing, which may name SANY or a parse (the words of the categories below).
_CATEGORIES = (
    ('stack', ('stackoverflowerror',)),
    ('parse', ('parse error', 'semantic error', 'sany')),
    ('timeout', ('timed out',)),
    ('memory', ('memory', 'heap space')),
    ('killed', ('killed by signal',)),
    ('java', ('could not start java',)),
    ('refused', ('refuse',)),
)


def tlc_locations(m: Manifest, verdict: Verdict) -> list[Location]:
    """Where SANY or TLC points, from its message and last lines: module M -> M.tla of the model."""
    texts = (verdict.reason or '', *verdict.last_lines)
    found = [
        Location(in_model(m, f'{module}.tla'), int(start), int(end), 'spec')
        for text in texts
        for start, _, end, _, module in _TLC_LOCATION.findall(text)
    ]
    # A parse error: 'Encountered "<<" at line 13, column 10 ... In module Counter'.
    module = next(
        (match.group(1) for text in texts for match in [_PARSE_MODULE.search(text)] if match),
        Path(m.spec).stem,
    )
    parse = in_model(m, f'{module}.tla')
    found += [Location(parse, int(n), int(n), 'spec') for t in texts for n in _PARSE_AT.findall(t)]
    return list(dict.fromkeys(found))


def tlc_error(m: Manifest, verdict: Verdict) -> dict[str, Any]:
    reason = verdict.reason or ''
    lowered = reason.lower()
    category = next(
        (name for name, words in _CATEGORIES if any(w in lowered for w in words)), 'tlc'
    )
    return {
        'category': category,
        'message': reason,
        'exitCode': verdict.exit_code,
        'locations': [loc.to_json() for loc in tlc_locations(m, verdict)],
    }


def counterexample(
    m: Manifest, verdict: Verdict, statuses: Sequence[EntryStatus]
) -> list[dict[str, Any]]:
    """Each step with where the spec defines it and the covered code that implements it."""
    steps = []
    for step, changed in show.changes(verdict.trace):
        where = parse_location(step.location)
        spec = None
        if where is not None:
            spec = Location(in_model(m, f'{where[4]}.tla'), where[0], where[2], 'spec').to_json()
        action = None if step.action in _NO_CODE else show.action_name(step)
        code = [
            {'entry': s.entry.id, **entry_location(s).to_json()}
            for s in statuses
            if s.entry.action == action
        ]
        steps.append(
            {
                'number': step.number,
                'action': step.action,
                'backTo': step.back_to,
                'spec': spec,
                'code': code,
                'changed': dict(changed),
            }
        )
    return steps


def _job_rule(r: JobResult) -> str:
    if r.outcome == HELD:
        return f'{r.job.kind}-held'
    if r.outcome == COULD_NOT_RUN:
        return 'job-not-run' if r.verdict is None else 'tlc-error'
    kind = KINDS.get(r.job.kind)
    if kind is None:
        return 'job-failed'
    escaped = r.verdict is not None and r.verdict.outcome == 'passed'
    return kind.failed_rule if escaped or kind.expects != VIOLATION else kind.wrong_rule


def job_item(m: Manifest, r: JobResult, statuses: Sequence[EntryStatus]) -> Item:
    locations: list[Location] = []
    v = r.verdict
    mutation = (
        next((mu for mu in m.mutations if mu.name == r.job.name), None)
        if KINDS[r.job.kind].anchored
        else None
    )
    if mutation is not None:
        edited = mutation.module or m.spec
        line = line_of(spec_text(m, edited), mutation.replace.start)
        if line is not None:
            end = line + mutation.replace.start.count('\n')
            locations.append(Location(in_model(m, edited), line, end, 'spec'))
    if v is not None and v.outcome == 'error':
        locations.extend(tlc_locations(m, v))
    if v is not None and v.outcome == 'violated' and v.property:
        where = definition_line(m, v.property)
        if where is not None:
            locations.append(where)
    if v is not None and v.trace and r.outcome != HELD:
        last = next((s for s in reversed(v.trace) if s.action != 'Stuttering'), None)
        if last is not None:
            action = show.action_name(last)
            locations.extend(entry_location(s) for s in statuses if s.entry.action == action)
    locations.append(Location(in_model(m, r.job.config), None, None, 'config'))
    return Item(
        model_folder(m),
        r.job.kind,
        r.job.name,
        r.outcome,
        _job_rule(r),
        r.message,
        tuple(dict.fromkeys(locations)),
        None if v is None else v.seconds,
    )


def verify_report(
    results: Sequence[Any], details: dict[str, Any], code: int, commit: str | None
) -> Any:
    """The suite's ModelResults and its JSON fields -> a Report: manifest paths made relative to
    the repository, each job with its structured TLC error and located counterexample."""
    items: list[Item] = []
    for r, model in zip(results, details.get('models', [])):
        if isinstance(r, Refused):
            where = paths.rel(r.root, r.path)
            model['manifest'], model['model'] = where, paths.rel(r.root, r.path.parent)
            items.append(
                Item(
                    model['model'],
                    'model',
                    'manifest',
                    COULD_NOT_RUN,
                    'model-refused',
                    r.message,
                    (Location(where, None, None, 'manifest'),),
                )
            )
            continue
        m = r.manifest
        model['manifest'] = paths.rel(m.root, m.path)
        model['model'] = model_folder(m)
        model['plan'] = list(r.plan)
        for job, data in zip(r.jobs, model.get('jobs', [])):
            v = job.verdict
            data['rule'] = _job_rule(job)
            data['error'] = tlc_error(m, v) if v is not None and v.outcome == 'error' else None
            data['counterexample'] = (
                counterexample(m, v, r.coverage) if v is not None and v.trace else None
            )
        items.extend(job_item(m, job, r.coverage) for job in r.jobs)
        items.extend(entry_item(m, s) for s in r.coverage)
        known = [j.message for j in r.jobs] + [s.problem or '' for s in r.coverage]
        items.extend(
            problem_items(m, (p for p in r.problems if not p.startswith('coverage entry ')), known)
        )
    return Report('verify', code, commit, items, details)

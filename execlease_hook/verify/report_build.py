"""Results of verify, guard and coverage -> `Report` items with locations in code and spec; the
JSON details of a verify run (`results_json`: every model, each job with its rule, its TLC error
and its located counterexample).

Job kinds are handled generically: any kind the suite runs becomes an item; checks, mutations
and findings get rules of their own, any other kind 'job-failed'.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from execlease_hook.core import outcomes, paths
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
from execlease_hook.tlc.jar import Tools
from execlease_hook.tlc.kinds import KINDS, VIOLATION
from execlease_hook.tlc.output import Verdict, parse_location
from execlease_hook.tlc.result import JobResult
from execlease_hook.verify import show
from execlease_hook.verify.result import ModelResult, Refused, entry_json

# What a model's JSON lists, in its order (`execlease report merge` joins each over the shards).
LISTS = ('jobs', 'coverage', 'did_not_hold', 'could_not_run', 'notes', 'moved')
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


def _jar_json(root: Path, t: Tools) -> dict[str, Any]:
    return {
        'jar': paths.in_report(root, t.jar.path),
        'sha256': t.jar.sha256,
        'source': t.jar.source,
        'verified': t.jar.verified,
        'tlc_version': t.jar.tlc_version,
    }


def _model_json(root: Path, r: ModelResult | Refused) -> dict[str, Any]:
    """A model's JSON: its manifest and folder relative to the repository it was found in, each
    job with its rule, its structured TLC error and its located counterexample."""
    if isinstance(r, Refused):
        return {
            'manifest': paths.rel(r.root, r.path),
            'exit_code': 2,
            'refused': True,
            **{key: [] for key in LISTS},
            'could_not_run': [r.message],
            'model': paths.rel(r.root, r.path.parent),
        }
    m, pin = r.manifest, r.manifest.tools
    data: dict[str, Any] = {'manifest': paths.rel(m.root, m.path)}
    if pin is not None and r.tools is not None:  # its own TLA+ tools (nothing: the run's)
        data['tools'] = {
            **_jar_json(root, r.tools),
            **({'url': pin.url} if pin.url else {}),
            **({'minTlc': pin.min_tlc} if pin.min_tlc else {}),
        }
    if m.libraries:  # as the manifest pins them
        data['libraries'] = [
            {'folder': lib.folder}
            if lib.folder is not None
            else {'name': lib.label, 'url': lib.url, 'sha256': lib.sha256}
            for lib in m.libraries
        ]
    data.update(exit_code=r.exit_code, actionMap=m.action_map)
    data['jobs'] = [
        {
            'kind': j.job.kind,
            'name': j.job.name,
            'config': j.job.config,
            'expect': j.job.expect,
            'outcome': j.outcome,
            'message': j.message,
            'cached': j.cached,
            'verdict': None if v is None else v.to_json(),
            'rule': _job_rule(j),
            'error': tlc_error(m, v) if v is not None and v.outcome == 'error' else None,
            'counterexample': counterexample(m, v, r.coverage)
            if v is not None and v.trace
            else None,
        }
        for j in r.jobs
        for v in [j.verdict]
    ]
    data['coverage'] = [entry_json(s) for s in r.coverage]
    if r.modules:
        data['modules'] = r.modules
    data.update(did_not_hold=r.failures, could_not_run=r.problems, notes=r.notes, moved=r.moved)
    data.update(model=model_folder(m), plan=list(r.plan))
    return data


def results_json(
    results: Sequence[ModelResult | Refused], t: Tools, code: int, root: Path
) -> dict[str, Any]:
    """The run's details for its reports, every model in the run's order, a refused one too;
    `root`: the repository, which the jar's and Java's paths are named relative to
    (core/paths.in_report)."""
    return {
        'exit_code': code,
        'result': outcomes.RESULT_TEXT[code],
        'tools': _jar_json(root, t),
        'java': {
            'path': paths.in_report(root, t.java.path),
            'major': t.java.major,
            'version': t.java.version_text,
        },
        'models': [_model_json(root, r) for r in results],
    }


def verify_report(
    results: Sequence[ModelResult | Refused], details: dict[str, Any], code: int, commit: str | None
) -> Report:
    """The suite's results -> a Report of an item per job, per covered entry and per problem
    (`details`: results_json's, with what the run was asked)."""
    items: list[Item] = []
    for r in results:
        if isinstance(r, Refused):
            items.append(
                Item(
                    paths.rel(r.root, r.path.parent),
                    'model',
                    'manifest',
                    COULD_NOT_RUN,
                    'model-refused',
                    r.message,
                    (Location(paths.rel(r.root, r.path), None, None, 'manifest'),),
                )
            )
            continue
        m = r.manifest
        items.extend(job_item(m, job, r.coverage) for job in r.jobs)
        items.extend(entry_item(m, s) for s in r.coverage)
        known = [j.message for j in r.jobs] + [s.problem or '' for s in r.coverage]
        items.extend(
            problem_items(m, (p for p in r.problems if not p.startswith('coverage entry ')), known)
        )
    return Report('verify', code, commit, items, details)

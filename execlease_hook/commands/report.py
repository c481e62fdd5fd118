"""`execlease report merge REPORT.json...`: the JSON reports of every shard of one sharded
`execlease verify` (`--shard K/N --json FILE`) combined into one verdict, as if one machine had
run every job.

It refuses (exit 2) to merge reports of different commits or TLA+ tools, a shard missing or
given twice, or reports whose jobs do not add up to the plan; a shard that could not run makes
the merged verdict exit 2, as it would have made an unsharded run.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from execlease_hook.core import term
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.outcomes import RESULT_TEXT, worst
from execlease_hook.core.settings import Settings
from execlease_hook.formats.emit import Outputs
from execlease_hook.formats.report import SCHEMA_VERSION, Item, Location, Report
from execlease_hook.verify.report_build import LISTS


def _read(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding='utf-8'))
    except OSError as e:
        raise CannotRun(f'{path}: cannot read it ({e.strerror})') from None
    except ValueError as e:
        raise CannotRun(f'{path}: not a JSON report ({e})') from None
    if (
        not isinstance(data, dict)
        or data.get('schemaVersion') != SCHEMA_VERSION
        or data.get('command') != 'verify'
    ):
        raise CannotRun(
            f'{path}: not an `execlease verify` JSON report of schemaVersion {SCHEMA_VERSION}'
        )
    return data


def _same(reports: list[tuple[str, dict[str, Any]]], what: str, get: Any) -> Any:
    values = {json.dumps(get(d), sort_keys=True): name for name, d in reports}
    if len(values) > 1:
        shown = '; '.join(f'{name}: {value}' for value, name in values.items())
        raise CannotRun(f'the reports differ in {what} ({shown}); merge the shards of one run')
    return get(reports[0][1])


def _item(data: dict[str, Any]) -> Item:
    where = tuple(
        Location(loc['path'], loc['startLine'], loc['endLine'], loc['role'])
        for loc in data['locations']
    )
    fields = ('model', 'kind', 'name', 'outcome', 'rule', 'message', 'seconds')
    return Item(**{key: data[key] for key in fields}, locations=where)


def merge(reports: list[tuple[str, dict[str, Any]]]) -> Report:
    for name, d in reports:
        if 'error' in d:
            error = f'{name}: the shard did not finish: {d["error"]}'
            return Report('verify', 2, d.get('commit'), error=error)
    commit = _same(reports, 'the commit verified', lambda d: d.get('commit'))
    _same(reports, 'the TLA+ tools', lambda d: (d.get('tools') or {}).get('sha256'))
    _same(reports, '--quick', lambda d: d.get('quick'))
    count = _same(reports, 'the number of shards', lambda d: (d.get('shard') or {}).get('count', 1))
    only = _same(reports, '--only', lambda d: (d.get('shard') or {}).get('only', []))
    seen: dict[int, str] = {}
    for name, d in reports:
        index = (d.get('shard') or {'index': 1})['index']
        if index in seen:
            raise CannotRun(f'{name} and {seen[index]} are both shard {index}/{count}')
        seen[index] = name
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise CannotRun(
            f"shard {', '.join(f'{k}/{count}' for k in missing)} missing: give every shard's report"
        )
    models: dict[str, dict[str, Any]] = {}
    items: list[Item] = []
    for _, d in sorted(reports, key=lambda r: (r[1].get('shard') or {}).get('index', 1)):
        for model in d['models']:
            merged = models.setdefault(
                model['manifest'],
                {
                    'manifest': model['manifest'],
                    'model': model.get('model'),
                    'plan': model.get('plan', []),
                    **{key: [] for key in LISTS},
                },
            )
            if model.get('plan', []) != merged['plan']:
                raise CannotRun(
                    f'{model["manifest"]}: the shards planned different jobs; merge the '
                    'shards of one run (same commit, same options)'
                )
            for key in LISTS:
                merged[key].extend(
                    x for x in model.get(key, []) if x not in merged[key] or key == 'jobs'
                )
        items.extend(_item(i) for i in d.get('items', []))
    for manifest, merged in models.items():
        # Planned TLC jobs: each in exactly one shard. Jobs outside the plan (trace jobs, which
        # need the coverage check) come from shard 1 and follow the planned ones, as unsharded.
        order = {name: i for i, name in enumerate(merged['plan'])}
        names = [f'{j["kind"]}:{j["name"]}' for j in merged['jobs']]
        planned = [n for n in names if n in order]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if sorted(planned) != sorted(merged['plan']) or doubled:
            lost = sorted(set(merged['plan']) - set(planned)) or doubled
            raise CannotRun(
                f"{manifest}: the shards' jobs do not add up to the plan ({', '.join(lost)}); "
                'merge the shards of one run'
            )
        # Stable: the jobs outside the plan keep their order, after the planned ones.
        merged['jobs'].sort(key=lambda j: order.get(f'{j["kind"]}:{j["name"]}', len(order)))
        merged['exit_code'] = 2 if merged['could_not_run'] else 1 if merged['did_not_hold'] else 0
    code = worst(m['exit_code'] for m in models.values())
    first = reports[0][1]
    details = {'exit_code': code, 'result': RESULT_TEXT[code], 'quick': first.get('quick', False)}
    if first.get('tools') is not None:
        details.update(tools=first['tools'], java=first.get('java'))
    details['shard'] = {'index': 1, 'count': 1, 'only': only, 'merged': count}
    details['models'] = list(models.values())
    plan_order = {(m['model'], p): i for m in models.values() for i, p in enumerate(m['plan'])}
    items.sort(
        key=lambda i: (
            i.model,
            i.kind == 'coverage',
            plan_order.get((i.model, f'{i.kind}:{i.name}'), 0),
        )
    )
    return Report('verify', code, commit, items, details)


def summary(report: Report) -> list[str]:
    lines = []
    for model in report.details.get('models', []):
        lines.append(
            f'model {model["model"]}: {len(model["jobs"])} jobs from '
            f'{report.details["shard"]["merged"]} shards'
        )
        lines.extend(f'DID NOT HOLD: {text}' for text in model['did_not_hold'])
        lines.extend(f'COULD NOT RUN: {text}' for text in model['could_not_run'])
    if report.error:
        lines.append(f'COULD NOT RUN: {report.error}')
    lines.extend(('', report.result))
    return lines


def run(options: argparse.Namespace, settings: Settings) -> int:
    if options.action is None or not options.reports:
        first = 'merge: name the JSON report of every shard'
        first = first if options.action else 'name what to do: merge, the only action'
        raise CannotRun(
            f'{first}, as in `execlease report merge s1.json s2.json` (each from '
            '`execlease verify --shard K/N --json FILE`)'
        )
    outputs = Outputs('verify', options.format, options.output, None)
    report = merge([(path, _read(path)) for path in options.reports])
    lines = summary(report)
    if options.quiet:  # -q: only what did not hold or could not run, and the verdict
        lines = [
            line for line in lines if line.startswith(('DID NOT HOLD', 'COULD NOT RUN'))
        ] + lines[-1:]
    with outputs.human_text():
        for line in lines:
            print(term.wrap(line))
    outputs.finish(report)
    return report.exit_code

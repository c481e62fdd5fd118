"""`--format sarif`: SARIF 2.1.0, one result per thing that did not hold or could not run, located
in the code (covered entries) and the spec (failed checks, escaped mutations), for code-scanning
tools. Paths are relative to the repository root (`uriBaseId` SRCROOT)."""

from __future__ import annotations

import json
from typing import Any

from execlease_hook.core.outcomes import HELD
from execlease_hook.formats.report import Location, Report, tool_version

SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json'
RULES = {
    'check-failed': 'A TLC check that must pass found a violation',
    'mutation-escaped': 'A mutation of the spec is no longer caught: the check has lost its teeth',
    'mutation-wrong-property': 'A mutation fails on another property than the one it names',
    'finding-gone': 'A known finding no longer reproduces',
    'finding-wrong-property': 'A known finding fails on another property than the one it names',
    'job-failed': 'A verification job did not hold',
    'tlc-error': 'TLC could not run the job',
    'job-not-run': 'The job could not be started',
    'covered-code-changed': 'Covered code changed since the model last described it',
    'covered-code-never-synced': 'Covered code has no recorded hash yet',
    'covered-code-missing': 'Covered code cannot be located exactly once',
    'model-changed': 'The spec or a config changed without a verified sync',
    'notes-map-stale': 'The NOTES.md code-to-action table is stale',
    'uncovered-protocol-code': 'Protocol code that no covered entry names (a watch rule)',
    'action-unmapped': 'A model action has no covered code and is not declared abstract',
    'run-unfinished': 'The run did not finish',
    'model-refused': 'A model did not run: its manifest, tools, libraries or spec were refused',
}


def _location(loc: Location) -> dict[str, Any]:
    physical: dict[str, Any] = {'artifactLocation': {'uri': loc.path, 'uriBaseId': 'SRCROOT'}}
    if loc.start_line is not None:
        region: dict[str, Any] = {'startLine': loc.start_line}
        if loc.end_line is not None and loc.end_line >= loc.start_line:
            region['endLine'] = loc.end_line
        physical['region'] = region
    return {'physicalLocation': physical, 'message': {'text': loc.role}}


def _extensions(details: dict[str, Any]) -> list[dict[str, Any]]:
    """What ran besides execlease, as SARIF tool components: the TLA+ tools (the run's and any a
    model's manifest names) and the models' libraries, each with its pinned sha256."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    runs = [details['tools']] if isinstance(details.get('tools'), dict) else []
    runs += [m['tools'] for m in details.get('models', []) if isinstance(m.get('tools'), dict)]
    for t in runs:
        properties = {k: t[k] for k in ('sha256', 'source', 'verified')}
        tools = {'name': 'TLA+ tools', 'version': t['tlc_version'], 'properties': properties}
        found.setdefault(('tools', t['sha256']), tools)
    for lib in (lib for m in details.get('models', []) for lib in m.get('libraries', [])):
        if 'folder' in lib:
            folder = {'name': lib['folder'], 'properties': {'library': 'folder'}}
            found.setdefault(('folder', lib['folder']), folder)
        else:
            properties = {'library': 'jar', 'sha256': lib['sha256']}
            jar = {'name': lib['name'], 'downloadUri': lib['url'], 'properties': properties}
            found.setdefault(('jar', lib['sha256']), jar)
    return list(found.values())


def render(report: Report) -> str:
    failed = [item for item in report.items if item.outcome != HELD]
    used = sorted({item.rule for item in failed} | ({'run-unfinished'} if report.error else set()))
    invocation: dict[str, Any] = {
        'executionSuccessful': report.exit_code in (0, 1) and report.error is None,
        'exitCode': report.exit_code,
        'exitCodeDescription': report.result,
    }
    if report.error is not None:
        invocation['toolExecutionNotifications'] = [
            {
                'level': 'error',
                'message': {'text': report.error},
                'descriptor': {'id': 'run-unfinished'},
            },
        ]
    results = []
    for item in failed:
        properties = {'model': item.model, 'jobKind': item.kind, 'name': item.name}
        result: dict[str, Any] = {
            'ruleId': item.rule,
            'level': 'error',
            'kind': 'fail',
            'message': {'text': item.message},
            'properties': {**properties, 'outcome': item.outcome},
        }
        if item.locations:
            result['locations'] = [_location(item.locations[0])]
        if len(item.locations) > 1:
            result['relatedLocations'] = [
                {'id': i, **_location(loc)} for i, loc in enumerate(item.locations[1:], 1)
            ]
        results.append(result)
    rules = [{'id': rule, 'shortDescription': {'text': RULES.get(rule, rule)}} for rule in used]
    tool: dict[str, Any] = {
        'driver': {'name': 'execlease', 'version': tool_version(), 'rules': rules}
    }
    if extensions := _extensions(report.details):
        tool['extensions'] = extensions
    run = {
        'tool': tool,
        'invocations': [invocation],
        'results': results,
        'properties': {'command': report.command, 'commit': report.commit},
    }
    document = {'$schema': SCHEMA, 'version': '2.1.0', 'runs': [run]}
    return json.dumps(document, indent=2, ensure_ascii=False) + '\n'

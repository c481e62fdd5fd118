"""`--format junit`: JUnit XML for GitLab, Jenkins and the like: one test suite per model, one
test case per job (or covered entry); 'did not hold' is a failure, 'could not run' an error."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from execlease_hook.core.outcomes import COULD_NOT_RUN, DID_NOT_HOLD, HELD
from execlease_hook.formats.report import Item, Report


def render(report: Report) -> str:
    root = ET.Element('testsuites', name=f'execlease {report.command}')
    by_model: dict[str, list[Item]] = {}
    for item in report.items:
        by_model.setdefault(item.model, []).append(item)
    if report.error is not None:
        by_model.setdefault('execlease', []).append(
            Item('execlease', 'run', report.command, COULD_NOT_RUN, 'run-unfinished', report.error)
        )
    for model, items in by_model.items():
        attrs = {
            'name': f'execlease {report.command} {model}',
            'time': f'{sum(i.seconds or 0 for i in items):.3f}',
            'tests': str(len(items)),
            'failures': str(sum(i.outcome == DID_NOT_HOLD for i in items)),
            'errors': str(sum(i.outcome == COULD_NOT_RUN for i in items)),
        }
        suite = ET.SubElement(root, 'testsuite', attrs)
        for item in items:
            case = ET.SubElement(
                suite,
                'testcase',
                classname=f'{item.model}.{item.kind}',
                name=item.name,
                time=f'{item.seconds or 0:.3f}',
            )
            if item.outcome == HELD:
                continue
            tag = 'failure' if item.outcome == DID_NOT_HOLD else 'error'
            where = '\n'.join(
                f'{loc.role}: {loc.path}' + (f':{loc.start_line}' if loc.start_line else '')
                for loc in item.locations
            )
            first = item.message.splitlines()[0] if item.message else ''
            node = ET.SubElement(case, tag, message=first, type=item.rule)
            node.text = item.message + ('\n' + where if where else '')
    for key in ('tests', 'failures', 'errors'):  # the totals of every suite
        root.set(key, str(sum(int(suite.get(key, 0)) for suite in root)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding='unicode') + '\n'

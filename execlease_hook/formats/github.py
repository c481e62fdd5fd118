"""`--format github`: GitHub Actions workflow commands, one `::error` annotation per thing that
did not hold or could not run, at its first location, then a `::notice` with the verdict."""

from __future__ import annotations

from execlease_hook.core.outcomes import HELD
from execlease_hook.formats.report import Item, Report


def _data(text: str) -> str:
    return text.replace('%', '%25').replace('\r', '%0D').replace('\n', '%0A')


def _property(text: str) -> str:
    return _data(text).replace(':', '%3A').replace(',', '%2C')


def annotation(item: Item) -> str:
    props = []
    if item.locations:
        loc = item.locations[0]
        props.append(f'file={_property(loc.path)}')
        if loc.start_line is not None:
            props.append(f'line={loc.start_line}')
            if loc.end_line is not None and loc.end_line > loc.start_line:
                props.append(f'endLine={loc.end_line}')
    props.append(f'title={_property(f"execlease {item.kind} {item.name}: {item.outcome}")}')
    return f'::error {",".join(props)}::{_data(item.message)}'


def render(report: Report) -> str:
    lines = [annotation(item) for item in report.items if item.outcome != HELD]
    if report.error is not None:
        lines.append(f'::error title=execlease {report.command}::{_data(report.error)}')
    level = 'notice' if report.exit_code == 0 else 'error'
    lines.append(f'::{level} title=execlease {report.command}::{_data(report.result)}')
    return '\n'.join(lines) + '\n'

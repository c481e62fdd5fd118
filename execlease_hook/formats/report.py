"""Reports for machines: `--format json|sarif|github|junit` on verify, guard and coverage.

Every command turns its results into one `Report` (what was judged, where, with what outcome);
the writers below render it. The JSON document also carries each command's own details
(jobs with verdicts and counterexamples, coverage entries) and follows the JSON Schema shipped
as execlease_hook/schemas/report.schema.json (`schemaVersion` 1). Outcomes are core/outcomes.py's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from execlease_hook.core.outcomes import RESULT_TEXT

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Location:
    path: str  # relative to the repository root, POSIX
    start_line: int | None = None  # 1-based
    end_line: int | None = None
    role: str = 'code'  # 'code' | 'spec' | 'config' | 'manifest' | 'notes'

    def to_json(self) -> dict[str, Any]:
        return {
            'path': self.path,
            'startLine': self.start_line,
            'endLine': self.end_line,
            'role': self.role,
        }


@dataclass(frozen=True)
class Item:
    """One thing a command judged: a TLC job of any kind, a covered entry, the model hash."""

    model: str  # the model folder, relative to the repository root
    kind: str  # a job kind ('check', 'mutation', ...), 'coverage', 'model', 'notes'
    name: str
    outcome: str  # HELD | DID_NOT_HOLD | COULD_NOT_RUN
    rule: str  # stable id of what happened, e.g. 'mutation-escaped'
    message: str
    locations: tuple[Location, ...] = ()
    seconds: float | None = None

    def to_json(self) -> dict[str, Any]:
        keys = ('model', 'kind', 'name', 'outcome', 'rule', 'message', 'seconds')
        return {
            **{key: getattr(self, key) for key in keys},
            'locations': [loc.to_json() for loc in self.locations],
        }


@dataclass
class Report:
    command: str  # 'verify' | 'guard' | 'coverage'
    exit_code: int
    commit: str | None  # HEAD, the commit the working tree (or index) was judged on
    items: list[Item] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)  # the command's own JSON fields
    error: str | None = None  # set when the run did not finish

    @property
    def result(self) -> str:
        return RESULT_TEXT.get(self.exit_code, f'exit {self.exit_code}')


def render(report: Report) -> str:
    """`--format json`: the report as one JSON document (schemas/report.schema.json)."""
    data: dict[str, Any] = {
        'schemaVersion': SCHEMA_VERSION,
        'tool': {'name': 'execlease', 'version': tool_version()},
        'command': report.command,
        'commit': report.commit,
        'exit_code': report.exit_code,
        'result': report.result,
    }
    if report.error is not None:
        data['error'] = report.error
    data.update(report.details)
    data.setdefault('models', [])
    data['items'] = [item.to_json() for item in report.items]
    return json.dumps(data, indent=2, ensure_ascii=False) + '\n'


def tool_version() -> str:
    # Lazy: importlib.metadata (and the email package it loads) cost the guard 12.5 ms of a
    # 128 ms run with one covered file staged (python -X importtime), for a value only a
    # written report needs.
    from importlib import metadata

    try:
        return metadata.version('execlease')
    except metadata.PackageNotFoundError:
        return '0+unknown'

"""`--format json`: the report as one JSON document (schemas/report.schema.json)."""

from __future__ import annotations

import json
from typing import Any

from execlease_hook.formats.report import SCHEMA_VERSION, Report, tool_version


def document(report: Report) -> dict[str, Any]:
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
    return data


def render(report: Report) -> str:
    return json.dumps(document(report), indent=2, ensure_ascii=False) + '\n'

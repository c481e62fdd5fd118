"""NDJSON traces -> one generated TLA+ module (`TraceData`) defining `Traces`.

The trace is compiled into TLA+ rather than read at run time through the CommunityModules'
Json/IOUtils: the offline TLC 2.15 has neither, and a module of plain values runs on 2.15 and
2.19 alike. Each NDJSON file is one trace, its lines in file order; each line, a JSON object,
becomes a record with the same fields, except the report-only fields `seq` and `where`.
Strings, whole numbers, true/false, objects (records) and arrays (sequences) convert as such; a
field that is null is left out of its record (the trace spec tests `"f" \\in DOMAIN line`).
Anything else (a float, a key that is not a TLA+ identifier) is refused with the file and line,
so a trace is never silently changed.

The module defines
  TraceLines   every distinct line once (traces of one run share many lines)
  Traces       one sequence per trace: the indices of its lines in TraceLines
  TraceNames   the trace files' names
  TraceValues  for each top-level field, the set of its plain values over all lines (the trace
               spec takes constants from it, e.g. the runs: TLC re-evaluates an operator that
               replaces a constant at every use, so it must be cheap)
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlease_hook.core.errors import CannotRun

MODULE = 'TraceData'
METADATA = ('seq', 'where')   # read by the report, not passed to TLC
_IDENT = re.compile(r'[A-Za-z][A-Za-z0-9_]*\Z')
# Words a record field cannot be called in TLA+ (the reserved words that look like names).
_RESERVED = {
    'ASSUME', 'ASSUMPTION', 'AXIOM', 'CASE', 'CHOOSE', 'CONSTANT', 'CONSTANTS', 'DOMAIN',
    'ELSE', 'ENABLED', 'EXCEPT', 'EXTENDS', 'IF', 'IN', 'INSTANCE', 'LET', 'LOCAL', 'MODULE',
    'OTHER', 'SF_', 'SUBSET', 'THEN', 'THEOREM', 'UNCHANGED', 'UNION', 'VARIABLE', 'VARIABLES',
    'WF_', 'WITH', 'TRUE', 'FALSE', 'BOOLEAN', 'STRING',
}


@dataclass(frozen=True)
class Trace:
    name: str                           # the file's name
    lines: tuple[dict[str, Any], ...]   # the parsed lines, in order


class BadTrace(CannotRun):
    """A trace file that cannot be read or converted (exit 2)."""


def read_trace(path: Path, name: str | None = None) -> Trace:
    try:
        text = path.read_text(encoding='utf-8')
    except OSError as e:
        raise BadTrace(f'{path}: cannot read the trace: {e.strerror}') from None
    except UnicodeDecodeError as e:
        raise BadTrace(f'{path}: not UTF-8 (byte {e.start})') from None
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as e:
            raise BadTrace(f'{path}:{number}: not a JSON line ({e.msg}): {raw[:120]!r}') from None
        if not isinstance(value, dict):
            raise BadTrace(f'{path}:{number}: a trace line must be a JSON object, got {raw[:120]!r}')
        lines.append(value)
    if not lines:
        raise BadTrace(f'{path}: the trace has no lines')
    return Trace(name or path.name, tuple(lines))


def _string(text: str) -> str:
    return '"' + text.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'


def tla_value(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return 'TRUE' if value else 'FALSE'
    if isinstance(value, int):
        return str(value) if value >= 0 else f'(0 - {-value})'   # Naturals has no unary minus
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return '<<' + ', '.join(tla_value(v, f'{where}[{i}]') for i, v in enumerate(value)) + '>>'
    if isinstance(value, dict):
        fields = []
        for key, item in value.items():
            if item is None:
                continue
            if not _IDENT.match(key) or key.upper() == key and key in _RESERVED:
                raise BadTrace(f'{where}: field {key!r} is not a TLA+ record field name; '
                               'use letters, digits and _ (starting with a letter)')
            fields.append(f'{key} |-> {tla_value(item, f"{where}.{key}")}')
        if not fields:
            raise BadTrace(f'{where}: an object with no fields has no TLA+ record form')
        return '[' + ', '.join(fields) + ']'
    raise BadTrace(f'{where}: {value!r} has no TLA+ form here (use strings, whole numbers, '
                   'true/false, objects and arrays)')


def module_text(traces: Sequence[Trace]) -> str:
    if not traces:
        raise BadTrace('no traces to check')
    index: dict[str, int] = {}
    table: list[str] = []
    values: dict[str, set[str]] = {}
    sequences = []
    for trace in traces:
        numbers = []
        for n, line in enumerate(trace.lines, 1):
            record = {k: v for k, v in line.items() if k not in METADATA}
            text = tla_value(record, f'{trace.name}:{n}')
            if text not in index:
                table.append(text)
                index[text] = len(table)
                for key, value in record.items():
                    if value is not None and not isinstance(value, (dict, list)):
                        values.setdefault(key, set()).add(tla_value(value, key))
            numbers.append(str(index[text]))
        sequences.append('<<' + ', '.join(numbers) + '>>')
    out = [f'---- MODULE {MODULE} ----', '\\* Generated by execlease from NDJSON traces; do not edit.']
    out.append('TraceLines == <<\n  ' + ',\n  '.join(table) + '\n>>')
    out.append('Traces == <<\n  ' + ',\n  '.join(sequences) + '\n>>')
    out.append('TraceNames == <<' + ', '.join(_string(t.name) for t in traces) + '>>')
    out.append('TraceValues == [' + ', '.join(
        f'{key} |-> {{{", ".join(sorted(v))}}}' for key, v in sorted(values.items())) + ']')
    out.append('=' * 28)
    return '\n'.join(out) + '\n'

"""NDJSON traces -> one generated TLA+ module (`TraceData`) defining `Traces`.

The trace is compiled into TLA+ rather than read at run time through the CommunityModules'
Json/IOUtils: the offline TLC 2.15 has neither, and a module of plain values runs on 2.15 and
2.19 alike. Each NDJSON file is one trace, its lines in file order; each line, a JSON object,
becomes a record with the same fields, except the report-only fields `seq` and `where` and
those the job's `fields` rule leaves out (`keep` only some, or `drop` some).

Logs as programs write them: strings, whole numbers, true/false, objects (records) and arrays
(sequences, nested as deep as they go) convert as such; a field that is null is left out of its
record (the trace spec tests `"f" \\in DOMAIN line`); an empty object is the empty function
`<<>>` (in TLA+ the empty record and the empty sequence are one value); a number TLC cannot hold
as an integer (a fraction or an exponent such as a float timestamp, a whole number beyond TLC's
-2^31..2^31-1, NaN) is the string of its JSON text, exactly as logged ("1712329729.6024537").
What has no TLA+ form (a null inside an array, a key that is not a TLA+ identifier) leaves its
top-level field out of that line, never the whole trace, and is named (`Compiled.unused`: the
trace, line and field) so that nothing is changed silently.

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

from execlease_hook.core import paths
from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.model import FieldRule

MODULE = 'TraceData'
METADATA = ('seq', 'where')  # read by the report, not passed to TLC
_IDENT = re.compile(r'[A-Za-z][A-Za-z0-9_]*\Z')
TLC_INTS = range(-(2**31), 2**31)  # TLC's integers: a larger one is an overflow error
# Words a record field cannot be called in TLA+ (the reserved words that look like names).
_RESERVED = frozenset(
    'ASSUME ASSUMPTION AXIOM CASE CHOOSE CONSTANT CONSTANTS DOMAIN ELSE ENABLED EXCEPT EXTENDS IF IN'
    ' INSTANCE LET LOCAL MODULE OTHER SF_ SUBSET THEN THEOREM UNCHANGED UNION VARIABLE VARIABLES'
    ' WF_ WITH TRUE FALSE BOOLEAN STRING'.split()
)


@dataclass(frozen=True)
class Trace:
    name: str  # the file's name
    lines: tuple[dict[str, Any], ...]  # the parsed lines, in order


class BadTrace(CannotRun):
    """A trace file that cannot be read or converted (exit 2)."""


class Number(float):
    """A JSON number that is not a whole number (a fraction, an exponent, NaN), with its text as
    logged: its TLA+ form is that text as a string (json.dumps still writes it as a number)."""

    text: str

    def __new__(cls, text: str) -> Number:
        number = super().__new__(cls, text)
        number.text = text
        return number


def parse_line(raw: str) -> Any:
    return json.loads(raw, parse_float=Number, parse_constant=Number)


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
            value = parse_line(raw)
        except json.JSONDecodeError as e:
            raise BadTrace(f'{path}:{number}: not a JSON line ({e.msg}): {raw[:120]!r}') from None
        if not isinstance(value, dict):
            raise BadTrace(
                f'{path}:{number}: a trace line must be a JSON object, got {raw[:120]!r}'
            )
        lines.append(value)
    if not lines:
        raise BadTrace(f'{path}: the trace has no lines')
    return Trace(name or path.name, tuple(lines))


def _string(text: str) -> str:
    return '"' + text.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'


class Unusable(BadTrace):
    """A value with no TLA+ form: its top-level field is left out of its line."""


def tla_value(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return 'TRUE' if value else 'FALSE'
    if isinstance(value, int) and value in TLC_INTS:
        return str(value) if value >= 0 else f'(0 - {-value})'  # Naturals has no unary minus
    if isinstance(value, (int, float)):  # beyond TLC's integers, or not a whole number
        return _string(value.text if isinstance(value, Number) else repr(value))
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        for i, item in enumerate(value):
            if item is None:
                raise Unusable(f'{where}[{i}]: null inside an array has no TLA+ form')
        return '<<' + ', '.join(tla_value(v, f'{where}[{i}]') for i, v in enumerate(value)) + '>>'
    if isinstance(value, dict):
        fields = []
        for key, item in value.items():
            if item is None:
                continue
            if not _IDENT.match(key) or key in _RESERVED:
                raise Unusable(
                    f'{where}: field {key!r} is not a TLA+ record field name; '
                    'use letters, digits and _ (starting with a letter)'
                )
            fields.append(f'{key} |-> {tla_value(item, f"{where}.{key}")}')
        return '[' + ', '.join(fields) + ']' if fields else '<<>>'  # {}: the empty function
    raise Unusable(f'{where}: {value!r} has no TLA+ form')


@dataclass(frozen=True)
class Compiled:
    text: str  # the module
    unused: tuple[str, ...] = ()  # 'trace:line field f: why', for each field left out


def _line(
    line: dict[str, Any], rule: FieldRule | None, where: str, unused: list[str]
) -> tuple[str, dict[str, Any]]:
    """A line's record text and the fields it holds."""
    record = {
        k: v
        for k, v in line.items()
        if k not in METADATA and v is not None and (rule is None or rule.passes(k))
    }
    fields = []
    for key, value in list(record.items()):
        try:
            if not _IDENT.match(key) or key in _RESERVED:
                raise Unusable(
                    f'{key!r} is not a TLA+ record field name (letters, digits and _, '
                    'starting with a letter)'
                )
            fields.append(f'{key} |-> {tla_value(value, key)}')
        except Unusable as e:
            unused.append(f'{where} field {key}: {e}')
            del record[key]
    return ('[' + ', '.join(fields) + ']' if fields else '<<>>'), record


def compile_traces(traces: Sequence[Trace], rule: FieldRule | None = None) -> Compiled:
    if not traces:
        raise BadTrace('no traces to check')
    index: dict[str, int] = {}
    table: list[str] = []
    values: dict[str, set[str]] = {}
    sequences = []
    unused: list[str] = []
    for trace in traces:
        numbers = []
        for n, line in enumerate(trace.lines, 1):
            text, record = _line(line, rule, f'{trace.name}:{n}', unused)
            if text not in index:
                table.append(text)
                index[text] = len(table)
                for key, value in record.items():
                    if not isinstance(value, (dict, list)):
                        values.setdefault(key, set()).add(tla_value(value, key))
            numbers.append(str(index[text]))
        sequences.append('<<' + ', '.join(numbers) + '>>')
    plain = ', '.join(f'{key} |-> {{{", ".join(sorted(v))}}}' for key, v in sorted(values.items()))
    out = [
        f'---- MODULE {MODULE} ----',
        '\\* Generated by execlease from NDJSON traces; do not edit.',
        'TraceLines == <<\n  ' + ',\n  '.join(table) + '\n>>',
        'Traces == <<\n  ' + ',\n  '.join(sequences) + '\n>>',
        'TraceNames == <<' + ', '.join(_string(t.name) for t in traces) + '>>',
        f'TraceValues == [{plain}]',
        '=' * 28,
    ]
    return Compiled('\n'.join(out) + '\n', tuple(unused))


def trace_log(trace: Trace, rule: FieldRule | None = None) -> tuple[str, tuple[str, ...]]:
    """One trace as a TLA+ sequence of its lines' records (a project's own trace spec reads it,
    traces/own.py), and the fields left out of it as in Compiled.unused."""
    unused: list[str] = []
    texts = [
        _line(line, rule, f'{trace.name}:{n}', unused)[0] for n, line in enumerate(trace.lines, 1)
    ]
    return '<<\n  ' + ',\n  '.join(texts) + '\n>>', tuple(unused)


def read_model(folder: Path, spec: str, config: str, name: str) -> tuple[bytes, bytes]:
    """The trace spec's and its cfg's bytes; CannotRun (exit 2) naming what cannot be read."""
    try:
        return (folder / spec).read_bytes(), (folder / config).read_bytes()
    except OSError as e:
        raise CannotRun(f'trace job {name}: cannot read {e.filename}: {e.strerror}') from None


def read_modules(
    root: Path, folder: Path, name: str, skip: Sequence[str]
) -> tuple[tuple[str, bytes], ...]:
    """The modules of the trace spec's folder but `skip` (paths.tla_modules: each inside the
    repository `root`); CannotRun (exit 2) naming what cannot be read."""
    what = f'trace job {name}: '
    return paths.tla_modules(
        root, folder, lambda module, e: f'{what}cannot read {module}: {e.strerror}', what, skip
    )

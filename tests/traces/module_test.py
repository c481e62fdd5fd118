from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlease_hook.manifest.model import FieldRule
from execlease_hook.traces.module import (
    BadTrace,
    Trace,
    Unusable,
    compile_traces,
    parse_line,
    read_trace,
    tla_value,
)


@pytest.mark.parametrize(
    ('value', 'text'),
    [
        ('run1', '"run1"'),
        ('say "hi"\\', '"say \\"hi\\"\\\\"'),
        (3, '3'),
        (-2, '(0 - 2)'),
        (True, 'TRUE'),
        ([1, 'a'], '<<1, "a">>'),
        ({'a': 1, 'b': None, 'c': {'d': False}}, '[a |-> 1, c |-> [d |-> FALSE]]'),
        ([[1, 2], [], [[3]]], '<<<<1, 2>>, <<>>, <<<<3>>>>>>'),
        ({}, '<<>>'),
        ({'a': None}, '<<>>'),
        (2**31, '"2147483648"'),
        (-(2**31), '(0 - 2147483648)'),
        (1712329729602453700, '"1712329729602453700"'),
    ],
    ids=[
        'string',
        'escapes',
        'number',
        'negative',
        'bool',
        'array',
        'object-null-left-out',
        'nested-arrays',
        'empty-object',
        'only-nulls',
        'beyond-tlc-ints',
        'tlc-int-min',
        'nanoseconds',
    ],
)
def test_tla_value(value, text):
    assert tla_value(value, 'x') == text


@pytest.mark.parametrize(
    ('raw', 'text'),
    [
        ('1712329729.6024537', '"1712329729.6024537"'),
        ('2.0', '"2.0"'),
        ('1e3', '"1e3"'),
        ('-0.5', '"-0.5"'),
        ('NaN', '"NaN"'),
    ],
    ids=['timestamp', 'whole-float', 'exponent', 'negative', 'nan'],
)
def test_a_number_that_is_not_an_integer_is_its_text(raw, text):
    value = parse_line(raw)
    assert tla_value(value, 'x') == text
    assert (
        json.loads(json.dumps(value)) == json.loads(raw) or raw == 'NaN'
    )  # still a number in reports


@pytest.mark.parametrize(
    ('value', 'message'),
    [
        ({'not a name': 1}, "x: field 'not a name' is not a TLA+ record field name"),
        ({'CASE': 1}, "x: field 'CASE' is not a TLA+ record field name"),
        ([1, None], 'x[1]: null inside an array has no TLA+ form'),
    ],
    ids=['key', 'reserved', 'null-in-array'],
)
def test_tla_value_refuses(value, message):
    with pytest.raises(
        Unusable, match='^' + message.replace('(', r'\(').replace('+', r'\+').replace('[', r'\[')
    ):
        tla_value(value, 'x')


def test_a_field_with_no_tla_form_is_left_out_of_its_line_and_named():
    trace = Trace(
        'run.ndjson',
        (
            {'action': 'Inc', 'x': 1, 'ts': 1712329729.5, 'trace-id': 'a1', 'spans': [1, None]},
            {'action': 'Flip', 'x': 1, 'meta': {'span-id': 3}, 'empty': {}},
        ),
    )
    compiled = compile_traces([trace])
    assert compiled.unused == (
        "run.ndjson:1 field trace-id: 'trace-id' is not a TLA+ record field name (letters, digits "
        'and _, starting with a letter)',
        'run.ndjson:1 field spans: spans[1]: null inside an array has no TLA+ form',
        "run.ndjson:2 field meta: meta: field 'span-id' is not a TLA+ record field name; use "
        'letters, digits and _ (starting with a letter)',
    )
    assert '[action |-> "Inc", x |-> 1, ts |-> "1712329729.5"]' in compiled.text
    assert '[action |-> "Flip", x |-> 1, empty |-> <<>>]' in compiled.text


@pytest.mark.parametrize(
    ('rule', 'line'),
    [
        (FieldRule(keep=('action', 'x')), '[action |-> "Inc", x |-> 1]'),
        (FieldRule(drop=('ts', 'trace-id')), '[action |-> "Inc", x |-> 1]'),
    ],
    ids=['keep', 'drop'],
)
def test_the_jobs_fields_rule_leaves_fields_out_on_purpose(rule, line):
    trace = Trace('run.ndjson', ({'action': 'Inc', 'x': 1, 'ts': 1.5, 'trace-id': 'a1'},))
    compiled = compile_traces([trace], rule)
    assert compiled.unused == () and f'TraceLines == <<\n  {line}\n>>' in compiled.text
    assert 'TraceValues == [action |-> {"Inc"}, x |-> {1}]' in compiled.text


@pytest.mark.parametrize(
    ('content', 'message'),
    [
        ('{"a": 1}\n{"a": \n', 'a.ndjson:2: not a JSON line'),
        ('[1, 2]\n', 'a.ndjson:1: a trace line must be a JSON object'),
        ('\n\n', 'a.ndjson: the trace has no lines'),
        (b'\xff\n', 'a.ndjson: not UTF-8'),
    ],
    ids=['torn', 'not-object', 'empty', 'not-utf8'],
)
def test_read_trace_refuses(tmp_path: Path, content, message):
    path = tmp_path / 'a.ndjson'
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(BadTrace, match=message):
        read_trace(path)


def test_module_shares_lines_and_leaves_out_report_fields():
    one = Trace(
        'one',
        (
            {'action': 'Inc', 'x': 1, 'where': 'a.py:1', 'seq': 1},
            {'action': 'Flip', 'x': 1, 'seq': 2},
        ),
    )
    two = Trace('two', ({'action': 'Inc', 'x': 1, 'where': 'a.py:9', 'seq': 7},))
    text = compile_traces([one, two]).text
    assert text.startswith('---- MODULE TraceData ----\n')
    assert (
        'TraceLines == <<\n  [action |-> "Inc", x |-> 1],\n  [action |-> "Flip", x |-> 1]\n>>'
        in text
    )
    assert 'Traces == <<\n  <<1, 2>>,\n  <<1>>\n>>' in text
    assert 'TraceNames == <<"one", "two">>' in text
    assert 'TraceValues == [action |-> {"Flip", "Inc"}, x |-> {1}]' in text
    assert 'where' not in text and 'seq' not in text


def test_no_traces():
    with pytest.raises(BadTrace, match='no traces to check'):
        compile_traces([])


def test_the_trace_folder_s_modules_are_read_inside_the_repository_only(tmp_path):
    from execlease_hook.core.errors import CannotRun
    from execlease_hook.traces.module import read_modules

    repo, elsewhere = tmp_path / 'repo', tmp_path / 'elsewhere'
    folder = repo / 'verification' / 'queue'
    folder.mkdir(parents=True)
    elsewhere.mkdir()
    for name in ('Trace.tla', 'Queue.tla', 'TraceData.tla'):
        (folder / name).write_text(f'---- MODULE {name[:-4]} ----\n====\n')
    assert read_modules(repo, folder, 'q', ('Trace.tla', 'TraceData.tla')) == (
        ('Queue.tla', b'---- MODULE Queue ----\n====\n'),
    )
    (elsewhere / 'Secret.tla').write_text('---- MODULE Secret ----\n====\n')
    (folder / 'Secret.tla').symlink_to(elsewhere / 'Secret.tla')
    with pytest.raises(
        CannotRun, match=r'^trace job q: .*Secret.tla resolves to .*outside the rep'
    ):
        read_modules(repo, folder, 'q', ())
    (folder / 'Secret.tla').unlink()
    (folder / 'Secret.tla').mkdir()  # a folder named like a module: it cannot be read
    with pytest.raises(CannotRun, match=r'^trace job q: cannot read .*Secret.tla: Is a directory$'):
        read_modules(repo, folder, 'q', ())

from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.traces.module import BadTrace, Trace, module_text, read_trace, tla_value


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
    ],
    ids=['string', 'escapes', 'number', 'negative', 'bool', 'array', 'object-null-left-out'],
)
def test_tla_value(value, text):
    assert tla_value(value, 'x') == text


@pytest.mark.parametrize(
    ('value', 'message'),
    [
        (1.5, 'x: 1.5 has no TLA+ form here'),
        ({'not a name': 1}, "x: field 'not a name' is not a TLA+ record field name"),
        ({'CASE': 1}, "x: field 'CASE' is not a TLA+ record field name"),
        ({'a': None}, 'x: an object with no fields has no TLA+ record form'),
    ],
    ids=['float', 'key', 'reserved', 'empty'],
)
def test_tla_value_refuses(value, message):
    with pytest.raises(BadTrace, match='^' + message.replace('(', r'\(').replace('+', r'\+')):
        tla_value(value, 'x')


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
    one = Trace('one', ({'action': 'Inc', 'x': 1, 'where': 'a.py:1', 'seq': 1},
                        {'action': 'Flip', 'x': 1, 'seq': 2}))
    two = Trace('two', ({'action': 'Inc', 'x': 1, 'where': 'a.py:9', 'seq': 7},))
    text = module_text([one, two])
    assert text.startswith('---- MODULE TraceData ----\n')
    assert 'TraceLines == <<\n  [action |-> "Inc", x |-> 1],\n  [action |-> "Flip", x |-> 1]\n>>' in text
    assert 'Traces == <<\n  <<1, 2>>,\n  <<1>>\n>>' in text
    assert 'TraceNames == <<"one", "two">>' in text
    assert 'TraceValues == [action |-> {"Flip", "Inc"}, x |-> {1}]' in text
    assert 'where' not in text and 'seq' not in text


def test_no_traces():
    with pytest.raises(BadTrace, match='no traces to check'):
        module_text([])

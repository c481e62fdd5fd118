"""Reading TLC's output without running it: nested messages, multi-line values, cfg names.

What a real TLC prints for each outcome, and the verdict read from it, is in tlc_test.py.
"""
from __future__ import annotations

from execlease_hook.spec import cfg

from execlease_hook.tlc import output as tlc_output


def test_nested_messages_are_parsed():
    out = (
        b'Exception: @!@!@STARTMSG 1000:1 @!@!@\nouter : @!@!@STARTMSG 5006:0 @!@!@\ninner\n'
        b'@!@!@ENDMSG 5006 @!@!@\n@!@!@ENDMSG 1000 @!@!@\n'
    )
    messages = tlc_output.parse_messages(out)
    assert [(m.code, m.text) for m in messages] == [(5006, 'inner\n'), (1000, 'outer : inner\n')]


def test_multiline_values():
    text = '/\\ x = [a |-> 1,\n     b |-> 2]\n/\\ y = 0\n'
    assert tlc_output.parse_state(text) == (('x', '[a |-> 1,\n     b |-> 2]'), ('y', '0'))
    assert tlc_output.parse_state('x = 3\n') == (('x', '3'),)


def test_cfg_names_skip_comments():
    text = 'INIT Init \\* PROPERTY Nope\n(* PROPERTY Hidden *)\nPROPERTIES A\n B\nINVARIANT C\n'
    assert cfg.names(text.encode(), cfg.PROPERTY_KEYWORDS) == ['A', 'B']

"""Reading TLC's output without running it: nested messages, multi-line values, cfg names.

What a real TLC prints for each outcome, and the verdict read from it, is in tlc_test.py.
"""

from __future__ import annotations

from execlease_hook.spec import cfg
from execlease_hook.tlc import output


def test_nested_messages_are_parsed():
    out = (
        b'Exception: @!@!@STARTMSG 1000:1 @!@!@\nouter : @!@!@STARTMSG 5006:0 @!@!@\ninner\n'
        b'@!@!@ENDMSG 5006 @!@!@\n@!@!@ENDMSG 1000 @!@!@\n'
    )
    messages = output.parse_messages(out)
    assert [(m.code, m.text) for m in messages] == [(5006, 'inner\n'), (1000, 'outer : inner\n')]


def test_multiline_values():
    text = '/\\ x = [a |-> 1,\n     b |-> 2]\n/\\ y = 0\n'
    assert output.parse_state(text) == (('x', '[a |-> 1,\n     b |-> 2]'), ('y', '0'))
    assert output.parse_state('x = 3\n') == (('x', '3'),)


def test_cfg_names_skip_comments():
    text = 'INIT Init \\* PROPERTY Nope\n(* PROPERTY Hidden *)\nPROPERTIES A\n B\nINVARIANT C\n'
    assert cfg.names(text.encode(), cfg.PROPERTY_KEYWORDS) == ['A', 'B']


def _frame(code: int, body: str) -> str:
    return f'@!@!@STARTMSG {code}:0 @!@!@\n{body}\n@!@!@ENDMSG {code} @!@!@\n'


def test_what_the_spec_printed_is_read_outside_every_message_once_sany_has_finished():
    out = (
        'Picked up JAVA_TOOL_OPTIONS: -Xss4m\n'
        + _frame(2220, 'Starting SANY...')
        + 'Parsing file /tmp/M.tla\nSemantic processing of module M\n'
        + _frame(2219, 'SANY finished.')
        + '"before"\n\n'
        + _frame(1000, _frame(2247, '"inside a message"').rstrip('\n'))
        + '<<1, "@!@!@STARTMSG 2110:1 @!@!@">>\n'
        + _frame(2199, '1 states generated')
        + '0  TRUE'
    ).encode()
    printed, total = output.spec_printed(out)
    assert printed == ('"before"', '<<1, "@!@!@STARTMSG 2110:1 @!@!@">>', '0  TRUE') and total == 3


def test_what_a_spec_printed_is_kept_to_its_first_lines_and_counted():
    out = (_frame(2219, 'SANY finished.') + ''.join(f'{i}\n' for i in range(100))).encode()
    printed, total = output.spec_printed(out)
    assert printed == tuple(str(i) for i in range(output.PRINTED_KEPT)) and total == 100
    assert output.spec_printed(_frame(2220, 'Starting SANY...').encode() + b'no SANY end\n') == (
        (),
        0,
    )


def test_a_verdict_keeps_what_was_printed_through_the_cache():
    v = output.with_printed(
        output.Verdict('passed', 1.0, 0), (_frame(2219, 'x') + '"hi"\n').encode()
    )
    assert v.printed == ('"hi"',) and v.printed_total == 1
    assert output.Verdict.from_json(v.to_json()) == v
    older = v.to_json()
    del older['printed'], older['printed_total']  # a result cached before specs could print
    assert output.Verdict.from_json(older).printed == ()


# A simulation's end, as TLC 2.15 prints it.
SIMULATION = b"""@!@!@STARTMSG 2209:0 @!@!@
Progress(-1) at 2026-12-01 19:41:38: 2408 states generated, -1 distinct states found, -1 states left on queue.
@!@!@ENDMSG 2209 @!@!@
@!@!@STARTMSG 2186:0 @!@!@
Finished in 7932ms at (2026-12-01 19:41:38)
@!@!@ENDMSG 2186 @!@!@
"""


def test_a_simulation_pass_needs_its_end_and_a_count():
    assert output.classify_simulation(0, SIMULATION, 8.0).outcome == 'passed'
    assert output.classify_simulation(0, SIMULATION, 8.0).states == 2408
    cut = SIMULATION.split(b'@!@!@STARTMSG 2186')[0]
    verdict = output.classify_simulation(0, cut, 8.0)
    assert verdict.outcome == 'error' and 'without its simulation progress and "Finished"' in (
        verdict.reason or ''
    )


def test_a_simulation_that_exits_0_with_a_violation_is_an_error():
    violated = (
        b'@!@!@STARTMSG 2110:1 @!@!@\nInvariant TypeOK is violated.\n@!@!@ENDMSG 2110 @!@!@\n'
    )
    verdict = output.classify_simulation(0, violated + SIMULATION, 8.0)
    assert (verdict.outcome, verdict.reason) == ('error', 'TLC exited 0 but reported a violation')
    assert verdict.last_lines and verdict.last_lines[-1].startswith('Finished in')

"""tlc/modes.py: a simulation's end, as TLC 2.15 prints it."""

from __future__ import annotations

from execlease_hook.tlc import modes

SIMULATION = b"""@!@!@STARTMSG 2209:0 @!@!@
Progress(-1) at 2026-12-01 19:41:38: 2408 states generated, -1 distinct states found, -1 states left on queue.
@!@!@ENDMSG 2209 @!@!@
@!@!@STARTMSG 2186:0 @!@!@
Finished in 7932ms at (2026-12-01 19:41:38)
@!@!@ENDMSG 2186 @!@!@
"""


def test_a_simulation_pass_needs_its_end_and_a_count():
    assert modes.classify_simulation(0, SIMULATION, 8.0).outcome == 'passed'
    assert modes.classify_simulation(0, SIMULATION, 8.0).states == 2408
    cut = SIMULATION.split(b'@!@!@STARTMSG 2186')[0]
    verdict = modes.classify_simulation(0, cut, 8.0)
    assert verdict.outcome == 'error' and 'without its simulation progress and "Finished"' in (
        verdict.reason or ''
    )


def test_a_simulation_that_exits_0_with_a_violation_is_an_error():
    violated = (
        b'@!@!@STARTMSG 2110:1 @!@!@\nInvariant TypeOK is violated.\n@!@!@ENDMSG 2110 @!@!@\n'
    )
    verdict = modes.classify_simulation(0, violated + SIMULATION, 8.0)
    assert (verdict.outcome, verdict.reason) == ('error', 'TLC exited 0 but reported a violation')
    assert verdict.last_lines and verdict.last_lines[-1].startswith('Finished in')

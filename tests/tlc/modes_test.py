"""tlc_modes.py: TLC's progress reports and a simulation's end, as TLC 2.15 prints them."""

from __future__ import annotations

import time

from execlease_hook.tlc import modes as tlc_modes

CHECKING = b"""@!@!@STARTMSG 2200:0 @!@!@
Progress(7) at 2026-12-01 19:59:54: 1,778 states generated (1,778 s/min), 984 distinct states found (984 ds/min), 605 states left on queue.
@!@!@ENDMSG 2200 @!@!@
@!@!@STARTMSG 2200:0 @!@!@
Progress(13) at 2026-12-01 20:00:54: 295,530 states generated (293,752 s/min), 113,664 distinct states found (112,680 ds/min), 50,963 states left on queue.
@!@!@ENDMSG 2200 @!@!@
"""
SIMULATION = b"""@!@!@STARTMSG 2209:0 @!@!@
Progress(-1) at 2026-12-01 19:41:38: 2408 states generated, -1 distinct states found, -1 states left on queue.
@!@!@ENDMSG 2209 @!@!@
@!@!@STARTMSG 2186:0 @!@!@
Finished in 7932ms at (2026-12-01 19:41:38)
@!@!@ENDMSG 2186 @!@!@
"""


def test_progress_reports_of_model_checking_and_simulation():
    assert tlc_modes.reports(CHECKING) == [
        tlc_modes.Progress(7, 1778, 984, 605),
        tlc_modes.Progress(13, 295_530, 113_664, 50_963),
    ]
    assert tlc_modes.last(SIMULATION) == tlc_modes.Progress(None, 2408, None, None)
    assert tlc_modes.last(b'no messages') is None


def test_a_simulation_pass_needs_its_end_and_a_count():
    assert tlc_modes.classify_simulation(0, SIMULATION, 8.0).outcome == 'passed'
    assert tlc_modes.classify_simulation(0, SIMULATION, 8.0).states == 2408
    cut = SIMULATION.split(b'@!@!@STARTMSG 2186')[0]
    verdict = tlc_modes.classify_simulation(0, cut, 8.0)
    assert verdict.outcome == 'error' and 'without its simulation progress and "Finished"' in (
        verdict.reason or ''
    )


def test_following_a_growing_output_file(tmp_path):
    out = tmp_path / 'tlc.out'
    out.write_bytes(b'')
    seen: list[tuple[tlc_modes.Progress, float]] = []
    with tlc_modes.following(out, lambda p, s: seen.append((p, s)), every=0.05):
        first, second = CHECKING.split(b'@!@!@ENDMSG 2200 @!@!@\n', 1)
        out.write_bytes(first + b'@!@!@ENDMSG 2200 @!@!@\n')
        deadline = time.monotonic() + 10
        while not seen and time.monotonic() < deadline:
            time.sleep(0.02)
        with out.open('ab') as grows:  # TLC appends: the file never shrinks under the reader
            grows.write(second)
        while len(seen) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    assert [p.distinct for p, _ in seen] == [984, 113_664]
    assert all(s >= 0 for _, s in seen)

from __future__ import annotations

import pytest

from execlease_hook.tlc import messages


@pytest.mark.parametrize(
    ('text', 'expected'),
    [
        (
            'Progress(1401) at 2026-12-02 16:14:30: 981,402 states generated (20,460,083 s/min), 491,401 distinct '
            'states found (10,244,635 ds/min), 0 states left on queue.',
            (1401, 981402, 491401, 0),
        ),
        # Simulation keeps no set of states: TLC prints -1 for what it does not count.
        (
            'Progress(12) at 2026-12-02 16:14:30: 5,000 states generated (50,000 s/min), -1 distinct states found '
            '(0 ds/min), -1 states left on queue.',
            (12, 5000, None, None),
        ),
        (
            'Finished computing initial states: 1 distinct state generated at 2026-12-02 16:14:27.',
            None,
        ),
    ],
    ids=['model-checking', 'simulation', 'not-progress'],
)
def test_one_reader_of_a_progress_message(text, expected):
    assert messages.progress_counts(text) == expected


def test_every_violation_code_starts_the_counterexample_phase_or_names_the_assumption():
    for code in messages.VIOLATION_CODES:
        assert messages.PHASES[code] in ('printing a counterexample', 'assumption false')

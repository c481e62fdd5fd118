from __future__ import annotations

import pytest

from execlease_hook.core import outcomes


@pytest.mark.parametrize(
    ('codes', 'expected'),
    [
        ((), 0),
        ((0, 0), 0),
        ((0, 1), 1),
        ((1, 2), 2),
        ((2, 1, 0), 2),
        ((2, 130), 2),
        ((0, 130), 130),
    ],
    ids=repr,
)
def test_could_not_run_beats_did_not_hold(codes, expected):
    assert outcomes.worst(codes) == expected


def test_every_outcome_word_has_its_exit_code_and_result_line():
    assert outcomes.CODES == {'held': 0, 'did not hold': 1, 'could not run': 2}
    assert {outcomes.RESULT_TEXT[c] for c in outcomes.CODES.values()} == {
        'PASSED',
        'FAILED (did not hold)',
        'COULD NOT RUN (exit 2 is not a pass)',
    }

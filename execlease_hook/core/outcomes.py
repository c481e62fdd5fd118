"""The outcomes of a run, in one table: the words every command and report uses for a job or an
entry, the exit code each stands for, and the line a run ends with.

Exit 0: everything held. Exit 1: something did not hold. Exit 2: something could not run, and 2
is never a pass: it beats 1 when both happen (`worst`), so a run that could not judge
everything never looks like a plain failure to fix. 129, 130 and 143: interrupted.
"""

from __future__ import annotations

from collections.abc import Iterable

HELD = 'held'
DID_NOT_HOLD = 'did not hold'
COULD_NOT_RUN = 'could not run'
CODES = {HELD: 0, DID_NOT_HOLD: 1, COULD_NOT_RUN: 2}
RESULT_TEXT = {
    0: 'PASSED',
    1: 'FAILED (did not hold)',
    2: 'COULD NOT RUN (exit 2 is not a pass)',
    129: 'INTERRUPTED (SIGHUP)',
    130: 'INTERRUPTED',
    143: 'INTERRUPTED (SIGTERM)',
}


def worst(codes: Iterable[int]) -> int:
    """The exit code of several: 2 (could not run) beats 1 (did not hold), which beats 0."""
    found = set(codes)
    return 2 if 2 in found else max(found, default=0)

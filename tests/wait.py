"""Waiting in tests: for something to happen, by polling it with a deadline, never a fixed sleep.

A fixed sleep is either too short on a busy machine (the test fails for no fault of the code)
or too long everywhere else. `until` returns as soon as the condition holds and fails, naming
what it waited for, only when the deadline passes: the deadline is generous because only a
fault reaches it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar('T')

DEADLINE = 120.0  # seconds; a test's own timeout (pyproject.toml) is longer
POLL = 0.02


def until(
    condition: Callable[[], T], what: str, timeout: float = DEADLINE, poll: float = POLL
) -> T:
    """The first true value of `condition()`, polled every `poll` seconds until `timeout`
    seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f'waited {timeout:g} s for {what}', pytrace=False)
        time.sleep(poll)

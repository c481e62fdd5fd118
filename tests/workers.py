"""How many workers `-n auto` starts: one more than the cores this process may run on.

A share of the suite waits rather than computes: the example's worker processes wait for their
leases to run out, a test waits for pip or pre-commit to install, a local HTTP server serves a
download. With one worker per core, a core stays idle while its worker waits. Measured on a clean
clone at 4,011 tests on 2 cores with nothing beside it: 2 workers 362 s, 3 workers 316 s,
4 workers 344 s (the JVMs of the fourth only queue for the cores).

`PYTEST_XDIST_AUTO_NUM_WORKERS` still decides when it is set, as pytest-xdist documents.
"""

from __future__ import annotations

import os

import pytest

# pytest-xdist's own answer reads this variable; the hook below answers first, so it steps aside
# (returns None) when the variable is set.
OVERRIDE = 'PYTEST_XDIST_AUTO_NUM_WORKERS'


def cores() -> int:
    """The cores this process may run on (its CPU affinity, as a container or taskset limits it)."""
    return len(os.sched_getaffinity(0))


# optionalhook: without pytest-xdist (`-p no:xdist`) the hook is not an unknown hook's error.
@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: cores + 1, unless the variable names a number; `-n logical` is xdist's own."""
    if os.environ.get(OVERRIDE) or config.option.numprocesses == 'logical':
        return None
    return cores() + 1

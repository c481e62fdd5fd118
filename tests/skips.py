"""In CI (EXECLEASE_REQUIRE_ALL=1, set by .ci/run) a skipped test is a failed test.

A skip turns "could not test" into green. `tests/needs.py` already fails instead of skipping
when something a test needs is missing; this catches every other skip (a bare `pytest.skip`,
a `skipif` mark, a helper's own), whatever the test did to its environment meanwhile: the
setting is read once, when the session starts.

Only the skips in PLATFORM stay skips: each names a fact of the platform a test cannot change,
and each is asserted by its exact reason.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

from tests import needs

# reason a test gives -> why it is the platform, not a missing install
PLATFORM = {
    'no flock: folders are never swept here': (
        'Windows has no fcntl.flock; the sweep of scratch folders is off there by design'
    ),
    'reads /proc (Linux)': 'only Linux has /proc; the test reads a child process status there',
}

_required: list[bool] = []


def pytest_configure(config: pytest.Config) -> None:
    _required[:] = [os.environ.get(needs.REQUIRE_ALL) == '1']


def reason_of(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix('Skipped: ')
    return str(longrepr)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if not (_required and _required[0]) or not report.skipped or hasattr(report, 'wasxfail'):
        return report
    reason = reason_of(report)
    if reason in PLATFORM:
        return report
    report.outcome = 'failed'
    report.longrepr = (
        f'skipped in CI ({needs.REQUIRE_ALL}=1), where every test must run: {reason}\n'
        'install what it needs in .ci/run, or, for a fact of the platform, add its '
        'reason to PLATFORM in tests/skips.py with why'
    )
    return report

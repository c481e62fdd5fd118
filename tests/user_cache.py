"""In CI (EXECLEASE_REQUIRE_ALL=1) a run that made or changed anything in the user's execlease
cache fails.

That folder (`core/settings.user_cache`, `~/.cache/execlease`) is where execlease keeps the JVM
cache of a jar outside a repository's `.tmp/tla` and the log of a bug. A test that runs TLC
without `offline_tlc` (which gives the run's own JVM cache) reads and writes it instead: it
depends on what an earlier run left there, and each new checkout leaves a class-data archive of
its own jar (9.6 MB) there, never removed. Three tests did so unseen for a long time: two
fault-run tests of the example, and a test of Ctrl-C at a TLC job's start that this check found.

The folder is read as the session starts and again as it ends, in the process that started the
run (the xdist controller: it sees every worker's work); whatever was made, changed or removed
in between is named. Only in CI: on a developer's machine an `execlease verify` run in another
terminal at the same time would look the same. To find the test, put a `java` on PATH that logs
`$PYTEST_CURRENT_TEST` when its arguments name the folder, and run the tiers again.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from execlease_hook.core.settings import user_cache
from tests import needs

_seen: list[tuple[Path, dict[str, int]]] = []  # the folder, and its state as the session started


def state(folder: Path) -> dict[str, int]:
    """Every file and folder below `folder` (itself too), by path: its modification time."""
    found: dict[str, int] = {}
    for root, _, files in os.walk(folder):  # each folder below is a `root` in turn
        for path in (root, *(os.path.join(root, name) for name in files)):
            try:
                found[path] = os.lstat(path).st_mtime_ns
            except OSError:  # removed meanwhile
                pass
    return found


def changed(before: dict[str, int], after: dict[str, int]) -> list[str]:
    """What differs between two states: made, changed or removed, each path once, sorted."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def pytest_sessionstart(session: pytest.Session) -> None:
    if os.environ.get(needs.REQUIRE_ALL) != '1' or os.environ.get('PYTEST_XDIST_WORKER'):
        return
    folder = user_cache()
    _seen[:] = [(folder, state(folder))]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not _seen:
        return
    folder, before = _seen[0]
    differs = changed(before, state(folder))
    if not differs:
        return
    shown = differs[:10] + [f'... and {len(differs) - 10} more'] * (len(differs) > 10)
    reporter = session.config.pluginmanager.get_plugin('terminalreporter')
    if reporter is not None:
        reporter.write('\n')  # after the progress dots, which end no line
        reporter.write_line(
            f"the run made or changed what is in the user's execlease cache ({folder}), in CI "
            f'({needs.REQUIRE_ALL}=1), where no test may: '
            + ', '.join(shown)
            + ". A test that runs TLC takes offline_tlc (the run's JVM cache); see "
            'tests/user_cache.py to find which one did',
            red=True,
            bold=True,
        )
    session.exitstatus = pytest.ExitCode.TESTS_FAILED

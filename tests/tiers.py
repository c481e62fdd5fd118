"""The test tiers (pyproject.toml's markers), read from what a test uses, and held to it.

A test is `tlc` or `e2e` when a fixture it uses (directly or through another fixture) says so
with `@tiers.uses('tlc')` above its `@pytest.fixture`, or when its module or function carries
the mark itself (`pytestmark = pytest.mark.tlc`: for a module that calls `needs.java()` in its
tests' bodies). Everything else is the fast tier, `-m "not tlc and not e2e"`: the loop while
editing (CONTRIBUTING.md).

The fast tier cannot silently grow a slow test: while a test outside both tiers runs, starting
a JVM, pre-commit or one of the example's worker processes fails it, named with what it
started. Two tripwires see that: an audit hook on every process this one starts, and, for what
its children start, JAVA_TOOL_OPTIONS asking every JVM that starts to write a log line into a
folder that must stay empty.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

TIERS = ('tlc', 'e2e')
# fixture name -> tier, filled by @uses where each such fixture is defined
FIXTURES: dict[str, str] = {}

F = TypeVar('F')


def uses(tier: str) -> Callable[[F], F]:
    """Put every test that uses the fixture below (even through other fixtures) in `tier`."""
    assert tier in TIERS, tier

    def declare(fixture: F) -> F:
        FIXTURES[getattr(fixture, 'name', None) or getattr(fixture, '__name__')] = tier
        return fixture

    return declare


def in_tier(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(tier) for tier in TIERS)


def mark(items: Sequence[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, 'fixturenames', ())
        for tier in sorted({FIXTURES[name] for name in fixtures if name in FIXTURES}):
            if item.get_closest_marker(tier) is None:
                item.add_marker(tier)
        timeout = item.get_closest_marker('timeout')
        if timeout is not None and timeout.args and float(timeout.args[0]) >= 120:
            item.add_marker(pytest.mark.slow)


def started(argv: Sequence[str]) -> str | None:
    """What a command line starts that the fast tier may not, in words, or None."""
    if not argv:
        return None
    program = os.path.basename(str(argv[0]))
    words = [str(a) for a in argv]
    if program in ('java', 'javac', 'jar', 'jshell') or 'tlc2.TLC' in words:
        return f'a JVM ({program})'
    if program == 'pre-commit' or 'pre_commit' in words:
        return 'pre-commit'
    if any('examples.agent_runtime' in w for w in words):
        return "the example's worker process"
    return None


# What the running test has started that its tier does not allow, and the test, if any.
_current: list[pytest.Item] = []
_seen: list[str] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event != 'subprocess.Popen' or not _current or in_tier(_current[0]):
        return
    executable, argv = args[0], args[1]
    if isinstance(argv, (str, bytes, os.PathLike)):
        words = [str(argv)]
    else:
        words = [str(a) for a in argv or ()]  # type: ignore[attr-defined]
    if executable is not None and words:
        words[0] = str(executable)
    what = started(words)
    if what is not None:
        _seen.append(f'{what}: {" ".join(words)[:200]}')


sys.addaudithook(_audit)


_logs: list[Path] = []  # the folder the JVMs of this session's fast-tier tests log into


def _log_folder(factory: pytest.TempPathFactory) -> Path:
    if not _logs:
        _logs.append(factory.mktemp('jvm-tripwire'))
    return _logs[0]


@pytest.fixture(autouse=True)
def fast_tier_tripwire(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[None]:
    """Fails a test of the fast tier that started a JVM, pre-commit or a worker process, itself
    or through a child: its tier is wrong (mark it, or take the fixture that says it)."""
    item = request.node
    if in_tier(item):
        yield
        return
    folder = _log_folder(tmp_path_factory)  # one per session: a folder per test costs a scan each
    monkeypatch.setenv('JAVA_TOOL_OPTIONS', f'-Xlog:disable -Xlog:os=info:file={folder}/jvm-%p.log')
    _current[:] = [item]
    _seen.clear()
    try:
        yield
    finally:
        _current.clear()
    jvms = sorted(p.name for p in folder.iterdir())
    for name in jvms:
        (folder / name).unlink(missing_ok=True)
    found = [*_seen, *(f'a JVM (its log {name}, asked by JAVA_TOOL_OPTIONS)' for name in jvms)]
    _seen.clear()
    if found:
        pytest.fail(
            'this test is in the fast tier (not marked tlc or e2e) but started '
            + '; '.join(dict.fromkeys(found))
            + ': mark it (pytest.mark.tlc or pytest.mark.e2e) or take the fixture that does '
            '(offline_tlc, java, tla_jar, hook_repo; tests/tiers.py)',
            pytrace=False,
        )

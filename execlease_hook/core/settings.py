"""Every `EXECLEASE_*` variable, read in this one module into one `Settings` value.

`cli/main.py` builds it once per command from the environment (`from_environ`) and the command
hands it, or the fields a layer needs, down as a typed value; nothing else reads these
variables. A bad value is exit 2 naming the variable and what to give: `float('nan')` and
`float('inf')` parse, and a NaN timeout compares false with everything, so an unchecked
`EXECLEASE_TLC_TIMEOUT=nan` silently meant "no timeout" (a manifest's seconds have the same
bounds in its schema: tests/manifest/schema_test.py). docs/cli.md's table of variables names
each one (tests/project/reference_test.py).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from execlease_hook.core.errors import CannotRun

# A week: longer than any model this harness is for, short enough that a typo is caught.
MAX_SECONDS = 7 * 24 * 3600.0
# Set by execlease, not read: the folder a trace job's command writes its traces into.
TRACE_DIR = 'EXECLEASE_TRACE_DIR'

Parse = Callable[[str, str, Any], Any]  # (variable, its text, the default) -> the value


def seconds_problem(value: float, maximum: float = MAX_SECONDS) -> str | None:
    if not math.isfinite(value):
        return 'is not a finite number'
    if value <= 0:
        return 'must be more than 0 seconds'
    if value > maximum:
        return f'is more than {maximum:g} seconds'
    return None


def _seconds(name: str, text: str, default: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CannotRun(
            f'{name}={text!r} is not a number of seconds; give e.g. {name}={default:g}'
        ) from None
    problem = seconds_problem(value)
    if problem is not None:
        raise CannotRun(
            f'{name}={text!r} {problem}; give a number of seconds in (0, {MAX_SECONDS:g}], '
            f'e.g. {default:g}'
        )
    return value


def _count(minimum: int, maximum: int) -> Parse:
    def parse(name: str, text: str, default: int) -> int:
        stripped = text.strip()
        if (
            not (stripped.isascii() and stripped.isdigit())
            or len(stripped) > 9
            or not minimum <= int(stripped) <= maximum
        ):
            raise CannotRun(
                f'{name}={text!r}: give a whole number from {minimum} to {maximum}, e.g. {default}'
            )
        return int(stripped)

    return parse


def _switch(name: str, text: str, default: bool) -> bool:
    """One rule for every on/off switch: 1, true, yes, on (any case) turn it on; 0, false, no,
    off turn it off; anything else is exit 2 naming the variable (a typo must not silently keep
    the default)."""
    word = text.strip().lower()
    if word in ('1', 'true', 'yes', 'on'):
        return True
    if word in ('0', 'false', 'no', 'off'):
        return False
    if not word:
        return default
    raise CannotRun(f'{name}={text!r}: give 1 (on) or 0 (off)')


def _text(name: str, text: str, default: str | None) -> str:
    return text


def _env(name: str, default: Any, parse: Parse) -> Any:
    """A field read from the variable `name` (unset or empty: `default`)."""
    return field(default=default, metadata={'name': name, 'parse': parse})


@dataclass(frozen=True)
class Settings:
    """One field per variable (what each does: docs/cli.md#environment-variables)."""

    tla_jar: str | None = _env('EXECLEASE_TLA_JAR', None, _text)
    tla_jar_unverified: bool = _env('EXECLEASE_TLA_JAR_UNVERIFIED', False, _switch)
    tla_url: str | None = _env('EXECLEASE_TLA_URL', None, _text)
    library_path: str | None = _env('EXECLEASE_LIBRARY_PATH', None, _text)
    # 64 MB: CommunityModules-deps.jar, all its dependencies, is a few MB.
    library_max_mb: int = _env('EXECLEASE_LIBRARY_MAX_MB', 64, _count(1, 4096))
    tla_offline: bool = _env('EXECLEASE_TLA_OFFLINE', False, _switch)
    tla_connect_timeout: float = _env('EXECLEASE_TLA_CONNECT_TIMEOUT', 5.0, _seconds)
    tla_read_timeout: float = _env('EXECLEASE_TLA_READ_TIMEOUT', 30.0, _seconds)
    tla_retries: int = _env('EXECLEASE_TLA_RETRIES', 3, _count(1, 20))
    tla_download_deadline: float = _env('EXECLEASE_TLA_DOWNLOAD_DEADLINE', 300.0, _seconds)
    # The download deadline and a minute.
    tla_lock_timeout: float = _env('EXECLEASE_TLA_LOCK_TIMEOUT', 360.0, _seconds)
    java: str | None = _env('EXECLEASE_JAVA', None, _text)
    tlc_timeout: float = _env('EXECLEASE_TLC_TIMEOUT', 600.0, _seconds)
    tlc_workers: int = _env('EXECLEASE_TLC_WORKERS', 1, _count(1, 256))
    jvm_tuning: bool = _env('EXECLEASE_JVM_TUNING', True, _switch)
    jvm_spare: bool = _env('EXECLEASE_JVM_SPARE', True, _switch)
    javac: str | None = _env('EXECLEASE_JAVAC', None, _text)
    jvm_cds: bool = _env('EXECLEASE_JVM_CDS', True, _switch)
    jvm_cache: str | None = _env('EXECLEASE_JVM_CACHE', None, _text)
    progress_seconds: float = _env('EXECLEASE_PROGRESS_SECONDS', 10.0, _seconds)
    # A covered file of 44 MB cost the guard 20 s and 3.6 GB of memory.
    max_covered_mb: int = _env('EXECLEASE_MAX_COVERED_MB', 5, _count(1, 1024))
    log: str | None = _env('EXECLEASE_LOG', None, _text)

    @property
    def max_covered_bytes(self) -> int:
        return self.max_covered_mb * 1_000_000


def from_environ(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings `environ` (default: this process's) gives; CannotRun (exit 2) names the
    first variable holding a value that is not one."""
    environ = os.environ if environ is None else environ
    given = {}
    for f in fields(Settings):
        text = environ.get(f.metadata['name'], '')
        if text:
            given[f.name] = f.metadata['parse'](f.metadata['name'], text, f.default)
    return Settings(**given)


def names() -> list[str]:
    """Every variable, as docs/cli.md's table lists them (tests/project/reference_test.py)."""
    return [*(f.metadata['name'] for f in fields(Settings)), TRACE_DIR]

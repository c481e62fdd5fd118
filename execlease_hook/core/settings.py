"""Every `EXECLEASE_*` variable, read in this one module into one `Settings` value.

`cli/main.py` builds it once per command from the environment (`from_environ`) and the command
hands it, or the fields a layer needs, down as a typed value; nothing else reads these
variables. A bad value is exit 2 naming the variable and what to give: `float('nan')` and
`float('inf')` parse, and a NaN timeout compares false with everything, so an unchecked
`EXECLEASE_TLC_TIMEOUT=nan` silently meant "no timeout" (a manifest's seconds have the same
bounds in its schema: tests/manifest/schema_test.py). docs/cli.md's table of variables names
each one (tests/project/reference_test.py). Where two of them point when unset, the user's
execlease cache, is said here too (`user_cache`), for tlc/cds.py and core/crash.py alike.

Without `from __future__ import annotations`, unlike the other modules: every command builds
`Settings`, and typing.NamedTuple turns each field's annotation, when it is a string, into a
ForwardRef that compiles it. Importing this module cost 15.6 M instructions more than typing,
math and os with it, 4.0 M without (callgrind, `python -c 'import execlease_hook.core.settings'`):
11.6 M saved on every commit, an eighth of `python -c pass` (88 M).
"""

import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from execlease_hook.core.errors import CannotRun

# A week: longer than any model this harness is for, short enough that a typo is caught.
MAX_SECONDS = 7 * 24 * 3600.0
# Set by execlease, not read: the folder a trace job's command writes its traces into.
TRACE_DIR = 'EXECLEASE_TRACE_DIR'

Parse = Callable[[str, str, Any], Any]  # (variable, its text, the default) -> the value


def seconds_problem(value: float) -> str | None:
    if not math.isfinite(value):
        return 'is not a finite number'
    if value <= 0:
        return 'must be more than 0 seconds'
    if value > MAX_SECONDS:
        return f'is more than {MAX_SECONDS:g} seconds'
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


class Settings(NamedTuple):
    """One field per variable (`variable` says which; what each does:
    docs/cli.md#environment-variables). A NamedTuple, not a dataclass: `dataclasses` (and
    `inspect`) would be the only import of their weight before the guard's early exit.
    """

    tla_jar: str | None = None
    tla_jar_unverified: bool = False
    tla_url: str | None = None
    library_path: str | None = None
    # 64 MB: CommunityModules-deps.jar, all its dependencies, is a few MB.
    library_max_mb: int = 64
    tla_offline: bool = False
    tla_connect_timeout: float = 5.0
    tla_read_timeout: float = 30.0
    tla_retries: int = 3
    tla_download_deadline: float = 300.0
    # The download deadline and a minute.
    tla_lock_timeout: float = 360.0
    java: str | None = None
    tlc_timeout: float = 600.0
    tlc_workers: int = 1
    jvm_tuning: bool = True
    jvm_spare: bool = True
    javac: str | None = None
    jvm_cds: bool = True
    jvm_cache: str | None = None
    progress_seconds: float = 10.0
    # A covered file of 44 MB cost the guard 20 s and 3.6 GB of memory.
    max_covered_mb: int = 5
    log: str | None = None

    @property
    def max_covered_bytes(self) -> int:
        return self.max_covered_mb * 1_000_000


# How a field's variable is read: by its default's type (the text as it is for the rest), but the
# whole numbers, each with its bounds.
BY_TYPE: dict[type, Parse] = {bool: _switch, float: _seconds}
COUNTS: dict[str, Parse] = {
    'library_max_mb': _count(1, 4096),
    'tla_retries': _count(1, 20),
    'tlc_workers': _count(1, 256),
    'max_covered_mb': _count(1, 1024),
}


def variable(field: str) -> str:
    """The variable of a field of Settings: `tlc_timeout` is EXECLEASE_TLC_TIMEOUT."""
    return 'EXECLEASE_' + field.upper()


def from_environ(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings `environ` (default: this process's) gives; CannotRun (exit 2) names the
    first variable holding a value that is not one."""
    environ = os.environ if environ is None else environ
    given: dict[str, Any] = {}
    for field, default in Settings._field_defaults.items():
        name = variable(field)
        if text := environ.get(name, ''):
            parse = COUNTS.get(field) or BY_TYPE.get(type(default), lambda _, value, __: value)
            given[field] = parse(name, text, default)
    return Settings(**given)


def user_cache() -> Path:
    """The user's execlease cache (`$XDG_CACHE_HOME/execlease`, else `~/.cache/execlease`), where
    EXECLEASE_LOG and EXECLEASE_JVM_CACHE point when unset: the log of a bug, and the JVM cache
    of a jar outside a repository's `.tmp/tla`."""
    return Path(os.environ.get('XDG_CACHE_HOME') or Path.home() / '.cache') / 'execlease'


def names() -> list[str]:
    """Every variable, as docs/cli.md's table lists them (tests/project/reference_test.py)."""
    return [*map(variable, Settings._fields), TRACE_DIR]

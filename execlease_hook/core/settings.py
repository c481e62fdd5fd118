"""Every `EXECLEASE_*` variable, read in this one module into one `Settings` value.

`cli/main.py` builds it once per command from the environment (`from_environ`) and the command
hands it, or the fields a layer needs, down as a typed value; nothing else reads these
variables. A bad value is exit 2 naming the variable and what to give: `float('nan')` and
`float('inf')` parse, and a NaN timeout compares false with everything, so an unchecked
`EXECLEASE_TLC_TIMEOUT=nan` silently meant "no timeout" (manifest numbers go through
manifest/read.py with the same bounds). docs/cli.md's table of variables is generated from the
fields below (`python tests/project/reference_test.py --write`).
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
TRACE_DIR_DOC = (
    "set by execlease for a trace job's command: the folder the command writes its NDJSON "
    'traces into'
)

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


def _env(name: str, default: Any, parse: Parse, doc: str) -> Any:
    """A field read from the variable `name` (unset or empty: `default`), described by `doc`
    in docs/cli.md."""
    return field(default=default, metadata={'name': name, 'parse': parse, 'doc': doc})


@dataclass(frozen=True)
class Settings:
    tla_jar: str | None = _env(
        'EXECLEASE_TLA_JAR',
        None,
        _text,
        'use this tla2tools.jar (its sha256 must be the pinned one)',
    )
    tla_jar_unverified: bool = _env(
        'EXECLEASE_TLA_JAR_UNVERIFIED',
        False,
        _switch,
        '`1`: accept `EXECLEASE_TLA_JAR` without the pinned hash (every result is then marked '
        'unverified)',
    )
    tla_url: str | None = _env(
        'EXECLEASE_TLA_URL', None, _text, 'a mirror of the pinned jar (same sha256)'
    )
    library_path: str | None = _env(
        'EXECLEASE_LIBRARY_PATH',
        None,
        _text,
        "library jars (or folders holding them) to use instead of downloading a manifest's "
        '`libraries` jars; each still checked against its sha256',
    )
    library_max_mb: int = _env(
        'EXECLEASE_LIBRARY_MAX_MB',
        64,  # CommunityModules-deps.jar, dependencies and all, is a few MB
        _count(1, 4096),
        'the largest library jar downloaded, in MB (default 64, at most 4096)',
    )
    tla_offline: bool = _env(
        'EXECLEASE_TLA_OFFLINE',
        False,
        _switch,
        '`1`: never try a download; use the cache or the offline jar',
    )
    tla_connect_timeout: float = _env(
        'EXECLEASE_TLA_CONNECT_TIMEOUT', 5.0, _seconds, 'download connect timeout in seconds (5)'
    )
    tla_read_timeout: float = _env(
        'EXECLEASE_TLA_READ_TIMEOUT', 30.0, _seconds, 'download read timeout in seconds (30)'
    )
    tla_retries: int = _env(
        'EXECLEASE_TLA_RETRIES', 3, _count(1, 20), 'download attempts (default 3, at most 20)'
    )
    tla_download_deadline: float = _env(
        'EXECLEASE_TLA_DOWNLOAD_DEADLINE',
        300.0,
        _seconds,
        'the whole download of a jar, in seconds (300)',
    )
    tla_lock_timeout: float = _env(
        'EXECLEASE_TLA_LOCK_TIMEOUT',
        360.0,  # the download deadline and a minute
        _seconds,
        "the wait for another run's download of the tools, in seconds (360)",
    )
    java: str | None = _env(
        'EXECLEASE_JAVA', None, _text, 'the java binary to use (the only one tried)'
    )
    tlc_timeout: float = _env(
        'EXECLEASE_TLC_TIMEOUT',
        600.0,
        _seconds,
        'default timeout per TLC job in seconds (600); `"timeout"` on a manifest entry wins',
    )
    tlc_workers: int = _env(
        'EXECLEASE_TLC_WORKERS',
        1,
        _count(1, 256),
        'TLC `-workers` per job (default 1, at most 256; parallelism comes from `--jobs`)',
    )
    jvm_tuning: bool = _env(
        'EXECLEASE_JVM_TUNING',
        True,
        _switch,
        "`0`: run each TLC job in a JVM started for it, with no flags of execlease's own (by "
        'default short jobs run with C1 only, every job with a class-data archive of the jar '
        'built on first use, and in a warm JVM that runs jobs one after another, each in a '
        'class loader of its own)',
    )
    jvm_spare: bool = _env(
        'EXECLEASE_JVM_SPARE', True, _switch, '`0`: no warm JVMs, each job starts its own'
    )
    javac: str | None = _env(
        'EXECLEASE_JAVAC',
        None,
        _text,
        "the javac that compiles the warm JVMs' small helper at first use (default: beside "
        'the java; without one each job starts its own JVM)',
    )
    jvm_cds: bool = _env('EXECLEASE_JVM_CDS', True, _switch, '`0`: no class-data archive')
    jvm_cache: str | None = _env(
        'EXECLEASE_JVM_CACHE',
        None,
        _text,
        'the folder of the class-data archive and the warm JVMs (default beside the cached '
        'jar, `.tmp/tla/jvm/`, else `~/.cache/execlease/jvm/`)',
    )
    progress_seconds: float = _env(
        'EXECLEASE_PROGRESS_SECONDS',
        10.0,
        _seconds,
        'not on a terminal: seconds between two progress lines of a running TLC job (10)',
    )
    max_covered_mb: int = _env(
        'EXECLEASE_MAX_COVERED_MB',
        5,  # a 44 MB file cost the guard 20 s and 3.6 GB of memory
        _count(1, 1024),
        'the largest covered file located and fingerprinted, in MB (default 5, at most 1024); '
        'a larger one stops with a message',
    )
    log: str | None = _env(
        'EXECLEASE_LOG',
        None,
        _text,
        "the file a bug's traceback is written to (exit 3; default "
        '`~/.cache/execlease/execlease.log`)',
    )

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


def documented() -> list[tuple[str, str]]:
    """(variable, what it does) for every variable, in docs/cli.md's order."""
    rows = [(f.metadata['name'], f.metadata['doc']) for f in fields(Settings)]
    return [*rows, (TRACE_DIR, TRACE_DIR_DOC)]

"""Numeric settings from the environment, validated: finite, in range, or exit 2 naming the variable.

`float('nan')` and `float('inf')` parse, and a NaN timeout compares false with everything, so an
unchecked `EXECLEASE_TLC_TIMEOUT=nan` silently meant "no timeout". Every number a person can set
goes through here (manifest numbers through manifest/read.py, with the same bounds).
"""

from __future__ import annotations

import math
import os

from execlease_hook.core.errors import CannotRun

# A week: longer than any model this harness is for, short enough that a typo is caught.
MAX_SECONDS = 7 * 24 * 3600.0


def seconds_problem(value: float, maximum: float = MAX_SECONDS) -> str | None:
    if not math.isfinite(value):
        return 'is not a finite number'
    if value <= 0:
        return 'must be more than 0 seconds'
    if value > maximum:
        return f'is more than {maximum:g} seconds'
    return None


def seconds_env(name: str, default: float, maximum: float = MAX_SECONDS) -> float:
    text = os.environ.get(name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise CannotRun(
            f'{name}={text!r} is not a number of seconds; give e.g. {name}={default:g}'
        ) from None
    problem = seconds_problem(value, maximum)
    if problem is not None:
        raise CannotRun(
            f'{name}={text!r} {problem}; give a number of seconds in (0, {maximum:g}], '
            f'e.g. {default:g}'
        )
    return value


def count_env(name: str, default: int, minimum: int = 1, maximum: int = 1000) -> int:
    text = os.environ.get(name)
    if not text:
        return default
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


_ON = ('1', 'true', 'yes', 'on')
_OFF = ('0', 'false', 'no', 'off')


def switch_env(name: str, default: bool) -> bool:
    """An on/off switch from the environment, one rule for all of them: 1, true, yes, on (any
    case) turn it on; 0, false, no, off turn it off; unset or empty keeps `default`; anything
    else is exit 2 naming the variable (a typo must not silently keep the default)."""
    text = os.environ.get(name, '').strip().lower()
    if not text:
        return default
    if text in _ON:
        return True
    if text in _OFF:
        return False
    raise CannotRun(f'{name}={os.environ[name]!r}: give 1 (on) or 0 (off)')


MAX_COVERED_ENV = 'EXECLEASE_MAX_COVERED_MB'


def max_covered_bytes() -> int:
    """The largest covered file located and fingerprinted (default 5 MB): a 44 MB file cost the
    guard 20 s and 3.6 GB of memory."""
    return count_env(MAX_COVERED_ENV, 5, 1, 1024) * 1_000_000

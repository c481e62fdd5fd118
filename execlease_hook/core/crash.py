"""A bug's report: the traceback of an unexpected exception, with what is needed to reproduce it,
written to one log file that the message names, as pre-commit writes its own
(`~/.cache/pre-commit/pre-commit.log`). Exit 3, its own code: not "did not hold" (1), not "could
not run" (2), which a CI step or a person can act on without reading a traceback.
"""

from __future__ import annotations

import os
import platform
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from execlease_hook.core import atomic, settings

EXIT_BUG = 3


def report(argv: Sequence[str], traceback_text: str, version: str) -> str:
    return f"""\
# execlease: an unexpected error

command: execlease {shlex.join(argv)}
version: {version}
python: {sys.version.split()[0]} ({sys.executable})
platform: {platform.platform()}
cwd: {_current_folder()}

{traceback_text.rstrip()}
"""


def _current_folder() -> str:
    try:
        return os.getcwd()
    except OSError as e:  # removed while the command ran: the report is still written
        return f'(unreadable: {e.strerror})'


def write_log(text: str, named: str | None) -> Path | None:
    """The report written (atomically, replacing the last one) to `named` (EXECLEASE_LOG), else
    execlease.log in the user's cache (`$XDG_CACHE_HOME/execlease`); None when it cannot be."""
    if named:
        path = Path(named)
    else:
        path = settings.user_cache() / 'execlease.log'
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text_atomic(path, text)
    except OSError:
        return None
    return path

"""SIGTERM and SIGHUP end a run the way Ctrl-C does.

CI and `timeout` stop a job with SIGTERM, a closed terminal sends SIGHUP. Python's default for
both is to die on the spot: the TLC processes, each in its own session so that a timeout can kill
the whole group, would keep running, and their temporary folders would stay. Turned into an
exception that is a KeyboardInterrupt, every cleanup path Ctrl-C takes runs (each TLC process group
stopped, temporary folders removed, `--json` rewritten), and the exit code says which signal it
was (128 + its number: 143 for SIGTERM, 129 for SIGHUP).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType

HANDLED = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise(signum: int, frame: FrameType | None) -> None:
    # Once is enough: a second signal during the cleanup must not interrupt the cleanup itself.
    for handled in HANDLED:
        signal.signal(handled, signal.SIG_IGN)
    raise Terminated(signum)


def install() -> Callable[[], None]:
    """Handle SIGTERM and SIGHUP in this (main) thread; returns a function restoring the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None  # only the main thread may set handlers (and receives signals)
    previous = {s: signal.getsignal(s) for s in HANDLED}
    for s in HANDLED:
        signal.signal(s, _raise)

    def restore() -> None:
        for s, handler in previous.items():
            signal.signal(s, handler)

    return restore


def interrupted(e: KeyboardInterrupt) -> tuple[str, int]:
    """What to say and which exit code, for Ctrl-C or a handled signal."""
    if isinstance(e, Terminated):
        return f'terminated ({signal.Signals(e.signum).name})', 128 + e.signum
    return 'interrupted (Ctrl-C)', 130

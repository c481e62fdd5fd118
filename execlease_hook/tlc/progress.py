"""TLC's output lines, as they arrive, -> what a running job is doing: its phase and, from TLC's
progress messages, the state counts and how fast they grow (for the live line, verify/live.py;
`last` reads the counts at a timeout and a simulation's states from the whole output).

`Follower` hands on whole lines of the job's output file as TLC writes it, however TLC was
launched. TLC 2.15 prints its first progress message (code 2200; 2209 in simulation) about 3 s
after the search starts, then one a minute. Nothing here decides a verdict (tlc/output.py).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from execlease_hook.tlc.messages import (
    INITIAL_STATES,
    PHASES,
    PROGRESS,
    SIMULATION_PROGRESS,
    number,
    progress_counts,
)

_START = re.compile(r'@!@!@STARTMSG (\d+):\d+ @!@!@')
_INITIAL = re.compile(r'Finished computing initial states: ([\d,]+) distinct state')


@dataclass
class JobProgress:
    """One TLC job, as far as its output tells. The counts are those of TLC's last progress
    report (None: one TLC does not keep, as a simulation keeps no set of states), or, before
    the first, the initial states found."""

    label: str = ''  # 'check main', 'mutation claim-ignores-owner'
    started: float = 0.0  # time.monotonic() when the job started
    phase: str = 'starting Java'
    depth: int | None = None
    generated: int | None = None  # None until TLC's first progress report
    distinct: int | None = None
    queue: int | None = None
    per_second: float | None = None  # distinct states a second, between the last two counts
    _message: int | None = None  # the code of the message being read
    _counted: tuple[float, int] | None = None  # (when, distinct) of the last count

    def feed(self, line: str, now: float | None = None) -> bool:
        """`now`: when the line arrived (time.monotonic()). The rate is measured here, between
        two counts: TLC's own "ds/min" over its first, 3-second interval is not a rate. True
        when the line was a progress report."""
        if (start := _START.match(line)) is not None:
            self._message = int(start.group(1))
            self.phase = PHASES.get(self._message, self.phase)
            return False
        if line.startswith('@!@!@ENDMSG'):
            self._message = None
            return False
        if self._message in (PROGRESS, SIMULATION_PROGRESS):
            if (counts := progress_counts(line)) is None:
                return False
            self.depth, self.generated, self.distinct, self.queue = counts
            self._count(time.monotonic() if now is None else now)
            return True
        if self._message == INITIAL_STATES:
            found = _INITIAL.search(line)
            if found is not None and self.distinct is None and self.generated is None:
                self.distinct = number(found.group(1))
                self._count(time.monotonic() if now is None else now)
        return False

    def _count(self, now: float) -> None:
        if self.distinct is None:
            return
        if self._counted is not None and now > self._counted[0]:
            self.per_second = (self.distinct - self._counted[1]) / (now - self._counted[0])
        self._counted = (now, self.distinct)

    def describe(self, now: float) -> str:
        """`check main: 23 s, exploring, 85,142 distinct states (3,088/s), 1,709 on queue`."""
        parts = [f'{self.label}: {now - self.started:.0f} s', self.phase]
        if self.distinct is not None:
            states = f'{self.distinct:,} distinct state' + ('' if self.distinct == 1 else 's')
            if self.per_second is not None:
                states += f' ({self.per_second:,.0f}/s)'
            parts.append(states)
        if self.queue is not None and self.phase == 'exploring':
            parts.append(f'{self.queue:,} on queue')
        return ', '.join(parts)


def last(output: bytes) -> JobProgress | None:
    """The counts of the last progress report in TLC's whole output (None: there is none)."""
    job = JobProgress()
    for line in output.decode('utf-8', 'replace').splitlines():
        job.feed(line, 0.0)
    return job if job.generated is not None else None


class Follower:
    """TLC's output file as it grows -> its whole lines, to `on_line`, at each call (the last,
    unfinished one waits for its end). The file need not exist yet (a warm JVM makes it)."""

    def __init__(self, path: Path, on_line: Callable[[str], None]) -> None:
        self._path, self._on_line = path, on_line
        self._offset = 0
        self._rest = b''

    def __call__(self) -> None:
        try:
            with open(self._path, 'rb') as out:
                out.seek(self._offset)
                chunk = out.read()
        except FileNotFoundError:
            return
        self._offset += len(chunk)
        lines = (self._rest + chunk).split(b'\n')
        self._rest = lines.pop()
        for line in lines:
            self._on_line(line.decode('utf-8', 'replace').rstrip('\r'))

"""TLC's output lines, as they arrive, -> what a running job is doing: its phase and, from TLC's
progress messages, the state counts and how fast they grow. The live progress line
(verify/live.py) shows it.

Fed one line at a time by whatever runs TLC (tlc/run.py tails the job's output file), so it does
not depend on how TLC is launched. TLC 2.15 prints its first progress message (code 2200) about
3 s after the search starts, then one a minute; between two of them the phase and the elapsed
time are what there is to show. Nothing here decides a verdict: that is tlc/output.py's job, on
the whole output.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from execlease_hook.tlc.messages import INITIAL_STATES, PHASES, PROGRESS, progress_counts

_START = re.compile(r'@!@!@STARTMSG (\d+):\d+ @!@!@')
_NUMBER = r'([\d,]+)'
_INITIAL = re.compile(r'Finished computing initial states: ' + _NUMBER + ' distinct state')


def _int(text: str) -> int:
    return int(text.replace(',', ''))


@dataclass
class JobProgress:
    """One running TLC job, as far as its output tells."""

    label: str  # 'check main', 'mutation claim-ignores-owner'
    started: float  # time.monotonic() when the job started
    phase: str = 'starting Java'
    depth: int | None = None
    generated: int | None = None
    distinct: int | None = None
    queue: int | None = None
    per_second: float | None = None  # distinct states a second, between the last two counts
    _message: int | None = None  # the code of the message being read
    _counted: tuple[float, int] | None = None  # (when, distinct) of the last count

    def feed(self, line: str, now: float | None = None) -> None:
        """`now`: when the line arrived (time.monotonic()). The rate is measured here, between
        two counts: TLC's own "ds/min" over its first, 3-second interval is not a rate."""
        start = _START.match(line)
        if start is not None:
            self._message = int(start.group(1))
            self.phase = PHASES.get(self._message, self.phase)
            return
        if line.startswith('@!@!@ENDMSG'):
            self._message = None
            return
        if self._message == PROGRESS:
            counts = progress_counts(line)
            if counts is not None and counts[2] is not None:
                self.depth, self.generated, self.distinct, self.queue = counts
                self._count(time.monotonic() if now is None else now)
        elif self._message == INITIAL_STATES:
            found = _INITIAL.search(line)
            if found is not None and self.distinct is None:
                self.distinct = _int(found.group(1))
                self._count(time.monotonic() if now is None else now)

    def _count(self, now: float) -> None:
        assert self.distinct is not None
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


class LineSplitter:
    """Bytes as they arrive -> whole lines (the last, unfinished one waits for its end)."""

    def __init__(self) -> None:
        self._rest = b''

    def feed(self, chunk: bytes) -> list[str]:
        lines = (self._rest + chunk).split(b'\n')
        self._rest = lines.pop()
        return [line.decode('utf-8', 'replace').rstrip('\r') for line in lines]

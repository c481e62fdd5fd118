"""TLC's `-tool` message codes, in one place: what a code means for a verdict (tlc/output.py),
for a running job's phase (tlc/progress.py) and for the deep tier's runs (tlc/output.py); and the
one reader of the text of a progress message. A new code is one constant here, and a row in
VIOLATION_CODES or PHASES where it says something.

Codes as TLC 2.15 and 2.19 print them: `@!@!@STARTMSG <code>:<severity> @!@!@`.
"""

from __future__ import annotations

import re

# Verdicts.
NO_ERROR = 2193
INVARIANT = 2110
INVARIANT_INITIAL = 2107
TEMPORAL = 2116
ACTION_PROPERTY = 2112
DEADLOCK = 2114
ASSUMPTION = 2104
ASSERT_FAILED = 2132  # "The first argument of Assert evaluated to FALSE; the second argument was:"
# "The error occurred when TLC was evaluating the nested expressions at ..."
NESTED_POSITIONS = 2103
STATS = 2199
DEPTH = 2194
TRACE_STATE = 2217
STUTTERING = 2218
BACK_TO_STATE = 2122
VIOLATION_CODES = {
    INVARIANT: 'invariant',
    INVARIANT_INITIAL: 'invariant',
    TEMPORAL: 'property',
    ACTION_PROPERTY: 'property',
    DEADLOCK: 'deadlock',
    ASSUMPTION: 'assumption',
}
SEVERITY_ERROR = 1
# "Error: ... Usage: java tlc2.TLC [-option] inputfile": TLC refused its arguments.
BAD_ARGUMENTS = 1102

# The run's phases and progress.
STARTING = 2262
PARSING = 2220
PARSED = 2219
SEARCH_STARTS = 2185
INITIAL_STARTS = 2189
INITIAL_STATES = 2190  # "Finished computing initial states: N distinct states generated at ..."
PROGRESS = 2200  # "Progress(d) at ...: N states generated (R s/min), D distinct states found (...)"
SIMULATION_PROGRESS = 2209
FINISHED = 2186  # "Finished in ...ms at (...)": TLC's last words, whatever the outcome
# A message code -> the phase it starts.
PHASES = {
    STARTING: 'starting TLC',
    PARSING: 'parsing the spec',
    PARSED: 'parsed',
    SEARCH_STARTS: 'starting the search',
    INITIAL_STARTS: 'computing initial states',
    INITIAL_STATES: 'exploring',
    PROGRESS: 'exploring',
    NO_ERROR: 'finishing',
    STATS: 'finishing',
    **dict.fromkeys(VIOLATION_CODES, 'printing a counterexample'),
    ASSUMPTION: 'assumption false',
}

# Model checking and simulation print the same shape; a count TLC does not keep is -1.
_PROGRESS = re.compile(
    r'\s*Progress\((-?[\d,]+)\) at .*?: (-?[\d,]+) states generated.*?, (-?[\d,]+) distinct states found'
    r'(?: \([^)]*\))?, (-?[\d,]+) states left on queue',
    re.S,
)


def number(text: str) -> int:
    """A count as TLC prints it: `1,778` -> 1778."""
    return int(text.replace(',', ''))


def progress_counts(text: str) -> tuple[int | None, int, int | None, int | None] | None:
    """(depth, generated, distinct, queue) of a progress message's text (None: a count TLC does
    not keep), or None when the text is not one."""
    if (match := _PROGRESS.search(text)) is None:
        return None
    depth, generated, distinct, queue = (n if n >= 0 else None for n in map(number, match.groups()))
    return depth, generated or 0, distinct, queue

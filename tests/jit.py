"""The JVMs the test run starts compile with C1 only, as execlease's own short jobs do.

A check or a trace job runs in a JVM with the full JIT (`tlc/kinds.jit_flags`): on a model that
runs for minutes, C2's code pays for its compiling. The test run's models are small, and C2's
compiler threads spend CPU that the other worker on a two-core machine would have used. Measured
on four TLC-heavy modules (tests/verify/suite_test.py, tests/traces/suite_test.py,
tests/verify/libraries_test.py, tests/examples/agent_runtime/trace_test.py; 92 tests, `-n auto`,
nothing beside them, interleaved): 138.5 and 136.2 CPU-s and 71.2 and 73.8 s without this, 106.9 and
104.3 CPU-s and 58.5 and 54.6 s with it. A verdict does not depend on the JIT: TLC explores the
same states either way.

The flag goes through JDK_JAVA_OPTIONS, which only the `java` launcher reads (javac and jar keep
their own flags) and which is not on the command line: the tests of what execlease passes a JVM
still see execlease's flags alone. A JVM says "NOTE: Picked up JDK_JAVA_OPTIONS: ..." on stderr;
execlease's readers of `java -version` and of TLC's output already skip it. A machine that sets
JDK_JAVA_OPTIONS itself keeps its own; the workers read it from the environment of the process
that starts the run.
"""

from __future__ import annotations

import os

VARIABLE = 'JDK_JAVA_OPTIONS'
C1_ONLY = '-XX:TieredStopAtLevel=1'


def c1_for_the_run() -> str | None:
    """The options set here, or None: the machine chose its own (or the run's first process
    did, and this is a worker that inherited them)."""
    if VARIABLE in os.environ:
        return None
    os.environ[VARIABLE] = C1_ONLY
    return C1_ONLY


OPTIONS = c1_for_the_run()

"""What TLC prints at the end of a random simulation (the deep tier's `--simulate`, verify/deep.py),
beside tlc/output.py's verdicts of model checking.

TLC reports progress in model checking (message 2200, about once a minute) and in simulation
(2209): `Progress(D) at TIME: G states generated (R s/min), N distinct states found (R ds/min), Q
states left on queue.` (simulation: -1 for the counts it does not keep). A simulation that finds
nothing exits 0 with a last 2209 report and 2186 ("Finished in ..."), never with model
checking's "No error has been found": the number of behaviours it drew is all it covered.
"""

from __future__ import annotations

import dataclasses

from execlease_hook.tlc.messages import FINISHED, VIOLATION_CODES
from execlease_hook.tlc.output import EXIT_OK, Verdict, classify, last_lines, parse_messages
from execlease_hook.tlc.progress import last


def classify_simulation(
    exit_code: int, output: bytes, seconds: float, config_text: str = ''
) -> Verdict:
    """A simulation's verdict: a violation is read as in model checking; exit 0 is a pass of the
    behaviours drawn (`states`: the states generated), with TLC's end message and a count."""
    found = last(output)
    if exit_code != EXIT_OK:
        verdict = classify(exit_code, output, seconds, config_text)
        if found is not None and verdict.states is None:
            verdict = dataclasses.replace(verdict, states=found.generated)
        return verdict
    messages = parse_messages(output)
    if any(m.code in VIOLATION_CODES for m in messages):
        reason = 'TLC exited 0 but reported a violation'
    elif found is None or not any(m.code == FINISHED for m in messages):
        reason = 'TLC exited 0 without its simulation progress and "Finished" messages'
    else:
        return Verdict('passed', seconds, exit_code, states=found.generated)
    return Verdict('error', seconds, exit_code, reason=reason, last_lines=last_lines(output))

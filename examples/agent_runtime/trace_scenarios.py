"""Traced scenarios that drive every guard of the runtime once, deterministically.

The fault-injection run (trace_run.py) shows the runtime's traces are behaviours of the model
under real races, but whether a given race happens depends on the OS scheduler. These
scenarios make each situation a guard exists for happen on purpose, in one process, with the
real code and the real database: a second claim while the lease is live, a renew, begin_step,
complete_step, finish_turn and release by a run whose lease expired or was taken over, a
replay of a completed, a started-`never` and a started-`always` step, policy flips both ways,
whole turns through the worker's own run_turn (the order of journal and effect; a deposed
worker's run_turn, refused at its begin_step, stops without the effect), a worker
restarted with the run id of a stopped process (the stopped one resumes before its begin_step,
before its complete_step, before its finish_turn), and the calls the worker never makes that a
row check refuses (a second release, a second completion, completing a step begun in an earlier
generation). On the shipped code every refused call writes nothing and every trace is
accepted; with a guard broken, the call goes through and its line is one no step of the model
matches.

The runs and the database they act on are trace_world.py's. Time passing is simulated by
moving the lease's expiry into the past (not a model action, so not a line: the trace shows
only its effect, a lease that is no longer live).

Writes one NDJSON file per (turn, step) into the folder named by EXECLEASE_TRACE_DIR (or --out).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from examples.agent_runtime import schema
from examples.agent_runtime import trace
from examples.agent_runtime.effects import append_effect
from examples.agent_runtime.lease import finish_turn
from examples.agent_runtime.lease import release
from examples.agent_runtime.lease import renew
from examples.agent_runtime.steps import complete_step
from examples.agent_runtime.trace_world import TTL
from examples.agent_runtime.trace_world import Run
from examples.agent_runtime.trace_world import World

OUT_ENV = 'EXECLEASE_TRACE_DIR'


def scenarios(world: World) -> None:
    world.add_turns(*(f's{i:02d}' for i in range(1, 17)))
    lease_scenarios(world)
    restart_scenarios(world)
    out_of_flow_scenarios(world)


def lease_scenarios(world: World) -> None:
    a, b = Run(world, 'a'), Run(world, 'b')

    # s01: a whole turn through run_turn (journal, effect, completion, in that order), a renew;
    # then a second claim of the done turn is refused (status must be 'open').
    lease = a.claim('s01')
    assert lease is not None
    renew(a.act(), lease, TTL)
    a.turn(lease, ['mail', 'search'])
    b.claim('s01')

    # s02: a claim while the lease is live is refused, for another run and for the holder.
    lease = a.claim('s02')
    assert lease is not None
    b.claim('s02')
    a.claim('s02')
    a.turn(lease, ['search'])

    # s03: a's lease expires unclaimed: renew (no resurrection), begin_step and finish_turn are
    # refused; a release of its own generation still goes through, a second one does not (the
    # owner is cleared, the generation stays: only `lease_owner = :run` refuses it).
    lease = a.claim('s03')
    assert lease is not None
    world.expire('s03', a)
    renew(a.act(), lease, TTL)
    a.begin(lease, '0:search')
    finish_turn(a.act(), lease)
    release(a.act(), lease)
    release(a.act(), lease)

    # s04: a expires between its effect and complete_step (its own generation, nobody else's
    # yet): complete_step is refused; a releases; b re-runs the `always` step and finishes.
    lease = a.claim('s04')
    assert lease is not None
    a.begin(lease, '0:search')
    append_effect(str(world.effect_log), lease, '0:search', 'always', 0)
    world.expire('s04', a)
    complete_step(a.act(), lease, '0:search', 'late')
    release(a.act(), lease)
    new = b.claim('s04')
    assert new is not None
    b.turn(new, ['search'])

    # s05: a is deposed (b took the turn over): every write of a is refused.
    old = a.claim('s05')
    assert old is not None
    a.begin(old, '0:search')
    append_effect(str(world.effect_log), old, '0:search', 'always', 0)
    world.expire('s05', a)
    new = b.claim('s05')
    assert new is not None
    renew(a.act(), old, TTL)
    complete_step(a.act(), old, '0:search', 'stale')
    a.begin(old, '1:search')
    finish_turn(a.act(), old)
    release(a.act(), old)
    b.turn(new, ['search', 'search'])

    # s06: a completes its step and expires before finish_turn: b replays the completed step
    # (returns its result, does not run it again) and finishes the turn.
    lease = a.claim('s06')
    assert lease is not None
    a.begin(lease, '0:mail')
    append_effect(str(world.effect_log), lease, '0:mail', 'never', 0)
    complete_step(a.act(), lease, '0:mail', 'sent')
    complete_step(a.act(), lease, '0:mail', 'again')   # refused: the row is no longer started
    world.expire('s06', a)
    new = b.claim('s06')
    assert new is not None
    b.turn(new, ['mail'])

    # s07: a started `never` step is not run again: it becomes unknown, the turn needs a person.
    lease = a.claim('s07')
    assert lease is not None
    a.begin(lease, '0:mail')
    append_effect(str(world.effect_log), lease, '0:mail', 'never', 0)
    world.expire('s07', a)
    new = b.claim('s07')
    assert new is not None
    b.turn(new, ['mail'])

    # s08: begun under `always`, flipped to `never` before the takeover: the policy in force
    # now wins (most restrictive); b must not run it again.
    world.set_policy('flipping', 'always')
    lease = a.claim('s08')
    assert lease is not None
    a.begin(lease, '0:flipping')
    world.expire('s08', a)
    world.set_policy('flipping', 'never')
    new = b.claim('s08')
    assert new is not None
    b.turn(new, ['flipping'])

    # s09: begun under `never`, flipped to `always` before the takeover: the recorded policy
    # wins; b must not run it again.
    world.set_policy('flipping', 'never')
    lease = a.claim('s09')
    assert lease is not None
    a.begin(lease, '0:flipping')
    world.expire('s09', a)
    world.set_policy('flipping', 'always')
    new = b.claim('s09')
    assert new is not None
    b.turn(new, ['flipping'])

    # s10: finish_turn while a step is only started is refused (every step must be completed).
    lease = a.claim('s10')
    assert lease is not None
    a.begin(lease, '0:search')
    finish_turn(a.act(), lease)

    # s11: a completes every step, then is deposed before finish_turn: its finish_turn is
    # refused (b holds the lease now); b replays the step and finishes.
    old = a.claim('s11')
    assert old is not None
    a.begin(old, '0:search')
    append_effect(str(world.effect_log), old, '0:search', 'always', 0)
    complete_step(a.act(), old, '0:search', 'done')
    world.expire('s11', a)
    new = b.claim('s11')
    assert new is not None
    finish_turn(a.act(), old)
    b.turn(new, ['search'])

    # s16: a is deposed before its run_turn begins the step (b took the turn over): begin_step
    # raises LeaseLost and the worker stops without running the effect; b runs the turn.
    old = a.claim('s16')
    assert old is not None
    world.expire('s16', a)
    new = b.claim('s16')
    assert new is not None
    a.turn(old, ['search'])
    b.turn(new, ['search'])


def restart_scenarios(world: World) -> None:
    """A worker restarted with the run id of a stopped process: process w holds a lease and
    stops (it takes no step) past its expiry; w2, a new process with run id w, takes the turn
    over; w resumes. Every fence of w still finds `lease_owner = :run` true and the lease live
    (w2's): only the generation refuses it, at each point of its turn it may have stopped."""
    # s12: stopped before begin_step: its renew, begin_step and release are refused.
    w, w2 = Run(world, 'w'), Run(world, 'w', process='w-restarted')
    old = w.claim('s12')
    assert old is not None
    world.expire('s12', w)
    new = w2.claim('s12')
    assert new is not None
    renew(w.act(), old, TTL)
    w.begin(old, '0:search')
    release(w.act(), old)
    w2.turn(new, ['search'])

    # s13: stopped between its effect and complete_step, resumed before w2 began the step: the
    # row is still started and of w's generation, so only the fence's generation refuses it.
    old = w.claim('s13')
    assert old is not None
    w.begin(old, '0:search')
    append_effect(str(world.effect_log), old, '0:search', 'always', 0)
    world.expire('s13', w)
    new = w2.claim('s13')
    assert new is not None
    complete_step(w.act(), old, '0:search', 'stale')
    w2.turn(new, ['search'])

    # s14: stopped after completing its step, before finish_turn: its finish_turn is refused.
    old = w.claim('s14')
    assert old is not None
    w.begin(old, '0:search')
    append_effect(str(world.effect_log), old, '0:search', 'always', 0)
    complete_step(w.act(), old, '0:search', 'done')
    world.expire('s14', w)
    new = w2.claim('s14')
    assert new is not None
    finish_turn(w.act(), old)
    w2.turn(new, ['search'])


def out_of_flow_scenarios(world: World) -> None:
    """Calls the worker never makes, for the row checks that guard them."""
    # s15: a completes a step it did not begin in its current generation (it began it in the
    # one before, released, claimed again): refused, the row is of the older generation.
    a = Run(world, 'a')
    first = a.claim('s15')
    assert first is not None
    a.begin(first, '0:search')
    append_effect(str(world.effect_log), first, '0:search', 'always', 0)
    world.expire('s15', a)
    release(a.act(), first)
    second = a.claim('s15')
    assert second is not None
    complete_step(a.act(), second, '0:search', 'not begun')
    a.turn(second, ['search'])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='Run the traced guard scenarios.')
    parser.add_argument('--out', help=f'folder for the NDJSON traces (default: ${OUT_ENV})')
    options = parser.parse_args(argv)
    out = options.out or os.environ.get(OUT_ENV)
    if not out:
        print(f'trace_scenarios: give --out or set {OUT_ENV}', file=sys.stderr)
        return 2
    scratch = schema.scratch_folder()
    with tempfile.TemporaryDirectory(prefix='trace-scenarios-', dir=scratch) as work:
        world = World(Path(work))
        scenarios(world)
        written = trace.export(world.db, Path(out))
    print(f'{len(written)} traces written to {out}')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())

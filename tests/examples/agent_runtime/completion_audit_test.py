"""Finding F8, in a real run: the audit judges a completion by the generation complete_step writes.

The behaviour F8 is about, with real worker processes: process A (run id `w`) begins the step
(`always`) and is SIGSTOPped in its effect (which takes a while), and its lease expires;
process B, restarted with run id `w`, claims the turn (generation 2), re-runs the step and is
SIGSTOPped in its effect in turn, its lease still live (a long ttl). A is SIGCONTed, finishes
its effect and calls complete_step while B's lease is live and B's re-run row is `started`:
`lease_owner = :run` and the row's status both still hold; only the generation refuses A.

With complete_step's generation checks removed (the fence's `lease_generation = :gen` and the
row's `generation = :gen`, in a copy of `examples/`, never the working tree) A's completion
lands. complete_step writes the generation, so the row says generation 1 under generation 2
and the audit (P1) sees it. Without that write too (complete_step as it was), the row keeps
B's generation and names `w`, the live owner: the audit sees nothing. That is what F8 said;
the second case shows it, so the first shows the write is what closes it.

A stop lands inside an effect unless the effect was quicker than one poll (5 ms of up to
0.5 s): a round in which a process got past its effect before its stop is not the behaviour,
and is run again (at most three rounds).

A's lease expires as in the model's Expire: time passes, by the test moving its expiry into
the past while A is stopped (tests/examples/agent_runtime/runtime_test.py does the same), not by
waiting seconds for the database's clock to reach it.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from examples.agent_runtime import schema
from examples.agent_runtime.fault_harness import p1_violations, read_effect_log
from tests import wait
from tests.examples.agent_runtime.restart_test import copy_with, wait_for

# Every test here starts pre-commit or the example's worker processes (tests/tiers.py).
pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[3]
# Long enough that B, stopped in its effect, keeps a live lease while A completes: B's last
# renewal is at most TTL / 3 before its stop, and A's effect has at most EFFECT_DELAY left.
TTL = 3.0
EFFECT_DELAY = 0.5
PLAN = {'turns': {'t1': ['search']}}
POLICIES = {'search': 'always'}
ROUNDS = 3

# complete_step's generation checks and its write of the generation, each one text edit
FENCE_GENERATION = ('steps.py', 'complete_step', ' AND lease_generation = :gen', '')
ROW_GENERATION = ('steps.py', 'complete_step', ' AND generation = :gen\n', '\n')
WRITES_GENERATION = ('steps.py', 'complete_step', ' generation = :gen,', '')


# The worker as `python -m` runs it, and one line more: each complete_step it calls says what it
# returned, in the file named first, once it has returned. A refused completion writes nothing
# to the database, so this line is the event the test waits for.
WORKER = """
import runpy, sys
from pathlib import Path
from examples.agent_runtime import steps
said, complete = Path(sys.argv.pop(1)), steps.complete_step
def complete_step(*args, **kwargs):
    done = complete(*args, **kwargs)
    with said.open('a') as out:
        out.write(f'{done}\\n')
    return done
steps.complete_step = complete_step
runpy.run_module('examples.agent_runtime.worker', run_name='__main__', alter_sys=True)
"""


def spawn(root: Path, tmp: Path, name: str) -> subprocess.Popen[str]:
    """A worker with run id `w` and its own effect log, tmp/<name>.log; what each of its
    complete_step calls returned, in tmp/<name>.completed."""
    return subprocess.Popen(
        (
            sys.executable,
            '-c',
            WORKER,
            str(tmp / f'{name}.completed'),
            '--db',
            str(tmp / 'w.db'),
            '--plan',
            str(tmp / 'plan.json'),
            '--run-id',
            'w',
            '--ttl',
            str(TTL),
            '--effect-log',
            str(tmp / f'{name}.log'),
            '--policy-file',
            str(tmp / 'policy.json'),
            '--effect-delay',
            str(EFFECT_DELAY),
        ),
        cwd=root,
        env={**os.environ, 'PYTHONPATH': str(root)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


class Outcome(NamedTuple):
    p1: list[str]
    # (generation, was_live_owner) of each completion the audit recorded, in order
    completions: list[tuple[int, int]]
    # completions recorded before B was resumed: A's
    stale_completions: int


def completions(conn: sqlite3.Connection) -> list[tuple[int, int]]:
    return [
        (int(r[0]), int(r[1]))
        for r in conn.execute(
            "SELECT generation, was_live_owner FROM step_write_audit WHERE new_status = 'completed'"
            ' ORDER BY id'
        )
    ]


def stop_in_effect(
    conn: sqlite3.Connection, proc: subprocess.Popen[str], log: Path, generation: int
) -> bool:
    """SIGSTOP proc once its generation's row is started; False if it had done its effect, or if
    the restarted worker (generation 2) did not begin it within the wait. Either way the round
    is given up and another one run."""
    try:
        wait_for(
            conn,
            f'SELECT count(*) FROM agent_execution_steps WHERE generation = {generation}',
            f'generation {generation} began the step',
            timeout=30 if generation == 1 else 15,
        )
    except pytest.fail.Exception:
        if generation == 1:
            raise
        return False
    proc.send_signal(signal.SIGSTOP)
    return not read_effect_log(log)


def expire(conn: sqlite3.Connection) -> bool:
    """Time passes while A is stopped: its lease reaches its expiry (a write at no model action's
    site, as the clock would). False if the write lock stays held: A's stop landed while its
    heartbeat thread held it in a renewal, and nothing writes until A resumes; the round is
    given up and another one run."""
    conn.execute('PRAGMA busy_timeout = 5000')
    try:
        conn.execute(f'UPDATE agent_turns SET lease_expires_at = {schema.NOW} - 1')
    except sqlite3.OperationalError:  # database is locked
        return False
    finally:
        conn.execute(f'PRAGMA busy_timeout = {int(schema.BUSY_TIMEOUT_S * 1000)}')
    return True


def setup(tmp: Path) -> sqlite3.Connection:
    tmp.mkdir(parents=True)
    (tmp / 'plan.json').write_text(json.dumps(PLAN))
    (tmp / 'policy.json').write_text(json.dumps(POLICIES))
    conn = schema.connect(str(tmp / 'w.db'))
    schema.create(conn)
    schema.add_turns(conn, sorted(PLAN['turns']))
    return conn


def run_stale_completion(root: Path, tmp: Path, lands: bool) -> Outcome | None:
    """`lands`: the code lets A's completion through (wait for it); None: a stop came late."""
    conn = setup(tmp)
    procs: list[subprocess.Popen[str]] = []
    try:
        procs.append(stale := spawn(root, tmp, 'a'))
        if not stop_in_effect(conn, stale, tmp / 'a.log', 1) or not expire(conn):
            conn.close()
            return None
        procs.append(restarted := spawn(root, tmp, 'b'))
        if not stop_in_effect(conn, restarted, tmp / 'b.log', 2):
            conn.close()
            return None
        stale.send_signal(signal.SIGCONT)
        # A's stop outlasted its effect's delay: it writes its effect, then complete_step.
        wait.until(lambda: read_effect_log(tmp / 'a.log'), 'A to do its effect', timeout=20)
        # A's complete_step has returned, refused or landed: what it wrote is in. A does not end
        # after a refusal (it claims again once B's stopped lease expires, so waiting for its end
        # would let it complete as the live owner).
        said = tmp / 'a.completed'
        wait.until(lambda: said.exists() and said.read_text(), 'A to call complete_step')
        assert said.read_text().splitlines()[0] == str(lands)
        if lands:  # and the audit recorded it (its trigger, in the same transaction)
            wait_for(
                conn,
                "SELECT count(*) FROM step_write_audit WHERE new_status = 'completed'",
                "A's stale completion",
            )
        stale_completions = len(completions(conn))
        restarted.send_signal(signal.SIGCONT)
        outputs = [proc.communicate(timeout=60) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.wait()
            for stream in (proc.stdout, proc.stderr):  # a round given up never read them
                if stream is not None:
                    stream.close()
    for proc, (_, err) in zip(procs, outputs):
        assert proc.returncode == 0, err
    outcome = Outcome(p1_violations(conn), completions(conn), stale_completions)
    conn.close()
    return outcome


def stale_completion(root: Path, tmp: Path, lands: bool) -> Outcome:
    for round_ in range(ROUNDS):
        outcome = run_stale_completion(root, tmp / f'round{round_}', lands)
        if outcome is not None:
            return outcome
    raise AssertionError(f'{ROUNDS} rounds and no stop landed inside an effect')


@pytest.mark.timeout(120)
def test_the_shipped_complete_step_refuses_the_stale_completion(scratch: Path) -> None:
    outcome = stale_completion(REPO_ROOT, scratch, lands=False)
    assert outcome.stale_completions == 0
    assert outcome.p1 == []
    assert outcome.completions == [(2, 1)], outcome  # B's, live


@pytest.mark.timeout(120)
def test_without_its_generation_checks_the_audit_sees_the_written_generation(
    tmp_path: Path, scratch: Path
) -> None:
    root = copy_with(tmp_path, [FENCE_GENERATION, ROW_GENERATION])
    outcome = stale_completion(root, scratch, lands=True)
    assert outcome.stale_completions == 1
    assert outcome.completions[0] == (1, 0), outcome  # A's generation, not the live one's
    assert outcome.p1, outcome


@pytest.mark.timeout(120)
def test_without_the_write_too_the_audit_misses_it_as_finding_f8_said(
    tmp_path: Path, scratch: Path
) -> None:
    root = copy_with(tmp_path, [FENCE_GENERATION, ROW_GENERATION, WRITES_GENERATION])
    outcome = stale_completion(root, scratch, lands=True)
    assert outcome.stale_completions == 1
    assert outcome.completions[0] == (2, 1), outcome  # the row's generation: B's
    assert outcome.p1 == [], outcome

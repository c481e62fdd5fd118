"""A worker restarted with the run id of a stopped process, against real worker processes.

Process A (run id `w`) claims the turn and is SIGSTOPped until its lease has expired;
process B is started with the same run id and claims the turn (generation 2); then A is
SIGCONTed. To A's fences, `lease_owner = :run` still holds: only the generation tells the
two leases apart. Every transaction A tries after it resumes (its begin_step, its
heartbeat's renew, its release) must be refused, and the audit must show no write by a
run that was not the live owner of the current generation (P1).

Both processes are held at known points with a FIFO as their policy file: `run_turn`
reads the policy just before `begin_step`, after the check of its heartbeat. A claims, waits
in that read, is stopped there, and calls `begin_step` with its stale lease once it is
resumed and the test writes the policy. B claims and waits in the same read, its heartbeat
keeping its lease live, until A has given up the turn (a worker says so on stderr, one line
per turn): so B cannot end the turn before A has tried to write, however late A resumes.

A's lease expires as in the model's Expire: time passes, by the test moving its expiry into
the past while A is stopped, not by waiting for the database's clock to reach it. So the
leases can be long (TTL): B's must stay live until B has finished, and with a lease of half a
second a heartbeat held up for a third of a second on a busy machine let it expire, and A
claimed the turn again once B's lease had lapsed.

The broken variants are applied to a copy of `examples/` in a temporary folder, never
the working tree.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from examples.agent_runtime import schema
from examples.agent_runtime.fault_harness import p1_violations, p8_violations, read_effect_log
from tests import wait

# Every test here starts pre-commit or the example's worker processes (tests/tiers.py).
pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[3]
TTL = 3.0
PLAN = {'turns': {'t1': ['send_email', 'search', 'post_comment']}}
POLICIES = {'send_email': 'never', 'search': 'always', 'post_comment': 'never'}


class Files(NamedTuple):
    db: Path
    plan: Path
    stale_fifo: Path
    restarted_fifo: Path
    effects: Path


def spawn(root: Path, files: Files, policy: Path, stderr: Path) -> subprocess.Popen[str]:
    with open(stderr, 'wb') as err:
        return subprocess.Popen(
            (
                sys.executable,
                '-m',
                'examples.agent_runtime.worker',
                '--db',
                str(files.db),
                '--plan',
                str(files.plan),
                '--run-id',
                'w',
                '--ttl',
                str(TTL),
                '--effect-log',
                str(files.effects),
                '--policy-file',
                str(policy),
                '--effect-delay',
                '0',
            ),
            cwd=root,
            env={**os.environ, 'PYTHONPATH': str(root)},
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )


def wait_for(conn: sqlite3.Connection, sql: str, what: str, timeout: float = 20.0) -> None:
    # Polled often: the tests stop a worker inside an effect of a few tenths of a second.
    wait.until(lambda: conn.execute(sql).fetchone()[0], what, timeout=timeout, poll=0.005)


def open_when_read(fifo: Path, proc: subprocess.Popen[str], who: str) -> int:
    """The FIFO's write end, once proc has opened it to read: proc then waits in that read."""
    deadline = time.monotonic() + 20.0
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:  # ENXIO: nobody has it open for reading yet
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f'the {who} process never read its policy: {e}') from e
            time.sleep(0.005)


def let_read(fifo: Path, gate: int, tmp: Path) -> None:
    """Lets the process waiting on `gate` read its policy; its later reads find a plain file."""
    shutil.copy(tmp / 'policy.json', tmp / 'policy.next')
    os.replace(tmp / 'policy.next', fifo)
    os.write(gate, json.dumps(POLICIES).encode())
    os.close(gate)


def stop_and_expire(conn: sqlite3.Connection, proc: subprocess.Popen[str]) -> None:
    """Stops `proc` and moves its lease's expiry into the past (a write at no model action's
    site, as the clock would). The write lock is taken first, so the stop cannot land while
    proc's heartbeat holds it in a renewal: nothing else could write until proc resumed."""
    conn.execute('BEGIN IMMEDIATE')
    proc.send_signal(signal.SIGSTOP)
    conn.execute(f'UPDATE agent_turns SET lease_expires_at = {schema.NOW} - 1')
    conn.execute('COMMIT')


class Outcome(NamedTuple):
    stale: dict[str, int]  # the stopped process's own counts (worker.run_worker)
    restarted: dict[str, int]
    p1: list[str]
    p8: list[str]
    generations_written: set[int]


def run_restart(root: Path, tmp: Path) -> Outcome:
    files = Files(
        tmp / 'w.db',
        tmp / 'plan.json',
        tmp / 'stale.fifo',
        tmp / 'restarted.fifo',
        tmp / 'effects.log',
    )
    files.plan.write_text(json.dumps(PLAN))
    (tmp / 'policy.json').write_text(json.dumps(POLICIES))
    os.mkfifo(files.stale_fifo)
    os.mkfifo(files.restarted_fifo)
    conn = schema.connect(str(files.db))
    schema.create(conn)
    schema.add_turns(conn, sorted(PLAN['turns']))
    errs = (tmp / 'stale.err', tmp / 'restarted.err')
    procs: list[subprocess.Popen[str]] = []
    try:
        stale = spawn(root, files, files.stale_fifo, errs[0])
        procs.append(stale)
        stale_gate = open_when_read(files.stale_fifo, stale, 'stale')
        stop_and_expire(conn, stale)
        assert conn.execute(
            "SELECT lease_owner = 'w' AND lease_generation = 1 FROM agent_turns"
        ).fetchone()[0]
        restarted = spawn(root, files, files.restarted_fifo, errs[1])
        procs.append(restarted)
        restarted_gate = open_when_read(files.restarted_fifo, restarted, 'restarted')
        assert conn.execute('SELECT lease_generation = 2 FROM agent_turns').fetchone()[0]
        stale.send_signal(signal.SIGCONT)
        let_read(files.stale_fifo, stale_gate, tmp)
        wait.until(
            lambda: 'turn t1 generation 1: ' in errs[0].read_text(),
            'the stale process, resumed, gave up its turn',
            timeout=60,
        )
        let_read(files.restarted_fifo, restarted_gate, tmp)
        outputs = [proc.communicate(timeout=60) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.wait()
    for proc, err in zip(procs, errs):
        assert proc.returncode == 0, err.read_text()
    counts = [json.loads(out) for out, _ in outputs]
    effects = read_effect_log(files.effects)
    generations = {int(r[0]) for r in conn.execute('SELECT generation FROM step_write_audit')}
    outcome = Outcome(
        counts[0], counts[1], p1_violations(conn), p8_violations(effects), generations
    )
    conn.close()
    return outcome


def test_the_generation_fences_a_stopped_process_whose_run_id_was_reused(scratch: Path) -> None:
    outcome = run_restart(REPO_ROOT, scratch)
    # The stale process claimed once, lost its lease at its first begin_step and could
    # not release the restarted process's lease; it wrote nothing.
    assert outcome.stale == {
        'run': 'w',
        'claims': 1,
        'done': 0,
        'needs_attention': 0,
        'lost': 1,
        'released': 0,
    }
    assert outcome.restarted['claims'] == 1
    assert outcome.restarted['done'] + outcome.restarted['needs_attention'] == 1
    assert outcome.p1 == []
    assert outcome.p8 == []
    assert outcome.generations_written == {2}


def copy_with(tmp: Path, edits: list[tuple[str, str, str, str]]) -> Path:
    """A copy of examples/ with (file, function, old, new) applied once inside each function."""
    root = tmp / 'mutant'
    shutil.copytree(
        REPO_ROOT / 'examples', root / 'examples', ignore=shutil.ignore_patterns('__pycache__')
    )
    for name, function, old, new in edits:
        path = root / 'examples' / 'agent_runtime' / name
        text = path.read_text()
        start = text.index(f'\ndef {function}(')
        end = text.find('\ndef ', start + 1)
        end = len(text) if end == -1 else end
        body = text[start:end]
        assert body.count(old) == 1, (name, function, old)
        path.write_text(text[:start] + body.replace(old, new) + text[end:])
    return root


GEN = ' AND lease_generation = :gen'
FENCES = [
    ('lease.py', 'renew'),
    ('lease.py', 'release'),
    ('lease.py', 'finish_turn'),
    ('steps.py', 'begin_step'),
    ('steps.py', 'complete_step'),
]


@pytest.mark.parametrize(
    ('edits', 'caught'),
    [
        pytest.param(
            [('steps.py', 'begin_step', GEN, '')],
            lambda o: bool(o.p1),
            id='begin-step-fence-without-generation-audit-p1',
        ),
        pytest.param(
            [('lease.py', 'release', GEN, '')],
            lambda o: o.stale['released'] > 0,
            id='release-without-generation-releases-the-successor',
        ),
        pytest.param(
            [(name, function, GEN, '') for name, function in FENCES],
            lambda o: bool(o.p1),
            id='no-fence-compares-the-generation-audit-p1',
        ),
    ],
)
def test_dropping_the_generation_from_a_fence_is_caught(
    tmp_path: Path,
    scratch: Path,
    edits: list[tuple[str, str, str, str]],
    caught: Callable[[Outcome], bool],
) -> None:
    root = copy_with(tmp_path, edits)
    outcome = run_restart(root, scratch)
    assert caught(outcome), outcome

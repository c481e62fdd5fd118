from __future__ import annotations

import ast
import json
import sqlite3
from pathlib import Path

import pytest

from examples.agent_runtime import schema, worker
from examples.agent_runtime.lease import Lease, LeaseLost, claim, finish_turn, release, renew
from examples.agent_runtime.schema import NOW
from examples.agent_runtime.steps import begin_step, complete_step, most_restrictive
from tests import wait

TTL = 30.0  # long enough never to expire by itself during a test; expiry is forced


@pytest.fixture
def conn(scratch: Path):
    conn = schema.connect(str(scratch / 'runtime.db'))
    schema.create(conn)
    schema.add_turns(conn, ['t1', 't2'])
    yield conn
    conn.close()


def expire(conn: sqlite3.Connection, turn_id: str) -> None:
    """Time passes: the turn's lease reaches its expiry (by the database's clock)."""
    conn.execute(f'UPDATE agent_turns SET lease_expires_at = {NOW} - 1 WHERE id = ?', (turn_id,))


def turn(conn: sqlite3.Connection, turn_id: str = 't1') -> sqlite3.Row:
    return conn.execute('SELECT * FROM agent_turns WHERE id = ?', (turn_id,)).fetchone()


def step(conn: sqlite3.Connection, key: str = 's', turn_id: str = 't1') -> sqlite3.Row | None:
    return conn.execute(
        'SELECT * FROM agent_execution_steps WHERE turn_id = ? AND step_key = ?',
        (turn_id, key),
    ).fetchone()


def written(conn: sqlite3.Connection, key: str = 's', turn_id: str = 't1') -> sqlite3.Row:
    """The step's row, which the test has written by now."""
    row = step(conn, key, turn_id)
    assert row is not None, f'no row for step {key!r} of turn {turn_id!r}'
    return row


def claimed(conn: sqlite3.Connection, turn_id: str, run_id: str, ttl: float = TTL) -> Lease:
    """A claim the test expects to succeed."""
    lease = claim(conn, turn_id, run_id, ttl)
    assert lease is not None, f'{run_id} could not claim {turn_id}'
    return lease


def audit(conn: sqlite3.Connection) -> list[tuple[str, int, str, int]]:
    return [
        (r['run_id'], r['generation'], r['new_status'], r['was_live_owner'])
        for r in conn.execute('SELECT * FROM step_write_audit ORDER BY id')
    ]


def taken_over(conn: sqlite3.Connection) -> tuple[Lease, Lease]:
    """Run a holds generation 1, its lease expires, run b claims generation 2."""
    old = claim(conn, 't1', 'a', TTL)
    assert old is not None
    expire(conn, 't1')
    new = claim(conn, 't1', 'b', TTL)
    assert new is not None
    return old, new


# ---- Claim --------------------------------------------------------------------------


def test_claim_free_turn_bumps_generation(conn):
    lease = claimed(conn, 't1', 'a', TTL)
    assert lease == Lease('t1', 'a', 1)
    row = turn(conn)
    assert (row['lease_owner'], row['lease_generation']) == ('a', 1)
    assert row['lease_expires_at'] > schema.db_now(conn) + TTL - 5


@pytest.mark.parametrize('claimant', ['b', 'a'], ids=['other-run', 'same-run'])
def test_claim_refuses_live_owner(conn, claimant):
    claim(conn, 't1', 'a', TTL)
    assert claim(conn, 't1', claimant, TTL) is None
    assert (turn(conn)['lease_owner'], turn(conn)['lease_generation']) == ('a', 1)


def test_claim_takes_expired_lease_over(conn):
    old, new = taken_over(conn)
    assert new == Lease('t1', 'b', 2)


def test_claim_after_release(conn):
    lease = claim(conn, 't1', 'a', TTL)
    assert lease is not None and release(conn, lease)
    assert claim(conn, 't1', 'b', TTL) == Lease('t1', 'b', 2)


@pytest.mark.parametrize('status', ['done', 'needs_attention'])
def test_claim_refuses_closed_turn(conn, status):
    conn.execute('UPDATE agent_turns SET status = ? WHERE id = ?', (status, 't1'))
    assert claim(conn, 't1', 'a', TTL) is None
    assert turn(conn)['lease_generation'] == 0


def test_claim_unknown_turn(conn):
    assert claim(conn, 'nope', 'a', TTL) is None


# ---- Renew --------------------------------------------------------------------------


def test_renew_extends_live_lease(conn):
    lease = claim(conn, 't1', 'a', 1.0)
    assert lease is not None
    before = turn(conn)['lease_expires_at']
    assert renew(conn, lease, TTL)
    assert turn(conn)['lease_expires_at'] > before + TTL - 5


@pytest.mark.parametrize(
    'lease',
    [Lease('t1', 'x', 1), Lease('t1', 'a', 2), Lease('t1', 'a', 0)],
    ids=['wrong-owner', 'other-generation', 'old-generation'],
)
def test_renew_refuses_wrong_owner_or_generation(conn, lease):
    claim(conn, 't1', 'a', TTL)
    before = turn(conn)['lease_expires_at']
    assert not renew(conn, lease, TTL)
    assert turn(conn)['lease_expires_at'] == before


def test_renew_after_takeover_refused(conn):
    old, new = taken_over(conn)
    assert not renew(conn, old, TTL)
    assert turn(conn)['lease_owner'] == 'b'


def test_renew_never_resurrects_an_expired_lease(conn):
    lease = claim(conn, 't1', 'a', TTL)
    assert lease is not None
    expire(conn, 't1')
    before = turn(conn)['lease_expires_at']
    assert not renew(conn, lease, TTL)
    assert turn(conn)['lease_expires_at'] == before
    assert before <= schema.db_now(conn)


# ---- Release ------------------------------------------------------------------------


def test_release_clears_owner_keeps_generation(conn):
    lease = claim(conn, 't1', 'a', TTL)
    assert lease is not None and release(conn, lease)
    row = turn(conn)
    assert (row['lease_owner'], row['lease_expires_at'], row['lease_generation']) == (None, None, 1)
    assert not release(conn, lease)


def test_release_of_expired_unclaimed_lease(conn):
    lease = claim(conn, 't1', 'a', TTL)
    assert lease is not None
    expire(conn, 't1')
    assert release(conn, lease)


def test_release_after_takeover_leaves_new_owner(conn):
    old, new = taken_over(conn)
    assert not release(conn, old)
    assert (turn(conn)['lease_owner'], turn(conn)['lease_generation']) == ('b', 2)


# ---- BeginStep: fence ---------------------------------------------------------------


def _not_owner(conn):
    claim(conn, 't1', 'a', TTL)
    return Lease('t1', 'x', 1)


def _old_generation(conn):
    return taken_over(conn)[0]


def _expired(conn):
    lease = claimed(conn, 't1', 'a', TTL)
    expire(conn, 't1')
    return lease


def _released(conn):
    lease = claimed(conn, 't1', 'a', TTL)
    release(conn, lease)
    return lease


FENCE_CASES = pytest.mark.parametrize(
    'stale_lease',
    [_not_owner, _old_generation, _expired, _released],
    ids=['not-owner', 'old-generation', 'expired', 'released'],
)


@FENCE_CASES
def test_begin_step_fenced(conn, stale_lease):
    lease = stale_lease(conn)
    with pytest.raises(LeaseLost):
        begin_step(conn, lease, 's', 'always')
    assert step(conn) is None
    assert audit(conn) == []
    assert not conn.in_transaction


@FENCE_CASES
def test_begin_step_fenced_on_started_row(conn, stale_lease):
    # A started row of an earlier generation: the stale run may neither rerun it nor
    # turn it into unknown.
    lease = stale_lease(conn)
    conn.execute(
        "INSERT INTO agent_execution_steps VALUES ('t1', 's', 'started', 'never', 0, 'z', NULL)"
    )
    before = audit(conn)
    with pytest.raises(LeaseLost):
        begin_step(conn, lease, 's', 'never')
    assert written(conn)['status'] == 'started'
    assert turn(conn)['status'] == 'open'
    assert audit(conn) == before


# ---- BeginStep: replay decision -----------------------------------------------------

REPLAY_CASES = [
    # (row before: status, policy | None), policy now ->
    #     outcome, decided policy, row after (status, policy, generation), turn status
    (None, 'never', 'run', 'never', ('started', 'never', 2), 'open'),
    (None, 'always', 'run', 'always', ('started', 'always', 2), 'open'),
    (('completed', 'never'), 'always', 'replayed', 'never', ('completed', 'never', 1), 'open'),
    (('completed', 'always'), 'always', 'replayed', 'always', ('completed', 'always', 1), 'open'),
    (('unknown', 'never'), 'always', 'needs_attention', 'never', ('unknown', 'never', 1), 'open'),
    (
        ('started', 'never'),
        'never',
        'needs_attention',
        'never',
        ('unknown', 'never', 2),
        'needs_attention',
    ),
    (('started', 'always'), 'always', 'run', 'always', ('started', 'always', 2), 'open'),
    # a deploy flipped the policy: the most restrictive of recorded and current wins
    (
        ('started', 'always'),
        'never',
        'needs_attention',
        'never',
        ('unknown', 'never', 2),
        'needs_attention',
    ),
    (
        ('started', 'never'),
        'always',
        'needs_attention',
        'never',
        ('unknown', 'never', 2),
        'needs_attention',
    ),
]


@pytest.mark.parametrize(
    ('before', 'policy_now', 'outcome', 'decided', 'after', 'turn_status'),
    REPLAY_CASES,
    ids=[
        'new-never',
        'new-always',
        'completed-never',
        'completed-always',
        'unknown',
        'started-never',
        'started-always',
        'flip-always-to-never',
        'flip-never-to-always',
    ],
)
def test_replay_decision(conn, before, policy_now, outcome, decided, after, turn_status):
    # Generation 1 (run a) began the step and left it `before`; run b took over.
    _, lease = taken_over(conn)
    if before is not None:
        status, policy = before
        conn.execute(
            'INSERT INTO agent_execution_steps VALUES (?, ?, ?, ?, 1, ?, ?)',
            ('t1', 's', status, policy, 'a', 'r1' if status == 'completed' else None),
        )
    writes_before = len(audit(conn))

    decision = begin_step(conn, lease, 's', policy_now)

    assert (decision.outcome, decision.policy) == (outcome, decided)
    assert decision.run_effect == (outcome == 'run')
    assert decision.result == ('r1' if outcome == 'replayed' else None)
    row = written(conn)
    assert (row['status'], row['policy'], row['generation']) == after
    assert turn(conn)['status'] == turn_status
    new_writes = audit(conn)[writes_before:]
    if after[2] == 2:  # this run wrote the row
        assert row['written_by'] == 'b'
        assert new_writes == [('b', 2, after[0], 1)]
    else:
        assert new_writes == []


@pytest.mark.parametrize(
    ('recorded', 'now', 'effective'),
    [
        ('never', 'never', 'never'),
        ('never', 'always', 'never'),
        ('always', 'never', 'never'),
        ('always', 'always', 'always'),
    ],
)
def test_most_restrictive(recorded, now, effective):
    assert most_restrictive(recorded, now) == effective


# ---- CompleteStep -------------------------------------------------------------------


def test_complete_step_by_owner(conn):
    lease = claimed(conn, 't1', 'a', TTL)
    assert begin_step(conn, lease, 's', 'never').run_effect
    assert complete_step(conn, lease, 's', 'sent')
    row = written(conn)
    assert (row['status'], row['result'], row['written_by']) == ('completed', 'sent', 'a')
    assert audit(conn) == [('a', 1, 'started', 1), ('a', 1, 'completed', 1)]
    # and a second completion does nothing
    assert not complete_step(conn, lease, 's', 'again')
    assert written(conn)['result'] == 'sent'


@FENCE_CASES
def test_complete_step_fenced(conn, stale_lease):
    lease = stale_lease(conn)
    # The row is started by the stale lease's own generation: only the fence stops it.
    conn.execute(
        'INSERT INTO agent_execution_steps VALUES (?, ?, ?, ?, ?, ?, NULL)',
        ('t1', 's', 'started', 'never', lease.generation, lease.run_id),
    )
    before = audit(conn)
    assert not complete_step(conn, lease, 's', 'late')
    assert (written(conn)['status'], written(conn)['result']) == ('started', None)
    assert audit(conn) == before


def test_complete_step_checks_generation(conn):
    # The fence passes (run a is the live owner of generation 2) but the row was
    # started by generation 1: only the generation check stops the completion.
    first = claimed(conn, 't1', 'a', TTL)
    begin_step(conn, first, 's', 'always')
    expire(conn, 't1')
    second = claimed(conn, 't1', 'a', TTL)
    assert second == Lease('t1', 'a', 2)
    assert not complete_step(conn, second, 's', 'result')
    assert written(conn)['status'] == 'started'


def test_deposed_run_cannot_complete_after_rerun(conn):
    old, new = taken_over(conn)
    conn.execute(
        "INSERT INTO agent_execution_steps VALUES ('t1', 's', 'started', 'always', 1, 'a', NULL)"
    )
    assert begin_step(conn, new, 's', 'always').run_effect
    assert not complete_step(conn, old, 's', 'stale')
    assert complete_step(conn, new, 's', 'fresh')
    assert written(conn)['result'] == 'fresh'


# ---- finish_turn --------------------------------------------------------------------


def test_finish_turn_needs_every_step_completed(conn):
    lease = claimed(conn, 't1', 'a', TTL)
    begin_step(conn, lease, 's0', 'never')
    complete_step(conn, lease, 's0', 'ok')
    begin_step(conn, lease, 's1', 'never')
    assert not finish_turn(conn, lease)
    complete_step(conn, lease, 's1', 'ok')
    assert finish_turn(conn, lease)
    assert turn(conn)['status'] == 'done'


# ---- the audit trigger --------------------------------------------------------------


def test_audit_flags_write_by_non_owner(conn):
    lease = claimed(conn, 't1', 'a', TTL)
    begin_step(conn, lease, 's', 'never')
    # A write that bypasses the code's fencing: the database still judges it.
    conn.execute("UPDATE agent_execution_steps SET status = 'completed', written_by = 'intruder'")
    assert audit(conn)[-1] == ('intruder', 1, 'completed', 0)


def test_audit_flags_write_after_expiry(conn):
    lease = claimed(conn, 't1', 'a', TTL)
    begin_step(conn, lease, 's', 'never')
    expire(conn, 't1')
    conn.execute("UPDATE agent_execution_steps SET status = 'completed'")
    assert audit(conn)[-1] == ('a', 1, 'completed', 0)


def test_audit_flags_old_generation(conn):
    old, new = taken_over(conn)
    conn.execute(
        "INSERT INTO agent_execution_steps VALUES ('t1', 's', 'started', 'never', 1, 'a', NULL)"
    )
    assert audit(conn) == [('a', 1, 'started', 0)]


def test_write_and_trigger_share_one_instant(conn):
    # The fence in a write's WHERE clause and the trigger that audits it must see the
    # same 'now'; otherwise a lease could expire between the two. One statement that
    # fires the trigger on many rows takes many milliseconds, yet sees a single instant.
    claim(conn, 't1', 'a', TTL)
    conn.executemany(
        "INSERT INTO agent_execution_steps VALUES ('t1', ?, 'started', 'never', 1, 'a', NULL)",
        [(f's{i}',) for i in range(3000)],
    )
    first_audit = conn.execute('SELECT max(id) FROM step_write_audit').fetchone()[0]
    conn.execute(f'UPDATE agent_execution_steps SET result = {NOW}')
    instants = {
        r[0]
        for r in conn.execute(
            'SELECT at FROM step_write_audit WHERE id > ?',
            (first_audit,),
        )
    }
    assert len(instants) == 1
    # result is TEXT: the REAL went through a 15-digit text conversion
    assert float(written(conn, 's0')['result']) == pytest.approx(instants.pop(), abs=1e-4)


def test_failed_transaction_rolls_back(conn):
    lease = claimed(conn, 't1', 'a', TTL)
    with pytest.raises(sqlite3.IntegrityError):
        with schema.immediate(conn):
            conn.execute("UPDATE agent_turns SET lease_owner = 'x' WHERE id = 't1'")
            conn.execute("UPDATE agent_turns SET status = 'bogus' WHERE id = 't1'")
    assert not conn.in_transaction
    assert turn(conn)['lease_owner'] == lease.run_id


# ---- the worker ---------------------------------------------------------------------


@pytest.fixture
def worker_files(scratch: Path) -> dict[str, Path]:
    files = {
        'db': scratch / 'w.db',
        'plan': scratch / 'plan.json',
        'policy': scratch / 'policy.json',
        'effects': scratch / 'effects.log',
    }
    files['plan'].write_text(
        json.dumps(
            {
                'turns': {
                    'a': ['send_email', 'search'],
                    'b': ['search'],
                    'c': ['post_comment', 'send_email'],
                }
            }
        )
    )
    files['policy'].write_text(json.dumps({'send_email': 'never', 'search': 'always'}))
    return files


def _effect_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_worker_main_runs_every_turn(worker_files):
    files = worker_files
    assert (
        worker.main(
            [
                '--db',
                str(files['db']),
                '--plan',
                str(files['plan']),
                '--run-id',
                'w1',
                '--ttl',
                '5',
                '--effect-log',
                str(files['effects']),
                '--policy-file',
                str(files['policy']),
                '--effect-delay',
                '0',
                '--init',
            ]
        )
        == 0
    )
    lines = _effect_lines(files['effects'])
    assert [(x['turn'], x['step'], x['policy'], x['generation']) for x in lines] == [
        ('a', '0:send_email', 'never', 1),
        ('a', '1:search', 'always', 1),
        ('b', '0:search', 'always', 1),
        ('c', '0:post_comment', 'never', 1),
        ('c', '1:send_email', 'never', 1),
    ]
    conn = schema.connect(str(files['db']))
    statuses = conn.execute('SELECT id, status, lease_owner FROM agent_turns ORDER BY id')
    assert [tuple(r) for r in statuses] == [
        ('a', 'done', None),
        ('b', 'done', None),
        ('c', 'done', None),
    ]
    assert (
        conn.execute('SELECT count(*) FROM step_write_audit WHERE was_live_owner = 0').fetchone()[0]
        == 0
    )
    conn.close()


def _config(files: dict[str, Path], run_id: str = 'w1', ttl: float = 5.0) -> worker.WorkerConfig:
    return worker.WorkerConfig(
        str(files['db']),
        run_id,
        ttl,
        str(files['effects']),
        str(files['policy']),
        0.0,
    )


def _init(files: dict[str, Path]) -> sqlite3.Connection:
    conn = schema.connect(str(files['db']))
    schema.create(conn)
    schema.add_turns(conn, ['a', 'b', 'c'])
    return conn


def test_run_turn_stops_cooperatively_when_heartbeat_lost(worker_files):
    conn = _init(worker_files)
    lease = claimed(conn, 'a', 'w1', 5.0)
    heartbeat = worker.Heartbeat(str(worker_files['db']), lease, 5.0)
    heartbeat.lost.set()
    assert worker.run_turn(conn, _config(worker_files), lease, ['send_email'], heartbeat) == 'lost'
    assert step(conn, '0:send_email', 'a') is None
    assert not worker_files['effects'].exists()


def test_run_turn_stops_at_needs_attention(worker_files):
    conn = _init(worker_files)
    old = claimed(conn, 'a', 'w0', 5.0)
    begin_step(conn, old, '0:send_email', 'never')  # then w0 crashed mid-effect
    expire(conn, 'a')
    lease = claimed(conn, 'a', 'w1', 5.0)
    heartbeat = worker.Heartbeat(str(worker_files['db']), lease, 5.0)
    outcome = worker.run_turn(
        conn,
        _config(worker_files),
        lease,
        ['send_email', 'search'],
        heartbeat,
    )
    assert outcome == 'needs_attention'
    assert written(conn, '0:send_email', 'a')['status'] == 'unknown'
    assert step(conn, '1:search', 'a') is None
    assert not worker_files['effects'].exists()


def test_run_turn_deposed_mid_turn(worker_files):
    conn = _init(worker_files)
    lease = claimed(conn, 'a', 'w1', 5.0)
    begin_step(conn, lease, '0:send_email', 'never')
    complete_step(conn, lease, '0:send_email', 'ok')
    expire(conn, 'a')
    claim(conn, 'a', 'w2', 5.0)
    heartbeat = worker.Heartbeat(str(worker_files['db']), lease, 5.0)
    outcome = worker.run_turn(
        conn,
        _config(worker_files),
        lease,
        ['send_email', 'search'],
        heartbeat,
    )
    assert outcome == 'lost'
    assert step(conn, '1:search', 'a') is None


def test_heartbeat_renews_then_notices_takeover(worker_files):
    # A real heartbeat on the database's clock: it renews every ttl / 3, so a thread run late by
    # up to two thirds of the ttl still renews in time (a loaded machine delays threads).
    ttl = 1.0
    conn = _init(worker_files)
    lease = claimed(conn, 'a', 'w1', ttl)
    (first_expiry,) = conn.execute(
        "SELECT lease_expires_at FROM agent_turns WHERE id = 'a'"
    ).fetchone()
    heartbeat = worker.Heartbeat(str(worker_files['db']), lease, ttl)
    heartbeat.start()
    try:
        # past the claim's own expiry, alive only because it renews
        wait.until(
            lambda: schema.db_now(conn) > first_expiry or heartbeat.lost.is_set(),
            'the database clock to pass the first expiry',
            poll=0.05,
        )
        assert not heartbeat.lost.is_set()
        assert conn.execute(
            f"SELECT lease_expires_at > {NOW} FROM agent_turns WHERE id = 'a'"
        ).fetchone()[0]
        assert renew(conn, lease, ttl)
        expire(conn, 'a')
        assert heartbeat.lost.wait(30)  # within ttl / 3; the bound is for a hang
    finally:
        heartbeat.stop()
    assert claim(conn, 'a', 'w2', 5.0) == Lease('a', 'w2', 2)


# ---- durability ---------------------------------------------------------------------


def test_every_connection_of_the_runtime_commits_durably(worker_files, monkeypatch):
    # A committed `started` row must survive a power loss before the effect runs:
    # WAL with synchronous = FULL (2). synchronous is per connection, so it is read back
    # on every connection the runtime opens (the --init one, the worker's, one per
    # heartbeat), each when it closes.
    settings = []
    real_connect = sqlite3.connect

    def connect(*args, factory=sqlite3.Connection, **kwargs):
        # Over whichever class the runtime asks for (a tracing one when tracing is on): a base
        # known only at run time, which mypy cannot follow.
        class Recorded(factory):  # type: ignore[misc,valid-type]
            def close(self) -> None:
                settings.append(
                    tuple(
                        self.execute(f'PRAGMA {name}').fetchone()[0]
                        for name in ('journal_mode', 'synchronous', 'fullfsync')
                    )
                )
                super().close()

        return real_connect(*args, factory=Recorded, **kwargs)

    monkeypatch.setattr(sqlite3, 'connect', connect)
    files = worker_files
    assert (
        worker.main(
            [
                '--db',
                str(files['db']),
                '--plan',
                str(files['plan']),
                '--run-id',
                'w1',
                '--ttl',
                '5',
                '--effect-log',
                str(files['effects']),
                '--policy-file',
                str(files['policy']),
                '--effect-delay',
                '0',
                '--init',
            ]
        )
        == 0
    )
    assert settings == [('wal', 2, 1)] * 5  # init, worker, three heartbeats (three turns)


def test_the_runtime_opens_connections_only_through_schema_connect():
    # The check above sees the connections of one worker run; this one sees the code: no
    # module of the runtime reaches sqlite3.connect but schema.connect. (trace*.py are the
    # trace validation's recorder and drivers: the recorder writes through schema.connect,
    # the rest set up scenarios and read the trace back.)
    root = Path(worker.__file__).parent
    callers = []
    for path in sorted(set(root.glob('*.py')) - set(root.glob('trace*.py'))):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                for inner in ast.walk(node):
                    if (
                        isinstance(inner, ast.Attribute)
                        and inner.attr == 'connect'
                        and (isinstance(inner.value, ast.Name) and inner.value.id == 'sqlite3')
                    ):
                        callers.append(f'{path.name}:{node.name}')
            if isinstance(node, ast.ImportFrom) and node.module == 'sqlite3':
                callers.extend(f'{path.name}: from sqlite3 import {a.name}' for a in node.names)
    assert callers == ['schema.py:connect']

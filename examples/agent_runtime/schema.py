from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from collections.abc import Iterator
from contextlib import contextmanager

from examples.agent_runtime import trace

# The database's clock is the only clock: seconds since the epoch, evaluated by SQLite.
# SQLite 3.40 has no unixepoch('subsec'); julianday('now') has millisecond precision.
# Within one statement (its triggers included) 'now' is one fixed value, so a write's
# fence and the audit trigger that judges it see the same instant.
NOW = "((julianday('now') - 2440587.5) * 86400.0)"

# A SIGSTOPped worker can hold the write lock for seconds; the others must wait, not fail.
BUSY_TIMEOUT_S = 60.0

SCHEMA = f'''
CREATE TABLE IF NOT EXISTS agent_turns (
    id TEXT PRIMARY KEY,
    lease_owner TEXT NULL,
    lease_generation INTEGER NOT NULL DEFAULT 0,
    lease_expires_at REAL NULL,
    status TEXT NOT NULL DEFAULT 'open'
        CHECK (status IN ('open', 'done', 'needs_attention'))
);

CREATE TABLE IF NOT EXISTS agent_execution_steps (
    turn_id TEXT NOT NULL REFERENCES agent_turns (id),
    step_key TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('started', 'completed', 'unknown')),
    -- the replay policy recorded when the step (last) began
    policy TEXT NOT NULL CHECK (policy IN ('never', 'always')),
    -- lease generation and run id of the last writer
    generation INTEGER NOT NULL,
    written_by TEXT NOT NULL,
    result TEXT NULL,
    PRIMARY KEY (turn_id, step_key)
);

-- Every write to agent_execution_steps, judged by the database itself at write time:
-- independent of the code's own fencing, so a check on it means something.
CREATE TABLE IF NOT EXISTS step_write_audit (
    id INTEGER PRIMARY KEY,
    turn_id TEXT NOT NULL,
    step_key TEXT NOT NULL,
    run_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    new_status TEXT NOT NULL,
    was_live_owner INTEGER NOT NULL,
    at REAL NOT NULL
);

-- Every claim (a new generation) and who made it: the fault harness tells from it which run
-- id took a turn over, after the claimer may have released it again.
CREATE TABLE IF NOT EXISTS claim_audit (
    turn_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    owner TEXT NOT NULL,
    PRIMARY KEY (turn_id, generation)
);

CREATE TRIGGER IF NOT EXISTS audit_claim AFTER UPDATE OF lease_generation ON agent_turns
WHEN NEW.lease_generation != OLD.lease_generation
BEGIN
    INSERT INTO claim_audit (turn_id, generation, owner)
    VALUES (NEW.id, NEW.lease_generation, NEW.lease_owner);
END;

CREATE TRIGGER IF NOT EXISTS audit_step_insert AFTER INSERT ON agent_execution_steps
BEGIN
    INSERT INTO step_write_audit
        (turn_id, step_key, run_id, generation, new_status, was_live_owner, at)
    VALUES (
        NEW.turn_id, NEW.step_key, NEW.written_by, NEW.generation, NEW.status,
        EXISTS (
            SELECT 1 FROM agent_turns
            WHERE id = NEW.turn_id AND lease_owner = NEW.written_by
              AND lease_generation = NEW.generation AND lease_expires_at > {NOW}
        ),
        {NOW}
    );
END;

CREATE TRIGGER IF NOT EXISTS audit_step_update AFTER UPDATE ON agent_execution_steps
BEGIN
    INSERT INTO step_write_audit
        (turn_id, step_key, run_id, generation, new_status, was_live_owner, at)
    VALUES (
        NEW.turn_id, NEW.step_key, NEW.written_by, NEW.generation, NEW.status,
        EXISTS (
            SELECT 1 FROM agent_turns
            WHERE id = NEW.turn_id AND lease_owner = NEW.written_by
              AND lease_generation = NEW.generation AND lease_expires_at > {NOW}
        ),
        {NOW}
    );
END;
'''


def connect(path: str) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; every operation opens its own
    # BEGIN IMMEDIATE through `immediate` below.
    # factory: a plain connection, or one that records the trace when tracing is on.
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_S, isolation_level=None, factory=trace.connection_class(),
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f'PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}')
    conn.execute('PRAGMA journal_mode = WAL')
    # The journal must be durable before the effect: begin_step's COMMIT returns only
    # once its `started` row survives a power loss, or a lost row would let the next
    # owner run a `never` step again. In WAL mode FULL syncs the WAL on every commit
    # (NORMAL only at checkpoints: a power loss may roll back committed transactions;
    # EXTRA adds nothing in WAL mode). synchronous is per connection, not stored in the
    # file, so every connection sets it here. fullfsync: F_FULLFSYNC where it exists
    # (macOS, where fsync does not flush the drive's cache); elsewhere SQLite ignores it.
    conn.execute('PRAGMA synchronous = FULL')
    conn.execute('PRAGMA fullfsync = ON')
    conn.execute('PRAGMA foreign_keys = ON')
    return conn


def scratch_folder() -> str | None:
    """Where a throwaway database goes (a fault run, the traced scenarios, their tests): on
    memory-backed storage where there is one, else None (the system's temporary folder). Every
    commit syncs (synchronous = FULL above), which on a disk busy with other work costs
    milliseconds each and the run's wall time with them; such runs are about process faults,
    not power loss."""
    shm = '/dev/shm'
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One BEGIN IMMEDIATE transaction: COMMIT on success, ROLLBACK on any error."""
    conn.execute('BEGIN IMMEDIATE')
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute('ROLLBACK')
        raise
    conn.execute('COMMIT')


def create(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA)


def add_turns(conn: sqlite3.Connection, turn_ids: Iterable[str]) -> None:
    with immediate(conn):
        conn.executemany(
            'INSERT OR IGNORE INTO agent_turns (id) VALUES (?)',
            [(turn_id,) for turn_id in turn_ids],
        )


def db_now(conn: sqlite3.Connection) -> float:
    return float(conn.execute(f'SELECT {NOW}').fetchone()[0])

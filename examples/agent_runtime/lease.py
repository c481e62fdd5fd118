from __future__ import annotations

import sqlite3
from typing import NamedTuple

from examples.agent_runtime.schema import NOW
from examples.agent_runtime.schema import immediate


class Lease(NamedTuple):
    turn_id: str
    run_id: str
    generation: int


class LeaseLost(Exception):
    """The run is no longer the live owner of the turn's current generation."""


def fence_params(lease: Lease) -> dict[str, object]:
    return {'turn': lease.turn_id, 'run': lease.run_id, 'gen': lease.generation}


def claim(conn: sqlite3.Connection, turn_id: str, run_id: str, ttl: float) -> Lease | None:
    # Model action: Claim(r). Guard: turn open /\ (owner = None \/ ~live).
    # Effect: generation + 1, owner = r, live.
    with immediate(conn):
        rows = conn.execute(
            f'''
            UPDATE agent_turns
            SET lease_owner = :run,
                lease_generation = lease_generation + 1,
                lease_expires_at = {NOW} + :ttl
            WHERE id = :turn AND status = 'open'
              AND (lease_owner IS NULL OR lease_expires_at <= {NOW})
            RETURNING lease_generation
            ''',
            {'turn': turn_id, 'run': run_id, 'ttl': ttl},
        ).fetchall()
    if not rows:
        return None
    return Lease(turn_id, run_id, int(rows[0][0]))


def renew(conn: sqlite3.Connection, lease: Lease, ttl: float) -> bool:
    # Model action: Renew(r). Guard: owner = r /\ gen = runGen[r] /\ live.
    # An expired lease is never revived (no resurrection, P6).
    with immediate(conn):
        cursor = conn.execute(
            f'''
            UPDATE agent_turns
            SET lease_expires_at = {NOW} + :ttl
            WHERE id = :turn AND lease_owner = :run AND lease_generation = :gen
              AND lease_expires_at > {NOW}
            ''',
            {**fence_params(lease), 'ttl': ttl},
        )
        return cursor.rowcount == 1


def release(conn: sqlite3.Connection, lease: Lease) -> bool:
    # Model action: Release(r). Guard: owner = r /\ gen = runGen[r] (live or not).
    with immediate(conn):
        cursor = conn.execute(
            '''
            UPDATE agent_turns
            SET lease_owner = NULL, lease_expires_at = NULL
            WHERE id = :turn AND lease_owner = :run AND lease_generation = :gen
            ''',
            fence_params(lease),
        )
        return cursor.rowcount == 1


def finish_turn(conn: sqlite3.Connection, lease: Lease) -> bool:
    # Model action FinishTurn: marks the turn done once every step row is completed, under
    # the same fence as complete_step; a done turn can no longer be claimed.
    with immediate(conn):
        cursor = conn.execute(
            f'''
            UPDATE agent_turns SET status = 'done'
            WHERE id = :turn AND lease_owner = :run AND lease_generation = :gen
              AND lease_expires_at > {NOW} AND status = 'open'
              AND NOT EXISTS (
                  SELECT 1 FROM agent_execution_steps
                  WHERE turn_id = :turn AND status != 'completed'
              )
            ''',
            fence_params(lease),
        )
        return cursor.rowcount == 1

from __future__ import annotations

import sqlite3
from typing import Literal
from typing import NamedTuple

from examples.agent_runtime.lease import Lease
from examples.agent_runtime.lease import LeaseLost
from examples.agent_runtime.lease import fence_params
from examples.agent_runtime.schema import NOW
from examples.agent_runtime.schema import immediate

Policy = Literal['never', 'always']
Outcome = Literal['run', 'replayed', 'needs_attention']

class Decision(NamedTuple):
    outcome: Outcome
    # the policy that decided: policy now for a new row, the effective one for a
    # started row, the recorded one for a completed or unknown row
    policy: Policy
    result: str | None

    @property
    def run_effect(self) -> bool:
        return self.outcome == 'run'


def most_restrictive(recorded: Policy, now: Policy) -> Policy:
    # Part of BeginStep: a deploy can flip a tool's policy between runs; a step that
    # began under `never` stays `never`, and one that began under `always` becomes
    # `never` if that is the policy in force now.
    return 'never' if 'never' in (recorded, now) else 'always'


def _fenced_write(conn: sqlite3.Connection, sql: str, params: dict[str, object]) -> None:
    # Every write carries the fence in its own WHERE clause: the lease can expire between
    # two statements of one transaction (the clock runs while a process is paused), and
    # the audit trigger judges the write at the write's own instant.
    if conn.execute(sql, params).rowcount != 1:
        raise LeaseLost(f'lease of turn {params["turn"]} lost during the step write')


def begin_step(
        conn: sqlite3.Connection, lease: Lease, step_key: str, policy_now: Policy,
) -> Decision:
    # Model action: BeginStep(r). Fence: owner = r /\ gen = runGen[r] /\ live, in the
    # same transaction as the replay decision. The SQL is inline so that the covered
    # function's hash covers every guard.
    live_owner = f'''EXISTS (
        SELECT 1 FROM agent_turns
        WHERE id = :turn AND lease_owner = :run AND lease_generation = :gen
          AND lease_expires_at > {NOW}
    )'''
    params = {**fence_params(lease), 'step': step_key, 'policy': policy_now}
    with immediate(conn):
        if not conn.execute(f'SELECT {live_owner}', params).fetchone()[0]:
            raise LeaseLost(f'run {lease.run_id} does not hold turn {lease.turn_id} '
                            f'generation {lease.generation}')
        row = conn.execute(
            '''
            SELECT status, policy, result FROM agent_execution_steps
            WHERE turn_id = :turn AND step_key = :step
            ''',
            params,
        ).fetchone()
        # replay-decision: begin
        if row is None:
            _fenced_write(conn, f'''
                INSERT INTO agent_execution_steps
                    (turn_id, step_key, status, policy, generation, written_by)
                SELECT :turn, :step, 'started', :policy, :gen, :run
                WHERE {live_owner}
            ''', params)
            decision = Decision('run', policy_now, None)
        elif row['status'] == 'completed':
            decision = Decision('replayed', row['policy'], row['result'])
        elif row['status'] == 'unknown':
            decision = Decision('needs_attention', row['policy'], None)
        else:
            effective = most_restrictive(row['policy'], policy_now)
            params['policy'] = effective
            if effective == 'never':
                # The effect may or may not have run: only a person can tell.
                _fenced_write(conn, f'''
                    UPDATE agent_execution_steps
                    SET status = 'unknown', policy = :policy, generation = :gen,
                        written_by = :run
                    WHERE turn_id = :turn AND step_key = :step AND status = 'started'
                      AND {live_owner}
                ''', params)
                _fenced_write(conn, f'''
                    UPDATE agent_turns SET status = 'needs_attention'
                    WHERE id = :turn AND {live_owner}
                ''', params)
                decision = Decision('needs_attention', effective, None)
            else:
                _fenced_write(conn, f'''
                    UPDATE agent_execution_steps
                    SET policy = :policy, generation = :gen, written_by = :run
                    WHERE turn_id = :turn AND step_key = :step AND status = 'started'
                      AND {live_owner}
                ''', params)
                decision = Decision('run', effective, None)
        # replay-decision: end
    return decision


def complete_step(
        conn: sqlite3.Connection, lease: Lease, step_key: str, result: str,
) -> bool:
    # Model action: CompleteStep(r). Guard: fence (owner = r /\ gen = runGen[r] /\ live)
    # /\ step.status = "started" /\ step.gen = runGen[r]. The write names its writer's run
    # id and generation, as every step write does: the audit trigger judges the row, so it
    # judges this writer, not the generation an earlier write left on the row.
    live_owner = f'''EXISTS (
        SELECT 1 FROM agent_turns
        WHERE id = :turn AND lease_owner = :run AND lease_generation = :gen
          AND lease_expires_at > {NOW}
    )'''
    params = {**fence_params(lease), 'step': step_key, 'result': result}
    with immediate(conn):
        if not conn.execute(f'SELECT {live_owner}', params).fetchone()[0]:
            return False
        cursor = conn.execute(
            f'''
            UPDATE agent_execution_steps
            SET status = 'completed', result = :result, generation = :gen, written_by = :run
            WHERE turn_id = :turn AND step_key = :step
              AND status = 'started' AND generation = :gen
              AND {live_owner}
            ''',
            params,
        )
        return cursor.rowcount == 1

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from typing import Literal
from typing import NamedTuple

from examples.agent_runtime import schema
from examples.agent_runtime import trace
from examples.agent_runtime.effects import append_effect
from examples.agent_runtime.effects import read_policy
from examples.agent_runtime.lease import Lease
from examples.agent_runtime.lease import LeaseLost
from examples.agent_runtime.lease import claim
from examples.agent_runtime.lease import finish_turn
from examples.agent_runtime.lease import release
from examples.agent_runtime.lease import renew
from examples.agent_runtime.schema import NOW
from examples.agent_runtime.steps import begin_step
from examples.agent_runtime.steps import complete_step

TurnOutcome = Literal['done', 'needs_attention', 'lost']


class WorkerConfig(NamedTuple):
    db: str
    run_id: str
    ttl: float
    effect_log: str
    policy_file: str
    effect_delay: float


class Heartbeat(threading.Thread):
    """Renews one lease every ttl/3 on its own connection; a failed renew sets `lost`."""

    def __init__(self, db: str, lease: Lease, ttl: float) -> None:
        super().__init__(daemon=True)
        self.db = db
        self.lease = lease
        self.ttl = ttl
        self.lost = threading.Event()
        self._stopping = threading.Event()

    def run(self) -> None:
        # Model: Renew(r) on a schedule; Expire happens when this thread is late or stopped.
        conn = schema.connect(self.db)
        try:
            while not self._stopping.wait(self.ttl / 3):
                try:
                    renewed = renew(conn, self.lease, self.ttl)
                except sqlite3.Error:
                    renewed = False
                if not renewed:
                    self.lost.set()
                    return
        finally:
            conn.close()

    def stop(self) -> None:
        self._stopping.set()
        self.join()


def run_turn(
        conn: sqlite3.Connection, config: WorkerConfig, lease: Lease,
        tools: Sequence[str], heartbeat: Heartbeat,
) -> TurnOutcome:
    # Model: one run's program, BeginStep -> Effect -> CompleteStep for each step. A run
    # whose lease was lost goes on until a fenced transaction refuses it (a deposed run
    # keeps running); a SIGKILL anywhere is Crash(r).
    for index, tool in enumerate(tools):
        # Cooperative stop: a failed renew means someone else may own the turn now.
        if heartbeat.lost.is_set():
            return 'lost'
        step_key = f'{index}:{tool}'
        try:
            decision = begin_step(conn, lease, step_key, read_policy(config.policy_file, tool))
        except LeaseLost:
            return 'lost'
        if decision.outcome == 'needs_attention':
            return 'needs_attention'
        if not decision.run_effect:
            continue
        # Outside any transaction: nothing can stop a deposed worker here.
        result = append_effect(
            config.effect_log, lease, step_key, decision.policy, config.effect_delay,
        )
        if not complete_step(conn, lease, step_key, result):
            return 'lost'
    return 'done' if finish_turn(conn, lease) else 'lost'


def claimable_turns(
        conn: sqlite3.Connection, plan: dict[str, list[str]],
) -> tuple[list[str], int]:
    """Turns of the plan a claim may take now, and how many are still open at all."""
    rows = conn.execute(
        f'''
        SELECT id, lease_owner IS NULL OR lease_expires_at <= {NOW} AS claimable
        FROM agent_turns WHERE status = 'open' ORDER BY id
        '''
    ).fetchall()
    rows = [row for row in rows if row['id'] in plan]
    return [row['id'] for row in rows if row['claimable']], len(rows)


def run_worker(config: WorkerConfig, plan: dict[str, list[str]]) -> dict[str, int]:
    """Claims turns of the plan until none is open; returns counts of what happened."""
    counts = {'claims': 0, 'done': 0, 'needs_attention': 0, 'lost': 0, 'released': 0}
    conn = schema.connect(config.db)
    try:
        while True:
            candidates, still_open = claimable_turns(conn, plan)
            if still_open == 0:
                return counts
            lease = None
            for turn_id in candidates:
                lease = claim(conn, turn_id, config.run_id, config.ttl)
                if lease is not None:
                    break
            if lease is None:
                # Every open turn is held by a live lease: wait for it to end or expire.
                time.sleep(config.ttl / 4)
                continue
            counts['claims'] += 1
            heartbeat = Heartbeat(config.db, lease, config.ttl)
            heartbeat.start()
            try:
                outcome = run_turn(conn, config, lease, plan[lease.turn_id], heartbeat)
            finally:
                heartbeat.stop()
            counts[outcome] += 1
            released = release(conn, lease)
            counts['released'] += released
            # One line per turn given up, on stderr: what a supervisor (or a test holding
            # another process back until this one is through) reads while the worker goes on.
            print(
                f'turn {lease.turn_id} generation {lease.generation}: {outcome}, lease '
                + ('released' if released else "not released (no longer this run's)"),
                file=sys.stderr,
                flush=True,
            )
    finally:
        conn.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description='Run agent turns under execution leases.')
    parser.add_argument('--db', required=True, help='SQLite database file')
    parser.add_argument(
        '--plan', required=True,
        help='JSON file {"turns": {turn_id: [tool, ...]}}; step i of a turn is "i:tool"',
    )
    parser.add_argument('--run-id', required=True)
    parser.add_argument('--ttl', type=float, default=0.4, help='lease time to live, seconds')
    parser.add_argument('--effect-log', required=True, help='file the external effect appends to')
    parser.add_argument('--policy-file', required=True, help='JSON file {tool: "never"|"always"}')
    parser.add_argument('--effect-delay', type=float, default=0.03,
                        help='an effect takes up to this many seconds')
    parser.add_argument('--init', action='store_true',
                        help='create the tables and the plan\'s turns first')
    parser.add_argument('--trace', action='store_true',
                        help=f'record the trace in the database (also: {trace.ENV}=1)')
    options = parser.parse_args(argv)
    tracing = options.trace or os.environ.get(trace.ENV) == '1'
    if tracing:
        trace.enable(options.run_id, options.db)

    with open(options.plan) as f:
        plan: dict[str, list[str]] = json.load(f)['turns']
    if options.init:
        conn = schema.connect(options.db)
        schema.create(conn)
        if tracing:
            trace.install(conn)
        schema.add_turns(conn, sorted(plan))
        conn.close()
    config = WorkerConfig(
        options.db, options.run_id, options.ttl, options.effect_log,
        options.policy_file, options.effect_delay,
    )
    print(json.dumps({'run': options.run_id, **run_worker(config, plan)}), flush=True)
    return 0


if __name__ == '__main__':
    raise SystemExit(main())

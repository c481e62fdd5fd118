"""The world of the traced scenarios (trace_scenarios.py): one database, its policy file and
effect log, and the runs that act on it, all in one process.

Each `Run` stands for one worker process with its own connection, traced as its own; two runs
may share a run id (a worker restarted with the run id of a stopped one), told apart by their
`process`. Time passing is `World.expire`: it moves a lease's expiry into the past, as the
clock would (not a model action, so not a line of the trace).
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from examples.agent_runtime import schema
from examples.agent_runtime import trace
from examples.agent_runtime.effects import read_policy
from examples.agent_runtime.lease import Lease
from examples.agent_runtime.lease import LeaseLost
from examples.agent_runtime.lease import claim
from examples.agent_runtime.lease import release
from examples.agent_runtime.schema import NOW
from examples.agent_runtime.steps import Policy
from examples.agent_runtime.steps import begin_step
from examples.agent_runtime.worker import Heartbeat
from examples.agent_runtime.worker import WorkerConfig
from examples.agent_runtime.worker import run_turn

TTL = 60.0   # never expires by itself during a scenario; expiry is moved explicitly


class Run:
    """One run (one worker process) of a scenario: its own connection, its writes traced as its
    own. `process` names it apart from another run with the same run id (a worker restarted
    with the run id of a stopped one)."""

    def __init__(self, world: World, run_id: str, process: str | None = None) -> None:
        self.world = world
        self.run_id = run_id
        self.process = process or run_id
        trace.enable(run_id, world.db, self.process)
        self.conn = schema.connect(world.db)
        self.config = WorkerConfig(
            world.db, run_id, TTL, str(world.effect_log), str(world.policy_file), 0.0,
        )

    def act(self) -> sqlite3.Connection:
        trace.enable(self.run_id, self.world.db, self.process)   # effects: this run's
        return self.conn

    def claim(self, turn_id: str) -> Lease | None:
        return claim(self.act(), turn_id, self.run_id, TTL)

    def turn(self, lease: Lease, tools: Sequence[str]) -> str:
        """The worker's own program for a claimed turn: run_turn, then release."""
        outcome = run_turn(self.act(), self.config, lease, tools, Heartbeat(self.world.db, lease, TTL))
        release(self.act(), lease)
        return outcome

    def begin(self, lease: Lease, step_key: str) -> None:
        tool = step_key.split(':', 1)[1]
        try:
            begin_step(self.act(), lease, step_key, self.world.policy(tool))
        except LeaseLost:
            pass


class World:
    def __init__(self, folder: Path) -> None:
        self.db = str(folder / 'runtime.db')
        self.effect_log = folder / 'effects.log'
        self.policy_file = folder / 'policy.json'
        self.set_policy('flipping', 'never')
        conn = sqlite3.connect(self.db)
        schema.create(conn)
        conn.close()
        self.admin: sqlite3.Connection | None = None

    def set_policy(self, tool: str, policy: str) -> None:
        policies = {'mail': 'never', 'search': 'always'}
        if self.policy_file.exists():
            policies.update(json.loads(self.policy_file.read_text()))
        policies[tool] = policy
        self.policy_file.write_text(json.dumps(policies))

    def policy(self, tool: str) -> Policy:
        return read_policy(str(self.policy_file), tool)

    def add_turns(self, *turn_ids: str) -> None:
        conn = sqlite3.connect(self.db)
        trace.install(conn)
        schema.add_turns(conn, turn_ids)
        conn.close()

    def expire(self, turn_id: str, by: Run) -> None:
        # Time passes: the lease's expiry is reached (a write at no model action's site).
        by.act().execute(f'UPDATE agent_turns SET lease_expires_at = {NOW} - 1 WHERE id = ?', (turn_id,))

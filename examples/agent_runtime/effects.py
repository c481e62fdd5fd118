from __future__ import annotations

import json
import os
import random
import time

from examples.agent_runtime import trace
from examples.agent_runtime.lease import Lease
from examples.agent_runtime.steps import Policy


def append_effect(
        log_path: str, lease: Lease, step_key: str, policy: Policy, delay: float,
) -> str:
    """The external effect (model action Effect): outside the database and any transaction.

    It takes a little time (so a fault can land mid-effect), then appends one line
    with O_APPEND and fsyncs it. A SIGKILL before the write leaves no line; one write()
    of a short line is never split.
    """
    time.sleep(random.uniform(0, delay))
    line = json.dumps({
        'turn': lease.turn_id, 'step': step_key, 'run': lease.run_id,
        'generation': lease.generation, 'policy': policy,
    }) + '\n'
    fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    trace.effect(lease.turn_id, step_key, lease.generation, policy)
    return f'{step_key} by {lease.run_id} generation {lease.generation}'


def read_policy(policy_file: str, tool: str) -> Policy:
    # Read at begin_step time: the test rewrites this file atomically (os.replace) to
    # flip a tool's policy, as a deploy would. A tool it does not name is `never`.
    with open(policy_file) as f:
        policies = json.load(f)
    return 'always' if policies.get(tool) == 'always' else 'never'

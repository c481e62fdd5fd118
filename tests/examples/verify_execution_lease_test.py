from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_old_name_runs_verify_on_the_shipped_model():
    # --help of verify, reached through the module: the arguments are execlease verify's, and the
    # model is the shipped one (an unknown model folder would be refused before any TLC run).
    proc = subprocess.run(
        (sys.executable, '-m', 'examples.verify_execution_lease', '--help'),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('usage: execlease verify')


def test_it_passes_the_model_and_the_options(monkeypatch):
    from examples import verify_execution_lease

    seen = []

    def execlease(argv):
        seen.append(argv)
        return 0

    monkeypatch.setattr(verify_execution_lease, 'execlease', execlease)
    assert verify_execution_lease.main(['--quick', '--jobs', '3']) == 0
    assert seen == [['verify', '--model', 'verification/execution-lease', '--quick', '--jobs', '3']]

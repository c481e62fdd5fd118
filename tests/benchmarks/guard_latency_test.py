"""benchmarks/guard_latency.py's scratch repository (precommit_overhead.py's too), without timing
anything: it is built, synced through the package's own reader and fingerprints, and the guard
judges it as the benchmark expects, so a change of those signatures cannot leave the benchmark
broken unseen."""

from __future__ import annotations

from benchmarks import guard_latency
from execlease_hook.cli import main as cli


def test_the_scratch_repository_is_synced_and_judged_as_the_cases_expect(tmp_path, monkeypatch):
    guard_latency.build(tmp_path)  # asserts its 2,000 files and every entry located
    monkeypatch.chdir(tmp_path)
    assert cli.main(['guard', '--all']) == 0
    lease = tmp_path / 'src' / 'lease.py'
    lease.write_text(lease.read_text().replace('attempt + 0', 'attempt - 0'))
    guard_latency.git(tmp_path, 'add', 'src/lease.py')
    assert cli.main(['guard', 'src/lease.py']) == 1  # (c): a covered file changed

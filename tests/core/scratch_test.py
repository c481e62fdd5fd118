"""Marked temporary folders, with real processes: a live maker's folder is never swept, a gone
maker's is, after stopping the children it recorded there (only those whose command line still
names the folder); a folder without a mark is never touched."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from execlease_hook.core import scratch
from tests import wait

pytestmark = pytest.mark.skipif(
    scratch.fcntl is None, reason='no flock: folders are never swept here'
)

ROOT = Path(__file__).resolve().parents[2]

# A process that makes a marked folder, starts a child working in it (whose command line names
# the folder), records it, says where, then waits to be killed or exits without removing it.
MAKER = textwrap.dedent("""
    import os, subprocess, sys, time
    from pathlib import Path
    from execlease_hook.core import scratch
    folder = scratch.make('execlease-test-', Path(sys.argv[1]))
    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', str(folder)],
                             start_new_session=True)
    if sys.argv[3] == 'record':
        scratch.started(folder, child.pid)
    print(folder, child.pid, flush=True)
    if sys.argv[2] == 'wait':
        time.sleep(120)
    os._exit(0)   # no finally, no atexit: as if killed
""")


def _maker(
    parent: Path, then: str, record: str = 'record'
) -> tuple[subprocess.Popen[str], Path, int]:
    proc = subprocess.Popen(
        (sys.executable, '-c', MAKER, str(parent), then, record),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    folder, pid = proc.stdout.readline().split()
    proc.stdout.close()  # it says no more: left open, the pipe warns when collected
    # Popen returns once the child's exec has begun, and its command line reads empty until the
    # kernel has set up the new program (a few ms, longer on a loaded machine): a sweep started
    # before then would not see the child name the folder.
    wait.until(lambda: _running(int(pid)), f'the child {pid} to have started')
    return proc, Path(folder), int(pid)


def _running(pid: int) -> bool:
    try:
        return bool(Path(f'/proc/{pid}/cmdline').read_bytes())
    except OSError:
        return False


def test_a_folder_is_marked_while_it_exists_and_removed_whole(tmp_path):
    folder = scratch.make('execlease-x-', tmp_path)
    assert folder.parent == tmp_path and (folder / scratch.MARK).is_file()
    (folder / 'sub').mkdir()
    (folder / 'sub' / 'f').write_text('x')
    scratch.empty(folder)
    assert [p.name for p in folder.iterdir()] == [scratch.MARK]  # the same folder, as new
    assert scratch.sweep(tmp_path, 'execlease-') == []  # its maker (this process) lives
    scratch.remove(folder)
    assert list(tmp_path.iterdir()) == [] and str(folder) not in scratch._held


def test_a_folder_written_into_while_it_is_removed_is_marked_for_the_next_sweep(
    tmp_path, monkeypatch
):
    """A process not yet stopped (a trace command's child) adds a file after the removal has
    taken the mark: the folder stays, and must not stay unmarked, which no sweep would touch."""
    folder = scratch.make('execlease-x-', tmp_path)
    rmtree = scratch.shutil.rmtree

    def racing(path, ignore_errors=False):  # the real removal, then the late write
        rmtree(path, ignore_errors=ignore_errors)
        Path(path).mkdir(exist_ok=True)
        (Path(path) / 'late.ndjson').write_text('{}')

    monkeypatch.setattr(scratch.shutil, 'rmtree', racing)
    scratch.remove(folder)
    monkeypatch.undo()
    assert sorted(p.name for p in folder.iterdir()) == [scratch.MARK, 'late.ndjson']
    assert str(folder) not in scratch._held
    assert scratch.sweep(tmp_path, 'execlease-') == [folder] and not folder.exists()


def test_the_context_removes_it_on_an_exception(tmp_path):
    with pytest.raises(RuntimeError):
        with scratch.folder('execlease-x-', tmp_path):
            raise RuntimeError('boom')
    assert list(tmp_path.iterdir()) == []


def test_a_live_makers_folder_is_kept_and_a_gone_ones_swept_with_its_child(tmp_path):
    live, live_folder, live_child = _maker(tmp_path, 'wait')
    gone, gone_folder, gone_child = _maker(tmp_path, 'exit')
    try:
        assert gone.wait(timeout=30) == 0 and _running(gone_child)  # the child outlived it
        unmarked = tmp_path / 'execlease-unmarked'
        unmarked.mkdir()
        other = tmp_path / 'other-prefix'
        other.mkdir()
        assert scratch.sweep(tmp_path, 'execlease-') == [gone_folder]
        assert not gone_folder.exists() and not _running(gone_child)
        assert (
            live_folder.exists() and _running(live_child) and unmarked.exists() and other.exists()
        )
        live.send_signal(signal.SIGKILL)
        live.wait(timeout=30)
        assert scratch.sweep(tmp_path, 'execlease-') == [live_folder]  # killed: now it is stale
        assert not _running(live_child)
    finally:
        for pid in (live_child, gone_child):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        live.kill()
        live.wait()


def test_a_child_its_maker_had_not_recorded_is_stopped_by_its_command_line(tmp_path):
    """A maker killed between starting a child and recording it (a TLC JVM, say): the child is
    found by the folder its command line names, and stopped before the folder goes."""
    gone, folder, child = _maker(tmp_path, 'exit', 'unrecorded')
    try:
        assert gone.wait(timeout=30) == 0 and _running(child)
        assert scratch.sweep(tmp_path, 'execlease-') == [folder]
        assert not folder.exists() and not _running(child)
    finally:
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_recorded_pid_now_of_another_process_is_not_stopped(tmp_path):
    gone, folder, child = _maker(tmp_path, 'exit')
    gone.wait(timeout=30)
    os.kill(child, signal.SIGKILL)
    wait.until(lambda: not _running(child), f'the killed process {child} to be gone')
    unrelated = subprocess.Popen(('sleep', '60'))  # its command line names no folder of ours
    try:
        with open(folder / scratch.MARK, 'a') as mark:
            mark.write(f'{unrelated.pid}\n')
        assert scratch.sweep(tmp_path, 'execlease-') == [folder]
        assert unrelated.poll() is None
    finally:
        unrelated.kill()
        unrelated.wait()

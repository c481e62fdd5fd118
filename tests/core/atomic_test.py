from __future__ import annotations

import os
import threading

import pytest

from execlease_hook.core.atomic import write_text_atomic


def test_new_file_gets_the_usual_mode(tmp_path):
    path = tmp_path / 'out.json'
    umask = os.umask(0o022)
    try:
        write_text_atomic(path, 'x\n')
    finally:
        os.umask(umask)
    assert path.read_text() == 'x\n'
    assert path.stat().st_mode & 0o777 == 0o644


def test_existing_mode_is_kept_and_no_temp_file_is_left(tmp_path):
    path = tmp_path / 'manifest.json'
    path.write_text('old\n')
    path.chmod(0o600)
    write_text_atomic(path, 'new\n')
    assert path.read_text() == 'new\n'
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ['manifest.json']


def test_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / 'manifest.json'
    path.write_text('old\n')

    def disk_full(fd):
        raise OSError(28, 'No space left on device')

    monkeypatch.setattr(os, 'fsync', disk_full)
    with pytest.raises(OSError, match='No space left'):
        write_text_atomic(path, 'new\n')
    assert path.read_text() == 'old\n'
    assert [p.name for p in tmp_path.iterdir()] == ['manifest.json']


def test_readers_never_see_a_partial_file(tmp_path):
    path = tmp_path / 'cache.json'
    big = ['a' * 200_000 + '\n', 'b' * 200_000 + '\n']
    path.write_text(big[0])
    seen: set[str] = set()
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            seen.add(path.read_text())

    reader = threading.Thread(target=read)
    reader.start()
    for i in range(40):
        write_text_atomic(path, big[i % 2])
    done.set()
    reader.join()
    assert seen <= set(big)

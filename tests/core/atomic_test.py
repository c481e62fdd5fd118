from __future__ import annotations

import os
import threading

import pytest

from execlease_hook.core.atomic import replacing, write_text_atomic


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


def test_a_filled_temp_file_is_placed_with_the_mode_given(tmp_path):
    path = tmp_path / 'tool.jar'
    with replacing(path, 0o644, suffix='.part') as part:
        assert part.parent == tmp_path and part.name.endswith('.part')
        assert not path.exists()  # nobody sees the file before the block ends
        part.write_bytes(b'PK\x03\x04')
    assert path.read_bytes() == b'PK\x03\x04'
    assert path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ['tool.jar']


def test_a_block_that_raises_places_nothing_and_leaves_no_temp_file(tmp_path):
    path = tmp_path / 'tool.jar'
    path.write_bytes(b'old')
    with pytest.raises(ValueError, match='refused'):
        with replacing(path) as part:
            part.write_bytes(b'half')
            raise ValueError('refused')
    assert path.read_bytes() == b'old'
    assert [p.name for p in tmp_path.iterdir()] == ['tool.jar']

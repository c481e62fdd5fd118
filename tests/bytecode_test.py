from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests import bytecode


def test_a_process_the_run_starts_compiles_into_the_runs_folder_not_beside_the_source(
    tmp_path: Path,
) -> None:
    (tmp_path / 'fresh_module.py').write_text('VALUE = 1\n')
    subprocess.run((sys.executable, '-c', 'import fresh_module'), cwd=tmp_path, check=True)
    prefix = os.environ.get(bytecode.PREFIX)
    if prefix is None:  # this machine writes compiled files beside the sources, as by default
        assert not os.environ.get(bytecode.FLAG)
        assert (tmp_path / '__pycache__').is_dir()
        return
    assert os.environ.get(bytecode.FLAG) is None
    assert not (tmp_path / '__pycache__').exists()
    compiled = list(Path(prefix).glob(f'{str(tmp_path).lstrip("/")}/fresh_module.*.pyc'))
    assert len(compiled) == 1, sorted(Path(prefix).rglob('fresh_module*'))


def test_the_folder_is_kept_between_runs_and_only_this_user_can_write_it(tmp_path: Path) -> None:
    first = bytecode.kept_folder(tmp_path)
    assert first == tmp_path / f'execlease-test-bytecode-{os.getuid()}'
    assert stat.S_IMODE(first.stat().st_mode) == 0o700
    (first / 'kept.pyc').write_bytes(b'')
    assert bytecode.kept_folder(tmp_path) == first and (first / 'kept.pyc').exists()


@pytest.mark.parametrize('how', ['others-can-write', 'a-symbolic-link'])
def test_a_folder_others_could_have_written_is_not_used(tmp_path: Path, how: str) -> None:
    """Another user's compiled files would run in the test run: such a folder is passed over
    for one of the run's own."""
    name = tmp_path / f'execlease-test-bytecode-{os.getuid()}'
    if how == 'others-can-write':
        name.mkdir()
        name.chmod(0o777)
    else:
        (tmp_path / 'elsewhere').mkdir(mode=0o700)
        name.symlink_to(tmp_path / 'elsewhere')
    chosen = bytecode.kept_folder(tmp_path)
    assert chosen != name and chosen.parent == tmp_path
    assert chosen.name.startswith('pytest-bytecode-')
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o700

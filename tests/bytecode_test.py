from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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

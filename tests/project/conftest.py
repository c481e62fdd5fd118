"""The package as pip builds it, once per session for the tests of what it ships."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests import shared

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope='session')
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The file names in the wheel built from a copy of every tracked file, once for every xdist
    worker (tests/shared.py): setuptools writes build/ and *.egg-info into the tree it builds,
    and a build in the checkout itself would race any other test that builds or installs it at
    the same time (the suite runs in parallel)."""

    def build(folder: Path) -> None:
        tree = folder / 'tree'
        listed = subprocess.run(
            ('git', 'ls-files', '-z'), cwd=ROOT, capture_output=True, check=True
        ).stdout
        for rel in filter(None, listed.decode().split('\0')):
            if (ROOT / rel).is_file():
                (tree / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / rel, tree / rel)
        subprocess.run(
            (sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q', '-w', str(folder), str(tree)),
            check=True,
        )

    (wheel,) = shared.folder(tmp_path_factory, 'wheel', build).glob('execlease-*.whl')
    return zipfile.ZipFile(wheel).namelist()

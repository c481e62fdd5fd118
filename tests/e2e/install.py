"""execlease installed as the README says, into a fresh venv: the install line of its Install
section run verbatim by bash, with EXECLEASE_GIT the URL of a git repository of the package."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / 'README.md'


def install_line() -> str:
    section = README.read_text(encoding='utf-8').split('## Install', 1)[1].split('\n## ', 1)[0]
    (line,) = [
        block
        for block in re.findall(r'^```sh\n(.+?)\n```$', section, re.M | re.S)
        if block.startswith('pip install')
    ]
    return line


def readme_install(repo: Path, folder: Path) -> Path:
    venv = folder / 'venv'
    # Made by virtualenv, as pre-commit makes its hook environments: it seeds a current pip from
    # the wheels it carries. The pip of Python 3.11's venv (23.2) refuses a `git+file:` URL, as a
    # current one does not (a user's URL is an https one either way), and `venv --upgrade-deps`
    # installed that pip and then replaced it: this whole install took 9.3-10.2 CPU-s with it,
    # 5.6 with virtualenv (measured).
    subprocess.run(
        (sys.executable, '-m', 'virtualenv', '-q', '--no-periodic-update', str(venv)),
        check=True,
        timeout=300,
    )
    bin_dir = venv / 'bin'
    env = {k: v for k, v in os.environ.items() if not k.startswith(('GIT_', 'VIRTUAL_ENV'))}
    env.update(
        PATH=os.pathsep.join((str(bin_dir), env.get('PATH', ''))), EXECLEASE_GIT=repo.as_uri()
    )
    proc = subprocess.run(
        ('bash', '-c', f'set -e\n{install_line()}\n'),
        env=env,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return bin_dir

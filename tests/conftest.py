from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

AUTHOR = {
    'GIT_AUTHOR_NAME': 'Test Author',
    'GIT_AUTHOR_EMAIL': 'author@example.com',
    'GIT_COMMITTER_NAME': 'Test Committer',
    'GIT_COMMITTER_EMAIL': 'committer@example.com',
    # No user or system config: a developer's hooks, signing or aliases must not leak in.
    'GIT_CONFIG_GLOBAL': os.devnull,
    'GIT_CONFIG_NOSYSTEM': '1',
}


def git_env() -> dict[str, str]:
    """The environment for a child git in tests: no inherited GIT_* variables, fixed identity."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('GIT_')}
    env.update(AUTHOR)
    return env


@dataclass
class GitRepo:
    path: Path

    def git(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            ('git', *args), cwd=self.path, env=git_env(), capture_output=True, text=True,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f'git {args} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}')
        return proc.stdout

    def write(self, rel: str, text: str | bytes) -> Path:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text)
        return target

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text()

    def add(self, *paths: str) -> None:
        self.git('add', '--', *paths)

    def commit(self, message: str = 'commit') -> str:
        self.git('commit', '-q', '--no-verify', '--allow-empty', '-m', message)
        return self.git('rev-parse', 'HEAD').strip()

    def head(self) -> str:
        return self.git('rev-parse', 'HEAD').strip()


@pytest.fixture
def git_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """A fresh git repository (branch main, no commits) in tmp_path; the test runs inside it.

    GIT_* variables are stripped from this process too, so in-process code that calls git
    (execlease_hook.git) sees only this repository.
    """
    for name in list(os.environ):
        if name.startswith('GIT_'):
            monkeypatch.delenv(name)
    for name, value in AUTHOR.items():
        monkeypatch.setenv(name, value)
    path = tmp_path / 'repo'
    path.mkdir()
    repo = GitRepo(path.resolve())
    repo.git('init', '-q', '-b', 'main')
    monkeypatch.chdir(repo.path)
    return repo

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from execlease_hook.locate.entry import MAX_BYTES
from tests import needs, shared, tiers

# Hooks and an autouse fixture of every test, kept in modules of their own: a skip in CI is a
# failure (tests/skips.py), and so is a run that touched the user's execlease cache
# (user_cache.py); a test of the fast tier starts no JVM, pre-commit or worker (tiers.py);
# `-n auto` starts one worker more than the cores (workers.py). Compiled modules are kept for the
# run outside the checkout where the machine keeps none, and the run's JVMs compile with C1 only,
# both set up on import, before any worker starts (bytecode.py, jit.py).
from tests.bytecode import FOLDER as BYTECODE_FOLDER  # noqa: F401
from tests.jit import OPTIONS as JIT_OPTIONS  # noqa: F401
from tests.skips import pytest_configure, pytest_runtest_makereport  # noqa: F401
from tests.tiers import fast_tier_tripwire  # noqa: F401
from tests.user_cache import pytest_sessionfinish, pytest_sessionstart  # noqa: F401
from tests.workers import pytest_xdist_auto_num_workers  # noqa: F401

AUTHOR = {
    'GIT_AUTHOR_NAME': 'Test Author',
    'GIT_AUTHOR_EMAIL': 'author@example.com',
    'GIT_COMMITTER_NAME': 'Test Committer',
    'GIT_COMMITTER_EMAIL': 'committer@example.com',
    # No user or system config: a developer's hooks, signing or aliases must not leak in.
    'GIT_CONFIG_GLOBAL': os.devnull,
    'GIT_CONFIG_NOSYSTEM': '1',
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each test in its tiers, from the fixtures it uses and its marks (tests/tiers.py): the
    fast loop while editing is `-m "not tlc and not e2e"` (CONTRIBUTING.md); the README's
    command runs every tier."""
    tiers.mark(items)
    # Whole modules that start JVMs, pre-commit or worker processes run first, the quick ones
    # last: the workers then end together instead of one waiting on a long module picked up at
    # the end (`--dist worksteal`, pyproject.toml, hands them out in this order).
    rank: dict[Path, int] = {}
    for item in items:
        path = Path(str(item.fspath))
        tier = (
            0
            if item.get_closest_marker('slow')
            else 1
            if (item.get_closest_marker('tlc') or item.get_closest_marker('e2e'))
            else 2
        )
        rank[path] = min(rank.get(path, 2), tier)
    items.sort(key=lambda item: rank[Path(str(item.fspath))])


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages are asserted by their words, not by where the terminal breaks them: every test
    sees a wide terminal (COLUMNS, which children such as pre-commit's hooks inherit). The tests
    of wrapping itself (term_test.py) set their own width."""
    monkeypatch.setenv('COLUMNS', '1000')


@pytest.fixture(autouse=True)
def no_warm_jvm_outlives_its_test() -> Iterator[None]:
    """After each test, the warm JVMs still waiting are stopped and the plan of jobs to come is
    forgotten (tlc/spare.py's process-wide state), as a verify process's exit does. A run in this
    process keeps both when it ends: a later test's job then found jobs still "expected" and
    started a warm JVM for one that never came, a JVM and its warm-up (about 1 CPU-s) each time,
    and no test takes another's (a spare serves only the environment it was started in)."""
    yield
    spare = sys.modules.get('execlease_hook.tlc.spare')
    if spare is not None:
        spare.discard_all()


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
            ('git', *args),
            cwd=self.path,
            env=git_env(),
            capture_output=True,
            text=True,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f'git {args} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}'
            )
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


def git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's environment as `git_env` gives a child's: no GIT_* variable, fixed identity."""
    for name in list(os.environ):
        if name.startswith('GIT_'):
            monkeypatch.delenv(name)
    for name, value in AUTHOR.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def git_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """A fresh git repository (branch main, no commits) in tmp_path; the test runs inside it.

    GIT_* variables are stripped from this process too, so in-process code that calls git
    (execlease_hook.git) sees only this repository.
    """
    git_identity(monkeypatch)
    path = tmp_path / 'repo'
    path.mkdir()
    repo = GitRepo(path.resolve())
    repo.git('init', '-q', '-b', 'main')
    monkeypatch.chdir(repo.path)
    return repo


# A consumer repository with one model covering three entries of one Python file.
LEASE_PY = '''\
import sqlite3


def claim_lease(db, run_id, now):
    """Claim the lease if it is free or expired."""
    cur = db.execute(
        'UPDATE lease SET owner = ?, generation = generation + 1 '
        'WHERE owner IS NULL OR expires_at < ?',
        (run_id, now),
    )
    return cur.rowcount == 1


class LeaseStore:
    def __init__(self, db):
        self.db = db

    def renew(self, run_id, now):
        if now < 0:
            raise ValueError(now)
        return self.db.execute('UPDATE lease SET expires_at = ? WHERE owner = ?', (now + 30, run_id))


def begin_step(db, step_id):
    row = db.execute('SELECT status FROM steps WHERE id = ?', (step_id,)).fetchone()
    # replay-decision: begin
    if row is not None and row[0] == 'done':
        return 'skip'
    # replay-decision: end
    return 'run'
'''
# The model of LEASE_PY: every action Next uses is covered by an entry below.
LEASE_TLA = """\
---- MODULE Lease ----
VARIABLE x
Init == x = 0
\\* the claim: a new generation
Claim == x' = x + 1
Renew == x' = x
BeginStep == x' = x
Next == Claim \\/ Renew \\/ BeginStep
====
"""
MODEL_DIR = 'verification/lease'
MANIFEST = f'{MODEL_DIR}/manifest.json'
NOTES = f'{MODEL_DIR}/NOTES.md'
ENTRIES: list[dict[str, object]] = [
    {'id': 'claim-lease', 'path': 'app/lease.py', 'function': 'claim_lease', 'action': 'Claim'},
    {'id': 'renew', 'path': 'app/lease.py', 'function': 'LeaseStore.renew', 'action': 'Renew'},
    {
        'id': 'replay-decision',
        'path': 'app/lease.py',
        'within': 'begin_step',
        'region': {'from': '# replay-decision: begin', 'to': '# replay-decision: end'},
        'action': 'BeginStep',
    },
]
NOTES_MD = """\
# Lease model notes

## Code-to-action map

<!-- code-to-action:begin -->
<!-- code-to-action:end -->

## Outside the model
"""


def manifest_json(entries: list[dict[str, object]] | None = None) -> str:
    import json

    return (
        json.dumps(
            {
                'version': 1,
                'spec': 'Lease.tla',
                'checks': [{'name': 'main', 'config': 'Lease.cfg'}],
                'coverage': {
                    'syncCommit': None,
                    'modelHash': None,
                    'entries': ENTRIES if entries is None else entries,
                },
            },
            indent=2,
        )
        + '\n'
    )


def sync_coverage(root: Path, rel: str = MANIFEST) -> None:
    """What `execlease verify --update-coverage` records, without running TLC: the working
    tree's fingerprints, the model hash and HEAD, and the regenerated NOTES.md table (the
    manifest format of before synced blobs: the guard's diff then uses syncCommit)."""
    from dataclasses import replace

    from execlease_hook.coverage import compare as coverage
    from execlease_hook.coverage import notes
    from execlease_hook.git import blobs
    from execlease_hook.git import repo as git
    from execlease_hook.manifest import read as manifest_read
    from execlease_hook.manifest import write as manifest_write
    from execlease_hook.spec import record as model_record

    path = root / rel
    m = manifest_read.load(path, root)
    source = blobs.WorktreeSource(root)
    statuses = coverage.compare(m, source, None, MAX_BYTES)
    entries = tuple(replace(s.entry, hash=s.current) for s in statuses)
    m = replace(
        m,
        coverage=replace(
            m.coverage,
            entries=entries,
            sync_commit=git.head(root),
            model_hash=model_record.record(model_record.read(m, source)),
        ),
    )
    manifest_write.write(path, m)
    if (path.parent / 'NOTES.md').exists():
        notes.write_map(m, statuses)


@pytest.fixture
def covered_repo(git_repo: GitRepo) -> GitRepo:
    """git_repo with app/lease.py covered by verification/lease/manifest.json, synced and committed."""
    cover(git_repo)
    return git_repo


def cover(repo: GitRepo) -> None:
    """`covered_repo`'s files and commits, in `repo` (a new git repository)."""
    repo.write('app/lease.py', LEASE_PY)
    repo.write('app/other.py', 'def unrelated():\n    return 1\n')
    repo.write(f'{MODEL_DIR}/Lease.tla', LEASE_TLA)
    repo.write(f'{MODEL_DIR}/Lease.cfg', 'INIT Init\nNEXT Next\n')
    repo.write(MANIFEST, manifest_json())
    repo.write(NOTES, NOTES_MD)
    repo.add('.')
    repo.commit('code and model')
    sync_coverage(repo.path)
    repo.add(MANIFEST, NOTES)
    repo.commit('sync coverage')


# The execlease hook repository for the end-to-end tests through the real pre-commit, shared by
# every such test file, and by the workers (tests/shared.py), so that pre-commit clones and
# installs it once per run.
HERE = Path(__file__).resolve().parent.parent


def _hook_repo(path: Path) -> None:
    for name in ('pyproject.toml', '.pre-commit-hooks.yaml', 'README.md', 'LICENSE'):
        if (HERE / name).exists():
            shutil.copy2(HERE / name, path / name)
    if not (path / 'README.md').exists():
        (path / 'README.md').write_text('execlease\n')
    for package in ('execlease_hook', 'execlease'):
        shutil.copytree(
            HERE / package, path / package, ignore=shutil.ignore_patterns('__pycache__')
        )
    repo = GitRepo(path)
    repo.git('init', '-q', '-b', 'main')
    repo.git('add', '.')
    repo.commit('execlease hook under test')


@tiers.uses('e2e')
@pytest.fixture(scope='session')
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A git repository holding this package and its .pre-commit-hooks.yaml, committed."""
    path = shared.folder(tmp_path_factory, 'hook-repo', _hook_repo)
    return path, GitRepo(path).head()


@tiers.uses('e2e')
@pytest.fixture(scope='session')
def readme_install(hook_repo: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with execlease installed by the README's install line, verbatim, from
    `hook_repo` as EXECLEASE_GIT (a git install, not editable); its bin folder."""
    from tests.e2e import install

    def build(folder: Path) -> None:
        install.readme_install(hook_repo[0], folder)

    return shared.folder(tmp_path_factory, 'readme-venv', build) / 'venv' / 'bin'


@pytest.fixture(scope='session')
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pre-commit's store, shared by the workers: pre-commit locks it while it installs."""
    return shared.folder(tmp_path_factory, 'pre-commit-home', lambda folder: None)


@tiers.uses('tlc')
@pytest.fixture(scope='session')
def jvm_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One JVM cache (EXECLEASE_JVM_CACHE) for the test run, every xdist worker's (shared.py):
    the warm-JVM helper is compiled once and the class-data archive of `tools_jar` built once,
    not once per test repository or worker (the cache is made for runs at once: they share what
    is built and race only for who builds it). The tests of that cache itself
    (tests/tlc/cds_test.py, spare_test.py, jvm_fault_test.py) give each test its own."""
    return shared.folder(tmp_path_factory, 'jvm-cache', lambda folder: None)


@tiers.uses('tlc')
@pytest.fixture(scope='session')
def tools_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the offline tla2tools.jar for the test run, every xdist worker's
    (EXECLEASE_TLA_JAR): a class-data archive is keyed by its jar's path, so with a copy in
    every test repository's `.tmp/tla` (or every worker's) each of them built one of its own
    (about 1.5 s of CPU each, measured). The tests of that cache and of where the tools come
    from use `tools_in_repo`."""

    def build(folder: Path) -> None:
        shutil.copy2(needs.tla_jar(), folder / 'tla2tools.jar')

    return shared.folder(tmp_path_factory, 'tools', build) / 'tla2tools.jar'


@tiers.uses('tlc')
@pytest.fixture(scope='session')
def java() -> Path:
    """The Java the TLC tests run (tests/needs.py: fails in CI, skips elsewhere when missing)."""
    return Path(needs.java())


@tiers.uses('tlc')
@pytest.fixture(scope='session')
def tla_jar() -> Path:
    """The offline tla2tools.jar itself (`tools_jar` is the session's copy of it)."""
    return needs.tla_jar()


def offline_settings(jvm_cache: Path, tools_jar: Path) -> dict[str, str]:
    """The EXECLEASE_* settings of a run on the session's tools and JVM cache, for a child's
    environment built by a module fixture (`offline_tlc` sets them for one test)."""
    return {
        'EXECLEASE_TLA_OFFLINE': '1',
        'EXECLEASE_JVM_CACHE': str(jvm_cache),
        'EXECLEASE_TLA_JAR': str(tools_jar),
    }


def use_offline(env: pytest.MonkeyPatch, jvm_cache: Path, tools_jar: Path) -> None:
    """`offline_settings` in this process's environment, and no other EXECLEASE_* setting of
    the outside but CI's own (needs.clear_settings), for as long as `env` lasts (a test's
    `monkeypatch`, or a module fixture's `pytest.MonkeyPatch.context()`)."""
    needs.clear_settings(env)
    for name, value in offline_settings(jvm_cache, tools_jar).items():
        env.setenv(name, value)


@tiers.uses('tlc')
@pytest.fixture
def offline_tlc(monkeypatch: pytest.MonkeyPatch, jvm_cache: Path, tools_jar: Path) -> None:
    """Real Java and the offline TLA+ tools; no EXECLEASE_* setting leaks in from outside."""
    needs.java()
    needs.tla_jar()
    use_offline(monkeypatch, jvm_cache, tools_jar)


@pytest.fixture
def tools_in_repo(offline_tlc: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tools found as on a user's machine: copied from the offline source into the
    repository's `.tmp/tla` (no EXECLEASE_TLA_JAR)."""
    monkeypatch.delenv('EXECLEASE_TLA_JAR')

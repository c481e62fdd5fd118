from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.coverage import compare as coverage
from execlease_hook.coverage import watch
from execlease_hook.locate.entry import MAX_BYTES
from execlease_hook.manifest import model as manifest_model
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest import watch_paths
from execlease_hook.spec.cfg import blank
from execlease_hook.spec.syntax import walk
from tests.conftest import LEASE_PY, MANIFEST, NOTES, GitRepo, sync_coverage

WRITES = r'\b(UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+(lease|steps)\b'
RULE = {'paths': ['app/**'], 'strings': WRITES, 'what': 'writes {2}'}


@pytest.mark.parametrize(
    ('glob', 'path', 'expected'),
    (
        ('app/**', 'app/a.py', True),
        ('app/**', 'app/x/y/a.py', True),
        ('app/**', 'apps/a.py', False),
        ('app/*.py', 'app/a.py', True),
        ('app/*.py', 'app/x/a.py', False),
        ('**/sql.py', 'sql.py', True),
        ('**/sql.py', 'a/b/sql.py', True),
        ('src/**/db_*.go', 'src/x/db_lease.go', True),
        ('src/**/db_*.go', 'src/db_lease.go', True),
        ('app/[ab].py', 'app/b.py', True),
        ('app/[!ab].py', 'app/b.py', False),
        ('app/a?.py', 'app/ab.py', True),
    ),
)
def test_globs(glob, path, expected):
    assert watch_paths.matches([glob], path) is expected


@pytest.mark.parametrize(
    ('language', 'source', 'expected'),
    (
        (
            'python',
            "x = '# not one'  # é UPDATE lease\r\ny = 1\n".encode(),
            b"x = '# not one'  " + b' ' * 17 + b'\r\ny = 1\n',
        ),
        (
            'javascript',
            b'a(); /* UPDATE\nlease */ b();\n',
            b'a(); ' + b' ' * 9 + b'\n' + b' ' * 8 + b' b();\n',
        ),
        (
            'go',
            b'package p\n// DELETE FROM steps\nfunc f() {}\n',
            b'package p\n' + b' ' * 20 + b'\nfunc f() {}\n',
        ),
    ),
    ids=['python-crlf-utf8', 'javascript-block', 'go-line'],
)
def test_comments_are_blanked_byte_for_byte(language, source, expected):
    # Every byte of a comment (each byte of a multi-byte character too) a space, line ends kept.
    from execlease_hook.locate.source import parse

    root = parse(language, source).root_node
    comments = [(n.start_byte, n.end_byte) for n in walk(root) if 'comment' in n.type]
    assert blank(source, comments) == expected


class Memory:
    description = 'memory'

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def prefetch(self, paths: object) -> None:
        pass

    def read(self, path: str) -> bytes | None:
        text = self.files.get(path)
        return None if text is None else text.encode()


PY = """\
def claim(conn):
    conn.execute("UPDATE lease SET owner = 1")


def force_release(conn):
    # UPDATE lease in a comment does not count
    conn.execute("UPDATE lease SET owner = NULL")


class Admin:
    def reset(self, conn):
        conn.execute('DELETE FROM lease')

    def read(self, conn):
        return conn.execute('SELECT * FROM lease')  # UPDATE lease, in a comment


def begin(conn):
    row = conn.execute('SELECT 1')
    # region: begin
    conn.execute('INSERT INTO steps VALUES (1)')
    # region: end
    return row


SETUP = "DELETE FROM lease"   # module level: not judged
"""
GO = """\
package lease

func Release(db *DB) {
\tdb.Exec("x")
\tlease.Release(db)
}

func (s *Store) Drop() { s.db.Release() }

func Other() { Log() }
"""
TS = """\
export function release(db: Db) { db.release(); }
class Store { drop() { return this.pool.release(); } keep() { return 1; } }
const quiet = () => other.unrelease();
"""
JAVA = """\
class Store {
  void drop(Db db) { db.release(); }
  void keep() { log(); }
}
"""
RUST = """\
fn drop(db: &Db) { Lease::release(db); }
impl Store { fn keep(&self) { println!("x"); } fn go(&self) { self.db.release::<u8>(); } }
"""

CSHARP = 'class Store {\n    void Drop() { db.Release(); }\n    void Keep() { Log(); }\n}\n'
KOTLIN = 'fun drop(db: Db) {\n    db.release()\n}\n\nclass Store {\n    fun keep() = log()\n}\n'
SCALA = 'object Store {\n  def drop(db: Db) = db.release()\n  def keep() = log()\n}\n'
SWIFT = (
    'func drop(_ db: Db) {\n    db.release()\n}\n\nstruct Store {\n    func keep() { log() }\n}\n'
)


def make(
    tmp_path: Path, rules: list[dict], entries: Sequence[dict] = (), ignored: Sequence[dict] = ()
) -> manifest_model.Manifest:
    folder = tmp_path / 'verification' / 'm'
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / 'manifest.json'
    path.write_text(
        json.dumps(
            {
                'version': 1,
                'spec': 'M.tla',
                'checks': [{'name': 'main', 'config': 'M.cfg'}],
                'coverage': {
                    'syncCommit': None,
                    'modelHash': None,
                    'entries': list(entries),
                    'watch': rules,
                    'ignored': list(ignored),
                },
            }
        )
    )
    return manifest_read.load(path, tmp_path)


def judge(m: manifest_model.Manifest, files: dict[str, str]) -> watch.WatchResult:
    source = Memory(files)
    statuses = coverage.compare(m, source, None, MAX_BYTES)
    return watch.check(m, source, watch.watched(m, files), statuses)


REGION = {
    'id': 'begin',
    'path': 'app/a.py',
    'within': 'begin',
    'region': {'from': '# region: begin', 'to': '# region: end'},
    'action': 'A',
}


@pytest.mark.parametrize(
    ('files', 'rules', 'entries', 'ignored', 'expected'),
    (
        pytest.param(
            {'app/a.py': PY},
            [RULE],
            [],
            [],
            [
                ('app/a.py', 1, 'claim', 'writes lease'),
                ('app/a.py', 5, 'force_release', 'writes lease'),
                ('app/a.py', 11, 'Admin.reset', 'writes lease'),
                ('app/a.py', 18, 'begin', 'writes steps'),
            ],
            id='python-nothing-covered',
        ),
        pytest.param(
            {'app/a.py': PY},
            [RULE],
            [{'id': 'claim', 'path': 'app/a.py', 'function': 'claim', 'action': 'A'}, REGION],
            [{'path': 'app/a.py', 'function': 'Admin.reset', 'reason': 'tests only'}],
            [('app/a.py', 5, 'force_release', 'writes lease')],
            id='python-covered-region-ignored',
        ),
        pytest.param(
            {'app/a.py': PY, 'lib/b.py': PY},
            [RULE],
            [{'id': 'claim', 'path': 'app/a.py', 'function': 'claim', 'action': 'A'}, REGION],
            [
                {'path': 'app/a.py', 'function': 'Admin.reset', 'reason': 'r'},
                {'path': 'app/a.py', 'function': 'force_release', 'reason': 'r'},
            ],
            [],
            id='outside-the-paths-is-not-judged',
        ),
        pytest.param(
            {'app/a.py': PY},
            [{**RULE, 'what': None}],
            [],
            [],
            [
                ('app/a.py', 1, 'claim', 'matches "UPDATE lease"'),
                ('app/a.py', 5, 'force_release', 'matches "UPDATE lease"'),
                ('app/a.py', 11, 'Admin.reset', 'matches "DELETE FROM lease"'),
                ('app/a.py', 18, 'begin', 'matches "INSERT INTO steps"'),
            ],
            id='default-message',
        ),
        pytest.param(
            {
                'app/m.py': "def f(db):\n    db.execute('''INSERT\n        INTO lease VALUES (1)''')\n"
            },
            [{**RULE, 'what': None}],
            [],
            [],
            [('app/m.py', 1, 'f', 'matches "INSERT INTO lease"')],
            id='match-across-lines',
        ),
        pytest.param(
            {'app/lease.go': GO},
            [{'paths': ['app/*.go'], 'calls': ['Release']}],
            [],
            [],
            [
                ('app/lease.go', 3, 'Release', 'calls lease.Release'),
                ('app/lease.go', 8, 'Store.Drop', 'calls s.db.Release'),
            ],
            id='go-calls',
        ),
        pytest.param(
            {'app/s.ts': TS},
            [{'paths': ['app/**'], 'calls': ['release'], 'what': 'releases ({callee})'}],
            [],
            [],
            [
                ('app/s.ts', 1, 'release', 'releases (db.release)'),
                ('app/s.ts', 2, 'Store.drop', 'releases (this.pool.release)'),
            ],
            id='typescript-calls',
        ),
        pytest.param(
            {'app/S.java': JAVA},
            [{'paths': ['app/**'], 'calls': ['db.release']}],
            [],
            [],
            [('app/S.java', 2, 'Store.drop', 'calls db.release')],
            id='java-calls',
        ),
        pytest.param(
            {'app/s.rs': RUST},
            [{'paths': ['app/**'], 'calls': ['release']}],
            [],
            [],
            [
                ('app/s.rs', 1, 'drop', 'calls Lease::release'),
                ('app/s.rs', 2, 'Store.go', 'calls self.db.release'),
            ],
            id='rust-calls',
        ),
        pytest.param(
            {'app/S.cs': CSHARP, 'app/s.kt': KOTLIN, 'app/S.scala': SCALA, 'app/s.swift': SWIFT},
            [{'paths': ['app/**'], 'calls': ['release', 'Release']}],
            [],
            [],
            [
                ('app/S.cs', 2, 'Store.Drop', 'calls db.Release'),
                ('app/s.kt', 1, 'drop', 'calls db.release'),
                ('app/S.scala', 2, 'Store.drop', 'calls db.release'),
                ('app/s.swift', 1, 'drop', 'calls db.release'),
            ],
            id='csharp-kotlin-scala-swift-calls',
        ),
        pytest.param(
            {'app/notes.md': 'UPDATE lease', 'app/a.py': 'x = 1\n'},
            [RULE],
            [],
            [],
            [],
            id='other-files-and-no-functions',
        ),
    ),
)
def test_check(tmp_path, files, rules, entries, ignored, expected):
    rules = [{k: v for k, v in r.items() if v is not None} for r in rules]
    result = judge(make(tmp_path, rules, entries, ignored), files)
    assert result.problems == ()
    assert [(u.path, u.line, u.function, u.what) for u in result.uncovered] == expected


def test_ignored_function_that_does_not_exist(tmp_path):
    m = make(tmp_path, [RULE], [], [{'path': 'app/a.py', 'function': 'gone', 'reason': 'r'}])
    (problem,) = judge(m, {'app/a.py': PY}).problems
    assert (
        "coverage.ignored[0]: app/a.py defines no function 'gone'; fix the name or remove the item"
        in problem
    )


def test_message():
    u = watch.Uncovered(
        'examples/agent_runtime/admin.py', 12, 'force_release', 'writes agent_turns'
    )
    assert u.message() == (
        'uncovered protocol code: examples/agent_runtime/admin.py:12 force_release writes '
        'agent_turns; cover it (and model it) or ignore it with a reason'
    )


# --- through the guard, on a real repository -------------------------------------------------

FORCE_RELEASE = """

def force_release(db):
    db.execute('UPDATE lease SET owner = NULL')
"""


def run_guard(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(['guard', *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def watch_repo(repo: GitRepo, ignored: Sequence[dict] = ()) -> None:
    data = json.loads(repo.read(MANIFEST))
    data['coverage']['watch'] = [RULE]
    if ignored:
        data['coverage']['ignored'] = list(ignored)
    repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    repo.add(MANIFEST)
    repo.commit('watch the protocol code')


def test_guard_blocks_uncovered_protocol_code_then_accepts_it_ignored(covered_repo, capsys):
    watch_repo(covered_repo)
    covered_repo.write('app/lease.py', LEASE_PY + FORCE_RELEASE)
    covered_repo.add('app/lease.py')
    code, out = run_guard(capsys)
    assert code == 1, out
    assert (
        'uncovered protocol code: app/lease.py:33 force_release writes lease; cover it (and model it) '
        'or ignore it with a reason'
    ) in out
    assert 'add {"path": ..., "function": ..., "reason": ...} to coverage.ignored' in out
    # A new file under the watched paths counts too.
    covered_repo.git('reset', '-q')
    covered_repo.write('app/admin.py', FORCE_RELEASE)
    covered_repo.add('app/admin.py')
    code, out = run_guard(capsys)
    assert code == 1
    assert 'uncovered protocol code: app/admin.py:3 force_release writes lease' in out
    # Ignored with a reason: accepted.
    data = json.loads(covered_repo.read(MANIFEST))
    data['coverage']['ignored'] = [
        {
            'path': 'app/admin.py',
            'function': 'force_release',
            'reason': 'an operator tool, run only with every worker stopped',
        }
    ]
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    covered_repo.add(MANIFEST)
    assert run_guard(capsys) == (0, '')


def test_guard_checks_every_watched_file_when_the_manifest_is_staged(covered_repo, capsys):
    covered_repo.write('app/admin.py', FORCE_RELEASE)
    covered_repo.add('app/admin.py')
    covered_repo.commit('committed before any watch rule existed')
    data = json.loads(covered_repo.read(MANIFEST))
    data['coverage']['watch'] = [RULE]
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    covered_repo.add(MANIFEST)
    code, out = run_guard(capsys)
    assert code == 1
    assert 'uncovered protocol code: app/admin.py:3 force_release writes lease' in out
    assert run_guard(capsys, '--all')[0] == 1


def test_guard_ignores_unwatched_files_and_comments(covered_repo, capsys, monkeypatch):
    watch_repo(covered_repo)
    covered_repo.write('docs/admin.py', FORCE_RELEASE)  # not under app/
    covered_repo.write(
        'app/other.py', 'def unrelated():\n    # UPDATE lease, one day\n    return 1\n'
    )
    covered_repo.add('docs/admin.py', 'app/other.py')
    assert run_guard(capsys) == (0, '')


def test_coverage_command_sees_untracked_files(covered_repo, capsys):
    watch_repo(covered_repo)
    sync_coverage(covered_repo.path)
    covered_repo.add(MANIFEST, NOTES)
    covered_repo.commit('sync')
    assert cli.main(['coverage']) == 0
    covered_repo.write('app/admin.py', FORCE_RELEASE)  # not even added
    assert cli.main(['coverage']) == 1
    assert (
        'uncovered protocol code: app/admin.py:3 force_release writes lease'
        in capsys.readouterr().out
    )

"""`execlease add --library / --tools / --min-tlc` and `init --library`, with real jars built by the
JDK's `jar` tool, a local HTTP server for downloads, the real TLC 2.15 and Java: what they write
is what `verify` then runs with, and every refusal leaves every file as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from tests import libraries_support as support
from tests import needs, shared
from tests.conftest import GitRepo

pytestmark = pytest.mark.usefixtures('offline_tlc')
MANIFEST = f'{support.MODEL}/manifest.json'


@pytest.fixture(scope='module')
def lib_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return support.limits_jar(tmp_path_factory)


@pytest.fixture(scope='module')
def sources_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A jar holding the library's module in a subfolder (a sources jar), built once for the
    test run (every xdist worker's, tests/shared.py; `jar` is a JVM of its own): the servers
    below only read its bytes."""

    def build(folder: Path) -> None:
        support.build_jar(folder, {'src/Limits.tla': support.LIMITS_TLA}, 'Sources.jar')

    return shared.folder(tmp_path_factory, 'add-library-sources-jar', build) / 'Sources.jar'


@pytest.fixture
def server(git_repo: GitRepo, lib_jar: Path, sources_jar: Path, monkeypatch: pytest.MonkeyPatch):
    """Downloads on, from 127.0.0.1 only: the library jar, one holding its module in a subfolder
    (a sources jar), and the offline TLA+ tools; the default tools already in the cache."""
    monkeypatch.delenv('EXECLEASE_TLA_OFFLINE')
    monkeypatch.setenv('EXECLEASE_TLA_URL', 'http://127.0.0.1:9/unused')
    (git_repo.path / '.tmp' / 'tla').mkdir(parents=True)
    shutil.copyfile(needs.tla_jar(), git_repo.path / '.tmp' / 'tla' / 'tla2tools.jar')
    files = {
        'dl/Limits.jar': lib_jar.read_bytes(),
        'dl/Sources.jar': sources_jar.read_bytes(),
        'dl/tla2tools.jar': Path(needs.tla_jar()).read_bytes(),
    }
    yield from support.serve(files)


@pytest.fixture
def repo(git_repo: GitRepo) -> GitRepo:
    """The LCounter model with no libraries yet: it EXTENDS Steps (verification/lib) and Limits (a jar)."""
    support.write_repo(git_repo.path, [], mutations=(), findings=(), traces=(), code_mutations=())
    git_repo.write('.gitignore', '.tmp/\n')
    return git_repo


def manifest(repo: GitRepo) -> dict:
    return json.loads(repo.read(MANIFEST))


def add(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(['add', *argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_a_folder_and_a_jar_added_and_verify_runs_with_them(
    repo, server, lib_jar, capsys, tmp_path
):
    jar_url = support.url(server, 'dl/Limits.jar')
    digest = support.sha256(lib_jar)
    code, out = add(capsys, '--library', support.LIB)
    assert code == 0, out
    assert (
        'added to verification/lcounter/manifest.json: library verification/lib (folder): 1 module '
        '(Steps); the model imports Steps' in out.replace('\n', ' ')
    )
    code, out = add(capsys, '--library', jar_url, '--sha256', digest, '--name', 'Limits')
    assert code == 0, out
    # The test server is plain http: accepted, with a word (the sha256 still decides).
    assert f'execlease: warning: --library {jar_url}: a plain http: URL' in out.replace('\n', ' ')
    assert (
        f'library Limits (jar, sha256 {digest}): 1 module (Limits); the model imports Limits'
        in out.replace('\n', ' ')
    )
    assert 'the model changed: run `execlease verify`' in out
    assert manifest(repo)['libraries'] == [
        {'folder': support.LIB},
        {'url': jar_url, 'sha256': digest, 'name': 'Limits'},
    ]
    assert server.requests == ['/dl/Limits.jar']
    report = tmp_path / 'report.json'
    assert cli.main(['verify', '--quick', '--json', str(report)]) == 0, capsys.readouterr()
    job = json.loads(report.read_text())['models'][0]['jobs'][0]
    assert job['verdict']['outcome'] == 'passed' and job['verdict']['distinct'] == 8
    assert server.requests == ['/dl/Limits.jar']  # add left the verified jar in the cache


def test_a_jar_without_a_sha256_is_refused_showing_the_digest_to_check(
    repo, server, lib_jar, capsys
):
    before = repo.read(MANIFEST)
    code, out = add(capsys, '--library', support.url(server, 'dl/Limits.jar'))
    assert code == 2
    digest = support.sha256(lib_jar)
    assert f'What the url serves now has sha256 {digest}' in out.replace('\n', ' ')
    assert f'add --sha256 {digest}' in out.replace('\n', ' ')
    assert repo.read(MANIFEST) == before
    assert not (repo.path / '.tmp/tla/lib').exists() or not any(
        (repo.path / '.tmp/tla/lib').glob('*.jar')
    )


def test_the_sha256_may_be_a_url_fragment_as_pip_pins_urls(repo, server, lib_jar, capsys):
    url = support.url(server, 'dl/Limits.jar')
    code, out = add(capsys, '--library', f'{url}#sha256={support.sha256(lib_jar).upper()}')
    assert code == 0, out
    assert manifest(repo)['libraries'] == [{'url': url, 'sha256': support.sha256(lib_jar)}]


@pytest.mark.parametrize(
    ('argv', 'message'),
    (
        pytest.param(
            ['--library', 'dl/Limits.jar', '--sha256', '0' * 64],
            f'.jar has sha256 {"{digest}"}, but the sha256 given is {"0" * 64}. A jar is trusted '
            'by its sha256 alone, so this one is not used.',
            id='another-sha256',
        ),
        pytest.param(
            ['--library', 'dl/Limits.jar#sha256=' + '0' * 64, '--sha256', '1' * 64],
            'its #sha256= and --sha256',
            id='two-digests',
        ),
        pytest.param(
            ['--library', 'dl/Limits.jar', '--sha256', 'abc'],
            "expected the jar's sha256, 64 hex",
            id='short-digest',
        ),
        pytest.param(
            ['--library', 'dl/Limits.jar#md5=00'], 'the only fragment', id='other-fragment'
        ),
        pytest.param(
            ['--library', 'dl/Missing.jar', '--sha256', '0' * 64], 'HTTP 404', id='not-there'
        ),
        pytest.param(
            ['--library', 'dl/Sources.jar', '--sha256', 'SOURCES'],
            'holds no .tla module at its root',
            id='modules-in-a-subfolder',
        ),
        pytest.param(
            ['--library', 'ftp://host/Lib.jar', '--sha256', '0' * 64],
            'not an http(s) URL',
            id='ftp',
        ),
        pytest.param(['--library', 'no/such/folder'], 'no such folder', id='no-folder'),
        pytest.param(['--library', '../outside'], 'outside the repository', id='outside'),
        pytest.param(['--library', support.MODEL], 'the model folder itself', id='model-folder'),
        pytest.param(
            ['--library', support.LIB, '--sha256', '0' * 64],
            'takes no --sha256 or --name',
            id='folder-sha',
        ),
        pytest.param(['--sha256', '0' * 64], '--sha256 pins a jar', id='sha-alone'),
        pytest.param(['--library', support.LIB, '--mutation', 'm'], 'give one of', id='two-kinds'),
        pytest.param(['--min-tlc', '2'], 'MAJOR.MINOR', id='bad-min-tlc'),
        pytest.param(
            ['--min-tlc', '2.19'],
            'tools.minTlc is 2.19, but the TLA+ tools in use are TLC 2.15',
            id='min-tlc-not-met',
        ),
        pytest.param(
            ['--tools', support.LIB], 'the http(s) URL of a tla2tools.jar', id='tools-folder'
        ),
    ),
)
def test_a_refusal_is_exit_2_naming_the_option_and_nothing_is_written(
    repo, server, lib_jar, sources_jar, capsys, argv, message
):
    (repo.path / 'outside').mkdir()
    argv = [support.url(server, a) if a.startswith('dl/') else a for a in argv]
    if 'SOURCES' in argv:
        argv[argv.index('SOURCES')] = support.sha256(sources_jar)  # what the server serves
    message = message.replace('{digest}', support.sha256(lib_jar))
    before = repo.read(MANIFEST)
    code, out = add(capsys, *argv)
    assert code == 2, out
    assert message in out.replace('\n', ' '), out
    assert repo.read(MANIFEST) == before


def test_a_library_listed_already_or_refused_by_the_scan_is_not_added(repo, capsys):
    assert add(capsys, '--library', support.LIB)[0] == 0
    before = repo.read(MANIFEST)
    code, out = add(capsys, '--library', f'./{support.LIB}/')
    assert code == 2 and 'the manifest has it already, libraries[0] (verification/lib)' in out
    # A module the model reads (LCounter EXTENDS Limits) that runs a program: refused.
    repo.write(
        'verification/io/Limits.tla', '---- MODULE Limits ----\nGo == IOExec(<<"sh">>)\n====\n'
    )
    code, out = add(capsys, '--library', 'verification/io')
    assert code == 2 and 'verification/io/Limits.tla:2: IOExec (runs a program)' in out, out
    assert repo.read(MANIFEST) == before


def test_a_library_as_it_ships_is_judged_by_what_the_model_reads(repo, capsys):
    """A folder holding modules no model imports, one of which writes files (CommunityModules'
    SVG.tla), one that shadows a standard module (tlapm's FiniteSets.tla), and one the model
    reads whose own import nothing supplies (a TLAPS module that EXTENDS Functions)."""
    lib = 'verification/shipped'
    repo.write(
        f'{lib}/Limits.tla',
        '---- MODULE Limits ----\nEXTENDS Naturals, FiniteSets, Functions\n'
        'InRange(v, n) == v \\in 0..n\n====\n',
    )
    repo.write(
        f'{lib}/SVG.tla',
        '---- MODULE SVG ----\nEXTENDS IOUtils\nDraw(f) == Serialize(f, "a.svg", [])\n====\n',
    )
    repo.write(
        f'{lib}/FiniteSets.tla', '---- MODULE FiniteSets ----\nIsFiniteSet(S) == TRUE\n====\n'
    )
    repo.write(f'{lib}/Unread.tla', '---- MODULE Unread ----\nEXTENDS Missing\n====\n')
    code, out = add(capsys, '--library', lib)
    said = ' '.join(out.split())
    assert code == 0, out
    assert (
        f'library {lib} (folder): 4 modules (FiniteSets, Limits, SVG, Unread); the model '
        'imports FiniteSets, Limits' in said
    )
    assert (
        f"{lib}/FiniteSets.tla shadows TLC's standard module FiniteSets "
        '(tla2sany/StandardModules/FiniteSets.tla in tla2tools.jar)' in said
    )
    assert f'{lib}/Limits.tla imports Functions, which nothing supplies' in said
    assert 'SVG' not in said.split('imports FiniteSets, Limits')[1] and 'Missing' not in said
    assert manifest(repo)['libraries'] == [{'folder': lib}]


def test_a_library_the_model_does_not_import_is_added_and_said_so(repo, capsys):
    repo.write('verification/extra/Unused.tla', '---- MODULE Unused ----\nId(x) == x\n====\n')
    code, out = add(capsys, '--library', 'verification/extra')
    assert code == 0
    assert 'no module of verification/lcounter imports any of them yet' in out.replace('\n', ' ')


def test_the_models_own_tools_and_min_tlc_are_checked_with_their_tlc(repo, server, capsys):
    jar = Path(needs.tla_jar())
    url = support.url(server, 'dl/tla2tools.jar')
    code, out = add(capsys, '--tools', url, '--sha256', support.sha256(jar), '--min-tlc', '2.15')
    assert code == 0, out
    assert (
        f'added to verification/lcounter/manifest.json: tools {url}: sha256 {support.sha256(jar)}, TLC 2.15'
        in out.replace('\n', ' ')
    )
    assert 'tools.minTlc 2.15' in out
    assert manifest(repo)['tools'] == {'url': url, 'sha256': support.sha256(jar), 'minTlc': '2.15'}
    before = repo.read(MANIFEST)
    code, out = add(capsys, '--min-tlc', '2.19')
    assert code == 2 and '2.19' in out
    assert repo.read(MANIFEST) == before


def test_init_writes_the_libraries_it_is_given(git_repo, server, lib_jar, capsys, tmp_path):
    support.write_repo(git_repo.path, [], mutations=(), findings=(), traces=(), code_mutations=())
    (git_repo.path / MANIFEST).unlink()
    for name in ('TraceLCounter.tla', 'TraceLCounter.cfg'):
        (git_repo.path / support.MODEL / name).unlink()
    url = support.url(server, 'dl/Limits.jar')
    code = cli.main(
        [
            'init',
            '--spec',
            f'{support.MODEL}/LCounter.tla',
            '--library',
            support.LIB,
            '--library',
            f'{url}#sha256={support.sha256(lib_jar)}',
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert '  library verification/lib: 1 module (Steps); the model imports Steps' in out
    assert manifest(git_repo)['libraries'] == [
        {'folder': support.LIB},
        {'url': url, 'sha256': support.sha256(lib_jar)},
    ]
    report = tmp_path / 'report.json'
    cli.main(['verify', '--quick', '--json', str(report)])  # exit 1: no code covers the actions yet
    job = json.loads(report.read_text())['models'][0]['jobs'][0]
    assert (job['verdict']['outcome'], job['verdict']['distinct']) == ('passed', 8), (
        capsys.readouterr()
    )


def test_init_says_what_to_run_for_community_modules_and_tlaps(git_repo, capsys, monkeypatch):
    monkeypatch.setenv('COLUMNS', '60')  # the commands are never wrapped
    git_repo.write(
        'verification/raft/Raft.tla',
        '---- MODULE Raft ----\nEXTENDS Naturals, SequencesExt, '
        "FiniteSetsExt, TLAPS\nVARIABLE x\nInit == x = 0\nNext == x' = x\n====\n",
    )
    git_repo.write('verification/raft/Raft.cfg', 'INIT Init\nNEXT Next\n')
    assert cli.main(['init', '--spec', 'verification/raft/Raft.tla']) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        '  execlease add --library https://github.com/tlaplus/CommunityModules/releases/download/<release>/'
        'CommunityModules-deps.jar --name CommunityModules' in lines
    )
    assert '  execlease add --library verification/tlaps' in lines
    said = ' '.join(' '.join(lines).split())
    assert 'the spec needs FiniteSetsExt, SequencesExt, from CommunityModules' in said
    assert 'the spec needs TLAPS, from the TLA+ Proof System' in said


def test_init_with_a_manifest_already_there_prints_the_add_commands(repo, capsys):
    shutil.copyfile(repo.path / MANIFEST, repo.path / 'kept.json')
    assert (
        cli.main(['init', '--spec', f'{support.MODEL}/LCounter.tla', '--library', support.LIB]) == 0
    )
    out = capsys.readouterr().out
    assert 'left alone: verification/lcounter/manifest.json exists' in out
    assert f'  execlease add --library {support.LIB}' in out.splitlines()
    assert repo.read(MANIFEST) == repo.read('kept.json')

"""`execlease verify` on a model whose spec EXTENDS a jar library and a folder library, real TLC
2.15 and Java: every job kind (checks, mutations, findings, trace jobs, code mutations, --deep,
--simulate; with warm JVMs and without) gets the verdict and distinct-state count of a bare
`java -cp tla2tools.jar:LIB.jar tlc2.TLC` run, and no cached result survives a library change."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from tests import libraries_support as support
from tests import shared
from tests.conftest import GitRepo
from tests.verify.suite_test import shared_results

pytestmark = pytest.mark.usefixtures('offline_tlc')


@pytest.fixture(scope='module')
def lib_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return support.limits_jar(tmp_path_factory)


def libs(jar: Path) -> list[dict[str, str]]:
    return [
        {
            'name': 'Limits',
            'url': 'https://example.invalid/dl/Limits.jar',
            'sha256': support.sha256(jar),
        },
        {'folder': support.LIB},
    ]


@pytest.fixture
def model(git_repo: GitRepo, lib_jar: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """The LCounter model; the jar comes from EXECLEASE_LIBRARY_PATH (no network)."""
    monkeypatch.setenv('EXECLEASE_LIBRARY_PATH', str(lib_jar.parent))
    support.write_repo(git_repo.path, libs(lib_jar))
    return git_repo


def share_results(repo: GitRepo, factory: pytest.TempPathFactory) -> None:
    """The repository's TLC result cache made one folder these tests share (every xdist worker's,
    tests/shared.py), and only they: an entry is keyed by the job's content, libraries included,
    so the jobs of the same model and libraries run by one test are read by another. Every job
    kind's run writes its results there (with --no-cache too), which the cache's test then finds
    on its first run: what it asserts (every job cached on the second run, none after a library
    changed) holds whether that first run ran them or read them."""
    shared_results(factory, repo, 'libraries-results')


def run(tmp_path: Path, *args: str) -> tuple[int, dict]:
    report = tmp_path / 'report.json'
    code = cli.main(['verify', *args, '--json', str(report)])
    return code, json.loads(report.read_text())


def jobs(data: dict) -> dict[tuple[str, str], dict]:
    return {(j['kind'], j['name']): j for m in data['models'] for j in m['jobs']}


def bare(
    repo: GitRepo,
    factory: pytest.TempPathFactory,
    jar: Path,
    spec_text: str,
    cfg: str,
    deadlock: bool = True,
) -> tuple[int, int | None]:
    """The job run by hand in a folder of its own: the spec (as given), the cfg, the library
    folder. Run once for the test run by everything it read (tests/shared.py): the same job on
    the same bytes, asked by another test or another xdist worker, is read back."""
    library = repo.path / support.LIB
    key = (
        spec_text,
        cfg,
        deadlock,
        support.sha256(jar),
        tuple(sorted((p.name, p.read_bytes()) for p in library.rglob('*.tla'))),
    )

    def run_by_hand() -> tuple[int, int | None]:
        folder = factory.mktemp('bare')
        (folder / 'LCounter.tla').write_text(spec_text)
        (folder / 'job.cfg').write_text(cfg)
        return support.bare_tlc(folder, 'LCounter.tla', 'job.cfg', [jar], library, deadlock)

    name = hashlib.sha256(repr(key).encode()).hexdigest()[:16]
    return shared.value(factory, f'bare-tlc-{name}', run_by_hand)


@pytest.mark.parametrize('spares', ('1', '0'), ids=('warm-jvms', 'own-jvms'))
def test_every_job_kind_runs_with_the_libraries_as_bare_tlc_does(
    model, lib_jar, tmp_path, tmp_path_factory, capsys, monkeypatch, spares
):
    monkeypatch.setenv(
        'EXECLEASE_JVM_SPARE', spares
    )  # warm JVMs of a library key: tests/tlc/libraries_test.py
    share_results(model, tmp_path_factory)  # read by the cache's test below
    code, data = run(tmp_path, '--no-cache')
    out = capsys.readouterr().out
    assert code == 0, out
    found = jobs(data)
    assert {k: j['outcome'] for k, j in found.items()} == {
        ('check', 'main'): 'held',
        ('mutation', 'unbounded'): 'held',
        ('finding', 'F1'): 'held',
        ('traces', 'app'): 'held',
        ('traces', 'action-coverage'): 'held',
        ('code-mutation', 'unbounded-code'): 'held',
    }
    # The verdicts and counts of TLC run by hand with the jar on its class path.
    assert (
        bare(model, tmp_path_factory, lib_jar, support.SPEC_TLA, support.PASS_CFG)
        == (0, found['check', 'main']['verdict']['distinct'])
        == (0, 8)
    )
    mutated = support.SPEC_TLA.replace('Inc == x < N /\\', 'Inc == x <= N /\\')
    assert bare(model, tmp_path_factory, lib_jar, mutated, support.PASS_CFG) == (
        12,
        found['mutation', 'unbounded']['verdict']['distinct'],
    )
    assert found['mutation', 'unbounded']['verdict']['property'] == 'TypeOK'
    assert bare(model, tmp_path_factory, lib_jar, support.SPEC_TLA, support.FINDING_CFG) == (
        12,
        found['finding', 'F1']['verdict']['distinct'],
    )
    assert 'trace job app: 2 traces, 7 lines accepted' in found['traces', 'app']['message']
    assert 'is caught: trace job app rejects' in found['code-mutation', 'unbounded-code']['message']
    # The report names the libraries, in the table and in the JSON.
    assert (
        f'libraries: Limits (jar, sha256 {support.sha256(lib_jar)[:16]}...), verification/lib (folder)'
        in out
    )
    (m,) = data['models']
    assert m['libraries'] == [
        {
            'name': 'Limits',
            'url': 'https://example.invalid/dl/Limits.jar',
            'sha256': support.sha256(lib_jar),
        },
        {'folder': 'verification/lib'},
    ]


def test_deep_and_simulate_run_with_the_libraries(
    model, lib_jar, tmp_path, tmp_path_factory, capsys
):
    code, data = run(tmp_path, '--deep')
    out = capsys.readouterr().out
    assert code == 0, out
    deep_cfg = support.PASS_CFG.replace('N = 3', 'N = 4')
    assert (
        bare(model, tmp_path_factory, lib_jar, support.SPEC_TLA, deep_cfg)
        == (0, jobs(data)['check', 'main']['verdict']['distinct'])
        == (0, 10)
    )
    code, data = run(tmp_path, '--simulate', '--traces', '20', '--depth', '10', '--seed', '5')
    out = capsys.readouterr().out
    assert code == 0, out
    assert 'check main passed: 20 random behaviours of depth up to 10 (seed 5)' in out


def cached(data: dict) -> dict[tuple[str, str], bool]:
    """Every job's "cached" (the action coverage is computed, never cached)."""
    return {k: j['cached'] for k, j in jobs(data).items() if k != ('traces', 'action-coverage')}


def test_no_cached_result_survives_a_library_change(
    model, lib_jar, tmp_path, tmp_path_factory, monkeypatch, capsys
):
    share_results(model, tmp_path_factory)  # the first run reads what the runs above wrote
    assert run(tmp_path)[0] == 0
    code, data = run(tmp_path)
    assert code == 0 and all(cached(data).values()), cached(data)
    # An edit of a shared operator that keeps its meaning: the model is the same, the bytes are not.
    steps = model.path / support.LIB / 'Steps.tla'
    steps.write_text(support.STEPS_TLA.replace('Bump(v) == v + 1', 'Bump(v) == 1 + v'))
    code, data = run(tmp_path)
    assert code == 0 and not any(cached(data).values()), cached(data)
    # Another jar: the manifest pins its sha256.
    other = support.build_jar(
        tmp_path / 'other',
        {'Limits.tla': support.LIMITS_TLA.replace("tests' own", "tests' own, second edition")},
    )
    monkeypatch.setenv('EXECLEASE_LIBRARY_PATH', str(other.parent))
    path = model.path / support.MODEL / 'manifest.json'
    data = json.loads(path.read_text())
    data['libraries'][0]['sha256'] = support.sha256(other)
    path.write_text(json.dumps(data))
    code, data = run(tmp_path)
    assert code == 0 and not any(cached(data).values()), cached(data)
    capsys.readouterr()


def test_the_spec_scan_reads_the_library_folder(model, tmp_path, capsys):
    steps = model.path / support.LIB / 'Steps.tla'
    steps.write_text(
        support.STEPS_TLA.replace(
            'Toggle(v) == 1 - v', 'Toggle(v) == IF TLCSet("exit", TRUE) THEN 1 - v ELSE v'
        )
    )
    assert cli.main(['verify', '--quick']) == 2
    out = capsys.readouterr().out  # the model's own refusal (verify/result.py)
    assert 'verification/lib/Steps.tla:5: TLCSet' in out


def test_a_library_jar_that_cannot_be_had_refuses_the_model_naming_the_entry(
    model, tmp_path, monkeypatch, capsys
):
    monkeypatch.delenv('EXECLEASE_LIBRARY_PATH')
    assert cli.main(['verify', '--quick']) == 2
    out = capsys.readouterr().out
    assert (
        'libraries[0] (Limits): the jar is not in the cache' in out
        and 'EXECLEASE_LIBRARY_PATH' in out
    )


def test_the_jar_downloaded_from_a_local_server_runs(
    git_repo, lib_jar, tmp_path, monkeypatch, capsys
):
    monkeypatch.delenv('EXECLEASE_TLA_OFFLINE')
    monkeypatch.setenv(
        'EXECLEASE_TLA_URL', 'http://127.0.0.1:9/unused'
    )  # the TLA+ tools: from the cache below
    tools = git_repo.path / '.tmp' / 'tla'
    tools.mkdir(parents=True)
    shutil.copyfile(support.needs.tla_jar(), tools / 'tla2tools.jar')
    for srv in support.serve({'dl/Limits.jar': lib_jar.read_bytes()}):
        entries = libs(lib_jar)
        entries[0]['url'] = support.url(srv, 'dl/Limits.jar')
        support.write_repo(
            git_repo.path, entries, mutations=(), findings=(), traces=(), code_mutations=()
        )
        code, data = run(tmp_path, '--quick')
        assert code == 0, capsys.readouterr()
        assert jobs(data)['check', 'main']['verdict']['distinct'] == 8
        assert srv.requests == ['/dl/Limits.jar']


@pytest.mark.parametrize(
    ('module', 'advice'),
    (
        (
            'Limits',
            "neither the model folder, the TLA+ tools nor the model's libraries (verification/lib) hold "
            'Limits.tla. Add the library that holds '
            'Limits.tla to manifest.json: a jar, "libraries": [{"url": "https://.../Lib.jar", '
            '"sha256": "<64 hex>"}], or a folder of .tla modules in the repository',
        ),
        (
            'SequencesExt',
            'SequencesExt is a CommunityModules module: add the CommunityModules jar to "libraries" '
            'in manifest.json, "libraries": [{"name": "CommunityModules", "url": '
            '"https://github.com/tlaplus/CommunityModules/releases/download/<release>/'
            'CommunityModules-deps.jar", "sha256": "<its sha256>"}]',
        ),
        ('TLAPS', 'TLAPS is a module of the TLA+ Proof System (TLAPS): copy its .tla files'),
    ),
)
def test_a_missing_module_is_exit_2_naming_it_its_line_and_the_fix(
    git_repo, tmp_path, capsys, module, advice
):
    support.write_repo(
        git_repo.path,
        [{'folder': support.LIB}],
        mutations=(),
        findings=(),
        traces=(),
        code_mutations=(),
    )
    spec = git_repo.path / support.MODEL / 'LCounter.tla'
    spec.write_text(
        support.SPEC_TLA.replace(
            'EXTENDS Naturals, Steps, Limits', f'EXTENDS Naturals, Steps, {module}'
        ).replace('InRange(x, N)', 'x \\in 0..N')
    )
    code, data = run(tmp_path, '--quick')
    out = capsys.readouterr().out
    assert code == 2, out
    reason = jobs(data)['check', 'main']['verdict']['reason']
    assert reason.startswith(
        f'module {module} cannot be found: LCounter.tla:2 extends it '
        f'(EXTENDS Naturals, Steps, {module}); '
    )
    assert advice in reason
    assert 'Cannot find source file' not in reason
    assert f'module {module} cannot be found' in out


def test_a_module_a_library_module_needs_is_named_in_that_module(
    git_repo, tmp_path, capsys, lib_jar, monkeypatch
):
    monkeypatch.setenv('EXECLEASE_LIBRARY_PATH', str(lib_jar.parent))
    support.write_repo(
        git_repo.path, libs(lib_jar), mutations=(), findings=(), traces=(), code_mutations=()
    )
    (git_repo.path / support.LIB / 'Steps.tla').write_text(
        support.STEPS_TLA.replace('EXTENDS Naturals', 'EXTENDS Naturals, Gone')
    )
    code, data = run(tmp_path, '--quick')
    assert code == 2
    reason = jobs(data)['check', 'main']['verdict']['reason']
    assert reason.startswith(
        'module Gone cannot be found: verification/lib/Steps.tla:3 extends it '
        '(EXTENDS Naturals, Gone); '
    )
    assert (
        "nor the model's libraries (Limits, verification/lib) hold Gone.tla. Add the library"
        in reason
    )
    capsys.readouterr()


def test_verify_rev_takes_the_jar_from_the_repository_cache(
    model, lib_jar, tmp_path, monkeypatch, capsys
):
    """A commit checked out alone has no cache of its own: offline, the repository's serves."""
    monkeypatch.delenv('EXECLEASE_LIBRARY_PATH')
    cache = model.path / '.tmp' / 'tla' / 'lib'
    cache.mkdir(parents=True)
    shutil.copyfile(lib_jar, cache / f'{support.sha256(lib_jar)}.jar')
    model.write('.gitignore', '.tmp/\n')
    model.add('.')
    model.commit('the model and its libraries')
    code = cli.main(['verify', '--rev', 'HEAD', '--quick'])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    assert 'libraries: Limits (jar' in out.out


SVG_TLA = '---- MODULE SVG ----\nEXTENDS IOUtils\nDraw(f) == Serialize(f, "a.svg", [format |-> "TXT"])\n====\n'


def test_a_library_as_it_ships_runs_for_what_the_model_reads(model, lib_jar, tmp_path, capsys):
    """The folder holds a module no model imports that writes files (as CommunityModules' SVG.tla
    does) and TLC's own Naturals.tla (as tlapm's library does): the first is never judged, the
    second is a note naming both, and the verdict is TLC's."""
    import zipfile

    from tests import needs

    with zipfile.ZipFile(needs.tla_jar()) as z:
        naturals = z.read('tla2sany/StandardModules/Naturals.tla')
    model.write(f'{support.LIB}/SVG.tla', SVG_TLA)
    model.write(f'{support.LIB}/Naturals.tla', naturals)
    code, data = run(tmp_path, '--no-cache', '--quick')
    out = capsys.readouterr().out
    found = jobs(data)
    assert (
        found['check', 'main']['outcome'] == 'held'
        and found['check', 'main']['verdict']['distinct'] == 8
    ), out
    (m,) = data['models']
    assert any(
        note.startswith(
            f"{support.LIB}/Naturals.tla shadows TLC's standard module Naturals "
            '(tla2sany/StandardModules/Naturals.tla in tla2tools.jar)'
        )
        for note in m['notes']
    ), m['notes']
    assert 'SVG' not in json.dumps(m['could_not_run'])


@pytest.mark.parametrize(
    ('modules', 'refused'),
    (
        (
            {
                'Limits.tla': support.LIMITS_TLA.replace(
                    'InRange(v, n) ==', 'Run == IOExec(<<"sh">>)\nInRange(v, n) =='
                )
            },
            'jar:Limits!/Limits.tla:4: IOExec (runs a program)',
        ),
        ({'Limits.tla': support.LIMITS_TLA, 'SVG.tla': SVG_TLA}, None),
    ),
    ids=('read-module-refused', 'unread-module-never-judged'),
)
def test_a_jars_modules_follow_the_same_rule(
    git_repo, tmp_path, capsys, monkeypatch, modules, refused
):
    jar = support.build_jar(tmp_path / 'jar', modules)
    monkeypatch.setenv('EXECLEASE_LIBRARY_PATH', str(jar.parent))
    support.write_repo(
        git_repo.path, libs(jar), mutations=(), findings=(), traces=(), code_mutations=()
    )
    code, data = run(tmp_path, '--no-cache', '--quick')
    captured = capsys.readouterr()
    out = captured.out + captured.err
    if refused is None:
        assert jobs(data)['check', 'main']['outcome'] == 'held', out
    else:
        assert code == 2 and refused in ' '.join(out.split()), out

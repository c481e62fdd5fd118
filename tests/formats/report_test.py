"""--format json|sarif|github|junit on verify, coverage and guard: every format produced from
real runs (real TLC), SARIF validated against the official SARIF 2.1.0 schema, JSON against the
shipped report schema, JUnit parsed with xml.etree, annotations parsed line by line."""

from __future__ import annotations

import json
import re
import subprocess
from importlib import resources
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest

from execlease_hook.cli import main as cli
from tests.conftest import GitRepo, git_env, offline_settings
from tests.verify.suite_test import (
    CAUGHT,
    EXECLEASE,
    F1,
    F2,
    MAIN,
    MODEL,
    NOT_CAUGHT,
    shared_results,
    write_model,
)

SARIF_SCHEMA = json.loads(
    (Path(__file__).parents[1] / 'data' / 'sarif-schema-2.1.0.json').read_text()
)
REPORT_SCHEMA = json.loads(
    resources.files('execlease_hook').joinpath('schemas/report.schema.json').read_text()
)
ANNOTATION = re.compile(r'^::(error|notice)( [a-zA-Z]+=[^,:]*(,[a-zA-Z]+=[^,:]*)*)?::.*$')


def validate_sarif(data):
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(data)


def validate_report(data):
    jsonschema.Draft7Validator(REPORT_SCHEMA).validate(data)


def run(
    repo_path: Path, *args: str, settings: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The console script in `repo_path`; `settings`: EXECLEASE_* for the child (a module
    fixture's `offline_settings`; a test with `offline_tlc` has them in its environment)."""
    env = git_env()
    env['EXECLEASE_TLA_OFFLINE'] = '1'
    env.update(settings or {})
    return subprocess.run(
        (str(EXECLEASE), *args), cwd=repo_path, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope='module')
def failing_model(tmp_path_factory) -> GitRepo:
    """A committed model where a check fails, a mutation escapes, a finding is gone, another
    still reproduces, and both covered entries were never synced: exit 1."""
    from tests import needs

    needs.java()
    needs.tla_jar()
    repo = GitRepo(tmp_path_factory.mktemp('formats') / 'repo')
    repo.path.mkdir()
    repo.git('init', '-q', '-b', 'main')
    write_model(
        repo,
        checks=(MAIN, {'name': 'bad', 'config': 'invariant.cfg'}),
        mutations=(CAUGHT, NOT_CAUGHT),
        findings=(F1, F2),
    )
    repo.add('.')
    repo.commit('model')
    shared_results(tmp_path_factory, repo)  # what these tests read is the report, not TLC's run
    return repo


@pytest.fixture(scope='module')
def reports(
    failing_model: GitRepo, jvm_cache: Path, tools_jar: Path
) -> dict[str, subprocess.CompletedProcess[str]]:
    settings = offline_settings(jvm_cache, tools_jar)
    return {
        fmt: run(failing_model.path, 'verify', '--format', fmt, settings=settings)
        for fmt in ('json', 'sarif', 'github', 'junit')
    }


@pytest.mark.parametrize('fmt', ('json', 'sarif', 'github', 'junit'))
def test_stdout_holds_only_the_format_and_the_human_text_goes_to_stderr(reports, fmt):
    proc = reports[fmt]
    assert proc.returncode == 1, proc.stderr
    assert (
        'FAILED (did not hold)' in proc.stderr
        and 'DID NOT HOLD: mutation not-caught' in proc.stderr
    )
    assert 'DID NOT HOLD' not in proc.stdout.replace('did not hold', '')


def test_json_follows_the_shipped_schema(reports, failing_model):
    data = json.loads(reports['json'].stdout)
    validate_report(data)
    assert data['schemaVersion'] == 1 and data['command'] == 'verify'
    assert data['commit'] == failing_model.head() and data['exit_code'] == 1
    (model,) = data['models']
    assert model['manifest'] == f'{MODEL}/manifest.json'  # repo-relative, not absolute
    jobs = {(j['kind'], j['name']): j for j in model['jobs']}
    assert jobs[('mutation', 'not-caught')]['rule'] == 'mutation-escaped'
    assert jobs[('finding', 'F2')]['rule'] == 'finding-gone'
    steps = jobs[('check', 'bad')]['counterexample']
    assert steps[0]['action'] == 'Initial predicate' and len(steps) >= 3
    inc = next(s for s in steps if s['action'].startswith('Inc'))
    assert inc['spec']['path'] == f'{MODEL}/Counter.tla' and inc['spec']['startLine'] == 13
    assert inc['code'] == [
        {'entry': 'inc', 'path': 'app/counter.py', 'startLine': 1, 'endLine': 4, 'role': 'code'}
    ]
    assert inc['changed'] == {'x': '1'} or 'x' in inc['changed']
    items = {(i['kind'], i['name']): i for i in data['items']}
    assert items[('coverage', 'inc')]['rule'] == 'covered-code-never-synced'
    assert items[('check', 'main')]['outcome'] == 'held'


def test_sarif_is_valid_sarif_2_1_0_located_in_spec_and_code(reports):
    data = json.loads(reports['sarif'].stdout)
    validate_sarif(data)
    (sarif_run,) = data['runs']
    results = {
        (r['properties']['jobKind'], r['properties']['name']): r for r in sarif_run['results']
    }
    assert set(results) == {
        ('check', 'bad'),
        ('mutation', 'not-caught'),
        ('finding', 'F2'),
        ('coverage', 'inc'),
        ('coverage', 'flip'),
    }

    def where(result):
        loc = result['locations'][0]['physicalLocation']
        return loc['artifactLocation']['uri'], loc.get('region', {}).get('startLine')

    assert where(results[('mutation', 'not-caught')]) == (
        f'{MODEL}/Counter.tla',
        14,
    )  # the mutated line
    assert where(results[('check', 'bad')]) == (f'{MODEL}/Counter.tla', 25)  # XBelowTwo ==
    related = [
        r['physicalLocation']['artifactLocation']['uri']
        for r in results[('check', 'bad')]['relatedLocations']
    ]
    assert 'app/counter.py' in related  # the code of the last step's action
    assert where(results[('coverage', 'flip')]) == ('app/counter.py', 7)
    assert sarif_run['invocations'][0]['exitCode'] == 1
    assert {r['id'] for r in sarif_run['tool']['driver']['rules']} == {
        r['ruleId'] for r in sarif_run['results']
    }


def test_github_annotations(reports):
    lines = reports['github'].stdout.splitlines()
    assert all(ANNOTATION.match(line) for line in lines), lines
    assert any(line.startswith(f'::error file={MODEL}/Counter.tla,line=14,') for line in lines)
    assert any(line.startswith('::error file=app/counter.py,line=1,endLine=4,') for line in lines)
    assert lines[-1] == '::error title=execlease verify::FAILED (did not hold)'
    assert len(lines) == 6  # five things did not hold, then the verdict


def test_junit_one_testcase_per_job(reports):
    root = ET.fromstring(reports['junit'].stdout)
    (suite,) = root.findall('testsuite')
    cases = {(c.get('classname'), c.get('name')): c for c in suite.findall('testcase')}
    for kind, name in (
        ('check', 'main'),
        ('check', 'bad'),
        ('mutation', 'caught'),
        ('mutation', 'not-caught'),
        ('finding', 'F1'),
        ('finding', 'F2'),
        ('coverage', 'inc'),
        ('coverage', 'flip'),
    ):
        assert (f'{MODEL}.{kind}', name) in cases
    failed = {name for (_, name), c in cases.items() if c.find('failure') is not None}
    assert failed == {'bad', 'not-caught', 'F2', 'inc', 'flip'}
    assert suite.get('failures') == '5' and suite.get('errors') == '0'
    assert suite.get('tests') == str(len(cases)) == root.get('tests')
    assert float(cases[(f'{MODEL}.check', 'main')].get('time', '')) > 0


@pytest.mark.parametrize('fmt', ('json', 'sarif', 'github', 'junit'))
def test_a_run_that_could_not_run_leaves_no_earlier_pass(failing_model, tmp_path, fmt):
    out = tmp_path / f'report.{fmt}'
    out.write_text('left by an earlier passing run')
    proc = run(
        failing_model.path,
        'verify',
        '--model',
        'verification/none',
        '--format',
        fmt,
        '--output',
        str(out),
    )
    assert proc.returncode == 2
    text = out.read_text()
    if fmt == 'json':
        data = json.loads(text)
        validate_report(data)
        assert data['exit_code'] == 2 and 'verification/none' in data['error']
    elif fmt == 'sarif':
        data = json.loads(text)
        validate_sarif(data)
        assert data['runs'][0]['invocations'][0]['executionSuccessful'] is False
    elif fmt == 'junit':
        assert ET.fromstring(text).find('testsuite/testcase/error') is not None
    else:
        assert '::error title=execlease verify::COULD NOT RUN' in text


def test_a_tlc_parse_error_is_structured(offline_tlc, git_repo, tmp_path):
    path = write_model(git_repo, entries=())
    spec = path.parent / 'Counter.tla'
    spec.write_text(spec.read_text().replace('Inc == x < N', 'Inc == x < Undefined'))
    out = tmp_path / 'r.json'
    assert cli.main(['verify', '--quick', '--format', 'json', '--output', str(out)]) == 2
    data = json.loads(out.read_text())
    validate_report(data)
    (job,) = data['models'][0]['jobs']
    assert job['error']['category'] == 'parse'
    assert {'path': f'{MODEL}/Counter.tla', 'startLine': 13} in [
        {k: loc[k] for k in ('path', 'startLine')} for loc in job['error']['locations']
    ]


def test_json_synonym_and_a_second_format_in_one_run(
    offline_tlc, git_repo, tmp_path, capsys, tmp_path_factory
):
    write_model(git_repo, entries=())
    # What this test reads is the report of a pass, not TLC's run: the check `main` is the
    # failing model's (`reports`), read from the run's shared results once that ran.
    shared_results(tmp_path_factory, git_repo)
    as_json, as_junit = tmp_path / 'r.json', tmp_path / 'r.xml'
    assert (
        cli.main(
            [
                'verify',
                '--quick',
                '--json',
                str(as_json),
                '--format',
                'junit',
                '--output',
                str(as_junit),
            ]
        )
        == 0
    )
    validate_report(json.loads(as_json.read_text()))
    assert ET.fromstring(as_junit.read_text()).get('failures') == '0'
    assert 'PASSED' in capsys.readouterr().out  # files only: the human text stays


@pytest.mark.parametrize('fmt', ('json', 'sarif', 'github', 'junit'))
def test_coverage_formats(covered_repo, capsys, fmt):
    text = covered_repo.read('app/lease.py').replace('expires_at < ?', 'expires_at <= ?')
    covered_repo.write('app/lease.py', text)
    assert cli.main(['coverage', '--format', fmt]) == 1
    captured = capsys.readouterr()
    assert 'claim-lease' in captured.err  # the listing, on stderr
    out = captured.out
    if fmt == 'json':
        data = json.loads(out)
        validate_report(data)
        (model,) = data['models']
        assert [e['status'] for e in model['coverage']] == ['changed', 'unchanged', 'unchanged']
        assert model['exit_code'] == 1  # the code moved, the model did not
        assert [i['outcome'] for i in data['items'] if i['kind'] == 'model'] == ['held']
    elif fmt == 'sarif':
        data = json.loads(out)
        validate_sarif(data)
        (result,) = data['runs'][0]['results']
        assert result['ruleId'] == 'covered-code-changed'
        assert result['locations'][0]['physicalLocation']['region']['startLine'] == 4
    elif fmt == 'github':
        assert out.splitlines()[0].startswith('::error file=app/lease.py,line=4,endLine=11,')
    else:
        root = ET.fromstring(out)
        assert root.get('tests') == '4' and root.get('failures') == '1'


@pytest.mark.parametrize('fmt', ('json', 'sarif', 'github', 'junit'))
def test_guard_formats(covered_repo, capsys, fmt):
    text = covered_repo.read('app/lease.py').replace('expires_at < ?', 'expires_at <= ?')
    covered_repo.write('app/lease.py', text)
    covered_repo.add('app/lease.py')
    assert cli.main(['guard', '--format', fmt]) == 1
    captured = capsys.readouterr()
    assert 'the commit is blocked' in captured.err
    out = captured.out
    if fmt == 'json':
        data = json.loads(out)
        validate_report(data)
        assert data['command'] == 'guard' and data['commit'] == covered_repo.head()
        blocked = [i for i in data['items'] if i['outcome'] != 'held']
        assert [(i['name'], i['rule']) for i in blocked] == [
            ('claim-lease', 'covered-code-changed')
        ]
        assert "-        'WHERE owner IS NULL OR expires_at < ?'," in blocked[0]['message']
    elif fmt == 'sarif':
        data = json.loads(out)
        validate_sarif(data)
        assert [r['ruleId'] for r in data['runs'][0]['results']] == ['covered-code-changed']
    elif fmt == 'github':
        first = out.splitlines()[0]
        assert ANNOTATION.match(first) and first.startswith('::error file=app/lease.py,line=4,')
        assert '%0A' in first  # the diff, on one workflow-command line
    else:
        assert ET.fromstring(out).find('testsuite/testcase/failure') is not None


def test_guard_with_nothing_staged_reports_a_pass(covered_repo, capsys):
    assert cli.main(['guard', '--format', 'sarif']) == 0
    data = json.loads(capsys.readouterr().out)
    validate_sarif(data)
    assert data['runs'][0]['results'] == []


def test_sarif_names_the_tla_tools_and_the_libraries_that_ran():
    from execlease_hook.formats import sarif
    from execlease_hook.formats.report import Report

    tools = {
        'jar': '.tmp/tla/tla2tools.jar',
        'sha256': 'a' * 64,
        'source': 'cache',
        'verified': True,
        'tlc_version': 'TLC 2.15 (rev d5b5a7f)',
    }
    own = {**tools, 'sha256': 'b' * 64, 'source': 'download', 'tlc_version': 'TLC 2.19'}
    jar = {'name': 'CommunityModules', 'url': 'https://example.com/CM.jar', 'sha256': 'c' * 64}
    details = {
        'tools': tools,
        'models': [
            {
                'manifest': 'verification/a/manifest.json',
                'libraries': [jar, {'folder': 'verification/lib'}],
            },
            {'manifest': 'verification/b/manifest.json', 'tools': own, 'libraries': [jar]},
        ],
    }
    data = json.loads(sarif.render(Report('verify', 0, None, details=details)))
    validate_sarif(data)
    assert data['runs'][0]['tool']['extensions'] == [
        {
            'name': 'TLA+ tools',
            'version': 'TLC 2.15 (rev d5b5a7f)',
            'properties': {'sha256': 'a' * 64, 'source': 'cache', 'verified': True},
        },
        {
            'name': 'TLA+ tools',
            'version': 'TLC 2.19',
            'properties': {'sha256': 'b' * 64, 'source': 'download', 'verified': True},
        },
        {
            'name': 'CommunityModules',
            'downloadUri': 'https://example.com/CM.jar',
            'properties': {'library': 'jar', 'sha256': 'c' * 64},
        },
        {'name': 'verification/lib', 'properties': {'library': 'folder'}},
    ]

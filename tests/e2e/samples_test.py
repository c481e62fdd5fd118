"""The docs' "real output" blocks against what the tool prints today.

- A block marked `<!-- sample: NAME -->` on the line before its fence equals what recipe NAME
  below prints: examples/ and verification/ as this repository tracks them, committed in a new
  git repository; the edit the prose describes; the real `execlease` at 80 columns, on the real
  git and the real TLC; the lines the prose shows. A recipe selects lines, never rewrites them,
  but for a temporary folder's random name (the prose shows the placeholder).
- Every fence without a language after a paragraph saying "real output", in README.md and docs/,
  is marked, and every marker names a recipe: a new sample cannot go untested.

After a change of what the tool prints or of the code and spec lines it cites,
`python tests/e2e/samples_test.py --write` regenerates every marked block.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: `--write`
    sys.path.insert(0, str(ROOT))

from tests import needs, shared  # noqa: E402 (after sys.path above, for the script)
from tests.conftest import GitRepo, git_env, offline_settings  # noqa: E402

MODEL = 'verification/execution-lease'
MANIFEST = f'{MODEL}/manifest.json'
SPEC = f'{MODEL}/ExecutionLease.tla'
LEASE = 'examples/agent_runtime/lease.py'
EXECLEASE = Path(sys.executable).parent / 'execlease'

MARKED = re.compile(
    r'^<!-- sample: (?P<name>[\w-]+) -->\n```\n(?P<body>.*?)^```$', re.MULTILINE | re.DOTALL
)
MARKER_LINE = re.compile(r'<!-- sample: [\w-]+ -->$')
REAL_OUTPUT = re.compile(r'real\s+output', re.IGNORECASE)


# --- the repository a recipe starts from -----------------------------------------------------


def shipped(into: Path) -> Path:
    """examples/ and verification/ as tracked here (working tree content), committed in a new
    repository at `into`. Read only: a recipe edits its own copy (`copy`)."""
    listed = subprocess.run(
        ('git', 'ls-files', '-z', '--', 'examples', 'verification'),
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for rel in filter(None, listed.split('\0')):
        if (ROOT / rel).is_file():
            (into / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, into / rel)
    repo = GitRepo(into)
    repo.git('init', '-q', '-b', 'main')
    repo.git('add', '.')
    repo.commit('the shipped model and its code')
    return into


def copy(base: Path, scratch: Path) -> GitRepo:
    shutil.copytree(base, scratch, symlinks=True)
    return GitRepo(scratch)


def edit(repo: GitRepo, rel: str, old: str, new: str) -> None:
    text = repo.read(rel)
    assert text.count(old) == 1, f'{rel}: {old!r} is not there exactly once'
    repo.write(rel, text.replace(old, new))


def edit_manifest(repo: GitRepo, change: Callable[[dict], None]) -> None:
    data = json.loads(repo.read(MANIFEST))
    change(data)
    repo.write(MANIFEST, json.dumps(data, indent=2, ensure_ascii=False) + '\n')


# The session's tools jar and JVM cache (`offline_settings`), while `outputs` runs the recipes:
# in a copy of their own each would compile the warm-JVM helper and dump an archive again. Empty
# when run as a script (`--write`): each copy makes its own.
SESSION: dict[str, str] = {}


def execlease(repo: GitRepo, *args: str, code: int) -> str:
    """The console script's stdout, at 80 columns, offline TLC (as the `offline_tlc` fixture
    sets it: nothing EXECLEASE_* from outside); its exit code must be `code`."""
    env = {k: v for k, v in git_env().items() if not k.startswith('EXECLEASE_')}
    env.update(
        {
            'COLUMNS': '80',
            'EXECLEASE_TLA_OFFLINE': '1',
            'EXECLEASE_JAVA': needs.java(),
            **SESSION,
        }
    )
    proc = subprocess.run(
        (str(EXECLEASE), *args),
        cwd=repo.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert proc.returncode == code, (
        f'execlease {" ".join(args)}: exit {proc.returncode}, not {code}\n{proc.stdout}\n{proc.stderr}'
    )
    return proc.stdout


def extent(lines: list[str], first: int) -> int:
    """Where the item at `first` ends: the first line after it not indented deeper."""
    indent = len(lines[first]) - len(lines[first].lstrip(' '))
    end = first + 1
    while end < len(lines) and len(lines[end]) - len(lines[end].lstrip(' ')) > indent:
        end += 1
    return end


def item(out: str, start: str) -> list[str]:
    """The one line starting with `start` and the lines under it (indented deeper)."""
    lines = out.splitlines()
    found = [i for i, line in enumerate(lines) if line.startswith(start)]
    assert len(found) == 1, f'{len(found)} lines start with {start!r}:\n{out}'
    return lines[found[0] : extent(lines, found[0])]


def block(lines: list[str]) -> str:
    return '\n'.join(lines) + '\n'


# --- one recipe per sample: (the shipped repository, a scratch folder) -> the block ----------

Recipe = Callable[[Path, Path], str]
RECIPES: dict[str, Recipe] = {}


def recipe(name: str) -> Callable[[Recipe], Recipe]:
    def register(fn: Recipe) -> Recipe:
        RECIPES[name] = fn
        return fn

    return register


@recipe('guard-blocked')
def _guard_blocked(base: Path, scratch: Path) -> str:
    """README.md: the claim's WHERE clause tightened and staged; the whole message."""
    repo = copy(base, scratch)
    edit(repo, LEASE, 'OR lease_expires_at <= {NOW})', 'OR lease_expires_at < {NOW})')
    repo.add(LEASE)
    return execlease(repo, 'guard', code=1)


@recipe('model-changed')
def _model_changed(base: Path, scratch: Path) -> str:
    """docs/concepts.md: `gen < MaxGen` became `gen <= MaxGen` in Claim, staged; the model's
    message."""
    repo = copy(base, scratch)
    edit(repo, SPEC, '/\\ gen < MaxGen ', '/\\ gen <= MaxGen')
    repo.add(SPEC)
    return block(item(execlease(repo, 'guard', code=1), f'model {MODEL}:'))


@recipe('action-not-abstract')
def _action_not_abstract(base: Path, scratch: Path) -> str:
    """docs/concepts.md: Expire taken out of `coverage.abstract`, staged; its message."""
    repo = copy(base, scratch)
    edit_manifest(
        repo,
        lambda data: data['coverage'].update(
            abstract=[a for a in data['coverage']['abstract'] if a['action'] != 'Expire']
        ),
    )
    repo.add(MANIFEST)
    return block(item(execlease(repo, 'guard', code=1), 'action Expire '))


@recipe('action-renamed')
def _action_renamed(base: Path, scratch: Path) -> str:
    """docs/concepts.md: Claim renamed to ClaimLease in the spec only, staged; the message on
    the entry that names it (exit 2)."""
    repo = copy(base, scratch)
    edit(repo, SPEC, 'Claim(r) ==', 'ClaimLease(r) ==')
    edit(repo, SPEC, '\\/ Claim(r)', '\\/ ClaimLease(r)')
    repo.add(SPEC)
    return block(
        item(execlease(repo, 'guard', code=2), f'{MANIFEST}: coverage.entries[0] (claim):')
    )


ADMIN = 'examples/agent_runtime/admin.py'
ADMIN_HEAD = '''\
"""Operator tools for stuck turns."""
from __future__ import annotations

import sqlite3

from examples.agent_runtime.schema import immediate


'''


@recipe('uncovered-protocol-code')
def _uncovered_protocol_code(base: Path, scratch: Path) -> str:
    """docs/how-to/cover-code.md: a new admin.py, its imports and then the function the page
    shows just above the sample, staged; the whole message."""
    page = (ROOT / 'docs/how-to/cover-code.md').read_text(encoding='utf-8')
    before = page[: page.index('<!-- sample: uncovered-protocol-code -->')]
    function = re.findall(r'^```python\n(.*?)^```$', before, flags=re.MULTILINE | re.DOTALL)[-1]
    repo = copy(base, scratch)
    repo.write(ADMIN, ADMIN_HEAD + function)
    repo.add(ADMIN)
    return execlease(repo, 'guard', code=1)


@recipe('coverage-list')
def _coverage_list(base: Path, scratch: Path) -> str:
    """docs/how-to/cover-code.md: `execlease coverage` on the repository as it is."""
    return execlease(copy(base, scratch), 'coverage', code=0)


@recipe('counterexample-steps')
def _counterexample_steps(base: Path, scratch: Path) -> str:
    """docs/how-to/read-a-failure.md: findings/F2.cfg as the only check, `verify --quick`;
    steps 2 to 5 of its counterexample, without the history variable lastTx."""
    repo = copy(base, scratch)
    edit_manifest(
        repo, lambda data: data.update(checks=[{'name': 'F2', 'config': 'findings/F2.cfg'}])
    )
    out = execlease(repo, 'verify', '--quick', code=1)
    assert '  counterexample (invariant EffectAtMostOnce), 8 steps:' in out, out
    lines = out.splitlines()
    steps = lines[
        lines.index('  2. Claim') : next(
            i for i, line in enumerate(lines) if line.startswith('  6. ')
        )
    ]
    history = [i for i, line in enumerate(steps) if line.startswith('       lastTx = ')]
    assert history, 'no lastTx to leave out: change the prose of read-a-failure.md'
    for i in reversed(history):
        del steps[i : extent(steps, i)]
    return block(steps)


def _scenarios_only(data: dict) -> None:
    """The shipped model reduced to its trace job `scenarios` (and what covers the code)."""
    for key in ('checks', 'mutations', 'findings', 'codeMutations'):
        data.pop(key, None)
    data['traces'] = [t for t in data['traces'] if t['name'] == 'scenarios']


def _renew_revives_expired(data: dict) -> dict:
    (mutation,) = [c for c in data['codeMutations'] if c['name'] == 'renew-revives-expired']
    return mutation


@recipe('code-mutation-caught')
def _code_mutation_caught(base: Path, scratch: Path) -> str:
    """docs/how-to/trace-validation.md: the model reduced to the trace job `scenarios` and the
    code mutation renew-revives-expired, `verify -v`; the mutation's line. The run is told to
    run that code mutation only (`--only`): the line is the mutation's own run's, the same with
    the trace job `scenarios` run beside it or not, and that run (its command and a TLC job) and
    the warm JVM it starts cost 2 CPU-s more than the sample (measured: 1.3-1.6 CPU-s with
    `--only`, 3.0-3.9 without)."""
    repo = copy(base, scratch)

    def change(data: dict) -> None:
        mutation = _renew_revives_expired(data)
        _scenarios_only(data)
        data['codeMutations'] = [mutation]

    edit_manifest(repo, change)
    return block(
        item(
            execlease(
                repo, 'verify', '-v', '--only', 'code-mutation:renew-revives-expired', code=0
            ),
            '  code mutation renew-revives-expired ',
        )
    )


@recipe('trace-rejected')
def _trace_rejected(base: Path, scratch: Path) -> str:
    """docs/how-to/trace-validation.md: renew-revives-expired applied to the working tree by
    hand, the model reduced to the trace job `scenarios`, `verify`; the trace job's failure,
    the random name of the traces' temporary folder replaced by XXXXXXXX."""
    repo = copy(base, scratch)
    mutation = _renew_revives_expired(json.loads(repo.read(MANIFEST)))
    edit(repo, mutation['path'], mutation['replace']['from'], mutation['replace']['to'])
    edit_manifest(repo, _scenarios_only)
    lines = item(execlease(repo, 'verify', code=1), 'DID NOT HOLD: trace job scenarios:')
    return re.sub(
        r'\S*/execlease-traces-scenarios-\w+',
        '/tmp/execlease-traces-scenarios-XXXXXXXX',
        block(lines),
    )


def produce(base: Path, scratch: Path) -> dict[str, str | BaseException]:
    """Every recipe at once (most of the time is TLC's, in child processes), each in its own
    copy of `base`; a recipe that failed gives its exception."""
    with ThreadPoolExecutor(max_workers=len(RECIPES)) as pool:
        futures = {name: pool.submit(fn, base, scratch / name) for name, fn in RECIPES.items()}
    return {name: future.exception() or future.result() for name, future in futures.items()}


# --- the pages --------------------------------------------------------------------------------


def pages() -> list[Path]:
    return [ROOT / 'README.md', *sorted((ROOT / 'docs').rglob('*.md'))]


def marked() -> list[tuple[Path, str, str]]:
    """(page, sample name, block text) of every marked block."""
    return [
        (page, m['name'], m['body'])
        for page in pages()
        for m in MARKED.finditer(page.read_text(encoding='utf-8'))
    ]


def unmarked(text: str) -> list[int]:
    """The line numbers of the fences without a language that follow a paragraph saying "real
    output" (before the next paragraph) and have no sample marker on the line before."""
    lines = text.splitlines()
    found: list[int] = []
    paragraph: list[str] = []
    real = False
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if paragraph and (
            not stripped or stripped.startswith('```') or MARKER_LINE.match(stripped)
        ):
            real = bool(REAL_OUTPUT.search(' '.join(paragraph)))
            paragraph = []
        if stripped.startswith('```'):
            close = next(
                (j for j in range(i + 1, len(lines)) if lines[j].strip().startswith('```')),
                len(lines),
            )
            if real and stripped == '```' and not (i and MARKER_LINE.match(lines[i - 1].strip())):
                found.append(i + 1)
            i = close + 1
            continue
        if stripped and not MARKER_LINE.match(stripped):
            paragraph.append(stripped)
        i += 1
    return found


@pytest.fixture(scope='module')
def outputs(
    tmp_path_factory: pytest.TempPathFactory, jvm_cache: Path, tools_jar: Path
) -> dict[str, str | BaseException]:
    """Every recipe's block, made once for the test run, every xdist worker's (tests/shared.py:
    a module split between the workers made them twice), from one shipped copy, the recipes
    side by side. The children get `offline_tlc`'s settings from `execlease` above: that fixture
    is per test."""
    needs.java()
    needs.tla_jar()

    def make() -> dict[str, str | BaseException]:
        base = shipped(tmp_path_factory.mktemp('shipped'))
        with pytest.MonkeyPatch.context() as mp:
            for name, value in offline_settings(jvm_cache, tools_jar).items():
                mp.setitem(SESSION, name, value)
            return produce(base, tmp_path_factory.mktemp('samples'))

    return shared.value(tmp_path_factory, 'samples-outputs', make)


@pytest.mark.timeout(110)
@pytest.mark.parametrize('name', sorted(RECIPES))
def test_the_sample_is_what_the_tool_prints(name: str, outputs: dict[str, str | BaseException]):
    made = outputs[name]
    if isinstance(made, BaseException):
        raise made
    found = [(page, body) for page, sample, body in marked() if sample == name]
    assert len(found) == 1, f'{len(found)} blocks are marked <!-- sample: {name} -->'
    page, body = found[0]
    assert body == made, (
        f'{page.relative_to(ROOT)}: sample {name} is stale: run `python tests/e2e/samples_test.py --write`'
    )


def test_every_real_output_block_is_a_sample_and_every_sample_has_a_recipe():
    missing = [
        f'{page.relative_to(ROOT)}:{line}'
        for page in pages()
        for line in unmarked(page.read_text(encoding='utf-8'))
    ]
    assert missing == [], 'mark each with <!-- sample: NAME --> and give NAME a recipe here'
    names = [name for _, name, _ in marked()]
    assert sorted(names) == sorted(RECIPES), 'each marker names one recipe, each recipe one marker'
    # A marker not directly above a fence without a language is a marker no test reads.
    written = sum(page.read_text(encoding='utf-8').count('<!-- sample: ') for page in pages())
    assert written == len(names)


@pytest.mark.parametrize(
    ('text', 'lines'),
    (
        ('Real output:\n\n```\nout\n```\n', [3]),
        ('It prints (real\noutput, 80 columns):\n\n```python\nin\n```\n\n```\nout\n```\n', [8]),
        ('Real output:\n\n<!-- sample: x -->\n```\nout\n```\n', []),
        ('Real output:\n\n```\nout\n```\n\nThen:\n\n```\nnot a sample\n```\n', [3]),
        ('Output:\n\n```\nout\n```\n', []),
    ),
    ids=('unmarked', 'wrapped-after-an-input', 'marked', 'next-paragraph', 'not-real-output'),
)
def test_unmarked_finds_the_real_output_fences_without_a_marker(text: str, lines: list[int]):
    assert unmarked(text) == lines


def write() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = shipped(Path(tmp) / 'shipped')
        made = produce(base, Path(tmp) / 'samples')
    for name, value in made.items():
        if isinstance(value, BaseException):
            raise SystemExit(f'sample {name}: {value}')

    def fresh(match: re.Match[str]) -> str:
        name = match['name']
        return f'<!-- sample: {name} -->\n```\n{made[name]}```' if name in made else match[0]

    for page in pages():
        text = page.read_text(encoding='utf-8')
        new = MARKED.sub(fresh, text)
        if new != text:
            page.write_text(new, encoding='utf-8')
            print(f'rewrote {page.relative_to(ROOT)}')


if __name__ == '__main__' and sys.argv[1:] == ['--write']:
    write()

"""Every reference resolves inside the repository.

A reader must find every reason in the repository itself: in a comment, in docs/architecture.md
or in the README. So no file may cite a document the repository does not ship (a design note, a
style guide, a ticket number), every relative link in a markdown file must reach a file and a
heading that exist, and every repository path named in prose, a comment or a docstring must exist.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Third-party data kept verbatim (an official schema) and test inputs that are code of scratch
# repositories, not of this one.
NOT_OURS = ('tests/fixtures/', 'tests/data/')

# Citations of documents this repository does not ship.
CITATIONS = (
    (re.compile(r'\b(?:DESIGN|STYLE)\b\s*(?:§|\.md)'), 'a design or style document'),
    (re.compile(r'§'), 'a section of a document'),
    (re.compile(r'\b[Ii]ssues?\s*#?\d'), 'a ticket'),
    (re.compile(r"\bseed's\b|\(the seed,|\bsee the seed\b"), 'the seed document'),
)

# Where this repository's own paths start; a path under one of these must exist.
OWN_PREFIXES = (
    'execlease_hook/',
    'tests/',
    'benchmarks/',
    'docs/',
    'examples/agent_runtime/',
    'verification/execution-lease/',
)
OWN_FILES = (
    'README.md',
    'CONTRIBUTING.md',
    'LICENSE',
    'pyproject.toml',
    '.ci/run',
    '.pre-commit-hooks.yaml',
    '.pre-commit-config.yaml',
)
_PATH = re.compile(
    r'(?<![\w./-])((?:' + '|'.join(re.escape(p) for p in OWN_PREFIXES) + r')[\w./*<>{}-]*[\w/*>}])'
    r'(?:#([\w-]+))?',
)
_LINK = re.compile(r'(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)')
_FENCE = re.compile(r'^\s*(```|~~~)')


@cache
def tracked() -> tuple[str, ...]:
    out = subprocess.run(
        ('git', 'ls-files', '-z'), cwd=ROOT, capture_output=True, check=True
    ).stdout
    return tuple(p for p in out.decode().split('\0') if p)


@cache
def text_files() -> tuple[str, ...]:
    found = []
    for path in tracked():
        if path.startswith(NOT_OURS) or not (ROOT / path).is_file():
            continue
        try:
            (ROOT / path).read_text(encoding='utf-8')
        except UnicodeDecodeError:
            continue
        found.append(path)
    return tuple(found)


def markdown_files() -> list[str]:
    return [p for p in text_files() if p.endswith('.md')]


@cache
def _known() -> frozenset[str]:
    """Every tracked file and every folder above one."""
    known = set(tracked())
    for name in tracked():
        parts = name.split('/')
        known.update('/'.join(parts[:i]) for i in range(1, len(parts)))
    return frozenset(known)


def exists(path: str) -> bool:
    return path.rstrip('/') in _known()


def prose(text: str) -> str:
    """Markdown without fenced code blocks and inline code (what a reader follows as links)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            lines.append('')
            continue
        lines.append('' if fenced else re.sub(r'`[^`\n]*`', '', line))
    return '\n'.join(lines)


def slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it."""
    text = re.sub(r'<[^>]+>', '', heading.strip().lower())
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


@cache
def anchors(path: str) -> frozenset[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    fenced = False
    for line in (ROOT / path).read_text(encoding='utf-8').splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (m := re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)):
            base = slug(m.group(1))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f'{base}-{n}')
    return frozenset(found)


def citations(path: str) -> list[str]:
    problems = []
    for number, line in enumerate((ROOT / path).read_text(encoding='utf-8').splitlines(), 1):
        for pattern, what in CITATIONS:
            if pattern.search(line):
                problems.append(
                    f'{path}:{number}: cites {what} outside the repository: {line.strip()!r}'
                )
                break
    return problems


@pytest.mark.parametrize(
    'path', [p for p in text_files() if p != 'tests/project/docs_test.py']
)  # holds the patterns
def test_no_citation_of_a_document_outside_the_repository(path):
    assert citations(path) == []


def link_problems(path: str) -> list[str]:
    problems = []
    folder = (ROOT / path).parent
    for target in _LINK.findall(prose((ROOT / path).read_text(encoding='utf-8'))):
        if re.match(r'[a-z][a-z0-9+.-]*:', target) or target.startswith('//'):
            continue  # a URL, not a path in this repository
        file_part, _, anchor = target.partition('#')
        resolved = (folder / file_part).resolve() if file_part else ROOT / path
        if not resolved.is_relative_to(ROOT):
            problems.append(f'{path}: {target}: leaves the repository')
            continue
        rel = resolved.relative_to(ROOT).as_posix()
        if not exists(rel):
            problems.append(f'{path}: {target}: no such file in the repository')
        elif anchor and rel.endswith('.md') and anchor not in anchors(rel):
            problems.append(f'{path}: {target}: {rel} has no heading #{anchor}')
        elif anchor and (line := re.fullmatch(r'L(\d+)(?:-L\d+)?', anchor)):
            length = len((ROOT / rel).read_text(encoding='utf-8').splitlines())
            if int(line.group(1)) > length:
                problems.append(f'{path}: {target}: {rel} has {length} lines')
    return problems


@pytest.mark.parametrize('path', markdown_files())
def test_relative_links_resolve(path):
    assert link_problems(path) == []


def mentioned_text(path: str) -> str:
    """What a reader takes for a reference: markdown prose, Python comments and docstrings, the
    comments of other files (`//` in Java, `#` elsewhere)."""
    text = (ROOT / path).read_text(encoding='utf-8')
    if path.endswith('.md'):
        return prose(text)
    if path.endswith('.py'):
        parts = [
            tok.string
            for tok in tokenize.generate_tokens(io.StringIO(text).readline)
            if tok.type == tokenize.COMMENT
        ]
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                parts.append(ast.get_docstring(node) or '')
        return '\n'.join(parts)
    mark = '//' if path.endswith('.java') else '#'
    return '\n'.join(line[line.index(mark) :] for line in text.splitlines() if mark in line)


def path_problems(path: str) -> list[str]:
    problems = []
    for mention, anchor in _PATH.findall(mentioned_text(path)):
        mention = mention.rstrip('.')
        if any(c in mention for c in '*<{'):
            continue
        if not exists(mention):
            problems.append(f'{path}: names {mention}, which the repository does not have')
        elif anchor and mention.endswith('.md') and anchor not in anchors(mention):
            problems.append(f'{path}: names {mention}#{anchor}, a heading {mention} does not have')
    return problems


def test_ci_runs_the_readme_quick_start_verbatim():
    """.ci/run is what CI runs: the README's two Quick start commands, exactly as written there."""
    readme = (ROOT / 'README.md').read_text(encoding='utf-8').splitlines()
    run = [
        line
        for line in (ROOT / '.ci' / 'run').read_text(encoding='utf-8').splitlines()
        if line.startswith('python3 -m venv .venv && . .venv/bin/activate')
    ]
    assert len(run) == 2
    assert [line for line in run if line not in readme] == []


@pytest.mark.parametrize(
    'path',
    [p for p in text_files() if p.endswith(('.md', '.py', '.java', '.toml', '.yaml', '/run'))],
)
def test_named_repository_paths_exist(path):
    assert path_problems(path) == []


def test_the_architecture_guide_names_every_module():
    """A contributor finds the module for a job in docs/architecture.md without opening another."""
    guide = (ROOT / 'docs' / 'architecture.md').read_text(encoding='utf-8')
    modules = [p for p in tracked() if p.startswith('execlease_hook/') and p.endswith('.py')]
    missing = []
    for module in modules:
        name = module.removeprefix('execlease_hook/')
        folder = str(Path(name).parent)
        if name not in guide and not (
            folder != '.' and f'{folder}/' in guide and Path(name).name in guide
        ):
            missing.append(module)
    assert missing == [], 'add each to the layout of docs/architecture.md'


@pytest.mark.parametrize(
    ('text', 'found'),
    (
        # Citations are spelled in two pieces, so that this file does not itself cite them.
        ('see DESIGN' + ' §4', True),
        ('(STYLE' + ' §10)', True),
        ('read STYLE' + '.md first', True),
        ('issue 3' + ' §7', True),
        ('Issue 12', True),
        ('fixes issue #4', True),
        ("under the seed's name", True),
        ('the DESIGN of the lease', False),
        ('an issue with the cache', False),
        ('It prints the seed (replay with AGENT_RUNTIME_FAULT_SEED)', False),
    ),
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_citation_patterns(text, found):
    assert any(p.search(text) for p, _ in CITATIONS) is found


@pytest.mark.parametrize(
    ('heading', 'anchor'),
    (
        ('Fingerprints (scheme `ts2`)', 'fingerprints-scheme-ts2'),
        ("The model's fingerprints (`modelHash`)", 'the-models-fingerprints-modelhash'),
        ('manifest.json', 'manifestjson'),
        (
            'Trace validation: does the code do what the model says?',
            'trace-validation-does-the-code-do-what-the-model-says',
        ),
        (
            'The map both ways (`abstract`, `watch`, `ignored`)',
            'the-map-both-ways-abstract-watch-ignored',
        ),
    ),
)
def test_slug(heading, anchor):
    assert slug(heading) == anchor


# Statements (tokenize's logical lines), not lines: a call the formatter spreads over several
# lines is one, so the limit does not move when the formatter does. 200 statements is the
# 300 lines the rule was first written in, at the tree's density before `ruff format`.
LIMIT = 200


def statements(text: str) -> int:
    return sum(
        1
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
        if t.type == tokenize.NEWLINE
    )


@pytest.mark.parametrize(
    'path',
    [
        p
        for p in text_files()
        if p.endswith('.py') and p.startswith(('execlease_hook/', 'examples/', 'benchmarks/'))
    ],
)
def test_a_long_module_says_why_it_stays_whole(path):
    """One job per module: past about 200 statements a module splits along a seam, or its docstring
    says why it is kept whole (docs/architecture.md#module-size)."""
    text = (ROOT / path).read_text(encoding='utf-8')
    if statements(text) <= LIMIT:
        return
    docstring = ast.get_docstring(ast.parse(text)) or ''
    assert 'kept whole' in docstring, (
        f'{path}: over {LIMIT} statements; split it or say why it is kept whole'
    )


def test_the_readme_is_a_landing_page():
    """What it is, how to get it, a first run; everything else is in docs/, by concept."""
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    assert len(readme.splitlines()) <= 300
    assert '(docs/README.md)' in readme and '(docs/getting-started.md)' in readme


def inline_code(text: str) -> str:
    """The inline code spans of markdown prose (outside fenced blocks): where docs name files."""
    spans, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            spans.extend(re.findall(r'`([^`\n]*)`', line))
    return '\n'.join(spans)


@pytest.mark.parametrize('path', markdown_files())
def test_paths_in_inline_code_exist(path):
    """`tests/tlc/job_test.py` in a page is a path a reader opens: it must exist, as a link must."""
    missing = []
    for mention, _ in _PATH.findall(inline_code((ROOT / path).read_text(encoding='utf-8'))):
        mention = mention.rstrip('.')
        if not any(c in mention for c in '*<{') and not exists(mention):
            missing.append(mention)
    assert missing == []

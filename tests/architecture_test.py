"""The house rules of execlease_hook/, read from the source with `ast` (docs/architecture.md#the-layout).

Every import counts: at the top, inside functions, under TYPE_CHECKING, and
`import_module('execlease_hook.x.y')` written out; an import of a computed name fails (the rules
could not follow it). A module imports only
its own layer and the layers below it, never a module that imports it back (directly or
round a longer circle), and a package's `__init__.py` holds a docstring only. A failure names
file:line and the rule.
"""

from __future__ import annotations

import ast
import contextlib
import re
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / 'execlease_hook'

# Each layer and the layers it imports directly, bottom first. A layer may import its own, those
# and everything they may, except along NOT: locate/ reads the bytes it is given, never git, and
# fingerprint/ hashes a located entry, never reading a manifest. LAYERS is the whole table.
ARROWS: dict[str, tuple[str, ...]] = {
    'core': (),
    'git': ('core',),
    'manifest': ('git',),
    'formats': ('core',),
    'spec': ('manifest',),
    'locate': ('manifest',),
    'fingerprint': ('locate',),
    'tlc': ('spec',),
    'coverage': ('formats', 'spec', 'fingerprint'),
    'traces': ('tlc', 'coverage'),
    'guard': ('coverage',),
    'verify': ('traces',),
    'commands': ('guard', 'verify'),
    'cli': ('commands',),
}
NOT = {'locate': {'git'}, 'fingerprint': {'manifest'}}
LAYERS: dict[str, frozenset[str]] = {}
for _layer, _targets in ARROWS.items():
    _reach = {*_targets, *(b for t in _targets for b in LAYERS[t])}
    LAYERS[_layer] = frozenset(_reach - NOT.get(_layer, set()))
# The two files outside every layer: the package marker and `python -m execlease_hook`.
TOP = {'execlease_hook', 'execlease_hook.__main__'}


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob('*.py')):
        parts = path.relative_to(PACKAGE.parent).with_suffix('').parts
        name = '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)
        out[name] = path
    return out


MODULES = modules()


def imports(name: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for every import of the package in the module, wherever it stands."""
    is_package = path.name == '__init__.py'
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split('.')[0] == 'execlease_hook':
                    yield node.lineno, _known(alias.name)
        elif isinstance(node, ast.Call) and (literal := _imported_by_call(node)) is not None:
            if literal.split('.')[0] == 'execlease_hook':
                yield node.lineno, _known(literal)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                here = name.split('.') if is_package else name.split('.')[:-1]
                here = here[: len(here) - node.level + 1]
                base = '.'.join(here + ([base] if base else []))
            if base.split('.')[0] != 'execlease_hook':
                continue
            for alias in node.names:
                sub = f'{base}.{alias.name}'
                yield node.lineno, sub if sub in MODULES else _known(base)


def _import_call(node: ast.AST) -> ast.expr | None:
    """The argument of `import_module(...)`, `importlib.import_module(...)` or `__import__(...)`."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    f = node.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ''
    return node.args[0] if name in ('import_module', '__import__') else None


def _imported_by_call(node: ast.AST) -> str | None:
    arg = _import_call(node)
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    return None


def _known(name: str) -> str:
    while name not in MODULES and '.' in name:
        name = name.rsplit('.', 1)[0]
    return name


def layer_of(name: str) -> str | None:
    parts = name.split('.')
    return parts[1] if len(parts) >= 2 else None


GRAPH = {name: sorted(set(imports(name, path))) for name, path in MODULES.items()}


def where(name: str, line: int) -> str:
    return f'{MODULES[name].relative_to(PACKAGE.parent)}:{line}'


def test_every_module_is_in_a_layer():
    stray = [
        str(MODULES[n].relative_to(PACKAGE.parent))
        for n in MODULES
        if n not in TOP and layer_of(n) not in LAYERS
    ]
    assert not stray, f'modules outside every layer (put each in the folder of its job): {stray}'


def test_every_import_goes_to_its_own_layer_or_below():
    wrong = []
    for name, edges in GRAPH.items():
        mine = layer_of(name)
        for line, target in edges:
            theirs = layer_of(target)
            if (
                name in TOP
                or theirs is None
                or mine is None
                or theirs == mine
                or theirs in LAYERS[mine]
            ):
                continue
            wrong.append(f'{where(name, line)}: {mine}/ imports {target} ({theirs}/)')
    assert not wrong, 'imports against the layers:\n' + '\n'.join(wrong)


def test_no_import_circle():
    edges = {
        name: {t for _, t in found if t != name and t in MODULES} for name, found in GRAPH.items()
    }
    circles, state = [], dict.fromkeys(edges, 0)

    def visit(name: str, stack: list[str]) -> None:
        state[name] = 1
        stack.append(name)
        for target in sorted(edges[name]):
            if state[target] == 1:
                circle = stack[stack.index(target) :] + [target]
                lines = [
                    where(a, next(line for line, t in GRAPH[a] if t == b))
                    for a, b in zip(circle, circle[1:])
                ]
                circles.append(' -> '.join(circle) + '  (' + ', '.join(lines) + ')')
            elif state[target] == 0:
                visit(target, stack)
        stack.pop()
        state[name] = 2

    for name in sorted(edges):
        if state[name] == 0:
            visit(name, [])
    assert not circles, 'import circles:\n' + '\n'.join(circles)


@pytest.mark.parametrize('name', sorted(n for n, p in MODULES.items() if p.name == '__init__.py'))
def test_a_package_init_holds_a_docstring_only(name):
    tree = ast.parse(MODULES[name].read_text(encoding='utf-8'))
    body = tree.body[1:] if tree.body and isinstance(tree.body[0], ast.Expr) else tree.body
    assert ast.get_docstring(tree), f'{MODULES[name]}: say in a docstring what the folder is for'
    assert not body, (
        f'{where(name, body[0].lineno)}: a package __init__.py holds its docstring only'
    )


def test_the_guard_never_imports_the_slow_stage():
    # The fast stage runs on every commit: TLC, traces and verify are not its business.
    wrong = [
        f'{where(n, line)}: {t}'
        for n, found in GRAPH.items()
        if layer_of(n) == 'guard'
        for line, t in found
        if layer_of(t) in ('tlc', 'traces', 'verify')
    ]
    assert not wrong


# Imports by a name computed at run time, which no reader of the source can follow: each must
# name something outside the package (file, the argument as written, what it imports).
COMPUTED = {
    ('locate/source.py', 'package'): "a grammar wheel, named by its language's row",
}


def computed_imports(path: Path) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        if not isinstance(node, ast.Call):
            continue
        arg = _import_call(node)
        if arg is not None and _imported_by_call(node) is None:
            yield node.lineno, ast.unparse(arg)


def test_every_import_of_the_package_is_written_out():
    # An import whose module is computed (`import_module(f'...{name}')`) hides its edge from
    # the rules above: a table of written-out imports (`lambda: import_module('a.b')`) does not.
    found = {
        (path.relative_to(PACKAGE).as_posix(), arg): where(name, line)
        for name, path in MODULES.items()
        for line, arg in computed_imports(path)
    }
    wrong = [
        f'{at}: import_module({key[1]}): import the module by its name'
        for key, at in found.items()
        if key not in COMPUTED
    ]
    stale = [key for key in COMPUTED if key not in found]
    assert not wrong, 'computed imports:\n' + '\n'.join(wrong)
    assert not stale, f'COMPUTED names imports that are gone (remove them): {stale}'


def test_a_module_states_no_line_count_and_names_no_missing_module():
    # A module's length in its docstring is stale at the next edit; a module it names by path
    # (`tlc/job.py`) that no longer exists sends the reader nowhere.
    layers = '|'.join(LAYERS)
    wrong = []
    for name, path in MODULES.items():
        text = path.read_text(encoding='utf-8')
        doc = ast.get_docstring(ast.parse(text)) or ''
        wrong += [
            f'{where(name, 1)}: {m.group(0)!r}'
            for m in re.finditer(r'\b\d+ (lines|statements)\b', doc)
        ]
        for number, line in enumerate(text.splitlines(), 1):
            for m in re.finditer(rf'(?<![\w/])(?:{layers})/\w+\.py\b', line):
                if not (PACKAGE / m.group(0)).exists():
                    wrong.append(f'{where(name, number)}: {m.group(0)} does not exist')
    assert not wrong, '\n'.join(wrong)


GUIDE = PACKAGE.parent / 'docs' / 'architecture.md'
ROLES = {'guard': 'fast stage', 'verify': 'slow stage'}


def diagram() -> str:
    """docs/architecture.md's drawing of LAYERS: each folder with every module in it, an arrow
    where a folder may import another and no path through a third says so already, and a dotted
    `not` where such a path reaches a folder the table forbids."""
    lines = ['```mermaid', 'flowchart BT']
    for layer in LAYERS:
        names = sorted(p.stem for p in (PACKAGE / layer).glob('*.py') if p.stem != '__init__')
        title = f'{layer}/ ({ROLES[layer]})' if layer in ROLES else f'{layer}/'
        modules = '<br/>'.join(textwrap.wrap(', '.join(names), 72))
        lines.append(f'  {layer}["{title}<br/>{modules}"]')
    arrows = {
        layer: [b for b in LAYERS if b in below and not any(b in LAYERS[c] for c in below)]
        for layer, below in LAYERS.items()
    }
    for layer, targets in arrows.items():
        lines += [f'  {layer} --> {target}' for target in targets]
    for layer, below in LAYERS.items():
        reached, todo = set(), list(arrows[layer])
        while todo:
            target = todo.pop()
            if target not in reached:
                reached.add(target)
                todo += arrows[target] if target in below else []
        lines += [f'  {layer} -. not .-> {t}' for t in LAYERS if t in reached - below]
    return '\n'.join([*lines, '```'])


def test_the_guide_draws_the_layers_and_every_module():
    guide = GUIDE.read_text(encoding='utf-8')
    drawn = re.search(r'```mermaid\nflowchart BT\n.*?```', guide, re.S)
    assert drawn is not None, f'{GUIDE}: no mermaid flowchart of the layers'
    assert drawn.group(0) == diagram(), (
        f'{GUIDE}: the drawing of the layers is not LAYERS; put this in its place:\n{diagram()}'
    )


@contextlib.contextmanager
def reading(package: Path) -> Iterator[None]:
    """The rules above read `package` instead of execlease_hook/."""
    global PACKAGE, MODULES, GRAPH
    saved = PACKAGE, MODULES, GRAPH
    try:
        PACKAGE = package
        MODULES = modules()
        GRAPH = {name: sorted(set(imports(name, path))) for name, path in MODULES.items()}
        yield
    finally:
        PACKAGE, MODULES, GRAPH = saved


@pytest.mark.parametrize(
    ('planted', 'rule', 'message'),
    (
        (
            "import_module('execlease_hook.verify.pool')",
            test_every_import_goes_to_its_own_layer_or_below,
            r'core/term.py:\d+: core/ imports execlease_hook.verify.pool',
        ),
        (
            "import_module(f'execlease_hook.verify.{name}')",
            test_every_import_of_the_package_is_written_out,
            r"core/term.py:\d+: import_module\(f'execlease_hook.verify.\{name\}'\)",
        ),
    ),
    ids=('written-out', 'computed'),
)
def test_an_import_of_the_slow_stage_planted_in_core_is_found(tmp_path, planted, rule, message):
    copy = tmp_path / 'execlease_hook'
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns('__pycache__', 'helper'))
    term = copy / 'core' / 'term.py'
    term.write_text(
        term.read_text(encoding='utf-8') + f"\n\ndef _pool(name: str = 'pool') -> object:\n"
        f'    from importlib import import_module\n\n    return {planted}\n',
        encoding='utf-8',
    )
    with reading(copy):
        with pytest.raises(AssertionError, match=message):
            rule()


def test_the_rules_catch_a_circle_and_a_layer_breach(tmp_path):
    """The checks above can fail: a planted upward import and circle are found."""
    fake = tmp_path / 'execlease_hook'
    (fake / 'core').mkdir(parents=True)
    (fake / 'verify').mkdir()
    for d in (fake, fake / 'core', fake / 'verify'):
        (d / '__init__.py').write_text('"""x"""\n')
    (fake / 'core' / 'a.py').write_text('def f():\n    from execlease_hook.verify import b\n')
    (fake / 'verify' / 'b.py').write_text('from execlease_hook.core import a\n')
    with reading(fake):
        with pytest.raises(
            AssertionError, match=r'core/a.py:2: core/ imports execlease_hook.verify.b'
        ):
            test_every_import_goes_to_its_own_layer_or_below()
        with pytest.raises(AssertionError, match='import circles'):
            test_no_import_circle()


if __name__ == '__main__':
    print(diagram())  # the drawing for docs/architecture.md

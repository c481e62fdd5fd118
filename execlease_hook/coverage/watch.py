"""Protocol code nobody covered: the `coverage.watch` rules of a model (docs/architecture.md,
covered code against the manifest; manifest/sections.WatchRule, what a rule holds). A match must
lie inside a covered entry or an `ignored` function; otherwise the innermost function around it
is reported, named as an entry would name it. Code at module level is not judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tree_sitter import Node

from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.git import blobs, repo
from execlease_hook.git.blobs import Source
from execlease_hook.locate.entry import every_definition
from execlease_hook.locate.languages import LANGUAGES
from execlease_hook.locate.source import language_for, parse
from execlease_hook.manifest import watch_paths
from execlease_hook.manifest.model import Manifest, WatchRule
from execlease_hook.spec.cfg import blank
from execlease_hook.spec.syntax import walk

_GENERICS = re.compile(r'::<[^()]*>|<[^()]*>$')


@dataclass(frozen=True)
class Uncovered:
    path: str
    line: int  # the function's first line
    function: str  # its qualified name, as a coverage entry or `ignored` names it
    what: str  # e.g. "writes agent_turns"

    def message(self) -> str:
        return (
            f'uncovered protocol code: {self.path}:{self.line} {self.function} {self.what}; '
            'cover it (and model it) or ignore it with a reason'
        )


@dataclass(frozen=True)
class WatchResult:
    uncovered: tuple[Uncovered, ...]
    problems: tuple[str, ...]  # exit 2: an `ignored` item that names no function


def watched(m: Manifest, paths: Iterable[str]) -> list[str]:
    """The paths (in order, once) that some watch rule of `m` looks at."""
    globs = [g for rule in m.coverage.watch for g in rule.paths]
    return [p for p in dict.fromkeys(paths) if watch_paths.matches(globs, p)]


def check(
    m: Manifest,
    source: Source,
    paths: Sequence[str],
    statuses: Sequence[EntryStatus],
) -> WatchResult:
    """Judge the functions of `paths` (read from `source`) against the watch rules of `m`;
    `statuses` must hold the located entries of those paths."""
    covered: dict[str, list[tuple[int, int]]] = {}
    for s in statuses:
        if s.located is not None:
            covered.setdefault(s.entry.path, []).append((s.located.start_byte, s.located.end_byte))
    ignored = {(i.path, i.function): n for n, i in enumerate(m.coverage.ignored)}
    source.prefetch(paths)
    uncovered: list[Uncovered] = []
    problems: list[str] = []
    for path in paths:
        rules = [r for r in m.coverage.watch if watch_paths.matches(r.paths, path)]
        language = language_for(path)
        content = source.read(path)
        if not rules or language is None or content is None or b'\0' in content:
            continue
        try:
            content.decode('utf-8')  # a file that is not text is not judged
        except UnicodeDecodeError:
            continue
        # The file's functions are read only when needed (an `ignored` item names this file, or
        # a match lies outside the covered entries): most watched files need neither.
        functions: list[tuple[str, int, int]] | None = None
        if any(ignored_path == path for ignored_path, _ in ignored):
            functions = _functions(language, content)
            names = {name for name, _, _ in functions}
            for (ignored_path, function), n in ignored.items():
                if ignored_path == path and function not in names:
                    manifest = m.path.relative_to(m.root).as_posix()
                    problems.append(
                        f'{manifest}: coverage.ignored[{n}]: {path} defines no '
                        f'function {function!r}; fix the name or remove the item'
                    )
        reported: set[tuple[str, int]] = set()
        for offset, what in _matches(rules, language, content):
            if any(start <= offset < end for start, end in covered.get(path, ())):
                continue
            if functions is None:
                functions = _functions(language, content)
            around = [f for f in functions if f[1] <= offset < f[2]]
            if not around:
                continue  # module level: not judged
            name, start, _ = min(around, key=lambda f: f[2] - f[1])  # the innermost
            if (path, name) in ignored or (name, start) in reported:
                continue
            reported.add((name, start))
            uncovered.append(Uncovered(path, content.count(b'\n', 0, start) + 1, name, what))
    return WatchResult(tuple(uncovered), tuple(problems))


def check_worktree(m: Manifest, statuses: Sequence[EntryStatus]) -> WatchResult:
    """The watch rules against the working tree: tracked files and new ones git does not ignore."""
    if not m.coverage.watch:
        return WatchResult((), ())
    source = blobs.WorktreeSource(m.root)
    return check(m, source, watched(m, repo.tracked_files(m.root, untracked=True)), statuses)


def _functions(language: str, content: bytes) -> list[tuple[str, int, int]]:
    """(qualified name, start byte, end byte) of every addressable function."""
    return [
        (d.qualname, d.nodes[0].start_byte, d.nodes[-1].end_byte)
        for d in every_definition(language, content)
    ]


def _matches(rules: Sequence[WatchRule], language: str, content: bytes) -> list[tuple[int, str]]:
    """(byte offset, what it does) for every match of every rule, in file order."""
    root = parse(language, content).root_node
    found: list[tuple[int, str]] = []
    text = None
    for rule in rules:
        if rule.strings is not None:
            if text is None:  # every comment blanked, so that offsets stay the same
                comments = [(n.start_byte, n.end_byte) for n in walk(root) if 'comment' in n.type]
                text = blank(content, comments)
            decoded = text.decode('utf-8')
            ascii_only = len(decoded) == len(text)
            for match in re.finditer(rule.strings, decoded):
                offset = (
                    match.start() if ascii_only else len(decoded[: match.start()].encode('utf-8'))
                )
                # One line per message: a match across lines (`INSERT\n INTO t`) reads as `INSERT INTO t`.
                groups = [
                    ' '.join(g.split())
                    for g in (match.group(0), *(g or '' for g in match.groups()))
                ]
                found.append((offset, (rule.what or 'matches "{0}"').format(*groups, callee='')))
        if rule.calls:
            for offset, callee in _calls(root, language):
                if any(
                    callee == n or callee.endswith(('.' + n, '::' + n, '->' + n))
                    for n in rule.calls
                ):
                    found.append(
                        (offset, (rule.what or 'calls {callee}').format(callee, callee=callee))
                    )
    return sorted(found)


def _calls(root: Node, language: str) -> list[tuple[int, str]]:
    """(byte offset, callee) of every call expression, of the kinds the language's row names."""
    row = LANGUAGES[language]
    kinds: Mapping[str, str] = dict(row.calls)
    receivers: Mapping[str, str] = dict(row.receivers)
    found = []
    for node in walk(root):
        field = kinds.get(node.type)
        if field is None:
            continue
        callee = node.child_by_field_name(field) if field else next(iter(node.named_children), None)
        if callee is None or callee.text is None:
            continue
        name = callee.text.decode('utf-8')
        receiver = receivers.get(node.type)
        if receiver is not None:  # Java's object.name(...): the callee field holds only `name`
            target = node.child_by_field_name(receiver)
            if target is not None and target.text is not None:
                name = f'{target.text.decode("utf-8")}.{name}'
        found.append((node.start_byte, _GENERICS.sub('', ''.join(name.split()))))
    return found

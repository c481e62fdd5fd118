"""Operators a spec under verification may not use, found on its syntax tree: running a program,
writing a file, asking on the console or stopping the search would end a search that then reads
as complete (docs/reliability.md, "What is trusted", 2, says which and where they are looked for).
TLCSet on a numbered register (TLCSet(1, v)) neither stops TLC nor leaves it and stays allowed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import tree_sitter

from execlease_hook.core.errors import CannotRun
from execlease_hook.spec import cfg, syntax

_RUNS = ('IOExec', 'IOExecTemplate', 'IOEnvExec', 'IOEnvExecTemplate')
_WRITES = ('IOSerialize', 'Serialize', 'JsonSerialize', 'ndJsonSerialize', 'CSVWrite')
FORBIDDEN: dict[str, str] = {
    **dict.fromkeys(_RUNS, 'runs a program'),
    **dict.fromkeys(_WRITES, 'writes a file'),
    'PickSuccessor': 'asks on the console and can stop the search',
    'TLCSet': 'with a non-numeric first argument ("exit", "pause") ends or stops the search',
}
_WORD = re.compile(r'\b(' + '|'.join(sorted(FORBIDDEN, key=len, reverse=True)) + r')\b')
# Every forbidden name contains one of these: a spec with none of them (plain substring searches,
# far cheaper than _WORD's search over a whole spec, done once per mutation) has no use at all.
_STEMS = tuple(
    sorted({n.encode() for n in FORBIDDEN if not any(o != n and o in n for o in FORBIDDEN)})
)


@dataclass(frozen=True)
class ForbiddenUse:
    file: str  # as the message should name it, e.g. verification/x/Spec.tla
    line: int
    name: str

    def __str__(self) -> str:
        return f'{self.file}:{self.line}: {self.name} ({FORBIDDEN[self.name]})'


def _register_set(node: tree_sitter.Node) -> bool:
    """TLCSet(<number>, value): a write to a numbered register, harmless."""
    parent = node.parent
    if parent is None or parent.type != 'bound_op' or parent.child(0) != node:
        return False
    args = [c for c in parent.children[1:] if c.type not in ('(', ')', ',')]
    return bool(args) and args[0].type == 'nat_number'


def scan_module(file: str, text: bytes) -> list[ForbiddenUse]:
    """Every use of a forbidden operator in one .tla file (comments and strings do not count)."""
    if not any(stem in text for stem in _STEMS) or not _WORD.search(
        text.decode('utf-8', 'replace')
    ):
        return []  # the common case: no such name anywhere, not even in a comment
    tree = syntax.parse(text)
    found: list[ForbiddenUse] = []
    for node in syntax.walk(tree.root_node):
        if node.type == 'identifier_ref':
            name = (node.text or b'').decode('utf-8', 'replace')
            if name in FORBIDDEN and not (name == 'TLCSet' and _register_set(node)):
                found.append(ForbiddenUse(file, node.start_point.row + 1, name))
        elif node.is_error or node.is_missing:
            # Text the grammar could not structure: judge it by its words, conservatively
            # (SANY may still accept what tree-sitter does not).
            body = (node.text or b'').decode('utf-8', 'replace')
            for match in _WORD.finditer(body):
                line = node.start_point.row + 1 + body.count('\n', 0, match.start())
                found.append(ForbiddenUse(file, line, match.group(1)))
    return sorted(set(found), key=lambda u: (u.line, u.name))


def scan_cfg(file: str, text: bytes) -> list[ForbiddenUse]:
    """A cfg can name an operator (`CONSTANT F <- IOExec`): any forbidden name in it counts,
    comments left out (spec/cfg.tokens, the one cfg lexer)."""
    return [
        ForbiddenUse(file, text.count(b'\n', 0, token.start) + 1, m.group(1))
        for token in cfg.tokens(text)
        for m in _WORD.finditer(token.text)
    ]


def refusal(uses: list[ForbiddenUse]) -> str:
    """One message naming every use and what to do."""
    shown = '; '.join(str(u) for u in uses[:10])
    more = f' (and {len(uses) - 10} more)' if len(uses) > 10 else ''
    return (
        f'the model uses operators a spec under verification may not use: {shown}{more}. '
        'A complete search is what a verdict stands on, so a spec may not run programs, write '
        'files, ask on the console or stop the search; remove these uses (Print and PrintT are '
        'fine: what they print is shown apart from the verdict)'
    )


def scan_job_files(
    modules: Iterable[tuple[str, bytes]],
    cfgs: Iterable[tuple[str, bytes]] = (),
) -> list[ForbiddenUse]:
    return [
        *(use for name, text in modules for use in scan_module(name, text)),
        *(use for name, text in cfgs for use in scan_cfg(name, text)),
    ]


def refuse(modules: Iterable[tuple[str, bytes]], cfgs: Iterable[tuple[str, bytes]] = ()) -> None:
    """Raise CannotRun (exit 2) naming every forbidden use in these files."""
    uses = scan_job_files(modules, cfgs)
    if uses:
        raise CannotRun(refusal(uses))

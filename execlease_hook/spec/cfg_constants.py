"""A TLC cfg with some constants given other values: the larger bounds of `verify --deep`.

Only the value of an assignment the cfg already makes is replaced (`MaxGen = 3` -> `MaxGen = 4`,
`Runs = {r1, r2}` -> `Runs = {r1, r2, r3}`), in place, so everything else in the cfg (its other
constants, INIT, NEXT, INVARIANTS, comments) is the check's own. A value that starts with `<-`
replaces the assignment with a substitution (`RunId <- SharedRunId`). A constant the cfg does
not assign is an error naming it, never a silent no-op.
"""

from __future__ import annotations

from collections.abc import Sequence

from execlease_hook.spec.cfg import KEYWORDS, tokens


def assignments(text: str) -> dict[str, list[tuple[int, int]]]:
    """Each constant the CONSTANT sections assign -> the spans of its `= value` (or `<- Op`),
    in order (a constant assigned twice has two)."""
    # (text, start, end) of every token by the one cfg lexer, its byte offsets made str offsets.
    data = text.encode('utf-8')
    lexed = []
    for token in tokens(data):
        start = len(data[: token.start].decode('utf-8', 'replace'))
        lexed.append((token.text, start, start + len(token.text)))
    found: dict[str, list[tuple[int, int]]] = {}
    in_constants = False
    depth = 0
    current: tuple[str, int] | None = None  # (name, start of its operator)
    last_end = 0

    def close() -> None:
        nonlocal current
        if current is not None:
            found.setdefault(current[0], []).append((current[1], last_end))
            current = None

    for i, (tok, _, end) in enumerate(lexed):
        if depth == 0 and tok in KEYWORDS:
            close()
            in_constants = tok in ('CONSTANT', 'CONSTANTS')
            continue
        if not in_constants:
            continue
        following = lexed[i + 1][0] if i + 1 < len(lexed) else ''
        if depth == 0 and (tok[0].isalnum() or tok[0] == '_') and following in ('=', '<-'):
            close()
            current = (tok, lexed[i + 1][1])
            continue
        if tok in ('{', '(', '[', '<'):  # `<<` of a tuple is two `<` tokens
            depth += 1
        elif tok in ('}', ')', ']', '>'):
            depth = max(0, depth - 1)
        last_end = end
    close()
    return found


def override(text: str, constants: Sequence[tuple[str, str]]) -> str:
    """`text` with the given constants' values replaced (a constant assigned twice: its first
    assignment); ValueError naming what the cfg lacks."""
    spans = assignments(text)
    missing = [name for name, _ in constants if name not in spans]
    if missing:
        assigned = ', '.join(sorted(spans)) or 'none'
        raise ValueError(
            f'the cfg assigns no constant {", ".join(missing)} (it assigns: {assigned})'
        )
    edits = sorted(((spans[name][0], value) for name, value in constants), reverse=True)
    for (start, end), value in edits:
        replacement = value if value.lstrip().startswith('<-') else f'= {value}'
        if start > 0 and not text[start - 1].isspace():
            replacement = ' ' + replacement
        text = text[:start] + replacement + text[end:]
    return text

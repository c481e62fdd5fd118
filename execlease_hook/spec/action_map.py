"""The map between the spec's actions (spec/actions.py) and the covered code, checked both ways
(docs/architecture.md, the model side): every action has a covered entry or a `coverage.abstract`
reason, from the model's first covered entry on (`Manifest.action_map`); every entry's `action`
names an operator the model defines (`ModelView.model_index`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field

from execlease_hook.manifest.model import EVERY_ACTION, NO_COVERAGE, NO_ENTRY_YET, Manifest
from execlease_hook.spec.actions import Action
from execlease_hook.spec.index import SpecIndex

# What each rule of Manifest.action_map means, as reports say it.
MAP_RULES = {
    EVERY_ACTION: 'every action must be covered or declared abstract',
    NO_ENTRY_YET: 'no action needs covered code until coverage.entries has its first entry',
    NO_COVERAGE: 'none: the manifest has no "coverage" (a model of no code)',
}


@dataclass
class MapCheck:
    """What the two directions found: problems that stop the tools (exit 2) and gaps (exit 1)."""

    problems: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)


def check(m: Manifest, index: SpecIndex, actions: Mapping[str, Action]) -> MapCheck:
    found = MapCheck()
    definitions = index.definitions()
    where = m.path.relative_to(m.root).as_posix() if m.path.is_relative_to(m.root) else str(m.path)
    covered: dict[str, list[str]] = {}
    for i, e in enumerate(m.coverage.entries):
        covered.setdefault(e.action, []).append(e.id)
        if e.action not in definitions:
            found.problems.append(
                f'{where}: coverage.entries[{i}] ({e.id}): action {e.action!r} is not defined in '
                f'{index.name}{closest(index, e.action)}; name an operator the spec or a '
                'module it EXTENDS or INSTANCEs defines',
            )
    abstract = {a.action for a in m.coverage.abstract}
    for i, a in enumerate(m.coverage.abstract):
        at = f'{where}: coverage.abstract[{i}]'
        if a.action not in definitions:
            found.problems.append(
                f'{at}: action {a.action!r} is not defined in {index.name}'
                f'{closest(index, a.action)}; name an action of the spec or a module it reads',
            )
        elif a.action not in actions:
            found.problems.append(
                f'{at}: {a.action!r} is not an action the next-state relation uses '
                f'(it uses: {", ".join(actions) or "none found"}); remove it from coverage.abstract',
            )
        elif a.action in covered:
            found.problems.append(
                f'{at}: action {a.action} is declared abstract, but covered by '
                f'{", ".join(covered[a.action])}; remove one of the two',
            )
    for name, action in actions.items() if m.action_map == EVERY_ACTION else ():
        if name in abstract or any(op in covered for op in (*action.via[1:], name)):
            continue
        found.gaps.append(
            f'action {name} ({index.where(action.unit)}) has no covered code and is not declared '
            'abstract: add a coverage entry for the code that implements it, or list it in '
            'coverage.abstract with the reason no code does',
        )
    return found


def closest(index: SpecIndex, name: str) -> str:
    definitions = index.definitions()
    by_lower = {d.lower(): d for d in definitions}  # a change of case is the likeliest slip
    close = [
        by_lower[c]
        for c in difflib.get_close_matches(name.lower(), list(by_lower), n=3, cutoff=0.6)
    ]
    if not close:
        return ''
    return (
        ' (did you mean: ' + ', '.join(f'{c} ({index.where(definitions[c])})' for c in close) + ')'
    )

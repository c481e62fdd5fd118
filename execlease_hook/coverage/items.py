"""Report items (formats/report.py) of what both stages judge: a covered entry, a model, the
NOTES.md table, an uncovered place, a problem; each located in the repository (paths relative
to its root)."""

from __future__ import annotations

from collections.abc import Iterable

from execlease_hook.core import paths
from execlease_hook.core.outcomes import COULD_NOT_RUN, DID_NOT_HOLD, HELD
from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.formats.report import Item, Location
from execlease_hook.manifest.model import Manifest, folder_prefix
from execlease_hook.spec.record import in_worktree

ENTRY_RULES = {
    'unchanged': (HELD, 'covered-code-unchanged'),
    'changed': (DID_NOT_HOLD, 'covered-code-changed'),
    'never synced': (DID_NOT_HOLD, 'covered-code-never-synced'),
    'missing': (COULD_NOT_RUN, 'covered-code-missing'),
    'ambiguous': (COULD_NOT_RUN, 'covered-code-missing'),
}


def model_folder(m: Manifest) -> str:
    return paths.rel(m.root, m.folder)


def in_model(m: Manifest, name: str) -> str:
    return folder_prefix(m) + name


def spec_text(m: Manifest, name: str) -> str:
    """The text of the module file `name` of the model folder; '' when it cannot be read."""
    try:
        return (m.folder / name).read_text(encoding='utf-8', errors='replace')
    except OSError:
        return ''


def line_of(text: str, needle: str) -> int | None:
    at = text.find(needle)
    return None if at < 0 else text.count('\n', 0, at) + 1


def definition_line(m: Manifest, name: str) -> Location | None:
    """Where the model defines `name` (`Name ==` or `Name(...) ==`): in the spec or a module it
    EXTENDS or INSTANCEs, as the working tree holds them."""
    view = in_worktree(m)
    unit = None if view is None else view.definition(name)
    if unit is None:
        return None
    # Its key in the model record: a model folder module by its file name, a library folder's
    # already from the repository root (spec/modules.py).
    key = unit.file or m.spec
    path = key if '/' in key else in_model(m, key)
    return Location(path, unit.start_line, unit.start_line, 'spec')


def entry_location(s: EntryStatus) -> Location:
    if s.located is None:
        return Location(s.entry.path, None, None, 'code')
    return Location(s.entry.path, s.located.start_line, s.located.end_line, 'code')


def entry_item(m: Manifest, s: EntryStatus, message: str | None = None) -> Item:
    outcome, rule = ENTRY_RULES.get(s.status, (COULD_NOT_RUN, 'covered-code-missing'))
    if message is None:
        message = {
            HELD: f'entry {s.entry.id} ({s.entry.action}) unchanged',
            DID_NOT_HOLD: f'covered code {s.status}: entry {s.entry.id} at {s.where}, model action '
            f'{s.entry.action}; once the model describes the code, run '
            '`execlease verify --update-coverage`',
        }.get(outcome, f'coverage entry {s.entry.id} ({s.entry.action}): {s.problem}')
    return Item(
        model_folder(m), 'coverage', s.entry.id, outcome, rule, message, (entry_location(s),)
    )


def model_item(m: Manifest, outcome: str, message: str) -> Item:
    rule = 'model-unchanged' if outcome == HELD else 'model-changed'
    where = (Location(in_model(m, m.spec), role='spec'),)
    return Item(model_folder(m), 'model', 'modelHash', outcome, rule, message, where)


def notes_item(m: Manifest, message: str) -> Item:
    where = (Location(in_model(m, 'NOTES.md'), role='notes'),)
    rule = 'notes-map-stale'
    return Item(model_folder(m), 'notes', 'code-to-action', DID_NOT_HOLD, rule, message, where)


def uncovered_item(m: Manifest, path: str, line: int, message: str) -> Item:
    rule = 'uncovered-protocol-code'
    where = (Location(path, line, line, 'code'),)
    return Item(model_folder(m), 'watch', f'{path}:{line}', DID_NOT_HOLD, rule, message, where)


def problem_items(m: Manifest, problems: Iterable[str], known: Iterable[str]) -> list[Item]:
    """Could-not-run messages that no job or entry stands for (e.g. --update-coverage refused)."""
    seen, folder = set(known), model_folder(m)
    where = (Location(paths.rel(m.root, m.path), role='manifest'),)
    return [
        Item(folder, 'model', 'run', COULD_NOT_RUN, 'run-unfinished', p, where)
        for p in problems
        if p not in seen
    ]

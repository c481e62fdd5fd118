"""What only a model record an older execlease wrote explains (spec/record.py says what that
record held): a module the model reads that the record lacks, which cannot be judged and asks for
one verified sync, and a recorded library module no root reads any more, which that sync drops."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from execlease_hook.core import paths
from execlease_hook.git.blobs import Source
from execlease_hook.manifest.model import Manifest, ModelRecord, library_folders
from execlease_hook.spec import syntax
from execlease_hook.spec.index import Unit, read_spec
from execlease_hook.spec.modules import Module


def older_record(
    m: Manifest,
    module_list: Sequence[Module],
    recorded: ModelRecord,
    new_reads: list[str],
    dropped: list[str],
    source: Source,
) -> bool:
    """Whether the difference in the record's modules comes from its older form alone: every module
    the record lacks is read through an EXTENDS or INSTANCE unchanged since the sync, every
    recorded module no longer read is a library folder's module still there, and no reading unit
    of the model changed."""
    if not new_reads and not dropped:
        return False
    folders = library_folders(m)
    modules = {mod.key: mod for mod in module_list}
    for key in new_reads:
        module = modules[key]
        if module.root:
            return False  # a root module a check names since the sync: a change of the model
        if module.reader in new_reads:
            continue  # read by a module the older record lacks too: judged with that one
        before = recorded.files.get(module.reader)
        unit = _unit_at(modules[module.reader], module.line)
        if not isinstance(before, Mapping) or unit is None or before.get(unit.key) != unit.digest:
            return False
    for key in dropped:
        if not any(paths.module_in_folder(f, key) for f in folders) or source.read(key) is None:
            return False
    return not (dropped and _reading_units_changed(modules.values(), recorded))


def _unit_at(module: Module, line: int) -> Unit | None:
    index = read_spec(module.text, module.key)
    return next((u for u in index.units if u.start_line <= line <= u.end_line), None)


def _reading_units_changed(modules: Iterable[Module], recorded: ModelRecord) -> bool:
    """A unit holding an EXTENDS or INSTANCE differs from the record, or a recorded unit is gone."""
    for module in modules:
        before = recorded.files.get(module.key)
        if not isinstance(before, Mapping):
            continue
        index = read_spec(module.text, module.key)
        if set(before) - {u.key for u in index.units}:
            return True
        for _, row, _ in syntax.imports(module.text):
            unit = _unit_at(module, row + 1)
            if unit is not None and before.get(unit.key) != unit.digest:
                return True
    return False

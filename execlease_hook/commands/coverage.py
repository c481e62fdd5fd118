"""`execlease coverage [--model DIR] [--write-map]`: every covered entry against the working tree.

Exit 0: every entry unchanged (and the model matches its recorded hash); 1: something changed or
was never synced; 2: an entry cannot be located (missing or ambiguous), or --write-map cannot write.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from execlease_hook.core import outcomes, paths, table, term
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.coverage import compare, items, watch
from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.coverage.notes import write_map
from execlease_hook.formats.emit import Outputs
from execlease_hook.formats.report import Report
from execlease_hook.git import blobs, repo
from execlease_hook.manifest import find, read
from execlease_hook.manifest.model import Manifest
from execlease_hook.spec import action_map, modules, record
from execlease_hook.spec.modules import Module
from execlease_hook.verify.result import entry_json

STATUS_COLOUR = {
    'unchanged': 'green',
    'changed': 'yellow',
    'never synced': 'yellow',
    'missing': 'red',
    'ambiguous': 'red',
}


def listing(m: Manifest, statuses: Sequence[EntryStatus], model_status: str, quiet: bool) -> str:
    """Within the terminal's width the current hash is left out first (a person does not
    compare hashes by eye; `--format json` has it), then cells are clipped: a path keeps its
    file name and line."""
    columns = (
        table.Column('id', clip=table.keep_ends, least=10),
        table.Column('where', clip=table.keep_end, least=16),
        table.Column('action', clip=table.keep_ends, least=10),
        table.Column('status'),
        table.Column('current', optional=True),
    )
    rows = [(s.entry.id, s.where, s.entry.action, s.status, s.current or '-') for s in statuses]
    kept, cells = table.layout(columns, rows, term.width() - 2)

    def paint(row: int, column: int, cell: str) -> str:
        if row == 0 or column != 3:
            return cell
        status = statuses[row - 1].status
        return term.paint(cell.rstrip(), STATUS_COLOUR.get(status, 'bold')) + cell[len(status) :]

    count = f'{len(statuses)} entr' + ('y' if len(statuses) == 1 else 'ies')
    lines = [f'{paths.rel(m.root, m.path)}  ({count}; model {model_status})']
    for s, line in zip(statuses, table.render(kept, cells, paint=paint)[1:]):
        if quiet and s.status == 'unchanged':
            continue
        lines.append('  ' + line)
        if s.problem:
            lines.append(term.wrap(f'      {s.problem}'))
        if s.entry.sync_reason:
            lines.append(term.wrap(f'      synced without a model change: {s.entry.sync_reason}'))
    return '\n'.join(lines)


def model_status(m: Manifest, source: blobs.Source) -> tuple[str, int, list[str], list[Module]]:
    """The model against its recorded modelHash, and the map between actions and entries:
    (one word or phrase for the header, exit code, the lines that say what and why, the modules
    the model is made of)."""
    if not m.covers_code:
        return 'covers no code (no "coverage" in the manifest)', 0, [], []
    try:
        view = record.read(m, source)
    except CannotRun as e:
        return 'cannot be read', 2, [str(e)], []
    if m.coverage.model_hash is None:
        status, code, lines = 'never synced (no modelHash)', 1, []
    else:
        compared = record.compare(view, source)
        rerun = ': run `execlease verify`, then --update-coverage'
        status, code = 'unchanged', 0
        if compared.changes:
            status, code = f'changed since the sync{rerun}', 1
        elif compared.unjudged:
            status, code = f'not fully recorded (an older record){rerun}', 1
        lines = list(compared.changes)
        if compared.upgrade:
            lines.extend((*compared.upgrade, record.UPGRADE_STEP))
    mapped = action_map.check(m, view.model_index, view.actions())
    problems = [*mapped.problems, *view.mutation_problems()]
    lines.extend((*problems, *mapped.gaps))
    if problems:
        code = 2
    elif mapped.gaps:
        code = max(code, 1)
    return status, code, lines, view.module_list()


def run(options: argparse.Namespace, settings: Settings) -> int:
    outputs = Outputs('coverage', options.format, options.output, None)
    return outputs.run(lambda: _run(options, outputs, settings.max_covered_bytes))


def _run(options: argparse.Namespace, outputs: Outputs, max_bytes: int) -> int:
    root = repo.repo_root()
    code = 0
    report = Report('coverage', 0, repo.head(root))
    for path in find.find_models(root, options.model):
        m = read.load(path, root)
        source = blobs.WorktreeSource(root)
        statuses = compare.compare(m, source, None, max_bytes)
        model_text, model_code, model_lines, read_modules = model_status(m, source)
        watched = watch.check_worktree(m, statuses)
        print(listing(m, statuses, model_text, quiet=options.quiet > 0))
        if options.quiet <= 0:
            print(term.wrap(f'  action map: {action_map.MAP_RULES[m.action_map]}'))
        # -v: what the model is made of, each module and what reads it.
        shown = [f'  {mod.key} ({mod.via()})' for mod in read_modules if options.verbose > 0]
        if shown:
            shown.insert(0, 'model modules:')
        uncovered = [u.message() for u in watched.uncovered]
        for line in (*shown, *model_lines, *watched.problems, *uncovered):
            print(f'  {line}')
        watch_code = 2 if watched.problems else 1 if watched.uncovered else 0
        exit_code = outcomes.worst((compare.exit_code(statuses), model_code, watch_code))
        code = outcomes.worst((code, exit_code))
        report.items.extend(items.entry_item(m, s) for s in statuses)
        report.details.setdefault('models', []).append(
            {
                'manifest': paths.rel(root, m.path),
                'model': paths.rel(root, m.folder),
                'exit_code': exit_code,
                'actionMap': m.action_map,
                'modelStatus': model_text,
                'modules': modules.listing(read_modules),
                'coverage': [entry_json(s) for s in statuses],
            }
        )
        outcome = next(k for k, v in outcomes.CODES.items() if v == model_code)
        said = '\n'.join((f'model {model_text}', *model_lines))
        report.items.append(items.model_item(m, outcome, said))
        report.items.extend(items.problem_items(m, watched.problems, []))
        report.items.extend(
            items.uncovered_item(m, u.path, u.line, u.message()) for u in watched.uncovered
        )
        if options.write_map:
            notes = paths.rel(root, m.folder / 'NOTES.md')
            done = 'rewritten' if write_map(m, statuses) else 'already current'
            print(f'{notes}: code-to-action table {done}')
    report.exit_code = code
    outputs.finish(report)
    return code

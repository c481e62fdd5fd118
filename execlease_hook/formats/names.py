"""The one list of report formats: a name and the module of its writer in this folder
(`render(report) -> str`). A new format is one module here and one line below. Imports nothing,
so that the command line can offer the names without loading a writer."""

from __future__ import annotations

WRITERS = {'json': 'json_report', 'sarif': 'sarif', 'github': 'github', 'junit': 'junit'}
FORMATS = ('text', *WRITERS)

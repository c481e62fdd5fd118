"""Find a covered entry in a source file: a function by qualified name, or an anchored region.

API (stable; guard and coverage depend on it):
  SUFFIXES, language_for(path)
  Located                                  the entry's place: path, 1-based lines, bytes, nodes
  locate(entry, source) -> Located         CannotRun with the entry id, path and what was found where
  find_functions(path, source, qualname)   every match ([] for an unsupported suffix)
"""
from __future__ import annotations

from execlease_hook.locate.entry import Located, find_functions, locate
from execlease_hook.locate.source import SUFFIXES, language_for

# The face only re-exports: the work is in entry.py (an entry), index.py (definitions by name),
# region.py (anchors), source.py (grammars and parses) and one module per language family.
__all__ = ['SUFFIXES', 'Located', 'find_functions', 'language_for', 'locate']

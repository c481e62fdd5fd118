"""One agent turn's execution lease and its durable steps, on SQLite.

Covered by the TLA+ model in verification/execution-lease/; see README.md here.
"""

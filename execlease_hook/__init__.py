"""execlease: keep a TLA+ model and the code it describes in lockstep (docs/architecture.md)."""

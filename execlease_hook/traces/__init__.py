"""Trace validation: NDJSON traces of the real program against a trace spec, and code mutations."""

"""Find a covered entry in a source file: a function by qualified name, or an anchored region."""

"""The command line: the parser, dispatch by name, and the one place exceptions become exit codes."""

"""One module per subcommand, each with `run(options) -> int`."""

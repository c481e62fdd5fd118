"""`python -m execlease`: the distribution's name for the command line; the code lives in
`execlease_hook` (docs/architecture.md#the-layout, "Two package names")."""

"""TLA+ specs and TLC cfgs as syntax: the tree, definitions by name, scans, mutations, actions,
the model record."""

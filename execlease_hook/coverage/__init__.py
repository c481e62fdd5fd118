"""Covered code against the manifest, for both stages: compare, watch rules, rename hints."""

"""manifest.json, version 1: its data model, reading and validating, writing, and where models are."""

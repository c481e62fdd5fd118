"""The fast stage, on every commit: is covered code or the model changed? Never imports tlc/,
traces/ or verify/."""

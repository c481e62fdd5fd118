"""What every layer uses: errors, atomic writes, digests, values, settings, signals, processes,
the terminal. Imports nothing of the package."""

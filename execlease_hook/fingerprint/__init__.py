"""Fingerprints of located entries: `<scheme>:sha256:<hex>` over the entry's syntax tree."""

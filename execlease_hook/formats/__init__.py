"""Reports for machines: the report value, its formats (JSON, JUnit, SARIF, GitHub) and where
they are written."""

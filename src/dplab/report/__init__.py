"""Report plumbing shared by every study: atomic file writing, figure style, tables, claims, index, provenance."""

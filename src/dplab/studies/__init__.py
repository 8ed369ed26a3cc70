"""Per-paper glue: the computations behind each study's figures, tables and claims, built from the shared library."""

"""dplab: audited reproductions of differential-privacy papers, one Snakemake workflow."""

__version__ = "0.1.0"

"""Seeded generators of synthetic traces with known ground truth (for tests, notebooks, benchmarks)."""

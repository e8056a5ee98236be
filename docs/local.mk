EXTRA_DIST += docs/benchmarks.md docs/architecture.md

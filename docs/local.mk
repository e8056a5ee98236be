EXTRA_DIST += docs/benchmarks.md docs/architecture.md docs/history/benchmarks-2026.md

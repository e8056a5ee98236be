EXTRA_DIST += docs/benchmarks.md docs/architecture.md docs/history/benchmarks-2026.md

# The charts benchmarks.md embeds: make bench-report rewrites them and may add one per new
# configuration, so the tarball takes whatever the folder holds.
dist-hook: dist-bench-charts
dist-bench-charts:
	$(MKDIR_P) $(distdir)/docs/bench
	cp -p $(srcdir)/docs/bench/*.svg $(distdir)/docs/bench/
.PHONY: dist-bench-charts

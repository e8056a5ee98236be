# The demonstration: an unmodified gcc -fopenmp program on stock libgomp and on libomp-lite.
noinst_PROGRAMS += demo/heat
demo_heat_SOURCES = demo/heat.c
demo_heat_CFLAGS = -O2 -fopenmp
demo_heat_LDFLAGS = -fopenmp
demo_heat_LDADD = -ldl
EXTRA_DIST += demo/demo.sh

demo: demo/heat libomp-lite.la omp-lite/libgomp.so.1
	$(srcdir)/demo/demo.sh $(builddir)
.PHONY: demo

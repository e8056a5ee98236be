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

# The README's profile example (OMPLITE_PROFILE): a triangular loop, static and dynamic. -g and
# -rdynamic so that the table names its functions and omplite-profile-lines finds their lines.
noinst_PROGRAMS += demo/triangle
demo_triangle_SOURCES = demo/triangle.c
demo_triangle_CFLAGS = -O2 -g -fopenmp
demo_triangle_LDFLAGS = -fopenmp -rdynamic

# affinity: the machine's topology (hwloc), the place list (OMP_PLACES, GOMP_CPU_AFFINITY), the
# assignment of team members to places, binding at run time and the place routines, the affinity
# format, and NUMA memory (the kernel's calls).
libomp_lite_internal_la_SOURCES += \
	affinity/affinity.h \
	affinity/topology.c \
	affinity/tree.c \
	affinity/places.c \
	affinity/kmp_env.c \
	affinity/partition.c \
	affinity/bind.c \
	affinity/place_api.c \
	affinity/format.c \
	affinity/memory.c \
	affinity/home.c \
	affinity/home_debug.c

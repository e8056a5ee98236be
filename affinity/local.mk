# affinity: the machine's topology (hwloc), the place list (OMP_PLACES, GOMP_CPU_AFFINITY) and
# the assignment of team members to places.
libomp_lite_internal_la_SOURCES += \
	affinity/affinity.h \
	affinity/topology.c \
	affinity/places.c \
	affinity/partition.c

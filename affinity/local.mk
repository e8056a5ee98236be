# affinity: filled in by its issue.
libomp_lite_internal_la_SOURCES += affinity/affinity.h affinity/bind.c affinity/place_api.c
libomp_lite_internal_la_SOURCES += affinity/memory.c
libomp_lite_internal_la_SOURCES += affinity/format.c

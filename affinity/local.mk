# affinity: filled in by its issue.
libomp_lite_internal_la_SOURCES += affinity/format.c

# Loop schedules: iteration spaces and hand-out, stealing, per-call-site statistics.
libomp_lite_internal_la_SOURCES += \
	sched/sched_internal.h \
	sched/iter.c \
	sched/steal.c \
	sched/site.c \
	sched/tiny.c

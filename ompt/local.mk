# OMPT, the tool interface: start-up, the entry points, the events the runtime dispatches.
libomp_lite_internal_la_SOURCES += \
	ompt/omp-tools.h \
	ompt/ompt.h \
	ompt/start.c \
	ompt/entry.c \
	ompt/events.c \
	ompt/constructs.c \
	ompt/tasks.c \
	ompt/league.c \
	ompt/target.c

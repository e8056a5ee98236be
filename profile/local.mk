# profile: OMPLITE_PROFILE's per-call-site table and OMPLITE_TRACE's timeline (Chrome's Trace
# Event Format). The hooks in the construct files call in only while one of them is on.
libomp_lite_internal_la_SOURCES += \
	profile/profile.h \
	profile/site_table.c \
	profile/hooks.c \
	profile/report.c \
	profile/output.c \
	profile/symtab.c \
	profile/trace.c
# file:line for a table's sites, through binutils; the tables of many processes merged into one
# (installed beside the library's users' tools).
dist_bin_SCRIPTS = tools/omplite-profile-lines tools/omplite-profile-merge

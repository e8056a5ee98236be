# Unit tests (Check): one program per source file, linked with the internal library so that hidden
# functions are reachable.
if HAVE_CHECK
UNIT_TESTS = tests/unit/test_env tests/unit/test_lock tests/unit/test_barrier tests/unit/test_team \
	tests/unit/test_site tests/unit/test_tiny tests/unit/test_balance tests/unit/test_memory \
	tests/unit/test_format tests/unit/test_topology tests/unit/test_places tests/unit/test_partition \
	tests/unit/test_profile tests/unit/test_task_queue tests/unit/test_steal \
	tests/unit/test_tree tests/unit/test_home tests/unit/test_gap tests/unit/test_kmp_env
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
UNIT_CFLAGS = $(AM_CFLAGS) -pthread $(CHECK_CFLAGS)
UNIT_LDADD = libomp-lite-internal.la $(CHECK_LIBS) -lpthread

tests_unit_test_kmp_env_SOURCES = tests/unit/test_kmp_env.c
tests_unit_test_kmp_env_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_kmp_env_LDADD = $(UNIT_LDADD)
tests_unit_test_gap_SOURCES = tests/unit/test_gap.c
tests_unit_test_gap_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_gap_LDADD = $(UNIT_LDADD)
tests_unit_test_home_SOURCES = tests/unit/test_home.c
tests_unit_test_home_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_home_LDADD = $(UNIT_LDADD)
tests_unit_test_tree_SOURCES = tests/unit/test_tree.c
tests_unit_test_tree_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_tree_LDADD = $(UNIT_LDADD)
tests_unit_test_steal_SOURCES = tests/unit/test_steal.c
tests_unit_test_steal_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_steal_LDADD = $(UNIT_LDADD)
tests_unit_test_profile_SOURCES = tests/unit/test_profile.c
tests_unit_test_profile_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_profile_LDADD = $(UNIT_LDADD)
tests_unit_test_env_SOURCES = tests/unit/test_env.c
tests_unit_test_env_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_env_LDADD = $(UNIT_LDADD)
tests_unit_test_lock_SOURCES = tests/unit/test_lock.c
tests_unit_test_lock_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_lock_LDADD = $(UNIT_LDADD)
tests_unit_test_barrier_SOURCES = tests/unit/test_barrier.c
tests_unit_test_barrier_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_barrier_LDADD = $(UNIT_LDADD)
tests_unit_test_team_SOURCES = tests/unit/test_team.c
tests_unit_test_team_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_team_LDADD = $(UNIT_LDADD)
tests_unit_test_site_SOURCES = tests/unit/test_site.c
tests_unit_test_site_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_site_LDADD = $(UNIT_LDADD)
tests_unit_test_tiny_SOURCES = tests/unit/test_tiny.c
tests_unit_test_tiny_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_tiny_LDADD = $(UNIT_LDADD)
tests_unit_test_balance_SOURCES = tests/unit/test_balance.c
tests_unit_test_balance_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_balance_LDADD = $(UNIT_LDADD)
tests_unit_test_memory_SOURCES = tests/unit/test_memory.c
tests_unit_test_memory_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_memory_LDADD = $(UNIT_LDADD)
tests_unit_test_format_SOURCES = tests/unit/test_format.c
tests_unit_test_format_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_format_LDADD = $(UNIT_LDADD)
tests_unit_test_topology_SOURCES = tests/unit/test_topology.c
tests_unit_test_topology_CFLAGS = $(UNIT_CFLAGS) $(HWLOC_CFLAGS)
tests_unit_test_topology_LDADD = $(UNIT_LDADD) $(HWLOC_LIBS)
tests_unit_test_places_SOURCES = tests/unit/test_places.c
tests_unit_test_places_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_places_LDADD = $(UNIT_LDADD)
tests_unit_test_partition_SOURCES = tests/unit/test_partition.c
tests_unit_test_partition_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_partition_LDADD = $(UNIT_LDADD)
tests_unit_test_task_queue_SOURCES = tests/unit/test_task_queue.c
tests_unit_test_task_queue_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_task_queue_LDADD = $(UNIT_LDADD)
endif

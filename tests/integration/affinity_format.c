/* affinity_format: the affinity display routines (omp_set/get_affinity_format,
   omp_capture_affinity, omp_display_affinity) and the format of OMP_AFFINITY_FORMAT, with
   libgomp 12's output: every field, short and long names, against what the omp_* routines and
   the operating system say (%i is pthread_self() in hex, as libgomp prints it; %A the calling
   thread's affinity mask as a list with ranges), in every thread of teams, nested regions and
   host teams; the width forms; truncation and the returned length; the round trip of the
   format; omp_display_affinity's lines on stderr.

   usage: affinity_format             all of it, OMP_AFFINITY_FORMAT unset
          affinity_format env         the same, but affinity-format-var starts as
                                      OMP_AFFINITY_FORMAT says
          affinity_format bad FORMAT  expands FORMAT, which must stop the program (exit 1)
          affinity_format display     one region of 2 threads, then omp_display_affinity(NULL):
                                      with OMP_DISPLAY_AFFINITY=true, 3 lines on stderr in
                                      affinity-format-var (run-routes.sh reads them) */
#include "lite_check.h"
#include <omp.h>
#include <pthread.h>
#include <sched.h>

#define DEFAULT_FORMAT "level %L thread %i affinity %A"

static const char *initial_format = DEFAULT_FORMAT;

/* FORMAT must expand to EXPECT for the calling thread, with the right length, into a buffer
   that fits. */
static void expect_capture(const char *format, const char *expect)
{
    char buf[4096];
    size_t n = omp_capture_affinity(buf, sizeof buf, format);
    LITE_EXPECT(strcmp(buf, expect) == 0, "'%s' (level %d, thread %d) gave '%s', expected '%s'",
                format, omp_get_level(), omp_get_thread_num(), buf, expect);
    LITE_EXPECT(n == strlen(expect), "'%s' returned length %zu, expected %zu", format, n,
                strlen(expect));
}

static void expect_int(const char *format, long value)
{
    char want[32];
    snprintf(want, sizeof want, "%ld", value);
    expect_capture(format, want);
}

/* The CPUs the process started with, read in main before any region. */
static cpu_set_t initial_mask;

/* A set as libgomp prints it: "0-3,8". */
static void format_cpu_set(const cpu_set_t *mask, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, mask))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, mask))
            last++;
        if (last > c)
            len += (size_t)snprintf(out + len, size - len, "%s%d-%d", len ? "," : "", c, last);
        else
            len += (size_t)snprintf(out + len, size - len, "%s%d", len ? "," : "", c);
        c = last;
    }
}

/* What %A prints for the calling thread, as libgomp prints it: its place's CPUs when it is
   bound, else the process's initial mask (not the thread's mask of the moment). */
static void expected_cpu_list(char *out, size_t size)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    int place = omp_get_place_num();
    if (place < 0) {
        set = initial_mask;
    } else {
        int ids[CPU_SETSIZE];
        int n = omp_get_place_num_procs(place);
        omp_get_place_proc_ids(place, ids);
        for (int i = 0; i < n; i++)
            CPU_SET(ids[i], &set);
    }
    format_cpu_set(&set, out, size);
}

/* Every field of the calling thread, by letter and by long name. */
static void check_fields(void)
{
    char want[4096], host[256];
    expect_int("%t", omp_get_team_num());
    expect_int("%{team_num}", omp_get_team_num());
    expect_int("%T", omp_get_num_teams());
    expect_int("%{num_teams}", omp_get_num_teams());
    expect_int("%L", omp_get_level());
    expect_int("%{nesting_level}", omp_get_level());
    expect_int("%n", omp_get_thread_num());
    expect_int("%{thread_num}", omp_get_thread_num());
    expect_int("%N", omp_get_num_threads());
    expect_int("%{num_threads}", omp_get_num_threads());
    expect_int("%a", omp_get_ancestor_thread_num(omp_get_level() - 1));
    expect_int("%{ancestor_tnum}", omp_get_ancestor_thread_num(omp_get_level() - 1));
    expect_int("%P", (long)getpid());
    expect_int("%{process_id}", (long)getpid());
    LITE_EXPECT(gethostname(host, sizeof host) == 0, "gethostname failed");
    host[sizeof host - 1] = '\0';
    expect_capture("%H", host);
    expect_capture("%{host}", host);
    snprintf(want, sizeof want, "0x%lx", (unsigned long)pthread_self());
    expect_capture("%i", want);
    expect_capture("%{native_thread_id}", want);
    expected_cpu_list(want, sizeof want);
    expect_capture("%A", want);
    expect_capture("%{thread_affinity}", want);
    /* All together, with text around them. */
    char all[4096], cpus[2048];
    expected_cpu_list(cpus, sizeof cpus);
    snprintf(all, sizeof all, "[%d/%d] L%d n%d/%d a%d H%s P%ld i0x%lx A%s %%", omp_get_team_num(),
             omp_get_num_teams(), omp_get_level(), omp_get_thread_num(), omp_get_num_threads(),
             omp_get_ancestor_thread_num(omp_get_level() - 1), host, (long)getpid(),
             (unsigned long)pthread_self(), cpus);
    expect_capture("[%t/%T] L%L n%n/%N a%a H%H P%P i%i A%A %%", all);
}

/* The size forms: width, "." (right), "0." (zeros; text values get spaces on the left). At level
   0, outside any region. */
static void check_widths(void)
{
    expect_capture("%5n|", "0    |");
    expect_capture("%.5n|", "    0|");
    expect_capture("%0.5n|", "00000|");
    expect_capture("%1n|%.1n|%0.1n", "0|0|0");
    expect_capture("%3a|%.3a|%0.3a|%0.2a|%0.1a", "-1 | -1|-01|-1|-1");
    expect_capture("%0.3{thread_num}|%4{nesting_level}|", "000|0   |");
    expect_capture("%12{num_threads}|", "1           |");
    char want[8192], host[256], cpus[2048], hex[64];
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    snprintf(want, sizeof want, "%-80s|%80s|%80s|", host, host, host);
    expect_capture("%80H|%.80H|%0.80H|", want);
    expected_cpu_list(cpus, sizeof cpus);
    snprintf(want, sizeof want, "%-70s|%70s|%70s|", cpus, cpus, cpus);
    expect_capture("%70A|%.70A|%0.70A|", want);
    /* %i: the zeros go after "0x". */
    snprintf(hex, sizeof hex, "0x%lx", (unsigned long)pthread_self());
    snprintf(want, sizeof want, "0x%030lx|%-32s|%32s|%s", (unsigned long)pthread_self(), hex, hex,
             hex);
    expect_capture("%0.32i|%32i|%.32i|%0.3i", want);
    expect_capture("%%|%%%%|a%%b%%", "%|%%|a%b%");
}

/* Truncation: the text cut to size - 1 and a NUL, nothing written past size; the returned length
   is the full one whatever the size. */
static void check_truncation(void)
{
    const char *format = "abc%0.5n%%xyz";  /* "abc00000%xyz", 12 characters */
    const char *full = "abc00000%xyz";
    size_t len = strlen(full);
    LITE_EXPECT(omp_capture_affinity(NULL, 0, format) == len, "size 0: wrong length");
    for (size_t size = 0; size <= len + 2; size++) {
        char buf[32];
        memset(buf, 'Z', sizeof buf);
        size_t n = omp_capture_affinity(buf, size, format);
        LITE_EXPECT(n == len, "size %zu: returned %zu, expected %zu", size, n, len);
        if (size == 0) {
            LITE_EXPECT(buf[0] == 'Z', "size 0: the buffer was written");
            continue;
        }
        size_t kept = size - 1 < len ? size - 1 : len;
        LITE_EXPECT(memcmp(buf, full, kept) == 0 && buf[kept] == '\0',
                    "size %zu: got '%.*s', expected the first %zu characters", size, (int)kept,
                    buf, kept);
        for (size_t i = size; i < sizeof buf; i++)
            LITE_EXPECT(buf[i] == 'Z', "size %zu: byte %zu written", size, i);
    }
    /* A long text (wider than any internal buffer) comes back whole. */
    static char big[20000];
    size_t n = omp_capture_affinity(big, sizeof big, "%9000n|%.9000L");
    LITE_EXPECT(n == 18001 && big[0] == '0' && big[8999] == ' ' && big[9000] == '|' &&
                big[18000] == '0' && big[18001] == '\0', "a 18001-character text: length %zu", n);
}

/* affinity-format-var: its initial value, the round trip, truncation in
   omp_get_affinity_format, and NULL or "" formats meaning it. */
static void check_format_var(void)
{
    char buf[256];
    size_t n = omp_get_affinity_format(buf, sizeof buf);
    LITE_EXPECT(strcmp(buf, initial_format) == 0 && n == strlen(initial_format),
                "initial affinity-format-var '%s' (%zu), expected '%s'", buf, n, initial_format);
    LITE_EXPECT(omp_get_affinity_format(NULL, 0) == strlen(initial_format), "size 0: length");

    omp_set_affinity_format("T%n of %N at %L");
    n = omp_get_affinity_format(buf, sizeof buf);
    LITE_EXPECT(n == 15 && strcmp(buf, "T%n of %N at %L") == 0, "round trip: '%s' (%zu)", buf, n);
    memset(buf, 'Z', sizeof buf);
    n = omp_get_affinity_format(buf, 5);
    LITE_EXPECT(n == 15 && strcmp(buf, "T%n ") == 0 && buf[5] == 'Z', "size 5: '%s' (%zu)", buf, n);
    n = omp_get_affinity_format(buf, 1);
    LITE_EXPECT(n == 15 && buf[0] == '\0', "size 1: not empty");
    expect_capture(NULL, "T0 of 1 at 0");
    expect_capture("", "T0 of 1 at 0");

    /* Every thread sees the new format; a team sets and reads it. */
    int bad = 0;
#pragma omp parallel num_threads(3) reduction(+ : bad)
    {
        char line[64], want[64];
        omp_capture_affinity(line, sizeof line, NULL);
        snprintf(want, sizeof want, "T%d of %d at 1", omp_get_thread_num(), omp_get_num_threads());
        bad += strcmp(line, want) != 0;
    }
    LITE_EXPECT(bad == 0, "%d threads did not expand the format just set", bad);
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        omp_set_affinity_format("%n~%L");
        char line[64];
        omp_capture_affinity(line, sizeof line, NULL);
        LITE_EXPECT(line[0] == '0' + omp_get_thread_num() && strcmp(line + 1, "~1") == 0,
                    "format set in a region: '%s'", line);
    }
    /* Concurrent setters and readers: every read is one of the formats set, whole. (Stock
       libgomp rewrites the string in place: a reader can get "odd %normat %L".) */
#pragma omp parallel num_threads(4) if (!lite_stock_mode())
    for (int i = 0; i < 2000; i++) {
        if (omp_get_thread_num() % 2 == 0) {
            omp_set_affinity_format(i % 2 ? "odd %n" : "even format %L");
        } else {
            char line[64];
            omp_get_affinity_format(line, sizeof line);
            LITE_EXPECT(strcmp(line, "odd %n") == 0 || strcmp(line, "even format %L") == 0 ||
                        strcmp(line, "%n~%L") == 0, "a concurrent read got '%s'", line);
        }
    }
    omp_set_affinity_format("");
    LITE_EXPECT(omp_get_affinity_format(buf, sizeof buf) == 0 && buf[0] == '\0', "empty format");
    expect_capture(NULL, "");
    omp_set_affinity_format(initial_format);
}

/* Nested teams: %L, %a, %n, %N of the inner threads; an inactive (one-thread) inner region. */
static void check_nested(void)
{
    omp_set_max_active_levels(3);
    int ran = 0;
#pragma omp parallel num_threads(2) reduction(+ : ran)
    {
        check_fields();
        int outer = omp_get_thread_num();
#pragma omp parallel num_threads(3) reduction(+ : ran)
        {
            check_fields();
            expect_int("%L", 2);
            expect_int("%a", outer);
            expect_int("%N", omp_get_num_threads());
#pragma omp parallel num_threads(2) reduction(+ : ran)
            {
                check_fields();
                expect_int("%L", 3);
                ran++;
            }
        }
#pragma omp parallel if (0)
        {
            check_fields();
            expect_int("%L", 2);
            expect_int("%a", outer);
            expect_capture("%N %n", "1 0");
        }
    }
    LITE_EXPECT(ran > 0, "the innermost regions did not run");
}

/* Host teams: %t and %T. gcc allows no omp_capture_affinity call right inside a teams region,
   but a function called from it may make one. */
static int __attribute__((noinline)) team_line_wrong(void)
{
    char line[64], want[64];
    omp_capture_affinity(line, sizeof line, "%t/%T %{team_num}/%{num_teams}");
    snprintf(want, sizeof want, "%d/%d %d/%d", omp_get_team_num(), omp_get_num_teams(),
             omp_get_team_num(), omp_get_num_teams());
    return strcmp(line, want) != 0;
}

static void check_teams(void)
{
    int bad = 0, teams = 0;
#pragma omp teams num_teams(3) reduction(+ : bad, teams)
    {
        bad += team_line_wrong();
        teams++;
    }
    LITE_EXPECT(bad == 0, "%d of %d teams expanded %%t/%%T wrongly", bad, teams);
}

/* %A does not follow a thread's mask of the moment: a thread that narrows its own mask to one
   CPU still shows its place, or the process's CPUs (libomp-lite's oversubscription balancer
   narrows a worker's mask for a few µs, and a display that caught it showed "1" for "0-1"). */
static void check_mask_of_the_moment(void)
{
    cpu_set_t all;
    LITE_EXPECT(sched_getaffinity(0, sizeof all, &all) == 0, "sched_getaffinity failed");
    int cpus[CPU_SETSIZE], ncpus = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all))
            cpus[ncpus++] = c;
#pragma omp parallel num_threads(3)
    {
        char want[2048], got[2048];
        expected_cpu_list(want, sizeof want);
        cpu_set_t saved, one;
        sched_getaffinity(0, sizeof saved, &saved);
        CPU_ZERO(&one);
        CPU_SET(cpus[omp_get_thread_num() % ncpus], &one);
        LITE_EXPECT(sched_setaffinity(0, sizeof one, &one) == 0, "sched_setaffinity failed");
        omp_capture_affinity(got, sizeof got, "%A");
        sched_setaffinity(0, sizeof saved, &saved);
        LITE_EXPECT(strcmp(got, want) == 0, "%%A with the mask narrowed (thread %d) gave '%s', "
                    "expected '%s'", omp_get_thread_num(), got, want);
    }
}

/* omp_display_affinity: one line per call on stderr, with a newline; NULL and "" mean
   affinity-format-var. */
static void check_display(void)
{
    char path[] = "/tmp/lite-affinity-XXXXXX";
    int fd = mkstemp(path);
    LITE_EXPECT(fd >= 0, "mkstemp failed");
    unlink(path);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    omp_set_affinity_format("fmt %n");
    omp_display_affinity(NULL);
    omp_display_affinity("");
#pragma omp parallel num_threads(4)
    for (int i = 0; i < 50; i++)
        omp_display_affinity("line %n of %N at %L");
    omp_display_affinity("%700n|");  /* longer than a line buffer */
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    omp_set_affinity_format(initial_format);

    static char text[20000];
    ssize_t len = pread(fd, text, sizeof text - 1, 0);
    close(fd);
    LITE_EXPECT(len > 0, "omp_display_affinity wrote nothing on stderr");
    text[len] = '\0';
    int counts[4] = { 0 }, lines = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lines++;
        if (lines <= 2) {
            LITE_EXPECT(strcmp(line, "fmt 0") == 0, "line %d: '%s', expected 'fmt 0'", lines, line);
            continue;
        }
        if (lines == 203) {
            LITE_EXPECT(strlen(line) == 701 && line[0] == '0' && line[699] == ' ' &&
                        line[700] == '|', "the long line is wrong (%zu characters)", strlen(line));
            continue;
        }
        int n = -1;
        char rest[16];
        LITE_EXPECT(sscanf(line, "line %d of 4 at 1%15s", &n, rest) == 1 && n >= 0 && n < 4,
                    "line %d: '%s'", lines, line);
        counts[n]++;
    }
    LITE_EXPECT(lines == 203, "%d lines on stderr, expected 203", lines);
    for (int t = 0; t < 4; t++)
        LITE_EXPECT(counts[t] == 50, "thread %d displayed %d lines, expected 50", t, counts[t]);
}

int main(int argc, char **argv)
{
    LITE_CHECK("affinity_format");
    LITE_EXPECT(sched_getaffinity(0, sizeof initial_mask, &initial_mask) == 0,
                "sched_getaffinity failed");
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "bad") == 0) {
        char buf[64];
        omp_capture_affinity(buf, sizeof buf, argc > 2 ? argv[2] : "%");
        printf("affinity_format: '%s' did not stop the program\n", argc > 2 ? argv[2] : "%");
        return 0;
    }
    if (strcmp(mode, "display") == 0) {
        int members = 0;
#pragma omp parallel num_threads(2) reduction(+ : members)
        members++;
        LITE_EXPECT(members == 2, "a region of 2 threads had %d", members);
        omp_display_affinity(NULL);
        printf("affinity_format: display done\n");
        return 0;
    }
    if (strcmp(mode, "env") == 0) {
        initial_format = getenv("OMP_AFFINITY_FORMAT");
        LITE_EXPECT(initial_format != NULL, "'env' without OMP_AFFINITY_FORMAT");
    }

    check_format_var();
    check_fields();
    check_widths();
    check_truncation();
#pragma omp parallel num_threads(4)
    check_fields();
    check_nested();
    check_teams();
    check_mask_of_the_moment();
    check_display();
    printf("affinity_format: OK\n");
    return 0;
}

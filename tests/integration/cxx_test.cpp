// C++ on the runtime (g++ -fopenmp): objects with constructors and destructors in parallel
// regions (locals, private, firstprivate, and firstprivate of tasks, deferred or not: every
// construction matched by one destruction),
// std::vector reductions through declare reduction, exceptions thrown and caught inside the region
// by every thread at once, std::string built under critical.
//
// usage: cxx_test [THREADS]
#include "lite_check.h"
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::atomic<long> constructed{0}, copied{0}, destroyed{0};

class Counted {
public:
    Counted() : value_(42), buffer_(new int[16]) { constructed++; }
    Counted(const Counted &o) : value_(o.value_), buffer_(new int[16]) { copied++; }
    Counted &operator=(const Counted &o) { value_ = o.value_; return *this; }
    ~Counted() { delete[] buffer_; destroyed++; }
    int value() const { return value_; }
    void set(int v) { value_ = v; buffer_[v % 16] = v; }
private:
    int value_;
    int *buffer_;
};

void vec_add(std::vector<long> &out, const std::vector<long> &in)
{
    for (size_t i = 0; i < out.size(); i++)
        out[i] += in[i];
}

void vec_cat(std::vector<int> &out, const std::vector<int> &in)
{
    out.insert(out.end(), in.begin(), in.end());
}

}  // namespace

#pragma omp declare reduction(vec_plus : std::vector<long> : vec_add(omp_out, omp_in)) \
    initializer(omp_priv = std::vector<long>(omp_orig.size(), 0))
#pragma omp declare reduction(vec_cat : std::vector<int> : vec_cat(omp_out, omp_in)) \
    initializer(omp_priv = std::vector<int>())

int main(int argc, char **argv)
{
    LITE_CHECK("cxx_test");
    int want = argc > 1 ? atoi(argv[1]) : 0;
    int nt = want > 0 ? want : omp_get_max_threads();

    // Objects in regions: locals, private (default-constructed), firstprivate (copied).
    {
        Counted shared_obj;
        shared_obj.set(7);
        long before_c = constructed, before_k = copied;
        int bad = 0;
        for (int rep = 0; rep < 200; rep++) {
#pragma omp parallel num_threads(nt) reduction(+:bad)
            {
                Counted local;
                local.set(omp_get_thread_num());
                if (local.value() != omp_get_thread_num())
                    bad++;
            }
            Counted p;
#pragma omp parallel num_threads(nt) private(p) reduction(+:bad)
            {
                if (p.value() != 42)  // default-constructed in each thread
                    bad++;
                p.set(omp_get_thread_num() + 100);
            }
#pragma omp parallel num_threads(nt) firstprivate(shared_obj) reduction(+:bad)
            {
                if (shared_obj.value() != 7)
                    bad++;
                shared_obj.set(omp_get_thread_num());
            }
        }
        LITE_EXPECT(bad == 0, "%d objects had wrong values in the region", bad);
        LITE_EXPECT(shared_obj.value() == 7, "firstprivate changed the original");
        LITE_EXPECT(constructed - before_c >= 200L * (2 * nt + 1),
                    "only %ld default constructions for %d regions of %d threads",
                    constructed - before_c, 400, nt);
        LITE_EXPECT(copied - before_k >= 200L * nt, "only %ld copy constructions for "
                    "firstprivate", copied - before_k);
    }
    LITE_EXPECT(constructed + copied == destroyed, "%ld constructions and %ld copies but %ld "
                "destructions", (long)constructed, (long)copied, (long)destroyed);

    // Tasks with firstprivate objects: gcc copy-constructs them (GOMP_task's cpyfn); an
    // undeferred task (if (0), final) copies them on its creator's stack, a deferred one in its
    // block; every copy is destroyed, and the body sees it.
    {
        Counted orig;
        orig.set(11);
        long before_k = copied;
        int bad = 0, ran = 0;
#pragma omp parallel num_threads(nt) reduction(+:bad, ran)
        for (int i = 0; i < 100; i++) {
#pragma omp task if (i % 2 == 0) firstprivate(orig) shared(bad, ran)
            {
                if (orig.value() != 11)
#pragma omp atomic
                    bad++;
                orig.set(i);
#pragma omp atomic
                ran++;
            }
#pragma omp task final(1) firstprivate(orig) shared(bad, ran)
            {
#pragma omp task if (0) firstprivate(orig) shared(bad, ran)
                {
                    if (orig.value() != 11)
#pragma omp atomic
                        bad++;
#pragma omp atomic
                    ran++;
                }
            }
#pragma omp taskwait
        }
        LITE_EXPECT(bad == 0, "%d tasks saw a wrong firstprivate object", bad);
        LITE_EXPECT(ran == 200 * nt, "%d task bodies ran, expected %d", ran, 200 * nt);
        LITE_EXPECT(copied - before_k >= 300L * nt, "only %ld copy constructions for the "
                    "firstprivate objects of %d tasks", copied - before_k, 300 * nt);
        LITE_EXPECT(orig.value() == 11, "a task's firstprivate changed the original");
    }
    LITE_EXPECT(constructed + copied == destroyed, "after the tasks: %ld constructions and %ld "
                "copies but %ld destructions", (long)constructed, (long)copied, (long)destroyed);

    // std::vector reductions.
    const int bins = 37, items = 100000;
    std::vector<long> hist(bins, 0);
#pragma omp parallel for num_threads(nt) reduction(vec_plus : hist) schedule(static)
    for (int i = 0; i < items; i++)
        hist[i % bins] += i % 5;
    for (int b = 0; b < bins; b++) {
        long expect = 0;
        for (int i = b; i < items; i += bins)
            expect += i % 5;
        LITE_EXPECT(hist[b] == expect, "vector reduction: bin %d is %ld, expected %ld", b, hist[b],
                    expect);
    }
    std::vector<int> all;
#pragma omp parallel num_threads(nt) reduction(vec_cat : all)
    for (int k = 0; k < 100; k++)
        all.push_back(omp_get_thread_num() * 100 + k);
    std::sort(all.begin(), all.end());
    LITE_EXPECT((int)all.size() == nt * 100, "vector concatenation: %zu elements, expected %d",
                all.size(), nt * 100);
    for (int i = 0; i < nt * 100; i++)
        LITE_EXPECT(all[i] == i, "vector concatenation: element %d is %d", i, all[i]);

    // Exceptions thrown and caught inside the region, by all threads at once, many times.
    long caught = 0, wrong = 0;
#pragma omp parallel num_threads(nt) reduction(+:caught, wrong)
    for (int i = 0; i < 500; i++) {
        try {
            Counted guard;  // unwound by the exception
            if (i % 2 == 0)
                throw std::runtime_error("thread " + std::to_string(omp_get_thread_num()));
            throw i;
        } catch (const std::runtime_error &e) {
            if (e.what() != "thread " + std::to_string(omp_get_thread_num()))
                wrong++;
            caught++;
        } catch (int v) {
            if (v != i)
                wrong++;
            caught++;
        }
    }
    LITE_EXPECT(caught == 500L * nt && wrong == 0, "exceptions: %ld caught (expected %ld), %ld "
                "with the wrong payload", caught, 500L * nt, wrong);
    LITE_EXPECT(constructed + copied == destroyed, "after the exceptions: %ld constructions and "
                "%ld copies but %ld destructions", (long)constructed, (long)copied,
                (long)destroyed);

    // std::string under critical.
    std::string log;
#pragma omp parallel num_threads(nt)
    for (int i = 0; i < 50; i++) {
#pragma omp critical
        log += static_cast<char>('a' + omp_get_thread_num() % 26);
    }
    LITE_EXPECT((int)log.size() == 50 * nt, "string under critical: %zu characters, expected %d",
                log.size(), 50 * nt);

    printf("cxx_test: OK (%d threads)\n", nt);
    return 0;
}

// The cache of freed blocks that the CPU and each GPU allocate through (tinyamp/support/block_cache.h).
#include <doctest/doctest.h>

#include <cstdlib>
#include <set>

#include "tinyamp/support/block_cache.h"

namespace {

std::set<void*>* g_freed = nullptr;  // what the cache handed back to the "system"
void record_free(void* p)
{
    g_freed->insert(p);
    std::free(p);
}

}  // namespace

TEST_CASE("BlockCache reuses a block only for the same size, and keeps within its bounds")
{
    std::set<void*> freed;
    g_freed = &freed;
    {
        tinyamp::detail::BlockCache<void (*)(void*)> cache(/*max_cached_bytes=*/1024, /*max_block_bytes=*/512, &record_free);
        CHECK(cache.take(256) == nullptr);  // empty
        void* a = std::malloc(256);
        void* b = std::malloc(512);
        cache.give_back(a, 256);
        cache.give_back(b, 512);
        CHECK(cache.cached_bytes() == 768);
        CHECK(freed.empty());
        CHECK(cache.take(384) == nullptr);  // exact sizes only: no block is split or handed out too big
        CHECK(cache.take(256) == a);
        CHECK(cache.take(256) == nullptr);  // taken out: nobody else gets it
        CHECK(cache.cached_bytes() == 512);

        void* too_big = std::malloc(1000);
        cache.give_back(too_big, 1000);  // over max_block_bytes: freed at once
        CHECK(freed.count(too_big) == 1);
        void* c = std::malloc(512);
        void* d = std::malloc(512);
        cache.give_back(c, 512);  // 1024 cached: full
        cache.give_back(d, 512);  // would be 1536: freed
        CHECK(cache.cached_bytes() == 1024);
        CHECK(freed.count(d) == 1);
        CHECK(freed.count(c) == 0);

        cache.release_all();  // torch.cuda.empty_cache()
        CHECK(cache.cached_bytes() == 0);
        CHECK(freed.count(b) == 1);
        CHECK(freed.count(c) == 1);
        CHECK(cache.take(512) == nullptr);
        cache.give_back(a, 256);
    }
    CHECK(freed.size() == 5);  // the destructor freed the last cached block (a)
    g_freed = nullptr;
}

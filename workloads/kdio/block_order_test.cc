#include "block_order.h"

#include <gtest/gtest.h>

#include <vector>

namespace kdio {
namespace {

TEST(BlockOrder, VisitsEveryBlockOncePerPass) {
  for (uint64_t blocks : {1ull, 2ull, 3ull, 7ull, 64ull, 1000ull, 4097ull, 262144ull}) {
    BlockOrder order;
    order.reset(blocks, 1234);
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<bool> seen(blocks);
      for (uint64_t i = 0; i < blocks; ++i) {
        uint64_t b = order.next();
        ASSERT_LT(b, blocks);
        ASSERT_FALSE(seen[b]) << "block " << b << " twice in a pass of " << blocks;
        seen[b] = true;
      }
    }
  }
}

TEST(BlockOrder, IsNotSequential) {
  BlockOrder order;
  order.reset(100000, 5);
  int ascending = 0;
  uint64_t prev = order.next();
  for (int i = 0; i < 10000; ++i) {
    uint64_t b = order.next();
    if (b == prev + 1) ++ascending;
    prev = b;
  }
  EXPECT_LT(ascending, 100);
}

TEST(BlockOrder, SeedChangesTheOrder) {
  BlockOrder a, b;
  a.reset(1 << 20, 1);
  b.reset(1 << 20, 2);
  int same = 0;
  for (int i = 0; i < 1000; ++i) same += a.next() == b.next();
  EXPECT_LT(same, 10);
}

TEST(BlockMap, ClaimStopsAtADoneBlockAndAtTheEnd) {
  BlockMap map;
  map.reset(130);
  EXPECT_EQ(map.claim(10, 4), 4u);
  EXPECT_EQ(map.claim(8, 4), 2u);  // 10 is done
  EXPECT_EQ(map.claim(127, 4), 3u);
  EXPECT_TRUE(map.is_done(63) == false && map.is_done(129) && map.is_done(13));
  EXPECT_FALSE(map.full());
  EXPECT_EQ(map.claim(0, 200), 8u);
  EXPECT_EQ(map.claim(14, 200), 113u);  // across the 64-bit words, up to 127
  EXPECT_TRUE(map.full());
  map.reset(130);
  EXPECT_FALSE(map.is_done(13));
}

TEST(BlockMap, NextFreeLooksAheadThenWrapsAround) {
  BlockMap map;
  map.reset(200);
  EXPECT_EQ(map.next_free(70), 70u);
  map.claim(70, 100);  // 70..169
  EXPECT_EQ(map.next_free(75), 170u);
  map.claim(170, 30);  // up to the end
  EXPECT_EQ(map.next_free(190), 0u);
  map.claim(0, 69);
  EXPECT_EQ(map.next_free(120), 69u);  // back in the word the search started in
}

TEST(Rng, BelowStaysInRangeAndCoversIt) {
  Rng rng(9);
  std::vector<int> hits(10);
  for (int i = 0; i < 10000; ++i) {
    uint64_t v = rng.below(10);
    ASSERT_LT(v, 10u);
    ++hits[v];
  }
  for (int h : hits) EXPECT_GT(h, 800);
}

}  // namespace
}  // namespace kdio

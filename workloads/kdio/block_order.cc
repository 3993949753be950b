#include "block_order.h"

#include <bit>

namespace kdio {

void BlockOrder::reset(uint64_t blocks, uint64_t seed) {
  blocks_ = blocks == 0 ? 1 : blocks;
  unsigned bits = 1;
  while (bits < 64 && (uint64_t{1} << bits) < blocks_) ++bits;
  mask_ = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  shift_ = bits / 2 + 1;
  state_ = seed & mask_;
}

void BlockMap::reset(uint64_t blocks) {
  bits_.assign((blocks + 63) / 64, 0);
  if (blocks % 64 != 0) bits_.back() = ~uint64_t{0} << (blocks % 64);
  blocks_ = blocks;
  done_ = 0;
}

uint64_t BlockMap::next_free(uint64_t block) const {
  const uint64_t words = bits_.size();
  uint64_t word = block / 64;
  uint64_t free = ~bits_[word] & (~uint64_t{0} << (block % 64));
  // Past the last word the search wraps around, back to the bits before `block` in its word.
  for (uint64_t i = 0; free == 0 && i < words; ++i) {
    word = (word + 1) % words;
    free = ~bits_[word];
  }
  return word * 64 + static_cast<uint64_t>(std::countr_zero(free));
}

uint64_t BlockMap::claim(uint64_t first, uint64_t count) {
  uint64_t block = first;
  while (block < blocks_ && block - first < count && !is_done(block)) {
    bits_[block / 64] |= uint64_t{1} << (block % 64);
    ++block;
  }
  done_ += block - first;
  return block - first;
}

}  // namespace kdio

#include "block_order.h"

namespace kdio {

void BlockOrder::reset(uint64_t blocks, uint64_t seed) {
  blocks_ = blocks == 0 ? 1 : blocks;
  unsigned bits = 1;
  while (bits < 64 && (uint64_t{1} << bits) < blocks_) ++bits;
  mask_ = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  shift_ = bits / 2 + 1;
  state_ = seed & mask_;
}

}  // namespace kdio

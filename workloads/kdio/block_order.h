// Random offsets without repeats (fio's random map). BlockOrder offers every block of a file
// exactly once per pass, in a scrambled order, with no memory per block: a full-period LCG over
// the next power of two, passed through a bijective bit mixer, skipping values beyond the block
// count. BlockMap remembers the blocks done, for I/Os longer than one block.
#pragma once

#include <cstdint>
#include <vector>

namespace kdio {

// splitmix64: a small, fast, well-mixed generator for sizes, directions and norandommap offsets.
class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound), bound > 0.
  uint64_t below(uint64_t bound) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * bound) >> 64);
  }

 private:
  uint64_t state_;
};

class BlockOrder {
 public:
  void reset(uint64_t blocks, uint64_t seed);
  uint64_t next() {
    for (;;) {
      state_ = (state_ * kMul + kInc) & mask_;
      uint64_t x = mix(state_);
      if (x < blocks_) return x;
    }
  }

 private:
  static constexpr uint64_t kMul = 6364136223846793005ull;  // = 1 mod 4: full period
  static constexpr uint64_t kInc = 1442695040888963407ull;  // odd: full period
  uint64_t mix(uint64_t x) const {
    x ^= x >> shift_;
    x = (x * 0x9e3779b97f4a7c15ull) & mask_;  // odd multiplier: a bijection mod 2^bits
    x ^= x >> shift_;
    return x;
  }

  uint64_t blocks_ = 1;
  uint64_t mask_ = 0;
  unsigned shift_ = 1;
  uint64_t state_ = 0;
};

// Which blocks of a file the current pass has done (fio's random map, at the smallest block
// size): an I/O starts on a free block and is cut short before the next done one, so that with
// mixed block sizes no byte is done twice in a pass and the pass still covers every block.
class BlockMap {
 public:
  void reset(uint64_t blocks);
  bool full() const { return done_ == blocks_; }
  bool is_done(uint64_t block) const { return (bits_[block / 64] >> (block % 64)) & 1; }
  // The first free block from `block` on, else the first free one (fio's axmap_next_free);
  // the map must not be full.
  uint64_t next_free(uint64_t block) const;
  // Marks up to `count` blocks from `first` on as done, stopping at a done block or the end of
  // the file; returns how many it marked (at least 1 when `first` is free).
  uint64_t claim(uint64_t first, uint64_t count);

 private:
  std::vector<uint64_t> bits_;  // the bits past the last block are set, as if done
  uint64_t blocks_ = 0;
  uint64_t done_ = 0;
};

}  // namespace kdio

// The host side of the guest-to-host protocol on the serial console. The guest init
// (vmimages/guest/init) writes, each on its own line:
//   KBISECT-PROGRESS <phase>      phase: init, device, mkfs-done, mounted, workload-started
//   KBISECT-BEGIN <kind> <length> <sha256-hex>
//   KBISECT-DATA <base64>         the payload, in as many lines as it takes
//   KBISECT-END <kind>
// The guest and the kernel under test are untrusted, and kernel messages interleave with the
// frames: lines without a marker are ignored, and a frame counts only when its length and
// checksum match and it stays under the payload cap. Everything kept is bounded.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kbisect {

struct ConsoleLimits {
  size_t max_payload_bytes = 8u << 20;
  size_t max_frames = 4;     // later frames are rejected
  size_t max_progress = 64;  // later progress markers are dropped
  size_t max_errors = 16;    // later rejections are counted, not described
};

struct Frame {
  std::string kind;  // [a-z-]{1,32}
  std::string payload;
};

class ConsoleFrameParser {
 public:
  explicit ConsoleFrameParser(ConsoleLimits limits = {});

  // One console line without its newline; a trailing '\r' is ignored.
  void feed_line(std::string_view line);
  // Call once at the end of the stream: an open frame becomes a "truncated" rejection.
  void finish();

  const std::vector<std::string>& progress() const { return progress_; }
  bool saw_progress(std::string_view phase) const;
  const std::vector<Frame>& frames() const { return frames_; }
  // The first complete frame of that kind, or nullptr.
  const Frame* frame(std::string_view kind) const;
  // Why frames were rejected ("bad checksum in frame 'result'", ...), at most max_errors.
  const std::vector<std::string>& rejections() const { return rejections_; }
  size_t rejection_count() const { return rejection_count_; }
  // Whether a frame of that kind was rejected (of the first max_errors kinds).
  bool rejected(std::string_view kind) const;

 private:
  void begin(std::string_view arguments);
  void data(std::string_view arguments);
  void end(std::string_view arguments);
  // `kind`: the rejected frame's, when it is not the open frame's.
  void reject(std::string why, std::string_view kind = {});

  ConsoleLimits limits_;
  std::vector<std::string> progress_;
  std::vector<Frame> frames_;
  std::vector<std::string> rejections_;
  size_t rejection_count_ = 0;
  std::vector<std::string> rejected_kinds_;

  bool in_frame_ = false;
  std::string kind_;
  size_t length_ = 0;
  std::string checksum_;
  std::string payload_;
};

// Every line of `text` through a parser, then finish(): for tests, the fuzzer and log replays.
ConsoleFrameParser parse_console(std::string_view text, ConsoleLimits limits = {});

// Strict base64 (RFC 4648, padded, no whitespace); false on any invalid input.
bool decode_base64(std::string_view text, std::string& out);

}  // namespace kbisect

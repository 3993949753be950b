// libFuzzer target: arbitrary console output through the frame parser and the classifier.
// Whatever a hostile guest prints, they must not crash, hang or keep more than their caps.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vm/classify.h"
#include "vm/console_frame.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kbisect::ConsoleLimits limits;
  limits.max_payload_bytes = 4096;
  limits.max_frames = 2;
  auto parser = kbisect::parse_console(text, limits);
  size_t kept = 0;
  for (const auto& frame : parser.frames()) kept += frame.payload.size();
  if (kept > limits.max_frames * limits.max_payload_bytes) __builtin_trap();
  if (parser.rejections().size() > limits.max_errors) __builtin_trap();

  kbisect::ConsoleWatch watch(limits);
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string_view::npos; start = end + 1) {
    watch.line(text.substr(start, end - start));
  }
  watch.finish();
  for (auto end : {kbisect::VmEnd::kExited, kbisect::VmEnd::kDeadline,
                   kbisect::VmEnd::kConsoleFlood, kbisect::VmEnd::kQemuDied}) {
    auto verdict = kbisect::classify(watch, end, "10 s");
    if (verdict.detail.size() > 1024) __builtin_trap();
  }
  return 0;
}

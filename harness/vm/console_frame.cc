#include "vm/console_frame.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "common/lines.h"
#include "common/printable.h"
#include "common/sha256.h"

namespace kbisect {
namespace {

constexpr std::string_view kMarker = "KBISECT-";

bool is_name(std::string_view text) {
  return !text.empty() && text.size() <= 32 && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || c == '-';
  });
}

bool is_hex64(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// Splits "a b c" on single spaces into exactly `count` fields.
bool split_fields(std::string_view text, size_t count, std::vector<std::string_view>& fields) {
  fields.clear();
  while (fields.size() + 1 < count) {
    size_t space = text.find(' ');
    if (space == std::string_view::npos) return false;
    fields.push_back(text.substr(0, space));
    text.remove_prefix(space + 1);
  }
  if (text.find(' ') != std::string_view::npos) return false;
  fields.push_back(text);
  return true;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

bool decode_base64(std::string_view text, std::string& out) {
  if (text.size() % 4 != 0) return false;
  for (size_t i = 0; i < text.size(); i += 4) {
    int values[4];
    int padding = 0;
    for (int j = 0; j < 4; ++j) {
      char c = text[i + j];
      if (c == '=') {
        // Padding only in the last two places of the last quantum.
        if (i + 4 != text.size() || j < 2) return false;
        ++padding;
        values[j] = 0;
        continue;
      }
      if (padding > 0) return false;
      values[j] = base64_value(c);
      if (values[j] < 0) return false;
    }
    uint32_t bits = (values[0] << 18) | (values[1] << 12) | (values[2] << 6) | values[3];
    out += static_cast<char>(bits >> 16);
    if (padding < 2) out += static_cast<char>((bits >> 8) & 0xff);
    if (padding < 1) out += static_cast<char>(bits & 0xff);
  }
  return true;
}

ConsoleFrameParser::ConsoleFrameParser(ConsoleLimits limits) : limits_(limits) {}

void ConsoleFrameParser::feed_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // A kernel message may have been cut by ours: the marker counts wherever it starts.
  size_t at = line.find(kMarker);
  if (at == std::string_view::npos) return;
  line.remove_prefix(at + kMarker.size());
  size_t space = line.find(' ');
  std::string_view verb = line.substr(0, space);
  std::string_view arguments = space == std::string_view::npos ? "" : line.substr(space + 1);
  if (verb == "PROGRESS") {
    if (is_name(arguments) && progress_.size() < limits_.max_progress) {
      progress_.emplace_back(arguments);
    }
  } else if (verb == "BEGIN") {
    begin(arguments);
  } else if (verb == "DATA") {
    data(arguments);
  } else if (verb == "END") {
    end(arguments);
  }
}

void ConsoleFrameParser::begin(std::string_view arguments) {
  if (in_frame_) reject(fmt::format("frame '{}' interrupted by another BEGIN", kind_));
  std::vector<std::string_view> fields;
  size_t length = 0;
  if (!split_fields(arguments, 3, fields) || !is_name(fields[0]) || !is_hex64(fields[2])) {
    reject("malformed BEGIN line");
    return;
  }
  auto [end, error] =
      std::from_chars(fields[1].data(), fields[1].data() + fields[1].size(), length);
  if (error != std::errc() || end != fields[1].data() + fields[1].size()) {
    reject(fmt::format("bad length in frame '{}'", fields[0]), fields[0]);
    return;
  }
  if (length > limits_.max_payload_bytes) {
    reject(fmt::format("frame '{}' announces {} bytes, over the {}-byte cap", fields[0], length,
                       limits_.max_payload_bytes),
           fields[0]);
    return;
  }
  in_frame_ = true;
  kind_ = fields[0];
  length_ = length;
  checksum_ = fields[2];
  payload_.clear();
}

void ConsoleFrameParser::data(std::string_view arguments) {
  if (!in_frame_) {
    reject("DATA outside a frame");
    return;
  }
  if (!decode_base64(arguments, payload_)) {
    reject(fmt::format("invalid base64 in frame '{}'", kind_));
    return;
  }
  if (payload_.size() > length_) reject(fmt::format("frame '{}' longer than announced", kind_));
}

void ConsoleFrameParser::end(std::string_view arguments) {
  if (!in_frame_) {
    reject("END outside a frame");
    return;
  }
  if (arguments != kind_) {
    reject(fmt::format("frame '{}' ended as '{}'", kind_, printable_ascii(arguments, 32)));
    return;
  }
  if (payload_.size() != length_) {
    reject(fmt::format("frame '{}' has {} bytes, announced {}", kind_, payload_.size(), length_));
    return;
  }
  if (sha256_hex(payload_) != checksum_) {
    reject(fmt::format("bad checksum in frame '{}'", kind_));
    return;
  }
  in_frame_ = false;
  if (frames_.size() >= limits_.max_frames) {
    reject(fmt::format("frame '{}' over the limit of {} frames", kind_, limits_.max_frames), kind_);
    return;
  }
  frames_.push_back(Frame{std::move(kind_), std::move(payload_)});
  payload_.clear();
}

void ConsoleFrameParser::reject(std::string why, std::string_view kind) {
  if (kind.empty() && in_frame_) kind = kind_;
  if (!kind.empty() && !rejected(kind) && rejected_kinds_.size() < limits_.max_errors) {
    rejected_kinds_.emplace_back(kind);
  }
  in_frame_ = false;
  payload_.clear();
  payload_.shrink_to_fit();
  ++rejection_count_;
  if (rejections_.size() < limits_.max_errors) rejections_.push_back(std::move(why));
}

void ConsoleFrameParser::finish() {
  if (in_frame_) reject(fmt::format("frame '{}' truncated", kind_));
}

bool ConsoleFrameParser::rejected(std::string_view kind) const {
  return std::ranges::find(rejected_kinds_, kind) != rejected_kinds_.end();
}

bool ConsoleFrameParser::saw_progress(std::string_view phase) const {
  return std::find(progress_.begin(), progress_.end(), phase) != progress_.end();
}

const Frame* ConsoleFrameParser::frame(std::string_view kind) const {
  for (const auto& frame : frames_) {
    if (frame.kind == kind) return &frame;
  }
  return nullptr;
}

ConsoleFrameParser parse_console(std::string_view text, ConsoleLimits limits) {
  ConsoleFrameParser parser(limits);
  while (!text.empty()) parser.feed_line(take_line(text));
  parser.finish();
  return parser;
}

}  // namespace kbisect

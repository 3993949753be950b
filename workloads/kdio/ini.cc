#include "kdio/ini.h"

#include <fmt/format.h>

#include <algorithm>

#include "kdio/value.h"

namespace kdio {
namespace {

constexpr int kMaxIncludeDepth = 16;

[[noreturn]] void fail_at(const std::string& where, const std::string& message) {
  throw JobError(fmt::format("{}: {}", where, message));
}

bool is_blank(char c) {
  return kBlanks.find(c) != std::string_view::npos;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

// fio ends a line at the first ';' or '#', wherever it is.
std::string_view strip_comment(std::string_view line) {
  return trim(line.substr(0, line.find_first_of(";#")));
}

// Where the first byte that is not UTF-8 (RFC 3629) is, or npos.
size_t first_non_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto byte = [&](size_t at) { return static_cast<unsigned char>(text[at]); };
    const unsigned char lead = byte(i);
    size_t length = 1;
    unsigned char low = 0x80, high = 0xbf;  // the range of the byte after the lead
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead == 0xe0) low = 0xa0;   // no overlong forms
      if (lead == 0xed) high = 0x9f;  // no surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead == 0xf0) low = 0x90;
      if (lead == 0xf4) high = 0x8f;  // nothing past U+10FFFF
    } else {
      return i;
    }
    if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return i;
    for (size_t k = 2; k < length; ++k) {
      if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

// fio reads a line as a C string, so it silently drops whatever follows a NUL; kdio's error
// messages are C strings too, and one about this line would end at the NUL, mid-value.
void check_no_nul(std::string_view line, const std::string& where) {
  const size_t nul = line.find('\0');
  if (nul == std::string_view::npos) return;
  fail_at(where, fmt::format("byte 0x00 (NUL) after '{}' is not text; remove it (fio would end "
                             "the line there and ignore the rest)",
                             line.substr(0, nul)));
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

class Reader {
 public:
  Reader(const Environment& env, const FileReader& read_file) : env_(env), read_file_(read_file) {}

  std::vector<IniSection> read(const IniText& input) {
    include_stack_.push_back(input.file_name);
    read_lines(input, nullptr);
    return std::move(sections_);
  }

 private:
  // Reads the lines of one file; `included_into` is the section an included file adds to.
  void read_lines(const IniText& input, IniSection* included_into) {
    int line_number = 0;
    size_t start = 0;
    while (start <= input.text.size()) {
      size_t end = input.text.find('\n', start);
      if (end == std::string_view::npos) end = input.text.size();
      const std::string_view raw = input.text.substr(start, end - start);
      start = end + 1;
      ++line_number;
      const std::string where = fmt::format("{}:{}", input.file_name, line_number);
      const std::string_view line = strip_comment(raw);
      if (line.empty()) continue;
      check_utf8(line, where);
      check_no_nul(line, where);
      if (line.front() == '[') {
        if (included_into != nullptr) {
          fail_at(where, "an included file may hold only options, not [sections] (as in fio)");
        }
        start_section(line, where);
        continue;
      }
      IniSection* section = included_into != nullptr ? included_into : current_section();
      if (section == nullptr) {
        fail_at(where, fmt::format("option '{}' is outside of a [section]; put it under [global] "
                                   "or a [job] section",
                                   line));
      }
      if (is_include(line)) {
        include(input.file_name, trim(line.substr(7)), where, section);
        continue;
      }
      section->options.push_back(parse_option(line, where));
    }
  }

  IniSection* current_section() { return sections_.empty() ? nullptr : &sections_.back(); }

  void start_section(std::string_view line, const std::string& where) {
    if (line.back() != ']') fail_at(where, "section header must end with ']'");
    const std::string_view name = trim(line.substr(1, line.size() - 2));
    if (name.empty()) fail_at(where, "empty section name '[]'");
    if (name != "global" && name.starts_with("global")) {
      fail_at(where, fmt::format("fio treats section [{}] as [global] because its name starts "
                                 "with 'global'; rename it, or write [global]",
                                 name));
    }
    sections_.push_back(IniSection{std::string(name), where, {}});
  }

  static bool is_include(std::string_view line) {
    return line == "include" || (line.starts_with("include") && is_blank(line[7]));
  }

  void include(const std::string& including_file, std::string_view name, const std::string& where,
               IniSection* section) {
    if (name.empty()) fail_at(where, "include needs a file name");
    std::string path(name);
    if (path.front() != '/') path = directory_of(including_file) + path;
    if (std::find(include_stack_.begin(), include_stack_.end(), path) != include_stack_.end()) {
      fail_at(where, fmt::format("include loop: '{}' includes itself", path));
    }
    if (include_stack_.size() >= kMaxIncludeDepth) {
      fail_at(where, fmt::format("includes nested deeper than {}", kMaxIncludeDepth));
    }
    std::string text;
    try {
      text = read_file_(path);
    } catch (const JobError& e) {
      fail_at(where, fmt::format("include: {}", e.what()));
    }
    include_stack_.push_back(path);
    read_lines(IniText{text, path}, section);
    include_stack_.pop_back();
  }

  IniOption parse_option(std::string_view line, const std::string& where) {
    const std::string expanded = expand_variables(line, env_, where);
    check_utf8(expanded, where);
    const std::string_view text = expanded;
    const size_t equals = text.find('=');
    IniOption option;
    option.where = where;
    option.key = std::string(trim(text.substr(0, equals)));
    if (option.key.empty()) fail_at(where, fmt::format("'{}' has no option name", text));
    if (equals != std::string_view::npos) {
      option.value = std::string(trim(text.substr(equals + 1)));
      if (equals + 1 < text.size() && is_blank(text[equals + 1])) {
        option.blank_after_equals = text[equals + 1];
      }
    }
    return option;
  }

  const Environment& env_;
  const FileReader& read_file_;
  std::vector<IniSection> sections_;
  std::vector<std::string> include_stack_;
};

}  // namespace

void check_utf8(std::string_view text, const std::string& where) {
  const size_t bad = first_non_utf8(text);
  if (bad == std::string_view::npos) return;
  fail_at(where, fmt::format("byte 0x{:02X} is not UTF-8 text; kdio reads only UTF-8",
                             static_cast<unsigned char>(text[bad])));
}

std::vector<IniSection> read_ini(const IniText& input, const Environment& env,
                                 const FileReader& read_file) {
  return Reader(env, read_file).read(input);
}

std::string expand_variables(std::string_view line, const Environment& env,
                             const std::string& where) {
  std::string out;
  size_t pos = 0;
  while (pos < line.size()) {
    const size_t start = line.find("${", pos);
    if (start == std::string_view::npos) break;
    out.append(line.substr(pos, start - pos));
    const size_t close = line.find('}', start + 2);
    if (close == std::string_view::npos) fail_at(where, "'${' without a closing '}'");
    const std::string_view name = line.substr(start + 2, close - start - 2);
    if (name.empty()) fail_at(where, "empty variable reference '${}'");
    const auto found = env.find(name);
    if (found == env.end()) {
      throw UnsetVariable(fmt::format("{}: environment variable '{}' is not set; set it (the "
                                      "header of the job file lists the variables it needs)",
                                      where, name),
                          where, std::string(name));
    }
    out.append(found->second);
    pos = close + 1;
  }
  out.append(line.substr(std::min(pos, line.size())));
  return out;
}

}  // namespace kdio

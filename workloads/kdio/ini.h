// fio's INI dialect: [sections], `key=value` and bare `key` lines, `;`/`#` comments (also at
// the end of a line), `include FILE` inside a section, and ${VAR} from the environment.
// The result keeps where every line came from, so later errors can say FILE:LINE.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdio {

using Environment = std::map<std::string, std::string, std::less<>>;

// What fio's isspace() takes for a blank, around keys, values and per-direction parts.
inline constexpr std::string_view kBlanks = " \t\r\f\v";

// Returns the text of a file, or throws JobError saying why it cannot be read.
using FileReader = std::function<std::string(const std::string& path)>;

struct IniOption {
  std::string key;
  std::optional<std::string> value;  // nullopt for a bare `key`
  std::string where;                 // "FILE:LINE"
  // The blank right after '=' (0: none): fio reads only the number of a value after one.
  char blank_after_equals = 0;
};

struct IniSection {
  std::string name;
  std::string where;
  std::vector<IniOption> options;  // includes already inlined, ${VAR} already expanded
};

struct IniText {
  std::string_view text;
  std::string file_name;  // for messages, and the base of relative includes
};

std::vector<IniSection> read_ini(const IniText& input, const Environment& env,
                                 const FileReader& read_file);

// Replaces every ${VAR} in `line`; an unset or malformed reference is an error at `where`.
std::string expand_variables(std::string_view line, const Environment& env,
                             const std::string& where);

// An error at `where` unless `text` is UTF-8: kdio's JSON output can carry no other text, and
// finding out only when it is written would waste the whole run.
void check_utf8(std::string_view text, const std::string& where);

}  // namespace kdio

#include "build/kconfig_deps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

namespace kbisect {
namespace {

struct Token {
  enum Kind { kWord, kString, kOperator } kind;
  std::string text;
};

std::optional<std::vector<Token>> tokenize(std::string_view text) {
  static constexpr std::string_view kOperators[] = {"||", "&&", "!=", "<=", ">=", "=",
                                                    "<",  ">",  "!",  "(",  ")"};
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (c == '"' || c == '\'') {
      size_t end = text.find(c, i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      tokens.push_back({Token::kString, std::string(text.substr(i + 1, end - i - 1))});
      i = end + 1;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') {
      size_t end = i + 1;
      while (end < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) {
        ++end;
      }
      tokens.push_back({Token::kWord, std::string(text.substr(i, end - i))});
      i = end;
    } else {
      auto op = std::find_if(std::begin(kOperators), std::end(kOperators),
                             [&](std::string_view o) { return text.substr(i).starts_with(o); });
      if (op == std::end(kOperators)) return std::nullopt;  // $(macro) and the like
      tokens.push_back({Token::kOperator, std::string(*op)});
      i += op->size();
    }
  }
  return tokens;
}

bool is_literal(const std::string& word) {
  return word == "y" || word == "m" || word == "n" ||
         std::isdigit(static_cast<unsigned char>(word[0])) || word[0] == '-';
}

std::string unquote(std::string value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

int tristate(const std::string& value) {
  return value == "y" ? 2 : value == "m" ? 1 : 0;
}

bool compare(const std::string& left, const std::string& op, const std::string& right) {
  if (op == "=") return left == right;
  if (op == "!=") return left != right;
  char* left_end = nullptr;
  char* right_end = nullptr;
  long long a = std::strtoll(left.c_str(), &left_end, 0);
  long long b = std::strtoll(right.c_str(), &right_end, 0);
  bool numeric = !left.empty() && !right.empty() && *left_end == 0 && *right_end == 0;
  int order = numeric ? (a < b ? -1 : a > b ? 1 : 0) : left.compare(right);
  if (op == "<") return order < 0;
  if (op == "<=") return order <= 0;
  if (op == ">") return order > 0;
  return order >= 0;
}

// Recursive descent over Kconfig's expression grammar with tristate logic (&& is min,
// || is max, ! is 2 - x).
class Evaluator {
 public:
  Evaluator(const std::vector<Token>& tokens, const KernelConfig& config)
      : tokens_(tokens), config_(config) {}

  std::optional<int> run() {
    int value = parse_or();
    if (!ok_ || position_ != tokens_.size()) return std::nullopt;
    return value;
  }

 private:
  bool accept(std::string_view op) {
    if (position_ < tokens_.size() && tokens_[position_].kind == Token::kOperator &&
        tokens_[position_].text == op) {
      ++position_;
      return true;
    }
    return false;
  }

  int parse_or() {
    int value = parse_and();
    while (accept("||")) value = std::max(value, parse_and());
    return value;
  }

  int parse_and() {
    int value = parse_unary();
    while (accept("&&")) value = std::min(value, parse_unary());
    return value;
  }

  int parse_unary() {
    if (accept("!")) return 2 - parse_unary();
    if (accept("(")) {
      int value = parse_or();
      if (!accept(")")) ok_ = false;
      return value;
    }
    std::string left = parse_term();
    for (std::string op : {"=", "!=", "<=", ">=", "<", ">"}) {
      if (accept(op)) return compare(left, op, parse_term()) ? 2 : 0;
    }
    return tristate(left);
  }

  std::string parse_term() {
    if (position_ >= tokens_.size() || tokens_[position_].kind == Token::kOperator) {
      ok_ = false;
      return {};
    }
    const Token& token = tokens_[position_++];
    if (token.kind == Token::kString || is_literal(token.text)) return token.text;
    return unquote(config_.value("CONFIG_" + token.text));
  }

  const std::vector<Token>& tokens_;
  const KernelConfig& config_;
  size_t position_ = 0;
  bool ok_ = true;
};

// "MMU=n, EXPERT=y": the values of the symbols an expression mentions.
std::string symbol_values(std::string_view expression, const KernelConfig& config) {
  std::vector<std::string> parts;
  std::set<std::string> seen;
  for (const Token& token : tokenize(expression).value_or(std::vector<Token>{})) {
    if (token.kind != Token::kWord || is_literal(token.text)) continue;
    if (!seen.insert(token.text).second) continue;
    parts.push_back(fmt::format("{}={}", token.text, config.value("CONFIG_" + token.text)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

struct Definition {
  std::string where;                           // file:line
  std::vector<std::string> conditions;         // enclosing if/menu/choice and depends on
  std::vector<std::string> prompt_conditions;  // "" for a prompt shown unconditionally
};

struct KconfigScan {
  std::map<std::string, std::vector<Definition>> definitions;  // names without CONFIG_
  std::map<std::string, std::vector<std::string>> selected_by;
};

int indentation(std::string_view line) {
  int width = 0;
  for (char c : line) {
    if (c == ' ') {
      ++width;
    } else if (c == '\t') {
      width = (width / 8 + 1) * 8;
    } else {
      break;
    }
  }
  return width;
}

std::string_view trim(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r");
  if (start == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t\r");
  return text.substr(start, end - start + 1);
}

// The Kconfig entries of one file, read line by line with a stack of if/menu/choice blocks.
class FileScanner {
 public:
  FileScanner(const std::set<std::string>& wanted, KconfigScan& scan)
      : wanted_(wanted), scan_(scan) {}

  void scan(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::string line;
    std::string logical;
    int line_number = 0;
    while (std::getline(in, line)) {
      ++line_number;
      if (!line.empty() && line.back() == '\\') {
        logical += line.substr(0, line.size() - 1);
        continue;
      }
      logical += line;
      read_line(logical, fmt::format("{}:{}", file.string(), line_number));
      logical.clear();
    }
  }

 private:
  enum class Entry { kNone, kConfig, kBlock };
  struct Block {
    std::vector<std::string> conditions;
  };

  void read_line(std::string_view line, const std::string& where) {
    std::string_view text = trim(line);
    if (in_help_) {
      if (text.empty()) return;
      if (help_indent_ < 0) help_indent_ = indentation(line);
      if (indentation(line) >= help_indent_) return;
      in_help_ = false;
    }
    if (text.empty() || text.front() == '#') return;
    size_t space = text.find_first_of(" \t");
    std::string_view keyword = text.substr(0, space);
    std::string_view rest = space == std::string_view::npos ? "" : trim(text.substr(space));
    if (keyword == "config" || keyword == "menuconfig") {
      start_config(std::string(rest), where);
    } else if (keyword == "if") {
      blocks_.push_back({{std::string(rest)}});
      entry_ = Entry::kNone;
    } else if (keyword == "menu" || keyword == "choice") {
      blocks_.push_back({});
      entry_ = Entry::kBlock;
    } else if (keyword == "endif" || keyword == "endmenu" || keyword == "endchoice") {
      if (!blocks_.empty()) blocks_.pop_back();
      entry_ = Entry::kNone;
    } else if (keyword == "help" || keyword == "---help---") {
      in_help_ = true;
      help_indent_ = -1;
    } else if (keyword == "depends" && rest.starts_with("on")) {
      add_dependency(std::string(trim(rest.substr(2))));
    } else if (keyword == "bool" || keyword == "tristate" || keyword == "string" ||
               keyword == "int" || keyword == "hex" || keyword == "prompt") {
      add_prompt(rest);
    } else if (keyword == "select" || keyword == "imply") {
      add_select(rest);
    } else if (keyword == "comment" || keyword == "source" || keyword == "mainmenu") {
      entry_ = Entry::kNone;
    }
  }

  void start_config(std::string name, const std::string& where) {
    entry_ = Entry::kConfig;
    current_name_ = std::move(name);
    current_ = nullptr;
    if (!wanted_.count(current_name_)) return;
    Definition definition{where, {}, {}};
    for (const Block& block : blocks_) {
      definition.conditions.insert(definition.conditions.end(), block.conditions.begin(),
                                   block.conditions.end());
    }
    auto& list = scan_.definitions[current_name_];
    list.push_back(std::move(definition));
    current_ = &list.back();
  }

  void add_dependency(std::string expression) {
    if (entry_ == Entry::kConfig && current_ != nullptr) {
      current_->conditions.push_back(std::move(expression));
    } else if (entry_ == Entry::kBlock && !blocks_.empty()) {
      blocks_.back().conditions.push_back(std::move(expression));
    }
  }

  void add_prompt(std::string_view rest) {
    if (entry_ != Entry::kConfig || current_ == nullptr || rest.empty()) return;
    if (rest.front() != '"' && rest.front() != '\'') return;  // a type without a prompt
    size_t close = rest.find(rest.front(), 1);
    if (close == std::string_view::npos) return;
    std::string_view after = trim(rest.substr(close + 1));
    current_->prompt_conditions.push_back(
        after.starts_with("if") ? std::string(trim(after.substr(2))) : std::string());
  }

  void add_select(std::string_view rest) {
    if (entry_ != Entry::kConfig) return;
    std::string target(rest.substr(0, rest.find_first_of(" \t")));
    if (wanted_.count(target)) scan_.selected_by[target].push_back(current_name_);
  }

  const std::set<std::string>& wanted_;
  KconfigScan& scan_;
  std::vector<Block> blocks_;
  Entry entry_ = Entry::kNone;
  std::string current_name_;
  Definition* current_ = nullptr;
  bool in_help_ = false;
  int help_indent_ = -1;
};

KconfigScan scan_tree(const std::filesystem::path& source_dir, const std::string& arch,
                      const std::set<std::string>& wanted) {
  namespace fs = std::filesystem;
  KconfigScan scan;
  FileScanner scanner(wanted, scan);
  std::error_code error;
  fs::recursive_directory_iterator it(source_dir, fs::directory_options::skip_permission_denied,
                                      error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const fs::path& path = it->path();
    std::string name = path.filename().string();
    if (it->is_directory(error)) {
      bool other_arch = path.parent_path() == source_dir / "arch" && name != arch;
      if (name == ".git" || name == "Documentation" || other_arch) it.disable_recursion_pending();
      continue;
    }
    if (name.starts_with("Kconfig") && it->is_regular_file(error)) scanner.scan(path);
  }
  return scan;
}

std::string explain_definition(const std::string& name, const Definition& definition,
                               const std::vector<std::string>& selected_by,
                               const KernelConfig& config) {
  std::vector<std::string> unmet;
  for (const std::string& condition : definition.conditions) {
    std::optional<int> value = evaluate_kconfig_expression(condition, config);
    if (value && *value < 2) {
      unmet.push_back(fmt::format("'{}' ({}{})", condition, symbol_values(condition, config),
                                  *value == 1 ? ", so at most m" : ""));
    }
  }
  if (!unmet.empty()) {
    return fmt::format("{} ({}) depends on {}", name, definition.where, fmt::join(unmet, " and "));
  }
  if (definition.prompt_conditions.empty()) {
    std::vector<std::string> selectors;
    for (const std::string& selector : selected_by) {
      selectors.push_back(fmt::format("{}={}", selector, config.value("CONFIG_" + selector)));
    }
    if (selectors.empty()) {
      return fmt::format("{} ({}) has no prompt and nothing selects it", name, definition.where);
    }
    return fmt::format("{} ({}) has no prompt: only another option can select it ({})", name,
                       definition.where, fmt::join(selectors, ", "));
  }
  std::vector<std::string> hidden;
  for (const std::string& condition : definition.prompt_conditions) {
    std::optional<int> value = evaluate_kconfig_expression(condition, config);
    if (condition.empty() || !value || *value != 0) return {};  // settable: nothing certain
    hidden.push_back(fmt::format("'{}' ({})", condition, symbol_values(condition, config)));
  }
  return fmt::format("{} ({}) can be set only if {}", name, definition.where,
                     fmt::join(hidden, " or "));
}

}  // namespace

std::optional<int> evaluate_kconfig_expression(std::string_view expression,
                                               const KernelConfig& config) {
  std::optional<std::vector<Token>> tokens = tokenize(expression);
  if (!tokens || tokens->empty()) return std::nullopt;
  return Evaluator(*tokens, config).run();
}

std::map<std::string, std::string> explain_missing(const std::filesystem::path& source_dir,
                                                   const std::string& arch,
                                                   const std::vector<std::string>& symbols,
                                                   const KernelConfig& final_config) {
  std::set<std::string> wanted;
  for (const std::string& symbol : symbols) wanted.insert(symbol.substr(symbol.find('_') + 1));
  KconfigScan scan = scan_tree(source_dir, arch, wanted);
  std::map<std::string, std::string> explanations;
  for (const std::string& symbol : symbols) {
    std::string name = symbol.substr(symbol.find('_') + 1);
    auto found = scan.definitions.find(name);
    if (found == scan.definitions.end()) {
      explanations[symbol] =
          fmt::format("no Kconfig file in this tree defines {} (renamed or removed?)", name);
      continue;
    }
    std::vector<std::string> reasons;
    for (const Definition& definition : found->second) {
      std::string reason =
          explain_definition(name, definition, scan.selected_by[name], final_config);
      if (!reason.empty()) reasons.push_back(std::move(reason));
    }
    if (!reasons.empty()) explanations[symbol] = fmt::format("{}", fmt::join(reasons, "; "));
  }
  return explanations;
}

}  // namespace kbisect

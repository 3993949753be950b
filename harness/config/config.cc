#include "config/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "common/error.h"
#include "common/file.h"
#include "common/json_text.h"
#include "common/printable.h"
#include "config/metric_path.h"
#include "config/reserved_vars.h"
#include "config/units.h"
#include "kdio/spelling.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using Keys = std::initializer_list<std::string_view>;

constexpr size_t kMaxMatrixVariants = 1000;

fs::path default_cache_dir(const Scenario& scenario) {
  return scenario.workdir / "cache";
}
fs::path default_device_image(const Scenario& scenario) {
  return scenario.workdir / "nvme.img";
}

// A node and its key path ("workload.variants[2].vars"), for messages.
struct Field {
  YAML::Node node;
  std::string key;
  // The map key the value belongs to, if it is a map's value. An empty value ("name:") has
  // yaml-cpp's mark of the token after it, often on the next line: its key names the place.
  YAML::Node key_node = {};

  const YAML::Node& place() const {
    return node.IsNull() && !key_node.Mark().is_null() ? key_node : node;
  }
};

std::string did_you_mean(std::string_view unknown, Keys allowed) {
  auto best =
      kdio::closest_match(unknown, std::vector<std::string>(allowed.begin(), allowed.end()));
  if (best) return fmt::format("; did you mean '{}'?", *best);
  std::string list;
  for (std::string_view candidate : allowed)
    list += fmt::format("{}{}", list.empty() ? "" : ", ", candidate);
  return fmt::format("; expected one of: {}", list);
}

std::string join_key(const std::string& parent, std::string_view child) {
  return parent.empty() ? std::string(child) : fmt::format("{}.{}", parent, child);
}

// Letters, digits and `punctuation`, at least one.
bool is_made_of(std::string_view text, std::string_view punctuation) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           punctuation.find(c) != std::string_view::npos;
  });
}

// Variant and scenario names appear in REF@VARIANT arguments and in file names.
bool is_name(std::string_view text) {
  return is_made_of(text, "._=,+-");
}

// A matrix value sits in its variants' names between '=' and ',' ("BS=4k,QD=1"): with either
// in it, two cells could get one name, and only the first would ever be found by it.
bool is_matrix_value(std::string_view text) {
  return is_made_of(text, "._+-");
}

// ${VAR} names: letters, digits and _, not starting with a digit.
bool is_var_name(std::string_view text) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !text.empty() && !std::isdigit(static_cast<unsigned char>(text[0])) &&
         std::all_of(text.begin(), text.end(), word);
}

// A PCI address as lspci -D prints it: 0000:01:00.0.
bool is_pci_address(std::string_view text) {
  constexpr std::string_view shape = "xxxx:xx:xx.f";
  if (text.size() != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    char c = text[i];
    bool ok = shape[i] == 'x'   ? std::isxdigit(static_cast<unsigned char>(c)) != 0
              : shape[i] == 'f' ? c >= '0' && c <= '7'
                                : c == shape[i];
    if (!ok) return false;
  }
  return true;
}

class Parser {
 public:
  explicit Parser(fs::path file) : file_(std::move(file)), dir_(file_.parent_path()) {}

  Scenario parse(const YAML::Node& root);

 private:
  [[noreturn]] void error(const YAML::Node& at, const std::string& key,
                          const std::string& what) const {
    fail("{}: {}", where(at, key), what);
  }

  [[noreturn]] void error(const Field& field, const std::string& what) const {
    error(field.place(), field.key, what);
  }

  // "FILE:LINE:COLUMN: key" (or without the key), how messages name a place in the config.
  std::string where(const YAML::Node& at, const std::string& key) const {
    YAML::Mark mark = at.Mark();
    // yaml-cpp marks are 0-based; an empty document has no mark at all.
    int line = mark.is_null() ? 1 : mark.line + 1;
    int column = mark.is_null() ? 1 : mark.column + 1;
    if (key.empty()) return fmt::format("{}:{}:{}", file_.string(), line, column);
    return fmt::format("{}:{}:{}: {}", file_.string(), line, column, key);
  }

  // Checks that `map` is a map with no unknown and no repeated keys.
  void check_map(const Field& map, Keys allowed) const {
    if (!map.node.IsMap()) error(map, "expected a map of keys");
    std::set<std::string> seen;
    for (const auto& entry : map.node) {
      std::string name = entry.first.Scalar();
      std::string key = join_key(map.key, name);
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        error(entry.first, key, "unknown key" + did_you_mean(name, allowed));
      }
      if (!seen.insert(name).second) error(entry.first, key, "key given twice");
    }
  }

  std::optional<Field> get(const Field& map, std::string_view name) const {
    for (const auto& entry : map.node) {
      if (entry.first.Scalar() == name)
        return Field{entry.second, join_key(map.key, name), entry.first};
    }
    return std::nullopt;
  }

  Field require(const Field& map, std::string_view name) const {
    auto field = get(map, name);
    if (!field) error(map.node, join_key(map.key, name), "missing required key");
    return *field;
  }

  std::string scalar(const Field& field, std::string_view expected) const {
    if (!field.node.IsScalar()) error(field, fmt::format("expected {}", expected));
    return field.node.Scalar();
  }

  std::string string(const Field& field) const { return scalar(field, "a string"); }

  std::string nonempty_string(const Field& field) const {
    std::string value = string(field);
    if (value.empty()) error(field, "must not be empty");
    return value;
  }

  // Options for the kernel command line, mkfs or mount: one line of text, as they reach the
  // guest.
  std::string option_string(const Field& field) const {
    std::string value = string(field);
    auto control = std::find_if(value.begin(), value.end(), is_ascii_control);
    if (control != value.end()) {
      error(field, fmt::format("holds the control character {:#04x}, which cannot reach the "
                               "guest; remove it",
                               static_cast<int>(*control)));
    }
    return value;
  }

  bool boolean(const Field& field) const {
    std::string text = scalar(field, "true or false");
    if (text == "true") return true;
    if (text == "false") return false;
    error(field, fmt::format("expected true or false, got '{}'", text));
  }

  int64_t integer(const Field& field, int64_t min, int64_t max) const {
    std::string text = scalar(field, "an integer");
    auto value = parse_integer(text);
    if (!value) error(field, fmt::format("expected an integer, got '{}'", text));
    check_range(field, *value, min, max);
    return *value;
  }

  double number(const Field& field, double min, double max) const {
    std::string text = scalar(field, "a number");
    auto value = parse_double(text);
    if (!value) error(field, fmt::format("expected a number, got '{}'", text));
    check_range(field, *value, min, max);
    return *value;
  }

  double fraction(const Field& field, double min, double max) const {
    std::string text = scalar(field, "a percentage such as 3% or a fraction such as 0.03");
    auto value = parse_fraction(text);
    if (!value) {
      error(field.node, field.key,
            fmt::format("expected a percentage such as 3% or a fraction such as 0.03, got '{}'",
                        text));
    }
    if (*value < min || *value > max) {
      // 3 is 300%: a bare number is a fraction.
      const std::string reading =
          text.ends_with('%') ? text : fmt::format("{} (a fraction: {}%)", text, *value * 100);
      error(field.node, field.key,
            fmt::format("{} is out of range: must be between {}% and {}%", reading, min * 100,
                        max * 100));
    }
    return *value;
  }

  uint64_t size(const Field& field, uint64_t min, uint64_t max) const {
    std::string text = scalar(field, "a size such as 512M or 2G");
    auto value = parse_size(text);
    if (!value) {
      error(field.node, field.key,
            fmt::format("expected a size such as 512M or 2G, got '{}'", text));
    }
    if (*value < min || *value > max) {
      error(field.node, field.key,
            fmt::format("{} is out of range: must be between {} and {} bytes", text, min, max));
    }
    return *value;
  }

  int duration(const Field& field) const {
    std::string text = scalar(field, "a duration such as 120s, 30m or 1h");
    auto value = parse_duration(text);
    if (!value) {
      error(field.node, field.key,
            fmt::format("expected a duration such as 120s, 30m or 1h, got '{}'", text));
    }
    check_range<int64_t>(field, *value, 1, 7 * 24 * 3600);
    return static_cast<int>(*value);
  }

  template <typename T>
  void check_range(const Field& field, T value, T min, T max) const {
    if (value < min || value > max) {
      error(field.node, field.key,
            fmt::format("{} is out of range: must be between {} and {}", value, min, max));
    }
  }

  template <typename E>
  E choice(const Field& field,
           std::initializer_list<std::pair<std::string_view, E>> choices) const {
    std::string text = scalar(field, "a name");
    std::string list;
    for (const auto& [name, value] : choices) {
      if (name == text) return value;
      list += fmt::format("{}{}", list.empty() ? "" : ", ", name);
    }
    error(field, fmt::format("'{}' is not one of: {}", text, list));
  }

  std::vector<Field> sequence(const Field& field) const {
    if (!field.node.IsSequence()) error(field, "expected a list");
    std::vector<Field> items;
    for (size_t i = 0; i < field.node.size(); ++i) {
      items.push_back(Field{field.node[i], fmt::format("{}[{}]", field.key, i)});
    }
    return items;
  }

  fs::path path(const Field& field) const {
    fs::path value = nonempty_string(field);
    return value.is_absolute() ? value.lexically_normal() : (dir_ / value).lexically_normal();
  }

  fs::path existing_file(const Field& field) const {
    fs::path value = path(field);
    std::error_code ignored;
    if (fs::is_directory(value, ignored)) {
      error(field, fmt::format("{} is a directory; name a file", value.string()));
    }
    if (!fs::is_regular_file(value, ignored)) {
      error(field, fmt::format("no such file: {}", value.string()));
    }
    return value;
  }

  std::map<std::string, std::string> vars(const Field& field) const {
    if (!field.node.IsMap()) error(field, "expected a map of NAME: value");
    std::map<std::string, std::string> out;
    for (const auto& entry : field.node) {
      std::string name = entry.first.Scalar();
      std::string key = join_key(field.key, name);
      var_name(entry.first, key, name);
      std::string value = string(Field{entry.second, key, entry.first});
      if (value.find('\0') != std::string::npos) {
        // The guest's shell would drop it: kdio would see another value than the one checked.
        error(entry.second, key, "a NUL byte cannot reach the guest; remove it");
      }
      if (!out.emplace(name, std::move(value)).second) {
        error(entry.first, key, "variable given twice");
      }
    }
    return out;
  }

  // Workload variables are exported in the guest (run.env), after its /init's own settings.
  void var_name(const YAML::Node& at, const std::string& key, const std::string& name) const {
    if (!is_var_name(name)) {
      error(at, key, "variable names are letters, digits and _, not starting with a digit");
    }
    if (is_reserved_var(name)) {
      error(at, key,
            fmt::format("'{}' is reserved by the guest ({}); use another name", name,
                        reserved_var_names()));
    }
  }

  void kernel(const Field& field, KernelSpec& kernel) const;
  void build(const Field& field, BuildSpec& build) const;
  void vm(const Field& field, VmSpec& vm) const;
  void device(const Field& field, DeviceSpec& device) const;
  void filesystem(const Field& field, FilesystemSpec& filesystem) const;
  void workload(const Field& field, WorkloadSpec& workload, const FilesystemSpec& filesystem) const;
  std::vector<Variant> variants(const Field& field, const FilesystemSpec& filesystem) const;
  FilesystemKind filesystem_kind(const Field& field) const;
  std::vector<Variant> matrix(const Field& field) const;
  std::vector<MetricSpec> metrics(const Field& field) const;
  void metric_name(const Field& field) const;
  void bisect(const Field& field, BisectSpec& bisect) const;
  void sim(const Field& field, SimSpec& sim) const;
  NightlySpec nightly(const Field& field, const WorkloadSpec& workload) const;
  std::string git_name(const Field& field, std::string_view what) const;

  fs::path file_;
  fs::path dir_;
};

Scenario Parser::parse(const YAML::Node& root) {
  Field top{root, ""};
  if (!root.IsMap()) error(root, "", "expected a map of keys; see configs/example.yaml");
  check_map(top, {"name", "kernel", "build", "vm", "device", "filesystem", "workload", "metrics",
                  "bisect", "samples", "database", "workdir", "sim", "nightly", "table"});
  Scenario scenario;
  scenario.source_file = file_;
  Field name = require(top, "name");
  scenario.name = nonempty_string(name);
  if (!is_name(scenario.name)) {
    error(name, "use letters, digits and . _ - only");
  }
  kernel(require(top, "kernel"), scenario.kernel);
  if (auto field = get(top, "vm")) vm(*field, scenario.vm);
  if (auto field = get(top, "build")) build(*field, scenario.build);
  if (auto field = get(top, "device")) device(*field, scenario.device);
  if (auto field = get(top, "filesystem")) filesystem(*field, scenario.filesystem);
  if (auto field = get(top, "workload")) {
    workload(*field, scenario.workload, scenario.filesystem);
  }
  if (scenario.workload.job_files.empty() && scenario.vm.runner != RunnerKind::kSim) {
    Field at = get(top, "workload").value_or(top);
    error(at.node, join_key(at.key, at.key.empty() ? "workload.jobs" : "jobs"),
          "missing required key (job files to run; only vm.runner: sim needs none)");
  }
  scenario.metrics = metrics(require(top, "metrics"));
  if (auto field = get(top, "bisect")) bisect(*field, scenario.bisect);
  if (auto field = get(top, "samples"))
    scenario.samples = static_cast<int>(integer(*field, 1, 1000));
  if (auto field = get(top, "sim")) sim(*field, scenario.sim);
  if (auto field = get(top, "nightly")) scenario.nightly = nightly(*field, scenario.workload);
  if (auto field = get(top, "table")) {
    scenario.table = choice<ReportTable>(*field, {{"none", ReportTable::kNone},
                                                  {"fio-groups", ReportTable::kFioGroups},
                                                  {"rw-summary", ReportTable::kRwSummary},
                                                  {"sync-log", ReportTable::kSyncLog},
                                                  {"elapsed", ReportTable::kElapsed}});
  }

  // Defaults are relative to the current directory (where kbisect runs), explicit values
  // to the config file's directory.
  scenario.database = "results/kbisect.db";
  if (auto field = get(top, "database")) scenario.database = path(*field);
  scenario.workdir = ".cache/kbisect";
  if (auto field = get(top, "workdir")) scenario.workdir = path(*field);
  if (scenario.build.cache_dir.empty()) scenario.build.cache_dir = default_cache_dir(scenario);
  if (scenario.device.kind == DeviceKind::kEmulatedNvme && scenario.device.image.empty()) {
    scenario.device.image = default_device_image(scenario);
  }
  return scenario;
}

void Parser::kernel(const Field& field, KernelSpec& kernel) const {
  check_map(field, {"repo", "base_config", "fragments", "cmdline_extra"});
  const Field repo = require(field, "repo");
  kernel.repo = path(repo);
  kernel.repo_place = where(repo.place(), repo.key);
  if (auto base = get(field, "base_config")) {
    std::string text = nonempty_string(*base);
    kernel.base_config = is_kconfig_target(text) ? text : existing_file(*base).string();
  }
  if (auto fragments = get(field, "fragments")) {
    for (const Field& item : sequence(*fragments)) kernel.fragments.push_back(existing_file(item));
  }
  if (auto cmdline = get(field, "cmdline_extra")) kernel.cmdline_extra = option_string(*cmdline);
}

void Parser::build(const Field& field, BuildSpec& build) const {
  check_map(field, {"jobs", "ccache", "cache_dir", "timeout"});
  if (auto jobs = get(field, "jobs")) build.jobs = static_cast<int>(integer(*jobs, 0, 1024));
  if (auto ccache = get(field, "ccache")) build.ccache = boolean(*ccache);
  if (auto cache_dir = get(field, "cache_dir")) build.cache_dir = path(*cache_dir);
  if (auto timeout = get(field, "timeout")) build.timeout_seconds = duration(*timeout);
}

void Parser::vm(const Field& field, VmSpec& vm) const {
  check_map(field, {"runner", "uri", "accel", "vcpus", "memory", "pin", "boot_timeout",
                    "workload_timeout"});
  if (auto runner = get(field, "runner")) {
    vm.runner = choice<RunnerKind>(*runner, {{"qemu", RunnerKind::kQemu},
                                             {"libvirt", RunnerKind::kLibvirt},
                                             {"sim", RunnerKind::kSim}});
  }
  if (auto uri = get(field, "uri")) {
    if (vm.runner != RunnerKind::kLibvirt) error(*uri, "only for runner: libvirt");
    vm.libvirt_uri = nonempty_string(*uri);
  }
  if (auto accel = get(field, "accel")) {
    vm.accel =
        choice<Accel>(*accel, {{"auto", Accel::kAuto}, {"kvm", Accel::kKvm}, {"tcg", Accel::kTcg}});
  }
  if (auto vcpus = get(field, "vcpus")) vm.vcpus = static_cast<int>(integer(*vcpus, 1, 512));
  if (auto memory = get(field, "memory")) {
    uint64_t bytes = size(*memory, 64ull << 20, 4ull << 40);
    if (bytes % (1 << 20) != 0) error(*memory, "must be a whole number of MiB");
    vm.memory_mib = static_cast<int>(bytes >> 20);
  }
  if (auto pin = get(field, "pin")) {
    for (const Field& cpu : sequence(*pin))
      vm.vcpu_pinning.push_back(static_cast<int>(integer(cpu, 0, 65535)));
    if (!vm.vcpu_pinning.empty() && static_cast<int>(vm.vcpu_pinning.size()) != vm.vcpus) {
      error(pin->node, pin->key,
            fmt::format("lists {} host CPUs for {} vCPUs; give one host CPU per vCPU (or none)",
                        vm.vcpu_pinning.size(), vm.vcpus));
    }
  }
  if (auto timeout = get(field, "boot_timeout")) vm.boot_timeout_seconds = duration(*timeout);
  if (auto timeout = get(field, "workload_timeout")) {
    vm.workload_timeout_seconds = duration(*timeout);
    vm.workload_timeout_place = where(timeout->place(), timeout->key);
  }
}

void Parser::device(const Field& field, DeviceSpec& device) const {
  check_map(field, {"kind", "image", "size", "pci"});
  device.kind = choice<DeviceKind>(require(field, "kind"),
                                   {{"emulated-nvme", DeviceKind::kEmulatedNvme},
                                    {"nvme-passthrough", DeviceKind::kNvmePassthrough}});
  if (device.kind == DeviceKind::kEmulatedNvme) {
    if (auto pci = get(field, "pci")) error(*pci, "only for kind: nvme-passthrough");
    if (auto image = get(field, "image")) device.image = path(*image);
    if (auto bytes = get(field, "size")) device.size_bytes = size(*bytes, 64ull << 20, 64ull << 40);
    return;
  }
  for (std::string_view key : {"image", "size"}) {
    if (auto wrong = get(field, key)) error(*wrong, "only for kind: emulated-nvme");
  }
  Field pci = require(field, "pci");
  device.pci_address = string(pci);
  if (!is_pci_address(device.pci_address)) {
    error(pci.node, pci.key,
          fmt::format("'{}' is not a PCI address like 0000:01:00.0 (see lspci -D)",
                      device.pci_address));
  }
  // sysfs and libvirt spell the hex digits in lower case; lspci's -D output too.
  for (char& c : device.pci_address)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

void Parser::filesystem(const Field& field, FilesystemSpec& filesystem) const {
  check_map(field, {"type", "mkfs_options", "mount_options"});
  if (auto type = get(field, "type")) filesystem.kind = filesystem_kind(*type);
  if (auto options = get(field, "mkfs_options")) {
    for (const Field& item : sequence(*options)) {
      filesystem.mkfs_options.push_back(option_string(item));
      if (filesystem.mkfs_options.back().empty()) error(item, "must not be empty");
    }
  }
  if (auto options = get(field, "mount_options")) {
    filesystem.mount_options = option_string(*options);
  }
}

void Parser::workload(const Field& field, WorkloadSpec& workload,
                      const FilesystemSpec& filesystem) const {
  check_map(field, {"jobs", "vars", "variants", "matrix"});
  if (auto jobs = get(field, "jobs")) {
    for (const Field& item : sequence(*jobs)) workload.job_files.push_back(existing_file(item));
  }
  if (auto vars_field = get(field, "vars")) workload.vars = vars(*vars_field);
  if (auto list = get(field, "variants")) workload.variants = variants(*list, filesystem);
  auto sweep = get(field, "matrix");
  if (!sweep) return;
  std::vector<Variant> cells = matrix(*sweep);
  if (workload.variants.empty()) {
    workload.variants = std::move(cells);
    return;
  }
  // Declared variants crossed with the matrix: "nolock,BS=4k" has nolock's settings and BS=4k.
  std::vector<Variant> crossed;
  for (const Variant& variant : workload.variants) {
    for (const Variant& cell : cells) {
      Variant both = variant;
      both.name = variant.name + "," + cell.name;
      for (const auto& [name, value] : cell.vars) both.vars[name] = value;
      crossed.push_back(std::move(both));
    }
  }
  workload.variants = std::move(crossed);
}

std::vector<Variant> Parser::variants(const Field& field, const FilesystemSpec& filesystem) const {
  std::vector<Variant> out;
  std::set<std::string> names;
  for (const Field& item : sequence(field)) {
    check_map(item, {"name", "vars", "mount_options", "filesystem"});
    Variant variant;
    Field name = require(item, "name");
    variant.name = nonempty_string(name);
    if (!is_name(variant.name)) {
      error(name, "use letters, digits and . _ = , + - only (no spaces, no @)");
    }
    if (!names.insert(variant.name).second) {
      error(name, fmt::format("variant '{}' declared twice", variant.name));
    }
    if (auto vars_field = get(item, "vars")) variant.vars = vars(*vars_field);
    if (auto options = get(item, "mount_options")) variant.mount_options = option_string(*options);
    if (auto type = get(item, "filesystem")) {
      variant.filesystem = filesystem_kind(*type);
      if (*variant.filesystem != filesystem.kind && !filesystem.mkfs_options.empty()) {
        error(type->node, type->key,
              "filesystem.mkfs_options are for filesystem.type; a variant with another "
              "filesystem cannot use them (remove mkfs_options or this variant's filesystem)");
      }
    }
    out.push_back(std::move(variant));
  }
  if (out.empty()) error(field, "empty list; leave the key out for one default variant");
  return out;
}

FilesystemKind Parser::filesystem_kind(const Field& field) const {
  return choice<FilesystemKind>(field,
                                {{"ext4", FilesystemKind::kExt4}, {"xfs", FilesystemKind::kXfs}});
}

std::vector<Variant> Parser::matrix(const Field& field) const {
  if (!field.node.IsMap()) error(field, "expected a map of VAR: [values...]");
  std::vector<Variant> cells = {Variant{}};
  std::set<std::string> vars_seen;
  for (const auto& entry : field.node) {
    std::string var = entry.first.Scalar();
    Field values{entry.second, join_key(field.key, var), entry.first};
    var_name(entry.first, values.key, var);
    if (!vars_seen.insert(var).second) error(entry.first, values.key, "variable given twice");
    std::vector<Field> items = sequence(values);
    if (items.empty()) error(values, "needs at least one value");
    std::set<std::string> values_seen;
    for (const Field& item : items) {
      std::string value = nonempty_string(item);
      if (!is_matrix_value(value)) {
        error(item.node, item.key,
              "matrix values name variants: use letters, digits and . _ + - only");
      }
      if (!values_seen.insert(value).second) error(item, "value given twice");
    }
    // Every variant is measured at every commit: past this a run would never end, and the
    // product alone would exhaust memory.
    if (cells.size() * items.size() > kMaxMatrixVariants) {
      error(values.node, values.key,
            fmt::format("the matrix grows past {} variants here; measure fewer combinations",
                        kMaxMatrixVariants));
    }
    std::vector<Variant> next;
    for (const Variant& cell : cells) {
      for (const Field& item : items) {
        std::string value = nonempty_string(item);
        Variant grown = cell;
        grown.name += fmt::format("{}{}={}", grown.name.empty() ? "" : ",", var, value);
        grown.vars[var] = value;
        next.push_back(std::move(grown));
      }
    }
    cells = std::move(next);
  }
  if (field.node.size() == 0) error(field, "empty matrix; give VAR: [values...]");
  return cells;
}

std::vector<MetricSpec> Parser::metrics(const Field& field) const {
  std::vector<MetricSpec> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const Field& item : sequence(field)) {
    check_map(item, {"name", "job", "better"});
    MetricSpec metric;
    Field name = require(item, "name");
    metric.name = nonempty_string(name);
    metric_name(name);
    metric.place = where(name.place(), name.key);
    if (auto job = get(item, "job")) metric.job = string(*job);
    // Latencies and runtimes get better as they shrink; everything else as it grows.
    bool time_like = metric.name.find("lat_ns") != std::string::npos ||
                     metric.name.find("runtime") != std::string::npos;
    metric.better = time_like ? Better::kLower : Better::kHigher;
    if (auto better = get(item, "better")) {
      metric.better = choice<Better>(*better, {{"higher", Better::kHigher},
                                               {"lower", Better::kLower},
                                               {"higher-is-better", Better::kHigher},
                                               {"lower-is-better", Better::kLower}});
    }
    if (!seen.emplace(metric.name, metric.job).second) {
      error(name, fmt::format("metric '{}' listed twice", metric.name));
    }
    out.push_back(std::move(metric));
  }
  if (out.empty()) error(field, "needs at least one metric (the first is bisected on)");
  return out;
}

// Catches typos in metric paths now rather than after a kernel build and a boot.
void Parser::metric_name(const Field& field) const {
  std::string name = field.node.Scalar();
  auto problem = metric_path_problem(name);
  if (!problem) return;
  error(field.node, field.key,
        fmt::format("'{}' is not a kdio metric: {} (examples: read.iops, write.bw_bytes, "
                    "read.clat_ns.mean, write.clat_ns.percentile.99.000000, sync.lat_ns.mean)",
                    name, *problem));
}

void Parser::bisect(const Field& field, BisectSpec& bisect) const {
  check_map(field, {"min_samples", "max_samples", "alpha", "min_effect", "boot_failure_is_bad"});
  if (auto min = get(field, "min_samples"))
    bisect.min_samples = static_cast<int>(integer(*min, 2, 1000));
  if (auto max = get(field, "max_samples")) {
    bisect.max_samples = static_cast<int>(integer(*max, bisect.min_samples, 1000));
  } else if (bisect.max_samples < bisect.min_samples) {
    Field min = *get(field, "min_samples");
    error(min.node, min.key,
          fmt::format("{} is more than max_samples ({}); raise max_samples too", bisect.min_samples,
                      bisect.max_samples));
  }
  if (auto alpha = get(field, "alpha")) bisect.alpha = number(*alpha, 1e-9, 0.5);
  if (auto effect = get(field, "min_effect")) bisect.min_effect = fraction(*effect, 0, 0.99);
  if (auto bad = get(field, "boot_failure_is_bad")) bisect.boot_failure_is_bad = boolean(*bad);
}

void Parser::sim(const Field& field, SimSpec& sim) const {
  check_map(field,
            {"seed", "base", "noise", "drift_per_sample", "drift_until", "changes", "outcomes"});
  if (auto seed = get(field, "seed")) {
    sim.seed = static_cast<uint64_t>(integer(*seed, 0, std::numeric_limits<int64_t>::max()));
  }
  if (auto base = get(field, "base")) sim.base = number(*base, 1e-9, 1e18);
  if (auto noise = get(field, "noise")) {
    check_map(*noise, {"dist", "cv", "mode2", "p2"});
    if (auto dist = get(*noise, "dist")) {
      sim.noise = choice<NoiseDistribution>(*dist, {{"normal", NoiseDistribution::kNormal},
                                                    {"lognormal", NoiseDistribution::kLognormal},
                                                    {"bimodal", NoiseDistribution::kBimodal}});
    }
    if (auto cv = get(*noise, "cv")) sim.cv = fraction(*cv, 0, 1);
    for (std::string_view key : {"mode2", "p2"}) {
      auto value = get(*noise, key);
      if (value && sim.noise != NoiseDistribution::kBimodal) {
        error(*value, "only for dist: bimodal");
      }
    }
    if (auto mode2 = get(*noise, "mode2")) sim.mode2 = number(*mode2, 1e-6, 1e6);
    if (auto p2 = get(*noise, "p2")) sim.p2 = fraction(*p2, 0, 1);
  }
  if (auto drift = get(field, "drift_per_sample"))
    sim.drift_per_sample = fraction(*drift, -0.5, 0.5);
  if (auto until = get(field, "drift_until")) {
    sim.drift_until = static_cast<int>(integer(*until, 0, std::numeric_limits<int>::max()));
  }
  if (auto changes = get(field, "changes")) {
    for (const Field& item : sequence(*changes)) {
      check_map(item, {"commit", "factor"});
      SimChange change;
      Field commit = require(item, "commit");
      change.commit = nonempty_string(commit);
      change.where = where(commit.node, commit.key);
      change.factor = number(require(item, "factor"), 1e-6, 1e6);
      sim.changes.push_back(std::move(change));
    }
  }
  if (auto outcomes = get(field, "outcomes")) {
    for (const Field& item : sequence(*outcomes)) {
      check_map(item, {"commit", "outcome"});
      SimOutcome outcome;
      Field commit = require(item, "commit");
      outcome.commit = nonempty_string(commit);
      outcome.where = where(commit.node, commit.key);
      Field kind = require(item, "outcome");
      outcome.outcome = string(kind);
      if (outcome.outcome != "build-failed" && outcome.outcome != "boot-failed") {
        error(kind.node, kind.key,
              fmt::format("'{}' is not one of: build-failed, boot-failed", outcome.outcome));
      }
      sim.outcomes.push_back(std::move(outcome));
    }
  }
}

NightlySpec Parser::nightly(const Field& field, const WorkloadSpec& workload) const {
  check_map(field, {"branch", "remote", "baseline", "variant", "fetch_timeout"});
  NightlySpec nightly;
  nightly.branch = git_name(require(field, "branch"), "a branch name such as master");
  if (auto remote = get(field, "remote")) {
    nightly.remote = git_name(*remote, "a remote name such as origin");
  }
  if (auto baseline = get(field, "baseline")) nightly.baseline = nonempty_string(*baseline);
  if (auto timeout = get(field, "fetch_timeout"))
    nightly.fetch_timeout_seconds = duration(*timeout);
  auto variant = get(field, "variant");
  if (!variant) return nightly;
  nightly.variant = nonempty_string(*variant);
  std::string declared;
  for (const Variant& known : workload.variants) {
    if (known.name == nightly.variant) return nightly;
    declared += fmt::format("{}{}", declared.empty() ? "" : ", ", known.name);
  }
  error(variant->node, variant->key,
        fmt::format("workload has no variant '{}'; its variants: {}", nightly.variant,
                    declared.empty() ? "none (leave nightly.variant out)" : declared));
}

// Branch and remote names reach `git fetch` as arguments: nothing that git could read as an
// option or a refspec operator.
std::string Parser::git_name(const Field& field, std::string_view what) const {
  std::string name = nonempty_string(field);
  bool plain = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("._/-").find(c) != std::string_view::npos;
  });
  if (!plain || name.front() == '-' || name.front() == '/' || name.back() == '/' ||
      name.find("..") != std::string::npos || name.find("//") != std::string::npos) {
    error(field.node, field.key,
          fmt::format("'{}' is not {}: use letters, digits and . _ / - (not first: - or /; "
                      "no .. or //)",
                      name, what));
  }
  return name;
}

// YAML is UTF-8, and a scenario's values end up in JSON (its hash, a session's options).
// yaml-cpp reads up to a NUL byte and then reports an error at the end of what it read.
void check_text(const fs::path& file, const std::string& text) {
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    fail("{}:{}: holds a NUL byte; a config is YAML text", file.string(),
         std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(nul), '\n') + 1);
  }
  if (is_utf8(text)) return;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (!is_utf8(line)) {
      fail("{}:{}: not UTF-8 text; save the config as UTF-8", file.string(), number);
    }
  }
}

// FILE:LINE:COLUMN of a YAML syntax error. yaml-cpp places one found at the end of the input
// (a '{' never closed) on the line after the last, which no editor shows: that is the end of
// the last line, and said so.
std::string yaml_error_place(const fs::path& file, std::string_view text, const YAML::Mark& mark) {
  if (mark.pos < 0 || static_cast<size_t>(mark.pos) < text.size()) {
    return fmt::format("{}:{}:{}", file.string(), mark.line + 1, mark.column + 1);
  }
  if (text.ends_with('\n')) text.remove_suffix(1);
  const size_t line_start = text.rfind('\n') + 1;  // 0 for the first line
  const auto line = std::count(text.begin(), text.end(), '\n') + 1;
  return fmt::format("{}:{}:{} (the end of the file)", file.string(), line,
                     text.size() - line_start + 1);
}

}  // namespace

void move_workdir(Scenario& scenario, const fs::path& workdir) {
  const bool default_cache = scenario.build.cache_dir == default_cache_dir(scenario);
  const bool default_image = scenario.device.image == default_device_image(scenario);
  scenario.workdir = workdir;
  if (default_cache) scenario.build.cache_dir = default_cache_dir(scenario);
  if (default_image) scenario.device.image = default_device_image(scenario);
}

std::string stored_config_path(const Scenario& scenario) {
  return fs::absolute(scenario.source_file).lexically_normal().string();
}

Scenario load_scenario(const fs::path& file) {
  std::error_code ignored;
  if (fs::is_directory(file, ignored)) {
    fail("cannot read config {}: a directory; pass a YAML file with -c", file.string());
  }
  if (!fs::exists(file, ignored)) {
    fail("cannot read config {}: no such file; pass an existing YAML file with -c", file.string());
  }
  if (!fs::is_regular_file(file, ignored)) {
    fail(
        "cannot read config {}: not a regular file (a device, FIFO or socket); pass a YAML file "
        "with -c",
        file.string());
  }
  std::string text;
  try {
    text = read_file(file);
  } catch (const Error&) {
    fail("cannot read config {}; check its permissions", file.string());
  }
  check_text(file, text);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    fail("{}: {}", yaml_error_place(file, text, e.mark), e.msg);
  }
  if (documents.empty() || documents.front().IsNull()) {
    fail("{}:1:1: empty config; see configs/example.yaml", file.string());
  }
  auto second = std::find_if(documents.begin() + 1, documents.end(),
                             [](const YAML::Node& document) { return !document.IsNull(); });
  if (second != documents.end()) {
    YAML::Mark mark = second->Mark();
    fail("{}:{}: a second YAML document; a config is one scenario (put another in its own file)",
         file.string(), mark.is_null() ? 1 : mark.line + 1);
  }
  return Parser(file).parse(documents.front());
}

}  // namespace kbisect

#include "build/builder.h"

#include <algorithm>
#include <boost/process/search_path.hpp>
#include <cctype>
#include <chrono>
#include <optional>
#include <set>
#include <string_view>
#include <thread>

#include "build/build_cache.h"
#include "build/build_log.h"
#include "build/config_cache.h"
#include "build/configure.h"
#include "build/leftover_make.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/file.h"
#include "common/printable.h"
#include "common/process.h"
#include "common/sha256.h"

namespace kbisect {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

// Fixed so that identical sources give byte-identical images. The timestamp must be a date
// that `date -d` parses: usr/gen_initramfs.sh uses it for the initramfs mtimes. An empty
// LOCALVERSION keeps scripts/setlocalversion from appending "+" when the tree is a git
// checkout (guest.config turns LOCALVERSION_AUTO off for the same reason).
const std::vector<std::string> kReproducibleVariables = {
    "KBUILD_BUILD_TIMESTAMP=1970-01-01 00:00:00 UTC", "KBUILD_BUILD_USER=kbisect",
    "KBUILD_BUILD_HOST=kbisect", "KBUILD_BUILD_VERSION=1", "LOCALVERSION="};
constexpr const char* kImage = "arch/x86/boot/bzImage";
constexpr const char* kCompileCountFile = ".kbisect-compile-count";
constexpr const char* kBuildLog = "kbisect-build.log";

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Kbuild refuses spaces and ':' in its source and O= paths, and runs O= through $(shell ...):
// a path with other shell characters would fail every build, or run as a command. The bytes of
// UTF-8 names are fine; so is '~', which neither make nor the shell expands inside a path.
std::optional<char> kbuild_unsafe_character(const std::string& path) {
  auto unsafe = std::find_if(path.begin(), path.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) == 0 &&
           static_cast<unsigned char>(c) < 0x80 &&
           std::string_view("/._+-@~").find(c) == std::string_view::npos;
  });
  if (unsafe == path.end()) return std::nullopt;
  return *unsafe;
}

std::string character_name(char c) {
  if (c == ' ') return "a space";
  if (is_ascii_control(c)) {
    return fmt::format("the control character {:#04x}", static_cast<int>(c));
  }
  return fmt::format("'{}'", c);
}

void check_make_path(const fs::path& path, std::string_view what) {
  const std::string text = fs::absolute(path).string();
  if (auto unsafe = kbuild_unsafe_character(text)) {
    fail(
        "the {} {} holds {}, which the kernel's make cannot take; choose a workdir (--workdir, "
        "or workdir: in the config) of letters, digits and / . _ + - @ ~",
        what, printable_line(text), character_name(*unsafe));
  }
}

void check_request(const BuildRequest& request) {
  if (request.build.cache_dir.empty()) fail("build.cache_dir is not set; set it in the config");
  if (request.object_dir.empty()) fail("internal error: no object directory for the build");
  if (request.tree_id.empty()) fail("internal error: no tree id for the build");
  check_make_path(request.source_dir, "kernel source directory");
  check_make_path(request.object_dir, "build directory");
  if (!fs::is_regular_file(request.source_dir / "Makefile")) {
    fail("{} is not a kernel source tree (no Makefile); check kernel.repo",
         request.source_dir.string());
  }
  // Kbuild refuses O= builds of a tree configured in place; say how to fix it up front.
  if (fs::exists(request.source_dir / ".config") ||
      fs::exists(request.source_dir / "include/config")) {
    fail("the kernel tree {} has been configured in place; run `make mrproper` in it",
         request.source_dir.string());
  }
  std::vector<std::string> tools = {"make", "gcc", "flex", "bison", "bc"};
  if (request.build.ccache) tools.push_back("ccache");
  for (const std::string& tool : tools) {
    if (boost::process::search_path(tool).empty()) {
      fail("'{}' is needed to build kernels but is not in PATH; install it (make deps)", tool);
    }
  }
}

std::vector<std::string> make_variables(const BuildSpec& spec) {
  std::vector<std::string> variables = {spec.ccache ? "CC=ccache gcc" : "CC=gcc"};
  variables.insert(variables.end(), kReproducibleVariables.begin(), kReproducibleVariables.end());
  return variables;
}

std::map<std::string, std::string> make_environment(const BuildSpec& spec) {
  // English messages: the log summary looks for "error:". Not ccache's depend mode: it never
  // runs the preprocessor, so it does not see that arch/x86/boot/compressed/piggy.S pulls in
  // the compressed kernel with .incbin, and when a new kernel compressed to the same size it
  // handed back the old piggy.o: the image of the previous build under the new commit's name.
  // The namespace keeps entries made in that mode from being found again. Depend mode and
  // sloppiness are set off here, over what a ccache.conf says.
  return {{"LC_ALL", "C"},
          {"CCACHE_DIR", (fs::absolute(spec.cache_dir) / "ccache").string()},
          {"CCACHE_NAMESPACE", "kbisect-preprocessed"},
          {"CCACHE_NODEPEND", "1"},
          {"CCACHE_SLOPPINESS", ""}};
}

// What a kernel engineer's shell may hold that changes the kernel Kbuild makes, which no
// cache key sees (LLVM=1 links with lld, KCFLAGS changes the code, KCONFIG_CONFIG moves the
// .config), or that belongs to a make kbisect runs under (MAKEFLAGS and its jobserver).
const std::vector<std::string> kBuildEnvironmentRemoved = {
    "ARCH",      "CROSS_COMPILE", "LLVM",       "LLVM_IAS",     "KCFLAGS",
    "KCPPFLAGS", "KAFLAGS",       "KRUSTFLAGS", "KBUILD_*",     "KCONFIG_*",
    "CCACHE_*",  "MAKEFLAGS",     "MFLAGS",     "GNUMAKEFLAGS", "MAKELEVEL",
    "MAKEFILES", "HOSTCC",        "HOSTCFLAGS", "HOSTLDFLAGS",  "INSTALL_MOD_PATH"};

// Replaces the object directory's .config only when it differs, so an unchanged config
// costs Kbuild nothing.
void install_config(const fs::path& config, const fs::path& object_dir) {
  std::string text = read_file(config);
  if (read_file_if_present(object_dir / ".config") == text) return;
  write_file(object_dir / ".config", text);
}

int read_compile_count(const fs::path& object_dir) {
  std::string text = read_file_if_present(object_dir / kCompileCountFile).value_or("");
  return text.empty() ? 0 : std::atoi(text.c_str());
}

fs::path failure_directory(const fs::path& cache_root, const std::string& name) {
  return cache_root / "failed" / name;
}

// Keeps the log and .config of a failed build where later builds will not overwrite them.
void keep_failure(BuildResult& result, const fs::path& cache_root, const std::string& name,
                  const fs::path& log, const fs::path& config) {
  fs::path directory = failure_directory(cache_root, name);
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) fail("cannot create {}: {}", directory.string(), error.message());
  result.log = directory / "build.log";
  fs::copy_file(log, result.log, fs::copy_options::overwrite_existing, error);
  if (error) fail("cannot keep the build log {}: {}", log.string(), error.message());
  if (fs::exists(config)) {
    result.config = directory / "config";
    fs::copy_file(config, result.config, fs::copy_options::overwrite_existing, error);
  }
  result.outcome = BuildOutcome::kBuildFailed;
}

// A tree that did not compile with this config and compiler will not compile the next time
// either (failures of the machine never get here): the summary, written last and renamed
// into place, marks the kept failure as complete.
void remember_failure(const BuildResult& result, const fs::path& cache_root) {
  fs::path directory = failure_directory(cache_root, result.cache_key);
  write_file_atomically(directory / "summary", result.log_tail);
}

// Fills `result` with the remembered failure of `key`, if there is one.
bool take_remembered_failure(BuildResult& result, const fs::path& cache_root, const BuildKey& key) {
  fs::path directory = failure_directory(cache_root, key.hex());
  if (!fs::is_regular_file(directory / "summary")) return false;
  result.outcome = BuildOutcome::kBuildFailed;
  result.cache_hit = true;
  result.log = directory / "build.log";
  result.config = directory / "config";
  result.log_tail = read_file(directory / "summary");
  return true;
}

ConfigRequest config_request_for(const BuildRequest& request, const fs::path& object_dir,
                                 std::chrono::seconds timeout) {
  ConfigRequest config;
  config.source_dir = fs::absolute(request.source_dir);
  config.config_dir = object_dir.string() + "-kconfig";
  config.base = request.kernel.base_config;
  config.fragments = request.kernel.fragments;
  config.guest_configs =
      request.guest_configs.empty() ? guest_configs_for(Scenario{}) : request.guest_configs;
  config.make_variables = make_variables(request.build);
  config.environment = make_environment(request.build);
  config.removed_environment = kBuildEnvironmentRemoved;
  config.timeout = timeout;
  return config;
}

// `make bzImage` in the object directory, its log in kbisect-build.log there; counts the
// compiled files into `progress` as they go by.
ProcessResult run_make(const BuildRequest& request, const ConfigRequest& config,
                       const fs::path& object_dir, BuildProgress& progress) {
  const int jobs = request.build.jobs > 0 ? request.build.jobs
                                          : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> argv = {"make", "-C", config.source_dir.string(),
                                   "O=" + object_dir.string(), fmt::format("-j{}", jobs)};
  argv.insert(argv.end(), config.make_variables.begin(), config.make_variables.end());
  argv.push_back("bzImage");
  ProcessOptions options;
  options.log_file = object_dir / kBuildLog;
  options.extra_environment = config.environment;
  options.removed_environment = config.removed_environment;
  options.timeout = config.timeout;
  MakeGroupNote group_note(object_dir);
  options.on_start = [&](int group) { group_note.note(group); };
  options.on_line = [&](std::string_view line) {
    if (!is_compile_line(line)) return;
    ++progress.compiled;
    if (request.on_progress) request.on_progress(progress);
  };
  ProcessResult run = run_process(argv, options);
  if (run.timed_out) {
    fail("building {} timed out after {} s; raise build.timeout in the config (log: {})",
         request.commit_id, config.timeout.count(), options.log_file.string());
  }
  if (run.term_signal != 0) {
    fail("make was killed by signal {} (out of memory?); log: {}", run.term_signal,
         options.log_file.string());
  }
  return run;
}

void take_entry(BuildResult& result, const CachedBuild& entry) {
  result.outcome = BuildOutcome::kOk;
  result.image = entry.image;
  result.image_sha256 = entry.image_sha256;
  result.config = entry.config;
  result.log = entry.log;
}

// Everything in the object directory but the count of files a full build compiles (for the
// progress). The directory itself stays: the build's DirLock is on it.
void empty_object_directory(const fs::path& object_dir) {
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(object_dir)) {
    if (entry.path().filename() == kCompileCountFile) continue;
    fs::remove_all(entry.path(), error);
    if (error) {
      fail("cannot empty the object directory {} for a clean build: {}: {}", object_dir.string(),
           entry.path().string(), error.message());
    }
  }
}

// The log of `make` that failed for the machine, not the kernel, as an error.
void fail_if_machine_failure(const std::string& log_text, const fs::path& log) {
  if (std::string machine = machine_failure(log_text); !machine.empty()) {
    fail("the kernel build {} (log: {})", machine, log.string());
  }
}

// Whether every error of the compiler in `log_text` is in a source file written since the last
// make in the object directory ended, at `last_make` (by the checkout of this tree, or by
// hand). Such errors are the tree's own: a build from an empty directory would compile the same
// files and fail on them again. Kbuild runs the compiler in the object directory, so a relative
// file name is taken from there.
bool fails_in_sources_written_since(const std::string& log_text, const fs::path& source_dir,
                                    const fs::path& object_dir, fs::file_time_type last_make) {
  const std::vector<std::string> files = compile_error_files(log_text);
  return !files.empty() && std::ranges::all_of(files, [&](const std::string& name) {
    const fs::path file = (fs::absolute(object_dir) / name).lexically_normal();
    const fs::path in_tree = file.lexically_relative(source_dir.lexically_normal());
    if (in_tree.empty() || *in_tree.begin() == "..") return false;
    std::error_code error;
    const fs::file_time_type written = fs::last_write_time(file, error);
    // Equal: written in the same tick of the file system's coarse clock, yet after that make.
    return !error && written >= last_make;
  });
}

// `make bzImage` of a configured object directory; stores the image in the cache, or keeps and
// remembers the failure. A failure in a directory that earlier trees were built in may be the
// directory's (a stale generated file, the weaker dependency tracking of objtool and other
// host tools), not the tree's: unless the compiler blames only files the tree changed, it is
// remembered only once a build from an empty directory fails too.
void compile(BuildResult& result, const BuildRequest& request, const ConfigRequest& config,
             const fs::path& object_dir, BuildCache& cache, const BuildKey& key) {
  const fs::path log = object_dir / kBuildLog;
  const bool incremental = fs::exists(log);
  const fs::file_time_type last_make =
      incremental ? fs::last_write_time(log) : fs::file_time_type{};
  BuildProgress progress{0, read_compile_count(object_dir)};
  const auto build_start = Clock::now();
  ProcessResult make = run_make(request, config, object_dir, progress);
  if (!make.ok() && incremental) {
    const std::string text = read_file(log);
    fail_if_machine_failure(text, log);
    if (!fails_in_sources_written_since(text, config.source_dir, object_dir, last_make)) {
      result.warnings.push_back(
          "make failed in the object directory of earlier builds; built again from an empty one");
      const std::string config_text = read_file(object_dir / ".config");
      empty_object_directory(object_dir);
      write_file(object_dir / ".config", config_text);
      progress.compiled = 0;
      make = run_make(request, config, object_dir, progress);
    }
  }
  result.build_seconds = seconds_since(build_start);
  if (!make.ok()) {
    std::string text = read_file(log);
    fail_if_machine_failure(text, log);
    keep_failure(result, cache.root(), result.cache_key, log, object_dir / ".config");
    result.log_tail = summarize_build_log(text);
    remember_failure(result, cache.root());
    return;
  }
  const fs::path image = object_dir / kImage;
  if (!fs::is_regular_file(image)) {
    fail("make bzImage succeeded but {} is missing; see {}", image.string(), log.string());
  }
  if (progress.compiled > progress.expected) {
    write_file(object_dir / kCompileCountFile, std::to_string(progress.compiled));
  }
  take_entry(result, cache.store(key, image, object_dir / ".config", log, request.commit_id,
                                 result.build_seconds));
}

}  // namespace

int BuildProgress::percent() const {
  if (expected <= 0) return -1;
  return std::min(99, compiled * 100 / expected);
}

const char* to_string(BuildOutcome outcome) {
  return outcome == BuildOutcome::kOk ? "ok" : "build-failed";
}

fs::path kbuild_safe_workdir(const fs::path& workdir) {
  const fs::path path = fs::absolute(workdir).lexically_normal();
  if (auto unsafe = kbuild_unsafe_character(path.string())) {
    fail(
        "the workdir {} holds {}: the kernel's Makefile cannot build under it (kbuild breaks on "
        "spaces and ':' and passes the path to its shell); give one of letters, digits and "
        "/ . _ + - @ ~ (the key workdir:, or --workdir)",
        printable_line(path.string()), character_name(*unsafe));
  }
  return path;
}

fs::path default_guest_config() {
  return fs::path(KBISECT_SOURCE_DIR) / "vmimages/kconfig/guest.config";
}

std::vector<fs::path> guest_configs_for(const Scenario& scenario) {
  std::set<FilesystemKind> filesystems = {scenario.filesystem.kind};
  for (const Variant& variant : scenario.workload.variants) {
    if (variant.filesystem) filesystems.insert(*variant.filesystem);
  }
  std::vector<fs::path> configs = {default_guest_config()};
  for (FilesystemKind filesystem : filesystems) {
    configs.push_back(default_guest_config().parent_path() /
                      fmt::format("{}.config", filesystem_name(filesystem)));
  }
  return configs;
}

namespace {

std::string first_line_of(const std::vector<std::string>& argv) {
  std::string output = run_checked(argv);
  return output.substr(0, output.find('\n'));
}

}  // namespace

const std::string& Builder::compiler_version() {
  if (compiler_.empty()) compiler_ = first_line_of({"gcc", "--version"});
  return compiler_;
}

const std::string& Builder::toolchain() {
  if (toolchain_.empty()) {
    toolchain_ = compiler_version() + "\n" + first_line_of({"as", "--version"}) + "\n" +
                 first_line_of({"ld", "--version"});
    // Kconfig records pahole's version (CONFIG_PAHOLE_VERSION) when it is installed.
    if (!boost::process::search_path("pahole").empty()) {
      toolchain_ += "\n" + first_line_of({"pahole", "--version"});
    }
  }
  return toolchain_;
}

ConfigResult Builder::configure(const ConfigRequest& request, const fs::path& cache_root) {
  ConfigInputs inputs{kconfig_sources_digest(request.source_dir),
                      request.base,
                      request.fragments,
                      request.guest_configs,
                      request.make_variables,
                      toolchain()};
  const std::string key = inputs.key();
  ConfigCache cache(cache_root / "kconfig");
  if (std::optional<CachedConfig> cached = cache.find(key)) {
    ConfigResult result;
    result.ok = true;
    result.config = request.config_dir / ".config";
    result.warnings = cached->warnings;
    fs::create_directories(request.config_dir);
    write_file(result.config, read_file(cached->config));
    return result;
  }
  ConfigResult result = configure_kernel(request);
  if (result.ok) cache.store(key, result.config, result.warnings);
  return result;
}

BuildResult Builder::build(const BuildRequest& request) {
  const auto start = Clock::now();
  check_request(request);
  BuildResult result;
  build_into(result, request);
  result.seconds = seconds_since(start);
  return result;
}

void Builder::build_into(BuildResult& result, const BuildRequest& request) {
  BuildCache cache(fs::absolute(request.build.cache_dir));
  const fs::path object_dir = fs::absolute(request.object_dir);
  DirLock lock(object_dir, "wait for it or use another workdir");
  const ConfigRequest config_request =
      config_request_for(request, object_dir, std::chrono::seconds(request.build.timeout_seconds));

  for (const fs::path& dir : {object_dir, config_request.config_dir}) {
    if (auto stopped = stop_leftover_make(dir)) result.warnings.push_back(*stopped);
  }
  result.compiler = compiler_version();
  const auto config_start = Clock::now();
  ConfigResult config = configure(config_request, cache.root());
  result.config_seconds = seconds_since(config_start);
  result.warnings.insert(result.warnings.end(), config.warnings.begin(), config.warnings.end());
  if (!config.ok) {
    keep_failure(result, cache.root(), request.tree_id + "-kconfig", config.log, config.config);
    result.log_tail = config.log_tail;
    return;
  }

  result.config_sha256 = sha256_file_hex(config.config);
  const BuildKey key{request.tree_id, result.config_sha256, result.compiler};
  result.cache_key = key.hex();
  if (std::optional<CachedBuild> hit = cache.find(key)) {
    take_entry(result, *hit);
    result.cache_hit = true;
    return;
  }
  if (take_remembered_failure(result, cache.root(), key)) return;

  install_config(config.config, object_dir);
  compile(result, request, config_request, object_dir, cache, key);
}

}  // namespace kbisect

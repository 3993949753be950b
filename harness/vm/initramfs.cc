#include "vm/initramfs.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "common/error.h"
#include "common/file.h"
#include "common/process.h"
#include "common/sha256.h"
#include "common/shell_quote.h"
#include "vm/cpio.h"

namespace kbisect {
namespace fs = std::filesystem;
namespace {

// Bump when the layout of the image changes in a way the inputs do not show.
constexpr std::string_view kRecipeVersion = "kbisect-initramfs-1";

// A host file and where it goes in the image.
struct ImageFile {
  std::string image_path;  // relative to the image root
  fs::path host_path;
  uint32_t mode;
};

// The shared libraries and the dynamic loader a tool needs, as `ldd` reports them.
std::vector<ImageFile> shared_libraries(const fs::path& tool) {
  std::string output = run_checked({"ldd", tool.string()});
  std::vector<ImageFile> libraries;
  static const std::regex kLibrary(R"(^\s*(\S+) => (/\S+) \(0x[0-9a-f]+\)\s*$)");
  static const std::regex kLoader(R"(^\s*(/\S+) \(0x[0-9a-f]+\)\s*$)");
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_match(line, match, kLibrary)) {
      libraries.push_back({"lib/kbisect/" + match[1].str(), match[2].str(), 0755});
    } else if (std::regex_match(line, match, kLoader)) {
      libraries.push_back({match[1].str().substr(1), match[1].str(), 0755});
    } else if (line.find("not found") != std::string::npos) {
      fail("{} needs a library that is missing on this host ({}); reinstall its package",
           tool.string(), line);
    }
  }
  return libraries;
}

std::vector<ImageFile> image_files(const GuestImageInputs& inputs) {
  if (!fs::exists(inputs.kdio)) {
    fail("kdio binary {} does not exist; build it first (cmake --build BUILD --target kdio)",
         inputs.kdio.string());
  }
  std::vector<ImageFile> files = {
      {"init", inputs.init, 0755},
      {"bin/busybox", inputs.busybox, 0755},
      {"bin/kdio", inputs.kdio, 0755},
  };
  for (const auto& tool : inputs.tools) {
    if (!fs::exists(tool))
      fail("{} is missing; install e2fsprogs and xfsprogs (make deps)", tool.string());
    files.push_back({"sbin/" + tool.filename().string(), tool, 0755});
    for (auto& library : shared_libraries(tool)) {
      // Tools share libc and the loader: one copy each.
      bool known = std::any_of(files.begin(), files.end(), [&](const ImageFile& file) {
        return file.image_path == library.image_path;
      });
      if (!known) files.push_back(std::move(library));
    }
  }
  if (fs::exists(inputs.mke2fs_conf))
    files.push_back({"etc/mke2fs.conf", inputs.mke2fs_conf, 0644});
  return files;
}

bool is_shell_name(std::string_view name) {
  static const std::regex kName("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(name.begin(), name.end(), kName);
}

// Forced over an old filesystem on a reused image; ext4 initialises its inode tables now rather
// than in a kernel thread that would run during the measurement. mke2fs keeps only the last
// -E, so the scenario's extended options join these in one.
std::vector<std::string> ext4_mkfs_options(const std::vector<std::string>& scenario) {
  std::string extended = "lazy_itable_init=0,lazy_journal_init=0";
  std::vector<std::string> options = {"-F", "-E", ""};
  for (size_t i = 0; i < scenario.size(); ++i) {
    if (scenario[i] == "-E" && i + 1 < scenario.size()) {
      extended.append(",").append(scenario[++i]);
    } else if (scenario[i].starts_with("-E") && scenario[i].size() > 2) {
      extended.append(",").append(scenario[i], 2);
    } else {
      options.push_back(scenario[i]);
    }
  }
  options[2] = extended;
  return options;
}

std::vector<std::string> xfs_mkfs_options(const std::vector<std::string>& scenario) {
  std::vector<std::string> options = {"-f"};
  options.insert(options.end(), scenario.begin(), scenario.end());
  return options;
}

// Where the init mounts the test filesystem and runs kdio.
constexpr char kTestDir[] = "/mnt/test";

// What run.env exports, for the init and for kdio's ${VAR}: the test filesystem and its device,
// and the workload's values.
std::map<std::string, std::string> run_env_exports(const GuestRun& run) {
  std::map<std::string, std::string> exports = run.vars;
  exports["KBISECT_DIR"] = kTestDir;
  exports["KBISECT_DEVICE"] = run.device;
  exports["KBISECT_FS"] = filesystem_name(run.filesystem);
  exports["KBISECT_MOUNT_OPTIONS"] = run.mount_options;
  return exports;
}

}  // namespace

fs::path base_initramfs(const GuestImageInputs& inputs, const fs::path& cache_dir) {
  std::vector<ImageFile> files = image_files(inputs);
  // The recipe: every path in the image and the content of every file but kdio, whose own
  // hash is the other half of the key.
  std::string recipe(kRecipeVersion);
  std::string kdio_hash;
  for (const auto& file : files) {
    std::string hash = sha256_file_hex(file.host_path);
    if (file.image_path == "bin/kdio") {
      kdio_hash = hash;
      continue;
    }
    recipe += fmt::format("\n{} {:o} {}", file.image_path, file.mode, hash);
  }
  fs::path image = cache_dir / "initramfs" /
                   fmt::format("initramfs-{}-{}.cpio", kdio_hash.substr(0, 16),
                               sha256_hex(recipe).substr(0, 16));
  if (fs::exists(image)) return image;

  CpioWriter cpio;
  for (const auto& file : files) cpio.file(file.image_path, read_file(file.host_path), file.mode);
  fs::create_directories(image.parent_path());
  write_file_atomically(image, cpio.finish());
  return image;
}

GuestRun guest_run_for(const Scenario& scenario, const Variant* variant) {
  GuestRun run;
  run.filesystem = scenario.filesystem.kind;
  run.mkfs_options = scenario.filesystem.mkfs_options;
  run.mount_options = scenario.filesystem.mount_options;
  run.vars = scenario.workload.vars;
  run.job_files = scenario.workload.job_files;
  if (variant != nullptr) {
    for (const auto& [name, value] : variant->vars) run.vars[name] = value;
    if (variant->mount_options) run.mount_options = *variant->mount_options;
    if (variant->filesystem) run.filesystem = *variant->filesystem;
  }
  return run;
}

std::map<std::string, std::string> guest_environment(const GuestRun& run) {
  // vmimages/guest/init exports the first four before it reads run.env; its shell (busybox sh,
  // started in /) exports the others and sets PWD and OLDPWD when the init changes into the
  // test directory.
  std::map<std::string, std::string> environment = {{"PATH", "/sbin:/bin:/usr/sbin:/usr/bin"},
                                                    {"HOME", "/"},
                                                    {"TERM", "dumb"},
                                                    {"LD_LIBRARY_PATH", "/lib/kbisect"},
                                                    {"SHLVL", "1"},
                                                    {"OLDPWD", "/"},
                                                    {"PWD", kTestDir}};
  for (auto& [name, value] : run_env_exports(run)) environment[name] = std::move(value);
  return environment;
}

std::string run_env(const GuestRun& run) {
  std::string env = "# written by kbisect for one run; sourced by /init\n";
  if (run.probe) return env + "KBISECT_PROBE=1\n";
  const bool ext4 = run.filesystem == FilesystemKind::kExt4;
  std::string command = fmt::format("mkfs.{}", filesystem_name(run.filesystem));
  for (const auto& option :
       ext4 ? ext4_mkfs_options(run.mkfs_options) : xfs_mkfs_options(run.mkfs_options)) {
    command += ' ';
    command += single_quote(option);
  }
  env += fmt::format("kbisect_mkfs() {{ {} \"$@\"; }}\n", command);
  for (const auto& [name, value] : run_env_exports(run)) {
    if (!is_shell_name(name)) {
      fail("workload variable '{}' is not a valid name; use letters, digits and _", name);
    }
    env += fmt::format("export {}={}\n", name, single_quote(value));
  }
  return env;
}

void write_run_initramfs(const fs::path& base, const GuestRun& run, const fs::path& output) {
  CpioWriter cpio;
  cpio.file("kbisect/run.env", run_env(run));
  // The init passes /kbisect/jobs/* to kdio, which the shell sorts as text: the numbers have
  // one width, so that the 100th file does not run before the 11th.
  const size_t width = std::max<size_t>(2, std::to_string(run.job_files.size()).size());
  int index = 0;
  for (const auto& job : run.job_files) {
    cpio.file(fmt::format("kbisect/jobs/{:0{}d}-{}", ++index, width, job.filename().string()),
              read_file(job));
  }
  if (!run.probe && index == 0)
    fail("the workload has no job files; list them under workload.jobs");
  // Two archives back to back: the kernel unpacks both, the second on top of the first.
  std::string image = read_file(base);
  image += cpio.finish();
  fs::create_directories(output.parent_path());
  write_file_atomically(output, image);
}

}  // namespace kbisect

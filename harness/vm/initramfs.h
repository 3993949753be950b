// The guest image: a base initramfs (init, busybox, kdio, mkfs tools) built once per
// (kdio binary, recipe) and cached, plus a small per-run cpio with the run's parameters and
// job files appended to it. See vmimages/README.md.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "config/scenario.h"

namespace kbisect {

struct GuestImageInputs {
  std::filesystem::path kdio;  // static kdio binary (workloads/kdio in the build tree)
  std::filesystem::path busybox = "/bin/busybox";
  std::filesystem::path init = KBISECT_SOURCE_DIR "/vmimages/guest/init";
  std::vector<std::filesystem::path> tools = {"/sbin/mkfs.ext4", "/sbin/mkfs.xfs"};
  std::filesystem::path mke2fs_conf = "/etc/mke2fs.conf";  // optional
};

// The cached base image for these inputs under cache_dir, built first if missing.
std::filesystem::path base_initramfs(const GuestImageInputs& inputs,
                                     const std::filesystem::path& cache_dir);

// What one run does in the guest.
struct GuestRun {
  bool probe = false;  // boot, report init, stop: the accel probe
  FilesystemKind filesystem = FilesystemKind::kExt4;
  std::vector<std::string> mkfs_options;
  std::string mount_options;
  std::map<std::string, std::string> vars;  // exported for kdio's ${VAR}
  std::vector<std::filesystem::path> job_files;
  std::string device = "/dev/nvme0n1";
};

// The run's parameters from the scenario and variant (the variant's vars win).
GuestRun guest_run_for(const Scenario& scenario, const Variant* variant);

// /kbisect/run.env for the guest init: shell assignments, every value single-quoted.
std::string run_env(const GuestRun& run);

// The environment kdio runs with in the guest: the init's own variables and run.env's exports.
std::map<std::string, std::string> guest_environment(const GuestRun& run);

// Writes base + the run's cpio to `output` (the -initrd of one VM).
void write_run_initramfs(const std::filesystem::path& base, const GuestRun& run,
                         const std::filesystem::path& output);

}  // namespace kbisect

#include "vm/vm_plan.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <fstream>
#include <optional>
#include <regex>

#include "common/error.h"
#include "common/events.h"
#include "common/unique_fd.h"

namespace kbisect {
namespace fs = std::filesystem;
namespace {

std::string read_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

bool has_entries(const fs::path& directory) {
  std::error_code error;
  return fs::is_directory(directory, error) && !fs::is_empty(directory, error);
}

bool is_under(const fs::path& path, const fs::path& directory) {
  return std::mismatch(directory.begin(), directory.end(), path.begin(), path.end()).first ==
         directory.end();
}

// nvme0n1 for nvme0c1n1, the hidden disk of one path under native multipath; the head disk
// that the host mounts sits under the subsystem, not under the controller.
std::optional<std::string> multipath_head(const std::string& name) {
  static const std::regex kPathDisk("nvme([0-9]+)c[0-9]+n([0-9]+)");
  std::smatch match;
  if (!std::regex_match(name, match, kPathDisk)) return std::nullopt;
  return fmt::format("nvme{}n{}", match[1].str(), match[2].str());
}

// The host block devices on an NVMe controller: its namespaces and their partitions, found as
// the /sys/class/block entries under the PCI device (a namespace's name need not be the
// controller's: nvme0 may own nvme1n1), and the head disks of its multipath paths with theirs.
std::vector<std::string> controller_block_devices(const fs::path& device_dir,
                                                  const fs::path& root) {
  std::error_code error;
  const fs::path device = fs::canonical(device_dir, error);
  std::vector<std::pair<std::string, fs::path>> block_devices;
  for (const auto& entry : fs::directory_iterator(root / "sys/class/block", error)) {
    fs::path target = fs::canonical(entry.path(), error);
    if (!error) block_devices.emplace_back(entry.path().filename().string(), target);
  }
  std::vector<std::string> names;
  std::vector<std::string> heads;
  for (const auto& [name, path] : block_devices) {
    if (!is_under(path, device)) continue;
    names.push_back(name);
    if (auto head = multipath_head(name)) heads.push_back(*head);
  }
  for (const auto& [name, path] : block_devices) {
    const std::string disk = path.parent_path().filename().string();
    for (const auto& head : heads) {
      if (name == head || disk == head) names.push_back(name);
    }
  }
  return names;
}

void check_not_in_use(const fs::path& device_dir, const fs::path& root, const std::string& pci) {
  auto devices = controller_block_devices(device_dir, root);
  std::ifstream mounts(root / "proc/mounts");
  for (std::string line; std::getline(mounts, line);) {
    std::string source = line.substr(0, line.find(' '));
    for (const auto& device : devices) {
      if (source != "/dev/" + device) continue;
      std::string rest = line.substr(source.size() + 1);
      fail(
          "cannot pass through {}: its namespace /dev/{} is mounted at {} on the host; "
          "unmount it (and remove it from /etc/fstab) first",
          pci, device, rest.substr(0, rest.find(' ')));
    }
  }
  for (const auto& device : devices) {
    fs::path holders = root / "sys/class/block" / device / "holders";
    if (has_entries(holders)) {
      fail(
          "cannot pass through {}: /dev/{} is held by {} (LVM, md or dm on the host); "
          "release it first",
          pci, device, fs::directory_iterator(holders)->path().filename().string());
    }
  }
  // What the lists above miss (swap, a mount under another name, a program's exclusive open):
  // the kernel refuses an exclusive open of a block device that anything has claimed.
  for (const auto& device : devices) {
    UniqueFd fd(::open((root / "dev" / device).c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
    if (!fd && errno == EBUSY) {
      fail(
          "cannot pass through {}: /dev/{} is in use on the host (swap, a mount, or a program "
          "that holds it); free it first",
          pci, device);
    }
  }
}

}  // namespace

std::vector<std::string> emulated_nvme_args(const VmPlan& plan) {
  // QEMU's option parser splits on commas; a literal comma is written twice.
  std::string file;
  for (char c : plan.disk_image.string()) file += c == ',' ? std::string(",,") : std::string(1, c);
  return {"-drive",
          fmt::format("file={},if=none,id=nvm,format=raw,cache={}", file, plan.disk_cache),
          "-device", "nvme,serial=kbisect0,drive=nvm"};
}

std::string next_vm_name() {
  static std::atomic<int> counter{0};
  return fmt::format("kbisect-{}-{}", ::getpid(), ++counter);
}

int vm_name_pid(std::string_view name) {
  static constexpr std::string_view kPrefix = "kbisect-";
  if (!name.starts_with(kPrefix)) return 0;
  name.remove_prefix(kPrefix.size());
  int pid = 0;
  auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (error != std::errc() || end == name.data() + name.size() || *end != '-' || pid <= 0) return 0;
  return pid;
}

std::string guest_cmdline(const Scenario& scenario) {
  std::string cmdline = kGuestBaseCmdline;
  if (!scenario.kernel.cmdline_extra.empty()) cmdline += " " + scenario.kernel.cmdline_extra;
  return cmdline;
}

std::string prepare_backing_file(const DeviceSpec& device, Events* events) {
  if (device.image.empty()) fail("device.image is empty; set the emulated NVMe backing file path");
  if (device.size_bytes == 0) fail("device.size is 0; give the emulated NVMe a size");
  fs::create_directories(device.image.parent_path().empty() ? "." : device.image.parent_path());
  {
    UniqueFd fd(::open(device.image.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!fd) fail("cannot create {}: {}", device.image.string(), errno_text(errno));
    struct stat info {};
    ::fstat(fd.get(), &info);
    if (static_cast<uint64_t>(info.st_size) != device.size_bytes &&
        ::ftruncate(fd.get(), static_cast<off_t>(device.size_bytes)) != 0) {
      fail("cannot size {} to {} bytes: {}", device.image.string(), device.size_bytes,
           errno_text(errno));
    }
  }
  UniqueFd direct(::open(device.image.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC));
  if (direct) return "none";
  std::string warning = fmt::format(
      "{} is on a filesystem without O_DIRECT ({}): the emulated NVMe uses cache=writethrough, "
      "so host page cache effects are in the measurements; put device.image on ext4 or xfs",
      device.image.string(), errno_text(errno));
  if (events != nullptr) {
    events->note("warning", warning);
  } else {
    fmt::print(stderr, "warning: {}\n", warning);
  }
  return "writethrough";
}

void check_passthrough(const std::string& pci, bool need_vfio_bound, const fs::path& root) {
  static const std::regex kAddress("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");
  if (!std::regex_match(pci, kAddress)) {
    fail("device.pci '{}' is not a PCI address like 0000:01:00.0 (see lspci -D)", pci);
  }
  fs::path device_dir = root / "sys/bus/pci/devices" / pci;
  if (!fs::exists(device_dir)) fail("no PCI device {} on this host; lspci -D lists them", pci);
  if (!has_entries(root / "sys/kernel/iommu_groups")) {
    fail(
        "cannot pass through {}: the host has no IOMMU groups (/sys/kernel/iommu_groups is "
        "empty); enable VT-d/AMD-Vi in the firmware and boot the host with intel_iommu=on "
        "or amd_iommu=on",
        pci);
  }
  if (!fs::exists(device_dir / "iommu_group")) {
    fail("cannot pass through {}: it is in no IOMMU group", pci);
  }
  std::string device_class = read_line(device_dir / "class");
  if (!device_class.starts_with("0x010802")) {
    fail("{} is not an NVMe controller (PCI class {}, want 0x010802)", pci, device_class);
  }
  std::error_code error;
  std::string driver = fs::read_symlink(device_dir / "driver", error).filename().string();
  if (driver == "vfio-pci") return;
  if (driver == "nvme") check_not_in_use(device_dir, root, pci);
  if (need_vfio_bound) {
    const std::string unbind =
        driver.empty() ? ""
                       : fmt::format("echo {} > /sys/bus/pci/devices/{}/driver/unbind; ", pci, pci);
    fail(
        "cannot pass through {}: it is bound to {}, not vfio-pci; as root: modprobe vfio-pci; "
        "{}echo vfio-pci > /sys/bus/pci/devices/{}/driver_override; echo {} > "
        "/sys/bus/pci/drivers_probe",
        pci, driver.empty() ? "no driver" : driver, unbind, pci, pci);
  }
}

}  // namespace kbisect

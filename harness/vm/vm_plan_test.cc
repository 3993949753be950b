#include "vm/vm_plan.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/error.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {
namespace fs = std::filesystem;

// A fake root with the sysfs and /proc/mounts entries check_passthrough reads.
class PassthroughTest : public ::testing::Test {
 protected:
  static constexpr const char* kPci = "0000:01:00.0";

  void SetUp() override {
    device_ = root_ / "sys/bus/pci/devices" / kPci;
    fs::create_directories(device_);
    fs::create_directories(root_ / "sys/kernel/iommu_groups/7");
    fs::create_directory_symlink(root_ / "sys/kernel/iommu_groups/7", device_ / "iommu_group");
    std::ofstream(device_ / "class") << "0x010802\n";
    fs::create_directories(root_ / "proc");
    std::ofstream(root_ / "proc/mounts") << "/dev/vda / ext4 rw 0 0\n";
  }

  void bind(const std::string& driver) {
    fs::create_directories(root_ / "sys/bus/pci/drivers" / driver);
    fs::create_directory_symlink(root_ / "sys/bus/pci/drivers" / driver, device_ / "driver");
  }

  // A block device at `path` (made here), as sysfs lists it in /sys/class/block.
  void add_block_device(const fs::path& path) {
    fs::create_directories(path);
    fs::create_directories(root_ / "sys/class/block");
    fs::create_directory_symlink(path, root_ / "sys/class/block" / path.filename());
  }

  // The error text of check_passthrough, or "" when it passes.
  std::string problem(bool need_vfio_bound, const std::string& pci = kPci) {
    try {
      check_passthrough(pci, need_vfio_bound, root_);
      return "";
    } catch (const Error& error) {
      return error.what();
    }
  }

  TempDir temp_;
  const fs::path root_ = temp_.path();
  fs::path device_;
};

TEST_F(PassthroughTest, VfioBoundNvmeControllerPasses) {
  bind("vfio-pci");
  EXPECT_EQ(problem(true), "");
}

TEST_F(PassthroughTest, MalformedAndMissingAddresses) {
  EXPECT_NE(problem(true, "01:00.0").find("device.pci '01:00.0' is not a PCI address"),
            std::string::npos);
  EXPECT_NE(problem(true, "0000:02:00.0").find("no PCI device 0000:02:00.0"), std::string::npos);
}

TEST_F(PassthroughTest, NoIommuGroups) {
  bind("vfio-pci");
  fs::remove_all(root_ / "sys/kernel/iommu_groups/7");
  EXPECT_NE(problem(true).find("no IOMMU groups"), std::string::npos);
}

TEST_F(PassthroughTest, NotAnNvmeController) {
  bind("vfio-pci");
  std::ofstream(device_ / "class") << "0x020000\n";
  EXPECT_NE(problem(true).find("not an NVMe controller"), std::string::npos);
}

TEST_F(PassthroughTest, BoundToNvmeNeedsRebindingForQemuButNotForManagedLibvirt) {
  bind("nvme");
  std::string text = problem(true);
  EXPECT_NE(text.find("bound to nvme, not vfio-pci; as root: modprobe vfio-pci; echo "
                      "0000:01:00.0 > /sys/bus/pci/devices/0000:01:00.0/driver/unbind;"),
            std::string::npos)
      << text;
  EXPECT_EQ(problem(false), "");
}

TEST_F(PassthroughTest, UnboundDeviceIsNotToldToUnbind) {
  std::string text = problem(true);
  EXPECT_NE(text.find("bound to no driver, not vfio-pci; as root: modprobe vfio-pci; echo "
                      "vfio-pci > /sys/bus/pci/devices/0000:01:00.0/driver_override"),
            std::string::npos)
      << text;
}

TEST_F(PassthroughTest, MountedNamespaceIsNamed) {
  bind("nvme");
  add_block_device(device_ / "nvme/nvme0/nvme0n1");
  add_block_device(device_ / "nvme/nvme0/nvme0n1/nvme0n1p2");
  std::ofstream(root_ / "proc/mounts") << "/dev/nvme0n1p2 /home ext4 rw 0 0\n";
  std::string text = problem(false);
  EXPECT_NE(text.find("/dev/nvme0n1p2 is mounted at /home"), std::string::npos) << text;
}

TEST_F(PassthroughTest, NamespaceNamedAfterAnotherControllerIsStillItsOwn) {
  // Controllers probed in parallel: nvme0 can own nvme1n1.
  bind("nvme");
  add_block_device(device_ / "nvme/nvme0/nvme1n1");
  std::ofstream(root_ / "proc/mounts") << "/dev/nvme1n1 /srv xfs rw 0 0\n";
  std::string text = problem(false);
  EXPECT_NE(text.find("/dev/nvme1n1 is mounted at /srv"), std::string::npos) << text;
}

TEST_F(PassthroughTest, MultipathHeadDiskOfTheControllerIsChecked) {
  // Native multipath: the controller holds the hidden path disk nvme0c0n1; the host mounts
  // the head disk nvme0n1, which sits under the subsystem.
  bind("nvme");
  add_block_device(device_ / "nvme/nvme0/nvme0c0n1");
  const fs::path subsystem = root_ / "sys/devices/virtual/nvme-subsystem/nvme-subsys0";
  add_block_device(subsystem / "nvme0n1");
  add_block_device(subsystem / "nvme0n1/nvme0n1p1");
  add_block_device(subsystem / "nvme0n2");
  std::ofstream(root_ / "proc/mounts") << "/dev/nvme0n2 /data ext4 rw 0 0\n";
  EXPECT_EQ(problem(false), "");
  std::ofstream(root_ / "proc/mounts") << "/dev/nvme0n1p1 /srv ext4 rw 0 0\n";
  std::string text = problem(false);
  EXPECT_NE(text.find("/dev/nvme0n1p1 is mounted at /srv"), std::string::npos) << text;
}

TEST_F(PassthroughTest, HeldNamespaceIsNamed) {
  bind("nvme");
  add_block_device(device_ / "nvme/nvme0/nvme0n1");
  fs::create_directories(device_ / "nvme/nvme0/nvme0n1/holders/dm-0");
  EXPECT_NE(problem(false).find("held by dm-0"), std::string::npos);
}

TEST(GuestCmdline, PanicsEndTheVmAndExtraComesLast) {
  Scenario scenario;
  scenario.kernel.cmdline_extra = "mitigations=off";
  std::string cmdline = guest_cmdline(scenario);
  EXPECT_NE(cmdline.find("console=ttyS0"), std::string::npos);
  EXPECT_NE(cmdline.find("panic=-1"), std::string::npos);
  EXPECT_NE(cmdline.find("random.trust_cpu=on"), std::string::npos);
  EXPECT_TRUE(cmdline.ends_with(" mitigations=off"));
}

}  // namespace
}  // namespace kbisect

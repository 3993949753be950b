#include "vm/libvirt_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "common/error.h"
#include "common/file.h"

namespace kbisect {
namespace {

VmPlan plan() {
  VmPlan plan;
  plan.name = "kbisect-1-1";
  plan.kernel = "/boot/vmlinuz-test";
  plan.initrd = "/tmp/initrd.cpio";
  plan.cmdline = "console=ttyS0,115200 panic=-1";
  plan.vcpus = 2;
  plan.memory_mib = 512;
  plan.disk_image = "/var/tmp/nvme.img";
  return plan;
}

// libvirt itself validates the XML against its schema (VIR_DOMAIN_DEFINE_VALIDATE) in the
// test driver, which needs no daemon. It drops <qemu:commandline>, so that part is checked
// as text.
void expect_valid(const std::string& xml) {
  VirConnection connection = open_libvirt("test:///default");
  VirDomain domain(
      virDomainDefineXMLFlags(connection.get(), xml.c_str(), VIR_DOMAIN_DEFINE_VALIDATE));
  ASSERT_TRUE(domain) << libvirt_error() << "\n" << xml;
  EXPECT_EQ(virDomainUndefine(domain.get()), 0);
}

TEST(DomainXml, EmulatedNvmeIsValid) {
  std::string xml = domain_xml(plan(), "/tmp/console.log");
  expect_valid(xml);
  EXPECT_NE(
      xml.find("<qemu:arg value='file=/var/tmp/nvme.img,if=none,id=nvm,format=raw,cache=none'/>"),
      std::string::npos);
  EXPECT_NE(xml.find("<qemu:arg value='nvme,serial=kbisect0,drive=nvm'/>"), std::string::npos);
  EXPECT_NE(xml.find("<features><acpi/></features>"), std::string::npos);
  EXPECT_NE(xml.find("<memballoon model='none'/>"), std::string::npos);
  EXPECT_NE(xml.find("<on_reboot>destroy</on_reboot>"), std::string::npos);
  EXPECT_NE(xml.find("<source path='/tmp/console.log'/>"), std::string::npos);
}

TEST(DomainXml, PinningAndPassthroughAreValid) {
  VmPlan passthrough = plan();
  passthrough.accel = "kvm";
  passthrough.vcpu_pinning = {1, 0};
  passthrough.device = DeviceKind::kNvmePassthrough;
  passthrough.pci_address = "0000:3b:00.1";
  std::string xml = domain_xml(passthrough, "/tmp/console.log");
  expect_valid(xml);
  EXPECT_NE(xml.find("<vcpupin vcpu='1' cpuset='0'/>"), std::string::npos);
  EXPECT_NE(xml.find("<address domain='0x0000' bus='0x3b' slot='0x00' function='0x1'/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<hostdev mode='subsystem' type='pci' managed='yes'>"), std::string::npos);
  EXPECT_EQ(xml.find("qemu:commandline"), std::string::npos);
}

TEST(DomainXml, EveryValueIsEscaped) {
  VmPlan hostile = plan();
  hostile.cmdline = "a='x' <b> & \"c\"";
  hostile.kernel = "/tmp/it's<k>.img";
  hostile.initrd = "/tmp/in<it>&rd.cpio";
  hostile.name = "kbisect-<1>&'1";
  hostile.disk_image = "/tmp/a'b,c.img";
  std::string xml = domain_xml(hostile, "/tmp/con'sole&.log");
  expect_valid(xml);
  EXPECT_NE(xml.find("<cmdline>a=&apos;x&apos; &lt;b&gt; &amp; &quot;c&quot;</cmdline>"),
            std::string::npos);
  EXPECT_NE(xml.find("file=/tmp/a&apos;b,,c.img"), std::string::npos);
  EXPECT_NE(xml.find("<initrd>/tmp/in&lt;it&gt;&amp;rd.cpio</initrd>"), std::string::npos);
  EXPECT_NE(xml.find("<name>kbisect-&lt;1&gt;&amp;&apos;1</name>"), std::string::npos);
}

TEST(Libvirt, BadUriIsAClearError) {
  try {
    open_libvirt("nosuchdriver:///x");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("nosuchdriver:///x"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("is libvirtd running"), std::string::npos);
  }
}

TEST(Libvirt, UnreachableRemoteHostIsAClearError) {
  // Nothing listens on port 1: the connection is refused at once.
  try {
    open_libvirt("qemu+tcp://127.0.0.1:1/system");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("is the host reachable"), std::string::npos)
        << error.what();
  }
}

TEST(Libvirt, AppArmorAdviceOnlyWhereItConfinesQemu) {
  const std::string apparmor =
      "<host><secmodel>\n<model>apparmor</model>\n<doi>0</doi>\n</secmodel></host>";
  EXPECT_THAT(apparmor_advice(apparmor, "/srv/k/nvme.img"),
              ::testing::HasSubstr("the line \"/srv/k/nvme.img rwk,\" in "
                                   "/etc/apparmor.d/abstractions/libvirt-qemu"));
  EXPECT_EQ(apparmor_advice("<host><secmodel><model>none</model></secmodel></host>", "/x"), "");
}

TEST(Libvirt, SweepDestroysDomainsOfDeadProcessesOnly) {
  VirConnection connection = open_libvirt("test:///default");
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  VmPlan stale = plan();
  stale.name = fmt::format("kbisect-{}-1", dead);
  VmPlan live = plan();
  live.name = fmt::format("kbisect-{}-1", ::getpid());
  // The same dead pid, in another container's pid namespace.
  VmPlan elsewhere = plan();
  elsewhere.name = fmt::format("kbisect-{}-2", dead);
  for (const auto& each : {stale, live, elsewhere}) {
    std::string xml = domain_xml(each, "/tmp/console.log");
    if (each.name == elsewhere.name) {
      const size_t start = xml.find("<description>") + std::strlen("<description>");
      xml.replace(start, xml.find("</description>") - start,
                  "kbisect domain; its pid is in "
                  "namespace pid:[1]");
    }
    VirDomain domain(virDomainCreateXML(connection.get(), xml.c_str(), 0));
    ASSERT_TRUE(domain) << libvirt_error();
  }
  EXPECT_EQ(sweep_stale_domains(connection.get()), 1);
  EXPECT_FALSE(VirDomain(virDomainLookupByName(connection.get(), stale.name.c_str())));
  for (const auto& each : {live, elsewhere}) {
    VirDomain kept(virDomainLookupByName(connection.get(), each.name.c_str()));
    ASSERT_TRUE(kept) << each.name;
    virDomainDestroy(kept.get());
  }
}

// libvirt's QEMU runs as its own user: a workdir under a private directory (/root) is where
// every guest would fail to start with "Permission denied".
TEST(Libvirt, UnreachableForQemuNamesWhatItCannotOpen) {
  if (::geteuid() != 0) GTEST_SKIP() << "takes another user's identity: needs root";
  namespace fs = std::filesystem;
  const uid_t nobody = 65534;
  fs::path dir = fs::temp_directory_path() / fmt::format("kbisect-reach-test-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir / "open");
  fs::create_directories(dir / "private");
  fs::permissions(dir / "private", fs::perms::owner_all);
  VmPlan reachable = plan();
  reachable.kernel = dir / "open" / "bzImage";
  reachable.initrd = dir / "open" / "initramfs.cpio";
  reachable.disk_image = dir / "open" / "nvme.img";
  write_file(reachable.disk_image, "");
  ASSERT_EQ(::chown(reachable.disk_image.c_str(), nobody, nobody), 0);
  EXPECT_EQ(unreachable_for_qemu(reachable, nobody, nobody), std::nullopt);

  VmPlan private_kernel = reachable;
  private_kernel.kernel = dir / "private" / "bzImage";
  EXPECT_EQ(unreachable_for_qemu(private_kernel, nobody, nobody),
            fmt::format("cannot search {} (Permission denied)", (dir / "private").string()));
  VmPlan root_owned_disk = reachable;
  ASSERT_EQ(::chown(reachable.disk_image.c_str(), 0, 0), 0);
  EXPECT_EQ(unreachable_for_qemu(root_owned_disk, nobody, nobody),
            fmt::format("cannot open {} (Permission denied)", reachable.disk_image.string()));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kbisect

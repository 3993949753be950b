#include "vm/libvirt_runner.h"

#include <fcntl.h>
#include <grp.h>
#include <libvirt/virterror.h>
#include <poll.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <thread>

#include "common/error.h"
#include "common/interrupt.h"
#include "common/local_process.h"
#include "common/process.h"
#include "common/unique_fd.h"
#include "common/xml_escape.h"
#include "vm/accel.h"
#include "vm/console_file_reader.h"

namespace kbisect {
namespace fs = std::filesystem;
namespace {

// libvirt delivers events only while someone runs its event loop: one thread for the
// process, started before the first connection.
void start_event_loop() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Errors reach the user through Error messages (libvirt_error()), not libvirt's own
    // printing to stderr.
    virSetErrorFunc(nullptr, [](void*, virErrorPtr) {});
    if (virEventRegisterDefaultImpl() < 0)
      fail("cannot start libvirt's event loop: {}", libvirt_error());
    std::thread([] {
      for (;;) virEventRunDefaultImpl();
    }).detach();
  });
}

// What the lifecycle callback tells the waiting run.
struct StopSignal {
  std::string domain_name;
  std::atomic<bool> stopped{false};
  // The STOPPED event's detail: VIR_DOMAIN_EVENT_STOPPED_FAILED when QEMU itself died.
  std::atomic<int> how{-1};
  UniqueFd read_end;
  UniqueFd write_end;
};

int on_lifecycle(virConnectPtr, virDomainPtr domain, int event, int detail, void* opaque) {
  auto& signal = *static_cast<std::shared_ptr<StopSignal>*>(opaque);
  const char* name = virDomainGetName(domain);
  if (event != VIR_DOMAIN_EVENT_STOPPED || name == nullptr || signal->domain_name != name) return 0;
  signal->how = detail;
  signal->stopped = true;
  const char byte = 1;
  [[maybe_unused]] auto ignored = ::write(signal->write_end.get(), &byte, 1);
  return 0;
}

std::string pci_address_xml(const std::string& pci) {
  // 0000:01:00.0 -> domain bus slot function
  return fmt::format("<address domain='0x{}' bus='0x{}' slot='0x{}' function='0x{}'/>",
                     xml_escape(pci.substr(0, 4)), xml_escape(pci.substr(5, 2)),
                     xml_escape(pci.substr(8, 2)), xml_escape(pci.substr(11, 1)));
}

std::optional<std::string> user_name(uid_t uid) {
  passwd entry;
  passwd* user = nullptr;
  char buffer[4096];
  if (getpwuid_r(uid, &entry, buffer, sizeof buffer, &user) != 0 || user == nullptr) {
    return std::nullopt;
  }
  return std::string(user->pw_name);
}

struct QemuUser {
  uid_t uid;
  gid_t gid;
};

// The host's capabilities XML, "" when libvirt does not give it.
std::string capabilities_of(virConnectPtr connection) {
  Unique<char, ::free> capabilities(virConnectGetCapabilities(connection));
  return capabilities ? capabilities.get() : "";
}

// The identity QEMU runs as under this driver (the DAC base label in the capabilities), when
// kbisect can act on it: kbisect runs as root, and QEMU does not.
std::optional<QemuUser> qemu_user(virConnectPtr connection) {
  if (::geteuid() != 0) return std::nullopt;
  const std::string capabilities = capabilities_of(connection);
  static const std::regex kLabel(R"(<baselabel type='(?:kvm|qemu)'>\+(\d+):\+(\d+)</baselabel>)");
  std::smatch match;
  if (!std::regex_search(capabilities, match, kLabel)) return std::nullopt;
  QemuUser user{static_cast<uid_t>(std::stoul(match[1].str())),
                static_cast<gid_t>(std::stoul(match[2].str()))};
  if (user.uid == 0) return std::nullopt;
  return user;
}

// libvirt hands the kernel, initrd and console file to QEMU's user itself, but not a drive it
// does not manage (the NVMe backing file on <qemu:commandline>): give that file to the user.
// For a remote host too: the file is on storage both hosts share, and the uid:gid is the one
// that host reports, the identity its QEMU opens the file with.
void give_backing_file_to_qemu(const QemuUser& user, const fs::path& image) {
  if (::chown(image.c_str(), user.uid, user.gid) != 0) {
    fail("cannot hand {} to QEMU's user {}:{}: {}", image.string(), user.uid, user.gid,
         errno_text(errno));
  }
}

// Fails, before anything starts, when this host's QEMU could not open what it opens by path
// (QEMU would only say "Permission denied", and the accel probe would take that for KVM).
void check_qemu_reaches(const VmPlan& plan, const QemuUser& user, const std::string& uri) {
  auto why = unreachable_for_qemu(plan, user.uid, user.gid);
  if (!why) return;
  fail(
      "libvirt at {} runs QEMU as {} (uid {}), which {}: put workdir and build.cache_dir where "
      "that user can reach them (every directory above them searchable by it; not under /root), "
      "or have libvirt run QEMU as root (user = \"root\" in /etc/libvirt/qemu.conf)",
      uri, user_name(user.uid).value_or("its user"), user.uid, *why);
}

// The errno of access(path, mode) as uid:gid with that user's groups, asked by a child that
// takes the identity (search permission on every directory, ACLs and all); nullopt when the
// child could not take it.
std::optional<int> access_errno_as(uid_t uid, gid_t gid, const fs::path& path, int mode) {
  std::vector<gid_t> groups(1, gid);
  if (auto name = user_name(uid)) {
    int count = 64;
    groups.resize(count);
    if (getgrouplist(name->c_str(), gid, groups.data(), &count) < 0) count = 1;
    groups.resize(count);
  }
  const std::string target = path.string();
  pid_t child = ::fork();
  if (child < 0) return std::nullopt;
  if (child == 0) {
    if (::setgroups(groups.size(), groups.data()) != 0 || ::setgid(gid) != 0 ||
        ::setuid(uid) != 0) {
      ::_exit(255);
    }
    ::_exit(::access(target.c_str(), mode) == 0 ? 0 : errno);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) == 255)
    return std::nullopt;
  return WEXITSTATUS(status);
}

}  // namespace

std::optional<std::string> unreachable_for_qemu(const VmPlan& plan, uid_t uid, gid_t gid) {
  // libvirt hands the kernel and initrd themselves to QEMU, not the directories above them.
  std::vector<std::pair<fs::path, int>> needs = {{plan.kernel.parent_path(), X_OK},
                                                 {plan.initrd.parent_path(), X_OK}};
  if (plan.has_backing_file()) needs.emplace_back(plan.disk_image, R_OK | W_OK);
  for (const auto& [path, mode] : needs) {
    auto error = access_errno_as(uid, gid, path, mode);
    if (error && *error != 0) {
      return fmt::format("{} {} ({})", mode == X_OK ? "cannot search" : "cannot open",
                         path.string(), errno_text(*error));
    }
  }
  return std::nullopt;
}

bool is_local_uri(const std::string& uri) {
  size_t scheme_end = uri.find("://");
  return scheme_end != std::string::npos && uri.compare(scheme_end + 3, 1, "/") == 0;
}

std::string libvirt_error() {
  virErrorPtr error = virGetLastError();
  return error != nullptr && error->message != nullptr ? error->message : "unknown libvirt error";
}

VirConnection open_libvirt(const std::string& uri) {
  start_event_loop();
  VirConnection connection(virConnectOpen(uri.c_str()));
  if (!connection) {
    fail("cannot connect to libvirt at {}: {}; {}", uri, libvirt_error(),
         is_local_uri(uri) ? "is libvirtd running (scripts/services.sh start) and may this user "
                             "use it?"
                           : "is the host reachable (for qemu+ssh: does `ssh HOST virsh list` "
                             "work without a password?) and does it run libvirtd?");
  }
  return connection;
}

// Which pid namespace the name's pid belongs to: containers that share the host's libvirtd
// each number their processes from 1.
const std::string& owner_description() {
  static const std::string description = [] {
    std::error_code error;
    const fs::path namespace_link = fs::read_symlink("/proc/self/ns/pid", error);
    return "kbisect domain; its pid is in namespace " +
           (error ? std::string("unknown") : namespace_link.string());
  }();
  return description;
}

std::string domain_xml(const VmPlan& plan, const fs::path& console_log) {
  const bool kvm = plan.accel == "kvm";
  std::string xml = fmt::format(
      "<domain type='{}' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n"
      "  <name>{}</name>\n"
      "  <description>{}</description>\n"
      "  <memory unit='MiB'>{}</memory>\n"
      "  <vcpu placement='static'>{}</vcpu>\n",
      kvm ? "kvm" : "qemu", xml_escape(plan.name), xml_escape(owner_description()), plan.memory_mib,
      plan.vcpus);
  if (!plan.vcpu_pinning.empty()) {
    xml += "  <cputune>\n";
    for (size_t vcpu = 0; vcpu < plan.vcpu_pinning.size(); ++vcpu) {
      xml += fmt::format("    <vcpupin vcpu='{}' cpuset='{}'/>\n", vcpu, plan.vcpu_pinning[vcpu]);
    }
    xml += "  </cputune>\n";
  }
  xml += fmt::format(
      "  <os>\n"
      "    <type arch='x86_64'>hvm</type>\n"
      "    <kernel>{}</kernel>\n"
      "    <initrd>{}</initrd>\n"
      "    <cmdline>{}</cmdline>\n"
      "  </os>\n"
      "  <features><acpi/></features>\n"
      "  <cpu mode='{}'/>\n"
      "  <on_poweroff>destroy</on_poweroff>\n"
      "  <on_reboot>destroy</on_reboot>\n"
      "  <on_crash>destroy</on_crash>\n"
      "  <devices>\n"
      "    <serial type='file'>\n"
      "      <source path='{}'/>\n"
      "      <target port='0'/>\n"
      "    </serial>\n"
      "    <controller type='usb' model='none'/>\n"
      "    <memballoon model='none'/>\n",
      xml_escape(plan.kernel.string()), xml_escape(plan.initrd.string()), xml_escape(plan.cmdline),
      kvm ? "host-passthrough" : "maximum", xml_escape(console_log.string()));
  if (plan.device == DeviceKind::kNvmePassthrough) {
    xml += fmt::format(
        "    <hostdev mode='subsystem' type='pci' managed='yes'>\n"
        "      <source>{}</source>\n"
        "    </hostdev>\n",
        pci_address_xml(plan.pci_address));
  }
  xml += "  </devices>\n";
  if (plan.has_backing_file()) {
    xml += "  <qemu:commandline>\n";
    for (const auto& arg : emulated_nvme_args(plan)) {
      xml += fmt::format("    <qemu:arg value='{}'/>\n", xml_escape(arg));
    }
    xml += "  </qemu:commandline>\n";
  }
  return xml + "</domain>\n";
}

std::string apparmor_advice(std::string_view capabilities, const fs::path& image) {
  if (capabilities.find("<model>apparmor</model>") == std::string_view::npos) return "";
  return fmt::format(
      "; libvirt confines QEMU with AppArmor on this host, and the profile it writes for a "
      "domain does not cover the emulated NVMe's backing file, which kbisect passes on QEMU's "
      "command line: allow it for every domain with the line \"{} rwk,\" in "
      "/etc/apparmor.d/abstractions/libvirt-qemu (then systemctl reload apparmor), or use "
      "runner: qemu",
      image.string());
}

int sweep_stale_domains(virConnectPtr connection) {
  virDomainPtr* listed = nullptr;
  int count = virConnectListAllDomains(connection, &listed, 0);
  if (count < 0) fail("cannot list libvirt domains: {}", libvirt_error());
  Unique<virDomainPtr, ::free> array(listed);
  std::vector<VirDomain> domains;
  domains.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) domains.emplace_back(listed[i]);
  int destroyed = 0;
  for (const VirDomain& domain : domains) {
    const char* name = virDomainGetName(domain.get());
    int owner = name != nullptr ? vm_name_pid(name) : 0;
    if (owner == 0 || process_exists(owner)) continue;
    // Another container's: its pid says nothing here. (A domain without a description is an
    // older kbisect's, from before they had one.)
    Unique<char, ::free> description(
        virDomainGetMetadata(domain.get(), VIR_DOMAIN_METADATA_DESCRIPTION, nullptr, 0));
    if (description && description.get() != owner_description()) continue;
    if (virDomainIsActive(domain.get()) == 1 && virDomainDestroy(domain.get()) == 0) ++destroyed;
    if (virDomainIsPersistent(domain.get()) == 1) virDomainUndefine(domain.get());
  }
  return destroyed;
}

LibvirtBackend::LibvirtBackend(const RunnerContext& context, std::string uri)
    : context_(context), uri_(std::move(uri)), connection_(open_libvirt(uri_)) {}

// The host's own name: a remote URI may reach it by an alias or an address.
std::string LibvirtBackend::host_name() {
  Unique<char, ::free> name(virConnectGetHostname(connection_.get()));
  if (!name) fail("libvirt cannot tell the name of the host at {}: {}", uri_, libvirt_error());
  return name.get();
}

std::string LibvirtBackend::hypervisor() {
  const char* type = virConnectGetType(connection_.get());
  unsigned long version = 0;
  if (type == nullptr || virConnectGetVersion(connection_.get(), &version) != 0) {
    fail("libvirt at {} cannot tell its hypervisor's version: {}", uri_, libvirt_error());
  }
  // libvirt's encoding: major * 1,000,000 + minor * 1,000 + release.
  return fmt::format("{} {}.{}.{} (libvirt)", type, version / 1000000, version / 1000 % 1000,
                     version % 1000);
}

std::string LibvirtBackend::choose_accel(Accel wanted, const fs::path& kernel) {
  AccelHost host;
  if (is_local_uri(uri_)) {
    host = local_accel_host();
  } else {
    unsigned long version = 0;
    virConnectGetVersion(connection_.get(), &version);
    host.key = fmt::format("{}|hypervisor-version={}", uri_, version);
  }
  return resolve_accel(
      wanted, host, context_.workdir / "accel-cache.json",
      [&] { return probe_kvm(*this, context_, kernel); }, context_.events);
}

VmEnding LibvirtBackend::boot(const VmPlan& plan, const fs::path& console_log, PhaseClock& clock,
                              ConsoleWatch& watch) {
  if (plan.device == DeviceKind::kNvmePassthrough && is_local_uri(uri_)) {
    check_passthrough(plan.pci_address, false);
  }
  auto shared_stop = std::make_shared<StopSignal>();
  StopSignal& stop = *shared_stop;
  stop.domain_name = plan.name;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) fail("pipe: {}", errno_text(errno));
  stop.read_end.reset(pipe_fds[0]);
  stop.write_end.reset(pipe_fds[1]);
  // Registered before the domain exists, so a stop right after the start is not missed. The
  // event thread may still be inside the callback after deregistering: libvirt owns a
  // reference until it calls the free function.
  using Reference = std::shared_ptr<StopSignal>;
  auto reference = std::make_unique<Reference>(shared_stop);
  int callback = virConnectDomainEventRegisterAny(
      connection_.get(), nullptr, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
      VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle), reference.get(),
      [](void* opaque) { std::unique_ptr<Reference> owned(static_cast<Reference*>(opaque)); });
  if (callback < 0) fail("cannot register for libvirt lifecycle events: {}", libvirt_error());
  reference.release();  // libvirt's now, until it calls the free function above
  struct Deregister {
    virConnectPtr connection;
    int id;
    ~Deregister() { virConnectDomainEventDeregisterAny(connection, id); }
  } deregister{connection_.get(), callback};

  fs::remove(console_log);
  const char* type = virConnectGetType(connection_.get());
  // AUTODESTROY: the domain dies with this connection, even if kbisect is killed -9.
  // The test driver rejects the flag.
  unsigned int flags =
      type != nullptr && std::string_view(type) == "QEMU" ? VIR_DOMAIN_START_AUTODESTROY : 0;
  if (auto user = qemu_user(connection_.get())) {
    if (plan.has_backing_file()) give_backing_file_to_qemu(*user, plan.disk_image);
    if (is_local_uri(uri_)) check_qemu_reaches(plan, *user, uri_);
  }
  std::string xml = domain_xml(plan, console_log);
  VirDomain domain(virDomainCreateXML(connection_.get(), xml.c_str(), flags));
  if (!domain) {
    std::string error = libvirt_error();
    if (plan.has_backing_file() && error.find(plan.disk_image.string()) != std::string::npos) {
      error += apparmor_advice(capabilities_of(connection_.get()), plan.disk_image);
    }
    return {VmEnd::kStartFailed, fmt::format("libvirt: {}", error)};
  }

  ConsoleFileReader reader(console_log, ProcessOptions{}.max_line_bytes);
  VmEnding ending{VmEnd::kExited, ""};
  auto on_line = [&](std::string_view line) {
    watch.line(line);
    clock.follow(watch);
  };
  int interrupt_signal = 0;
  for (;;) {
    pollfd fds[2] = {{stop.read_end.get(), POLLIN, 0}, {interrupt_fd(), POLLIN, 0}};
    ::poll(fds, 2, 100);
    if (!reader.read_new(context_.max_console_bytes, on_line)) {
      ending = {VmEnd::kConsoleFlood, fmt::format("{} bytes", context_.max_console_bytes)};
      break;
    }
    if ((interrupt_signal = pending_interrupt()) != 0) break;
    // Events are the signal; the state check covers a connection that lost them.
    if (stop.stopped) break;
    const int active = virDomainIsActive(domain.get());
    // A transient domain is undefined as it stops, before its event may arrive: gone is ended.
    if (active < 0 && virGetLastErrorCode() == VIR_ERR_NO_DOMAIN) break;
    if (active < 0) {
      ending = {VmEnd::kQemuDied, fmt::format("libvirt at {} lost track of domain {}: {}", uri_,
                                              plan.name, libvirt_error())};
      break;
    }
    if (active == 0) break;
    if (std::chrono::steady_clock::now() >= clock.deadline()) {
      ending = {VmEnd::kDeadline, clock.phase_limit()};
      break;
    }
  }
  if (virDomainIsActive(domain.get()) == 1) virDomainDestroy(domain.get());
  // The state check can see the end before its event arrives: how it ended comes with that.
  if (ending.end == VmEnd::kExited && interrupt_signal == 0 && !stop.stopped) {
    pollfd event{stop.read_end.get(), POLLIN, 0};
    ::poll(&event, 1, 2000);
  }
  if (ending.end != VmEnd::kConsoleFlood) {
    reader.read_new(context_.max_console_bytes, on_line);
    reader.finish(on_line);
  }
  // Killed (a device-emulation assertion, the host's OOM killer), not shut down by the guest.
  if (ending.end == VmEnd::kExited && stop.how == VIR_DOMAIN_EVENT_STOPPED_FAILED) {
    ending = {watch.kernel_started() ? VmEnd::kQemuDied : VmEnd::kStartFailed,
              fmt::format("QEMU ended unexpectedly; libvirt's QEMU log of domain {} at {} "
                          "says why",
                          plan.name, uri_)};
  }
  // Destroyed from outside (virsh destroy): the guest's own poweroff or reboot is a shutdown.
  if (ending.end == VmEnd::kExited && stop.how == VIR_DOMAIN_EVENT_STOPPED_DESTROYED) {
    ending = {VmEnd::kQemuDied,
              fmt::format("domain {} at {} was destroyed from outside kbisect", plan.name, uri_)};
  }
  if (interrupt_signal != 0) throw Interrupted(interrupt_signal);
  return ending;
}

LibvirtRunner::LibvirtRunner(RunnerContext context, std::string uri)
    : context_(std::move(context)), backend_(context_, uri) {
  if (!is_local_uri(uri)) return;
  if (int destroyed = sweep_stale_domains(backend_.connection())) {
    warn(context_.events,
         fmt::format("destroyed {} kbisect domain(s) left by an earlier run", destroyed));
  }
}

RunResult LibvirtRunner::run(const RunRequest& request) {
  return run_vm(backend_, context_, request);
}

RunPlace LibvirtRunner::place(const RunRequest& request) {
  return place_of(backend_, context_, request);
}

}  // namespace kbisect

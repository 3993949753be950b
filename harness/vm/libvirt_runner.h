// The libvirt runner: a transient domain through the libvirt C API on any URI
// (qemu:///system, qemu:///session, qemu+ssh://host/system), completion by lifecycle events,
// AUTODESTROY where the driver supports it, and a sweep of kbisect domains whose kbisect
// process is gone. With a remote URI the kernel, initramfs, console log and NVMe backing file
// paths are opened on the remote host: they must be on storage both hosts share at the same
// path (the runner copies nothing), and the backing file is given to the uid:gid that host's
// QEMU runs as (as root; else that QEMU must be able to write it as it is).
#pragma once

#include <libvirt/libvirt.h>

#include <filesystem>
#include <optional>
#include <string>

#include "common/unique_handle.h"
#include "vm/vm_run.h"

namespace kbisect {

using VirConnection = Unique<virConnect, virConnectClose>;
using VirDomain = Unique<virDomain, virDomainFree>;

// Opens `uri` with the event loop running (lifecycle events need it); throws Error with
// libvirt's message and what to check.
VirConnection open_libvirt(const std::string& uri);

// libvirt's last error message, for Error texts.
std::string libvirt_error();

// Whether `uri` names this host's libvirtd (qemu:///system), not another's (qemu+ssh://h/system).
bool is_local_uri(const std::string& uri);

// The transient domain for a plan: direct kernel boot, serial console to `console_log`,
// emulated NVMe through <qemu:commandline> (libvirt 9 has no NVMe disk bus), passthrough as
// <hostdev managed='yes'>, vCPU pinning, ACPI, no balloon, every exit destroys it.
std::string domain_xml(const VmPlan& plan, const std::filesystem::path& console_log);

// What to do when the host confines QEMU with AppArmor (its `capabilities` XML says so) and
// QEMU could not open the emulated NVMe's backing file `image`: virt-aa-helper writes each
// domain's profile from its XML, and does not read <qemu:commandline>. "" elsewhere.
std::string apparmor_advice(std::string_view capabilities, const std::filesystem::path& image);

// Destroys the kbisect domains on `connection` whose kbisect process is gone (local URIs
// only: a pid means nothing on another host, nor in another pid namespace, which the domain's
// description names); returns how many.
int sweep_stale_domains(virConnectPtr connection);

// Why QEMU, run by libvirt as uid:gid on this host, could not open the files of `plan` it
// opens by path (the directories of the kernel and initrd, which libvirt hands over
// themselves; the NVMe backing file, read and write), or nullopt. A child process with that
// identity asks the kernel.
std::optional<std::string> unreachable_for_qemu(const VmPlan& plan, uid_t uid, gid_t gid);

class LibvirtBackend : public VmBackend {
 public:
  LibvirtBackend(const RunnerContext& context, std::string uri);
  std::string name() const override { return "libvirt"; }
  std::string choose_accel(Accel wanted, const std::filesystem::path& kernel) override;
  std::string host_name() override;
  std::string hypervisor() override;
  VmEnding boot(const VmPlan& plan, const std::filesystem::path& console_log, PhaseClock& clock,
                ConsoleWatch& watch) override;
  virConnectPtr connection() const { return connection_.get(); }

 private:
  const RunnerContext& context_;
  std::string uri_;
  VirConnection connection_;
};

class LibvirtRunner : public Runner {
 public:
  // Connects and sweeps leftovers of earlier crashed runs (local URIs).
  LibvirtRunner(RunnerContext context, std::string uri);
  RunResult run(const RunRequest& request) override;
  RunPlace place(const RunRequest& request) override;

 private:
  RunnerContext context_;
  LibvirtBackend backend_;
};

}  // namespace kbisect

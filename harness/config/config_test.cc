#include "config/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "common/error.h"
#include "common/file.h"
#include "common/temp_dir.h"

namespace kbisect {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A scratch directory holding the config under test and the files it refers to.
class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write("guest.config", "CONFIG_NVME_CORE=y\n");
    write("job.fio", "[randread]\nrw=randread\n");
  }

  void write(const fs::path& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    write_file(dir_ / name, text);
  }

  Scenario load(const std::string& yaml) {
    write("c.yaml", yaml);
    return load_scenario(dir_ / "c.yaml");
  }

  // The error's text after the file name: "3:5: vm.vcpus: ...".
  std::string error_of(const std::string& yaml) {
    try {
      load(yaml);
    } catch (const Error& e) {
      std::string text = e.what();
      std::string prefix = (dir_ / "c.yaml").string() + ":";
      EXPECT_EQ(text.rfind(prefix, 0), 0u) << text;
      return text.substr(prefix.size());
    }
    ADD_FAILURE() << "no error for:\n" << yaml;
    return "";
  }

  TempDir temp_;
  const fs::path dir_ = temp_.path();
};

const char* kMinimal = R"(name: demo
kernel: {repo: linux}
workload: {jobs: [job.fio]}
metrics: [{name: read.iops}]
)";

TEST_F(ConfigTest, MinimalConfigGetsTheDefaults) {
  Scenario s = load(kMinimal);
  Scenario defaults;
  EXPECT_EQ(s.source_file, dir_ / "c.yaml");
  EXPECT_EQ(s.name, "demo");
  EXPECT_EQ(s.kernel.repo, dir_ / "linux");
  EXPECT_EQ(s.kernel.base_config, "tinyconfig");
  EXPECT_TRUE(s.kernel.fragments.empty());
  EXPECT_EQ(s.kernel.cmdline_extra, "");
  EXPECT_EQ(s.build.jobs, defaults.build.jobs);
  EXPECT_EQ(s.build.ccache, true);
  EXPECT_EQ(s.build.cache_dir, fs::path(".cache/kbisect/cache"));
  EXPECT_EQ(s.build.timeout_seconds, 3600);
  EXPECT_EQ(s.vm.runner, RunnerKind::kQemu);
  EXPECT_EQ(s.vm.libvirt_uri, "qemu:///system");
  EXPECT_EQ(s.vm.accel, Accel::kAuto);
  EXPECT_EQ(s.vm.vcpus, 2);
  EXPECT_EQ(s.vm.memory_mib, 1024);
  EXPECT_TRUE(s.vm.vcpu_pinning.empty());
  EXPECT_EQ(s.vm.boot_timeout_seconds, 120);
  EXPECT_EQ(s.vm.workload_timeout_seconds, 1800);
  EXPECT_EQ(s.device.kind, DeviceKind::kEmulatedNvme);
  EXPECT_EQ(s.device.image, fs::path(".cache/kbisect/nvme.img"));
  EXPECT_EQ(s.device.size_bytes, 2ull << 30);
  EXPECT_EQ(s.filesystem.kind, FilesystemKind::kExt4);
  EXPECT_TRUE(s.filesystem.mkfs_options.empty());
  EXPECT_EQ(s.filesystem.mount_options, "");
  EXPECT_EQ(s.workload.job_files, std::vector<fs::path>{dir_ / "job.fio"});
  EXPECT_TRUE(s.workload.vars.empty());
  EXPECT_TRUE(s.workload.variants.empty());
  ASSERT_EQ(s.metrics.size(), 1u);
  EXPECT_EQ(s.metrics[0].name, "read.iops");
  EXPECT_EQ(s.metrics[0].job, "");
  EXPECT_EQ(s.metrics[0].better, Better::kHigher);
  EXPECT_EQ(s.bisect.min_samples, 3);
  EXPECT_EQ(s.bisect.max_samples, 10);
  EXPECT_DOUBLE_EQ(s.bisect.alpha, 0.01);
  EXPECT_DOUBLE_EQ(s.bisect.min_effect, 0.03);
  EXPECT_FALSE(s.bisect.boot_failure_is_bad);
  EXPECT_EQ(s.samples, 3);
  EXPECT_EQ(s.database, fs::path("results/kbisect.db"));
  EXPECT_EQ(s.workdir, fs::path(".cache/kbisect"));
  EXPECT_EQ(s.sim.seed, 1u);
  EXPECT_TRUE(s.sim.changes.empty());
  EXPECT_FALSE(s.nightly);
}

TEST_F(ConfigTest, MovingTheWorkdirMovesOnlyThePathsLeftToTheirDefaults) {
  Scenario defaults = load(kMinimal);
  move_workdir(defaults, "/var/tmp/elsewhere");
  EXPECT_EQ(defaults.workdir, fs::path("/var/tmp/elsewhere"));
  EXPECT_EQ(defaults.build.cache_dir, fs::path("/var/tmp/elsewhere/cache"));
  EXPECT_EQ(defaults.device.image, fs::path("/var/tmp/elsewhere/nvme.img"));

  Scenario chosen =
      load(std::string(kMinimal) +
           "build: {cache_dir: /srv/cache}\ndevice: {kind: emulated-nvme, image: /srv/nvme.img}\n");
  move_workdir(chosen, "/var/tmp/elsewhere");
  EXPECT_EQ(chosen.build.cache_dir, fs::path("/srv/cache"));
  EXPECT_EQ(chosen.device.image, fs::path("/srv/nvme.img"));
}

TEST_F(ConfigTest, NightlySection) {
  Scenario s = load(std::string(kMinimal) + R"(nightly:
  branch: linux-6.1.y
  remote: stable
  baseline: v6.1.12
  fetch_timeout: 10m
)");
  ASSERT_TRUE(s.nightly);
  EXPECT_EQ(s.nightly->branch, "linux-6.1.y");
  EXPECT_EQ(s.nightly->remote, "stable");
  EXPECT_EQ(s.nightly->baseline, "v6.1.12");
  EXPECT_EQ(s.nightly->variant, "");
  EXPECT_EQ(s.nightly->fetch_timeout_seconds, 600);

  Scenario local = load(std::string(kMinimal) + "nightly: {branch: master}\n");
  ASSERT_TRUE(local.nightly);
  EXPECT_EQ(local.nightly->remote, "");
  EXPECT_EQ(local.nightly->baseline, "");
  EXPECT_EQ(local.nightly->fetch_timeout_seconds, NightlySpec{}.fetch_timeout_seconds);

  Scenario with_variant = load(R"(name: demo
kernel: {repo: linux}
workload: {jobs: [job.fio], variants: [{name: lock}, {name: nolock}]}
metrics: [{name: read.iops}]
nightly: {branch: master, variant: nolock}
)");
  EXPECT_EQ(with_variant.nightly->variant, "nolock");
}

TEST_F(ConfigTest, EveryKey) {
  write("base.config", "CONFIG_64BIT=y\n");
  write("frag/b.config", "CONFIG_XFS_FS=y\n");
  Scenario s = load(R"(name: every-key
kernel:
  repo: /src/linux
  base_config: base.config
  fragments: [guest.config, frag/b.config]
  cmdline_extra: "quiet loglevel=3"
build: {jobs: 2, ccache: false, cache_dir: cache, timeout: 1h30m}
vm:
  runner: libvirt
  uri: qemu+ssh://host/system
  accel: tcg
  vcpus: 4
  memory: 2G
  pin: [0, 1, 2, 3]
  boot_timeout: 90s
  workload_timeout: 5m
device: {kind: emulated-nvme, image: /tmp/x.img, size: 512M}
filesystem: {type: xfs, mkfs_options: [-b, size=4096], mount_options: noatime}
workload:
  jobs: [job.fio]
  vars: {SIZE: 256M, RUNTIME: "10"}
  variants:
    - {name: lock}
    - {name: nolock, vars: {SIZE: 1G}, mount_options: dioread_nolock}
metrics:
  - {name: write.clat_ns.percentile.99.000000, job: randread, better: higher-is-better}
  - {name: sync.lat_ns.mean}
  - {name: read.bw_bytes, better: lower}
bisect: {min_samples: 4, max_samples: 20, alpha: 0.05, min_effect: 5%, boot_failure_is_bad: true}
samples: 7
database: db/k.db
workdir: /var/tmp/kb
sim:
  seed: 42
  base: 500.5
  noise: {dist: bimodal, cv: 0.1, mode2: 0.7, p2: 30%}
  drift_per_sample: 0.001
  drift_until: 30
  changes: [{commit: abc123, factor: 0.9}, {commit: "fs: a subject", factor: 1.2}]
  outcomes: [{commit: def, outcome: boot-failed}]
)");
  EXPECT_EQ(s.kernel.repo, fs::path("/src/linux"));
  EXPECT_EQ(s.kernel.base_config, (dir_ / "base.config").string());
  EXPECT_EQ(s.kernel.fragments,
            (std::vector<fs::path>{dir_ / "guest.config", dir_ / "frag/b.config"}));
  EXPECT_EQ(s.kernel.cmdline_extra, "quiet loglevel=3");
  EXPECT_EQ(s.build.jobs, 2);
  EXPECT_FALSE(s.build.ccache);
  EXPECT_EQ(s.build.cache_dir, dir_ / "cache");
  EXPECT_EQ(s.build.timeout_seconds, 5400);
  EXPECT_EQ(s.vm.runner, RunnerKind::kLibvirt);
  EXPECT_EQ(s.vm.libvirt_uri, "qemu+ssh://host/system");
  EXPECT_EQ(s.vm.accel, Accel::kTcg);
  EXPECT_EQ(s.vm.vcpus, 4);
  EXPECT_EQ(s.vm.memory_mib, 2048);
  EXPECT_EQ(s.vm.vcpu_pinning, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(s.vm.boot_timeout_seconds, 90);
  EXPECT_EQ(s.vm.workload_timeout_seconds, 300);
  EXPECT_EQ(s.kernel.repo_place, (dir_ / "c.yaml").string() + ":3:9: kernel.repo");
  EXPECT_EQ(s.vm.workload_timeout_place,
            (dir_ / "c.yaml").string() + ":16:21: vm.workload_timeout");
  EXPECT_EQ(s.device.image, fs::path("/tmp/x.img"));
  EXPECT_EQ(s.device.size_bytes, 512ull << 20);
  EXPECT_EQ(s.filesystem.kind, FilesystemKind::kXfs);
  EXPECT_EQ(s.filesystem.mkfs_options, (std::vector<std::string>{"-b", "size=4096"}));
  EXPECT_EQ(s.filesystem.mount_options, "noatime");
  EXPECT_EQ(s.workload.vars,
            (std::map<std::string, std::string>{{"RUNTIME", "10"}, {"SIZE", "256M"}}));
  ASSERT_EQ(s.workload.variants.size(), 2u);
  EXPECT_EQ(s.workload.variants[0].name, "lock");
  EXPECT_FALSE(s.workload.variants[0].mount_options.has_value());
  EXPECT_EQ(s.workload.variants[1].name, "nolock");
  EXPECT_EQ(s.workload.variants[1].vars.at("SIZE"), "1G");
  EXPECT_EQ(s.workload.variants[1].mount_options, "dioread_nolock");
  ASSERT_EQ(s.metrics.size(), 3u);
  EXPECT_EQ(s.metrics[0].job, "randread");
  // The job files' check names the line of job: when no job has that name.
  EXPECT_EQ(s.metrics[0].place, s.source_file.string() + ":26:12: metrics[0].name");
  EXPECT_EQ(s.metrics[0].better, Better::kHigher);
  EXPECT_EQ(s.metrics[1].better, Better::kLower);  // a latency defaults to lower-is-better
  EXPECT_EQ(s.metrics[2].better, Better::kLower);
  EXPECT_EQ(s.bisect.min_samples, 4);
  EXPECT_EQ(s.bisect.max_samples, 20);
  EXPECT_DOUBLE_EQ(s.bisect.alpha, 0.05);
  EXPECT_DOUBLE_EQ(s.bisect.min_effect, 0.05);
  EXPECT_TRUE(s.bisect.boot_failure_is_bad);
  EXPECT_EQ(s.samples, 7);
  EXPECT_EQ(s.database, dir_ / "db/k.db");
  EXPECT_EQ(s.workdir, fs::path("/var/tmp/kb"));
  EXPECT_EQ(s.device.image, fs::path("/tmp/x.img"));
  EXPECT_EQ(s.sim.seed, 42u);
  EXPECT_DOUBLE_EQ(s.sim.base, 500.5);
  EXPECT_EQ(s.sim.noise, NoiseDistribution::kBimodal);
  EXPECT_DOUBLE_EQ(s.sim.cv, 0.1);
  EXPECT_DOUBLE_EQ(s.sim.mode2, 0.7);
  EXPECT_DOUBLE_EQ(s.sim.p2, 0.3);
  EXPECT_DOUBLE_EQ(s.sim.drift_per_sample, 0.001);
  EXPECT_EQ(s.sim.drift_until, 30);
  ASSERT_EQ(s.sim.changes.size(), 2u);
  EXPECT_EQ(s.sim.changes[1].commit, "fs: a subject");
  EXPECT_EQ(s.sim.changes[1].where, (dir_ / "c.yaml").string() + ":39:53: sim.changes[1].commit");
  EXPECT_DOUBLE_EQ(s.sim.changes[1].factor, 1.2);
  ASSERT_EQ(s.sim.outcomes.size(), 1u);
  EXPECT_EQ(s.sim.outcomes[0].outcome, "boot-failed");
}

TEST_F(ConfigTest, PassthroughDevice) {
  Scenario s =
      load(std::string(kMinimal) + "device: {kind: nvme-passthrough, pci: \"0000:01:00.0\"}\n");
  EXPECT_EQ(s.device.kind, DeviceKind::kNvmePassthrough);
  EXPECT_EQ(s.device.pci_address, "0000:01:00.0");
  EXPECT_TRUE(s.device.image.empty());
  // As sysfs names it: the upper-case spelling was accepted here and refused at the first boot.
  EXPECT_EQ(load(std::string(kMinimal) + "device: {kind: nvme-passthrough, pci: 0000:AF:00.1}\n")
                .device.pci_address,
            "0000:af:00.1");
}

TEST_F(ConfigTest, SimRunnerNeedsNoJobFiles) {
  Scenario s = load(R"(name: sim
kernel: {repo: .}
vm: {runner: sim}
metrics: [{name: read.iops}]
)");
  EXPECT_EQ(s.vm.runner, RunnerKind::kSim);
  EXPECT_TRUE(s.workload.job_files.empty());
}

TEST_F(ConfigTest, MatrixExpandsToOneVariantPerCombination) {
  Scenario s = load(R"(name: m
kernel: {repo: linux}
workload:
  jobs: [job.fio]
  matrix: {BS: [4k, 16k, 64k], QD: [1, 8]}
metrics: [{name: read.iops}]
)");
  std::vector<std::string> names;
  for (const Variant& v : s.workload.variants) names.push_back(v.name);
  EXPECT_EQ(names, (std::vector<std::string>{"BS=4k,QD=1", "BS=4k,QD=8", "BS=16k,QD=1",
                                             "BS=16k,QD=8", "BS=64k,QD=1", "BS=64k,QD=8"}));
  EXPECT_EQ(s.workload.variants[3].vars,
            (std::map<std::string, std::string>{{"BS", "16k"}, {"QD", "8"}}));
}

TEST_F(ConfigTest, MatrixCrossesDeclaredVariants) {
  Scenario s = load(R"(name: m
kernel: {repo: linux}
workload:
  jobs: [job.fio]
  variants: [{name: lock, vars: {BS: 1k, X: a}}, {name: nolock, mount_options: dioread_nolock}]
  matrix: {BS: [4k, 64k]}
metrics: [{name: read.iops}]
)");
  ASSERT_EQ(s.workload.variants.size(), 4u);
  EXPECT_EQ(s.workload.variants[0].name, "lock,BS=4k");
  EXPECT_EQ(s.workload.variants[0].vars,
            (std::map<std::string, std::string>{{"BS", "4k"}, {"X", "a"}}));
  EXPECT_EQ(s.workload.variants[3].name, "nolock,BS=64k");
  EXPECT_EQ(s.workload.variants[3].mount_options, "dioread_nolock");
}

TEST_F(ConfigTest, VariantsMayChangeTheFilesystem) {
  Scenario s = load(R"(name: m
kernel: {repo: linux}
filesystem: {type: ext4}
workload:
  jobs: [job.fio]
  variants: [{name: ext4}, {name: xfs, filesystem: xfs}]
metrics: [{name: sync.lat_ns.mean}]
table: sync-log
)");
  ASSERT_EQ(s.workload.variants.size(), 2u);
  EXPECT_EQ(s.workload.variants[0].filesystem, std::nullopt);
  EXPECT_EQ(s.workload.variants[1].filesystem, FilesystemKind::kXfs);
  EXPECT_EQ(s.table, ReportTable::kSyncLog);
  EXPECT_EQ(load(kMinimal).table, ReportTable::kNone);
}

TEST_F(ConfigTest, ExampleConfigLoadsAndDocumentsTheDefaults) {
  // The example refers to files of the repository relative to configs/: mirror them.
  fs::path example = fs::path(KBISECT_SOURCE_DIR) / "configs/example.yaml";
  fs::create_directories(dir_ / "configs");
  fs::copy_file(example, dir_ / "configs/example.yaml");
  write("vmimages/kconfig/lean.config", "");
  write("workloads/jobs/demo-randread.fio", "");
  Scenario s = load_scenario(dir_ / "configs/example.yaml");
  Scenario d;
  EXPECT_EQ(s.kernel.base_config, d.kernel.base_config);
  EXPECT_EQ(s.kernel.cmdline_extra, d.kernel.cmdline_extra);
  EXPECT_EQ(s.build.jobs, d.build.jobs);
  EXPECT_EQ(s.build.ccache, d.build.ccache);
  EXPECT_EQ(s.build.timeout_seconds, d.build.timeout_seconds);
  EXPECT_EQ(s.build.cache_dir, dir_ / ".cache/kbisect/cache");
  EXPECT_EQ(s.vm.runner, d.vm.runner);
  EXPECT_EQ(s.vm.libvirt_uri, d.vm.libvirt_uri);
  EXPECT_EQ(s.vm.accel, d.vm.accel);
  EXPECT_EQ(s.vm.vcpus, d.vm.vcpus);
  EXPECT_EQ(s.vm.memory_mib, d.vm.memory_mib);
  EXPECT_EQ(s.vm.vcpu_pinning, d.vm.vcpu_pinning);
  EXPECT_EQ(s.vm.boot_timeout_seconds, d.vm.boot_timeout_seconds);
  EXPECT_EQ(s.vm.workload_timeout_seconds, d.vm.workload_timeout_seconds);
  EXPECT_EQ(s.device.kind, d.device.kind);
  EXPECT_EQ(s.device.image, dir_ / ".cache/kbisect/nvme.img");
  EXPECT_EQ(s.device.size_bytes, d.device.size_bytes);
  EXPECT_EQ(s.filesystem.kind, d.filesystem.kind);
  EXPECT_EQ(s.filesystem.mkfs_options, d.filesystem.mkfs_options);
  EXPECT_EQ(s.filesystem.mount_options, d.filesystem.mount_options);
  EXPECT_EQ(s.metrics[0].job, "");
  EXPECT_EQ(s.metrics[0].better, MetricSpec{}.better);
  EXPECT_EQ(s.bisect.min_samples, d.bisect.min_samples);
  EXPECT_EQ(s.bisect.max_samples, d.bisect.max_samples);
  EXPECT_DOUBLE_EQ(s.bisect.alpha, d.bisect.alpha);
  EXPECT_DOUBLE_EQ(s.bisect.min_effect, d.bisect.min_effect);
  EXPECT_EQ(s.bisect.boot_failure_is_bad, d.bisect.boot_failure_is_bad);
  EXPECT_EQ(s.samples, d.samples);
  EXPECT_EQ(s.database, dir_ / "results/kbisect.db");
  EXPECT_EQ(s.workdir, dir_ / ".cache/kbisect");
  EXPECT_EQ(s.sim.seed, d.sim.seed);
  EXPECT_DOUBLE_EQ(s.sim.base, d.sim.base);
  EXPECT_EQ(s.sim.noise, d.sim.noise);
  EXPECT_DOUBLE_EQ(s.sim.cv, d.sim.cv);
  EXPECT_DOUBLE_EQ(s.sim.drift_per_sample, d.sim.drift_per_sample);
  EXPECT_EQ(s.workload.variants.size(), 4u);
  ASSERT_TRUE(s.nightly);
  EXPECT_EQ(s.nightly->branch, "master");
  EXPECT_EQ(s.nightly->remote, "origin");
  EXPECT_EQ(s.nightly->variant, "");
  EXPECT_EQ(s.nightly->fetch_timeout_seconds, NightlySpec{}.fetch_timeout_seconds);
}

TEST_F(ConfigTest, ErrorsNameFileLineColumnAndKey) {
  struct Case {
    std::string yaml;
    std::string expected;  // the start of the message after "file:"
  };
  std::string head = "name: demo\nkernel: {repo: linux}\nworkload: {jobs: [job.fio]}\n";
  std::string metrics = "metrics: [{name: read.iops}]\n";
  std::vector<Case> cases = {
      {head + metrics + "sampels: 3\n", "5:1: sampels: unknown key; did you mean 'samples'?"},
      {head + metrics + "vm: {vcpus: 2, memroy: 1G}\n",
       "5:16: vm.memroy: unknown key; did you mean 'memory'?"},
      {head + metrics + "vm: {zzzzzz: 1}\n",
       "5:6: vm.zzzzzz: unknown key; expected one of: runner, uri"},
      {head + metrics + "samples: 3\nsamples: 4\n", "6:1: samples: key given twice"},
      {"kernel: {repo: linux}\n", "1:1: name: missing required key"},
      {"name: demo\nkernel:\n  base_config: defconfig\n" + metrics,
       "3:3: kernel.repo: missing required key"},
      {"name: demo\nkernel: {repo: linux}\n" + metrics, "1:1: workload.jobs: missing required key"},
      {"name: demo\nkernel: {repo: linux}\nworkload: {vars: {A: b}}\n" + metrics,
       "3:11: workload.jobs: missing required key"},
      {head, "1:1: metrics: missing required key"},
      {head + "metrics: []\n", "4:10: metrics: needs at least one metric"},
      {head + metrics + "vm: {vcpus: two}\n", "5:13: vm.vcpus: expected an integer, got 'two'"},
      {head + metrics + "vm: {vcpus: 0}\n",
       "5:13: vm.vcpus: 0 is out of range: must be between 1 and 512"},
      {head + metrics + "vm: {vcpus: [1]}\n", "5:13: vm.vcpus: expected an integer"},
      {head + metrics + "vm: {memory: 1Q}\n",
       "5:14: vm.memory: expected a size such as 512M or 2G, got '1Q'"},
      {head + metrics + "vm: {memory: 1M}\n", "5:14: vm.memory: 1M is out of range"},
      {head + metrics + "vm: {memory: 65537k}\n", "5:14: vm.memory: must be a whole number of MiB"},
      {head + metrics + "vm: {boot_timeout: 2 minutes}\n",
       "5:20: vm.boot_timeout: expected a duration such as 120s, 30m or 1h, got '2 minutes'"},
      {head + metrics + "vm: {boot_timeout: 0s}\n", "5:20: vm.boot_timeout: 0 is out of range"},
      {head + metrics + "vm: {accel: hvf}\n",
       "5:13: vm.accel: 'hvf' is not one of: auto, kvm, tcg"},
      {head + metrics + "vm: {runner: sim, uri: qemu+ssh://host/system}\n",
       "5:24: vm.uri: only for runner: libvirt"},
      {head + metrics + "vm: {uri: qemu:///system}\n", "5:11: vm.uri: only for runner: libvirt"},
      {head + metrics + "vm: {runner: docker}\n",
       "5:14: vm.runner: 'docker' is not one of: qemu, libvirt, sim"},
      {head + metrics + "vm: {vcpus: 2, pin: [0]}\n",
       "5:21: vm.pin: lists 1 host CPUs for 2 vCPUs"},
      {head + metrics + "build: {ccache: yes}\n",
       "5:17: build.ccache: expected true or false, got 'yes'"},
      {head + metrics + "build: {jobs: -1}\n", "5:15: build.jobs: -1 is out of range"},
      {head + metrics + "device: {size: 1G}\n", "5:9: device.kind: missing required key"},
      {head + metrics + "device: {kind: emulated-nvme, pci: 0000:01:00.0}\n",
       "5:36: device.pci: only for kind: nvme-passthrough"},
      {head + metrics + "device: {kind: nvme-passthrough, size: 1G}\n",
       "5:40: device.size: only for kind: emulated-nvme"},
      {head + metrics + "device: {kind: nvme-passthrough}\n",
       "5:9: device.pci: missing required key"},
      {head + metrics + "device: {kind: nvme-passthrough, pci: 01:00.0}\n",
       "5:39: device.pci: '01:00.0' is not a PCI address"},
      {head + metrics + "device: {kind: nvme-passthrough, pci: 0000:01:00.8}\n",
       "5:39: device.pci: '0000:01:00.8' is not a PCI address"},
      {head + metrics + "device: {kind: nvme-passthrough, pci: 0000:0g:00.1}\n",
       "5:39: device.pci: '0000:0g:00.1' is not a PCI address"},
      {head + metrics + "filesystem: {type: btrfs}\n",
       "5:20: filesystem.type: 'btrfs' is not one of: ext4, xfs"},
      {"name: demo\nkernel: {repo: linux, fragments: [nope.config]}\nworkload: {jobs: "
       "[job.fio]}\n" +
           metrics,
       "2:35: kernel.fragments[0]: no such file: "},
      {"name: demo\nkernel: {repo: linux, base_config: my.config}\nworkload: {jobs: [job.fio]}\n" +
           metrics,
       "2:36: kernel.base_config: no such file: "},
      {"name: demo\nkernel: {repo: linux}\nworkload: {jobs: [job.fio, missing.fio]}\n" + metrics,
       "3:28: workload.jobs[1]: no such file: "},
      {head + "metrics: [{name: read.ipos}]\n",
       "4:18: metrics[0].name: 'read.ipos' is not a kdio metric"},
      {head + "metrics: [{name: reads.iops}]\n",
       "4:18: metrics[0].name: 'reads.iops' is not a kdio metric"},
      {head + "metrics: [{name: read.clat_ns.percentile.101}]\n",
       "4:18: metrics[0].name: 'read.clat_ns.percentile.101'"},
      {head + "metrics: [{name: read.clat_ns.avg}]\n", "4:18: metrics[0].name: 'read.clat_ns.avg'"},
      {head + "metrics: [{name: elapsed}]\n",
       "4:18: metrics[0].name: 'elapsed' is not a kdio metric: it starts with read, write, trim, "
       "sync or job_runtime"},
      {head + "metrics: [{name: read.cachehit}]\n",
       "4:18: metrics[0].name: 'read.cachehit' is not a kdio metric: unknown field after 'read'"},
      {head + "metrics: [{name: read.lat_ns.percentile.99}]\n",
       "4:18: metrics[0].name: 'read.lat_ns.percentile.99' is not a kdio metric: only clat_ns and "
       "sync.lat_ns have percentiles"},
      {head + "metrics: [{name: read.clat_ns.percentile.42}]\n",
       "4:18: metrics[0].name: 'read.clat_ns.percentile.42' is not a kdio metric: kdio reports the "
       "percentiles 1, 5,"},
      {head + "metrics: [{name: read.iops}, {name: read.iops}]\n",
       "4:37: metrics[1].name: metric 'read.iops' listed twice"},
      {head + "metrics: [{name: read.iops, better: up}]\n",
       "4:37: metrics[0].better: 'up' is not one of: higher, lower"},
      {head + "metrics: [{job: x}]\n", "4:11: metrics[0].name: missing required key"},
      {head + metrics + "bisect: {alpha: 0.9}\n", "5:17: bisect.alpha: 0.9 is out of range"},
      // p <= 0 is never reached: every check would go on to its cap and end undecided.
      {head + metrics + "bisect: {alpha: 0}\n", "5:17: bisect.alpha: 0 is out of range"},
      {head + metrics + "bisect: {min_effect: 150%}\n",
       "5:22: bisect.min_effect: 150% is out of range: must be between 0% and 99%"},
      {head + metrics + "bisect: {min_effect: 3}\n",
       "5:22: bisect.min_effect: 3 (a fraction: 300%) is out of range: must be between 0% and "
       "99%"},
      {head + metrics + "bisect: {min_samples: 12}\n",
       "5:23: bisect.min_samples: 12 is more than max_samples (10)"},
      {head + metrics + "bisect: {min_samples: 4, max_samples: 3}\n",
       "5:39: bisect.max_samples: 3 is out of range: must be between 4 and 1000"},
      {head + metrics + "samples: 0\n", "5:10: samples: 0 is out of range"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n  variants: [{name: a}, "
       "{name: a}]\n" +
           metrics,
       "5:32: workload.variants[1].name: variant 'a' declared twice"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n  variants: [{name: "
       "a@b}]\n" +
           metrics,
       "5:21: workload.variants[0].name: use letters, digits"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n  vars: {1X: a}\n" +
           metrics,
       "5:10: workload.vars.1X: variable names are letters"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n  matrix: {BS: []}\n" +
           metrics,
       "5:16: workload.matrix.BS: needs at least one value"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n  matrix: {BS: 4k}\n" +
           metrics,
       "5:16: workload.matrix.BS: expected a list"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n"
       "  matrix: {BS: [4k], BS: [8k]}\n" +
           metrics,
       "5:22: workload.matrix.BS: variable given twice"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n"
       "  matrix: {A: ['1', '1,B=2'], B: ['2,B=2', '2']}\n" +
           metrics,
       "5:21: workload.matrix.A[1]: matrix values name variants: use letters, digits and . _ + - "
       "only"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n"
       "  matrix: {BS: [4k, a=b]}\n" +
           metrics,
       "5:21: workload.matrix.BS[1]: matrix values name variants"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n"
       "  matrix: {BS: [4k, 8k, 4k]}\n" +
           metrics,
       "5:25: workload.matrix.BS[2]: value given twice"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n"
       "  matrix: {A: [0,1,2,3,4,5,6,7,8,9], B: [0,1,2,3,4,5,6,7,8,9], C: [0,1,2,3,4,5,6,7,8,9],\n"
       "           D: [0,1]}\n" +
           metrics,
       "6:15: workload.matrix.D: the matrix grows past 1000 variants here"},
      {"name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n"
       "  variants: [{name: a, filesystem: btrfs}]\n" +
           metrics,
       "5:36: workload.variants[0].filesystem: 'btrfs' is not one of: ext4, xfs"},
      {"name: demo\nkernel: {repo: linux}\nfilesystem: {mkfs_options: [-b, '4096']}\n"
       "workload:\n  jobs: [job.fio]\n  variants: [{name: a, filesystem: xfs}]\n" +
           metrics,
       "6:36: workload.variants[0].filesystem: filesystem.mkfs_options are for filesystem.type"},
      {head + metrics + "table: pie\n",
       "5:8: table: 'pie' is not one of: none, fio-groups, rw-summary, sync-log, elapsed"},
      {head + metrics + "sim: {noise: {dist: normal, p2: 0.3}}\n",
       "5:33: sim.noise.p2: only for dist: bimodal"},
      {head + metrics + "sim: {noise: {dist: gamma}}\n",
       "5:21: sim.noise.dist: 'gamma' is not one of"},
      {head + metrics + "sim: {outcomes: [{commit: a, outcome: slow}]}\n",
       "5:39: sim.outcomes[0].outcome: 'slow' is not one of: build-failed, boot-failed"},
      {head + metrics + "sim: {changes: [{commit: a}]}\n",
       "5:17: sim.changes[0].factor: missing required key"},
      {head + metrics + "sim: {changes: [{commit: a, factor: 0}]}\n",
       "5:37: sim.changes[0].factor: 0 is out of range"},
      {head + metrics + "nightly: {remote: origin}\n",
       "5:10: nightly.branch: missing required key"},
      {head + metrics + "nightly: {branch: master, brnch: x}\n",
       "5:27: nightly.brnch: unknown key; did you mean 'branch'?"},
      {head + metrics + "nightly: {branch: --upload-pack=x}\n",
       "5:19: nightly.branch: '--upload-pack=x' is not a branch name such as master"},
      {head + metrics + "nightly: {branch: a..b}\n", "5:19: nightly.branch: 'a..b' is not"},
      {head + metrics + "nightly: {branch: master, remote: \"my remote\"}\n",
       "5:35: nightly.remote: 'my remote' is not a remote name such as origin"},
      {head + metrics + "nightly: {branch: master, baseline: \"\"}\n",
       "5:37: nightly.baseline: must not be empty"},
      {head + metrics + "nightly: {branch: master, fetch_timeout: soon}\n",
       "5:42: nightly.fetch_timeout: expected a duration"},
      {head + metrics + "nightly: {branch: master, variant: nolock}\n",
       "5:36: nightly.variant: workload has no variant 'nolock'; its variants: none"},
      {"name: demo\nkernel: {repo: linux\n",
       "2:21 (the end of the file): "},  // YAML syntax error: end of flow map missing
      {"- a\n- b\n", "1:1: expected a map of keys"},
      {"", "1:1: empty config"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(error_of(c.yaml), ::testing::StartsWith(c.expected)) << c.yaml;
  }
}

// busybox sh drops a NUL when the guest sources run.env: kdio would get another value than the
// one the host checked.
TEST_F(ConfigTest, ANulByteInAVariableIsRefusedAtItsLine) {
  EXPECT_THAT(error_of("name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n"
                       "  vars: {SIZE: \"64\\0k\"}\nmetrics: [{name: read.iops}]\n"),
              ::testing::StartsWith("5:16: workload.vars.SIZE: a NUL byte cannot reach the guest"));
}

// They reach the kernel command line (libvirt's XML cannot carry one at all) or the guest's
// mkfs and mount: a control character was found only at the boot, or not at all.
TEST_F(ConfigTest, AControlCharacterInAnOptionIsRefusedAtItsLine) {
  const std::string head =
      "name: demo\nmetrics: [{name: read.iops}]\nworkload: {jobs: [job.fio]}\n";
  EXPECT_THAT(error_of(head + "kernel: {repo: linux, cmdline_extra: \"quiet\\x1b[31m\"}\n"),
              ::testing::StartsWith("4:38: kernel.cmdline_extra: holds the control character "
                                    "0x1b, which cannot reach the guest"));
  EXPECT_THAT(error_of(head + "kernel: {repo: linux}\nfilesystem: {mount_options: \"a\\0b\"}\n"),
              ::testing::StartsWith("5:29: filesystem.mount_options: holds the control character "
                                    "0x00"));
  EXPECT_THAT(error_of(head + "kernel: {repo: linux}\nfilesystem: {mkfs_options: [\"-b\\n\"]}\n"),
              ::testing::StartsWith("5:29: filesystem.mkfs_options[0]: holds the control"));
  EXPECT_THAT(error_of(head + "kernel: {repo: linux}\nfilesystem: {mkfs_options: [\"\"]}\n"),
              ::testing::StartsWith("5:29: filesystem.mkfs_options[0]: must not be empty"));
}

TEST_F(ConfigTest, AJobFileThatIsADirectorySaysSo) {
  fs::create_directories(dir_ / "jobs");
  EXPECT_EQ(error_of("name: demo\nkernel: {repo: linux}\nworkload: {jobs: [job.fio, jobs]}\n"
                     "metrics: [{name: read.iops}]\n"),
            "3:28: workload.jobs[1]: " + (dir_ / "jobs").string() + " is a directory; name a file");
}

TEST_F(ConfigTest, VariablesTheGuestReservesAreRefusedAtTheirLine) {
  std::string head = "name: demo\nkernel: {repo: linux}\nworkload:\n  jobs: [job.fio]\n";
  std::string metrics = "metrics: [{name: read.iops}]\n";
  EXPECT_THAT(error_of(head + "  vars: {KBISECT_FS: xfs}\n" + metrics),
              ::testing::StartsWith(
                  "5:10: workload.vars.KBISECT_FS: 'KBISECT_FS' is reserved by "
                  "the guest (KBISECT_*, PATH, LD_LIBRARY_PATH, HOME, TERM, PWD, OLDPWD, SHLVL)"));
  EXPECT_THAT(error_of(head + "  vars: {BS: 4k, PATH: /nowhere}\n" + metrics),
              ::testing::StartsWith("5:18: workload.vars.PATH: 'PATH' is reserved"));
  EXPECT_THAT(error_of(head + "  variants: [{name: a, vars: {LD_LIBRARY_PATH: /x}}]\n" + metrics),
              ::testing::StartsWith("5:31: workload.variants[0].vars.LD_LIBRARY_PATH: "
                                    "'LD_LIBRARY_PATH' is reserved"));
  EXPECT_THAT(
      error_of(head + "  matrix: {KBISECT_DIR: [a]}\n" + metrics),
      ::testing::StartsWith("5:12: workload.matrix.KBISECT_DIR: 'KBISECT_DIR' is reserved"));
}

// yaml-cpp marks an empty value at the token after it, which is often on the next line.
TEST_F(ConfigTest, AnEmptyValueIsReportedAtItsKey) {
  std::string rest = "kernel: {repo: linux}\nworkload: {jobs: [job.fio]}\n";
  std::string metrics = "metrics: [{name: read.iops}]\n";
  EXPECT_EQ(error_of("name:\n" + rest + metrics), "1:1: name: expected a string");
  EXPECT_EQ(error_of("name: demo\n" + rest + "metrics:\n"), "4:1: metrics: expected a list");
  EXPECT_EQ(error_of("name: demo\n" + rest + metrics + "vm: {runner: libvirt, vcpus: }\n"),
            "5:23: vm.vcpus: expected an integer");
  EXPECT_EQ(error_of("name: demo\n" + rest + metrics + "vm:\n  uri:\nsamples: 3\n"),
            "6:3: vm.uri: only for runner: libvirt");
}

// A value with a byte that is not UTF-8 would stop where the scenario becomes JSON (its hash).
TEST_F(ConfigTest, TextThatIsNotUtf8IsRefusedAtItsLine) {
  EXPECT_EQ(error_of(std::string(kMinimal) + "filesystem: {mount_options: \"a\xff\"}\n"),
            "5: not UTF-8 text; save the config as UTF-8");
  EXPECT_EQ(load(std::string(kMinimal) + "# caf\xc3\xa9\n").name, "demo");
}

// yaml-cpp would stop at the NUL and name the end of what it read.
TEST_F(ConfigTest, ANulByteIsRefusedAtItsLine) {
  EXPECT_EQ(error_of(std::string(kMinimal) + std::string("# a\0b\n", 6)),
            "5: holds a NUL byte; a config is YAML text");
}

// yaml-cpp puts an error at the end of the input on a line past the last.
TEST_F(ConfigTest, ASyntaxErrorAtTheEndOfTheFileIsOnItsLastLine) {
  EXPECT_EQ(error_of("name: demo\nvm: {runner: sim\n"),
            "2:17 (the end of the file): end of map flow not found");
  EXPECT_EQ(error_of("name: demo\nvm: {runner: sim"),
            "2:17 (the end of the file): end of map flow not found");
  EXPECT_EQ(error_of("name: demo\nvm: {runner: sim\nmetrics: []\n"),
            "3:8: end of map flow not found");
}

// yaml-cpp's Load reads the first document alone: what followed a '---' was dropped unread.
TEST_F(ConfigTest, OneYamlDocument) {
  EXPECT_EQ(error_of(std::string(kMinimal) + "---\nname: other\n"),
            "6: a second YAML document; a config is one scenario (put another in its own file)");
  EXPECT_EQ(load("---\n" + std::string(kMinimal) + "---\n").name, "demo");
}

TEST_F(ConfigTest, SessionsKeepTheConfigsPathNormalised) {
  Scenario s = load(kMinimal);
  s.source_file = dir_ / "sub" / ".." / "." / "c.yaml";
  EXPECT_EQ(stored_config_path(s), (dir_ / "c.yaml").string());
}

TEST_F(ConfigTest, MissingFileSaysWhatToDo) {
  try {
    load_scenario(dir_ / "absent.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("absent.yaml: no such file; pass an existing YAML file with -c"));
  }
}

// It exists, so "no such file" sent the user looking for a typo.
TEST_F(ConfigTest, ADirectoryIsNotAConfig) {
  fs::create_directories(dir_ / "configs.yaml");
  try {
    load_scenario(dir_ / "configs.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("configs.yaml: a directory; pass a YAML file with -c"));
  }
}

// A FIFO would block the read, and /dev/null reads as an empty config: neither is one.
TEST_F(ConfigTest, ADeviceOrAFifoIsNotAConfig) {
  ASSERT_EQ(mkfifo((dir_ / "pipe.yaml").c_str(), 0600), 0);
  for (const fs::path& file : {dir_ / "pipe.yaml", fs::path("/dev/null")}) {
    try {
      load_scenario(file);
      ADD_FAILURE() << file;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(": not a regular file (a device, FIFO or socket)"));
    }
  }
}

}  // namespace
}  // namespace kbisect

# Sourced by the kernel test scripts (tests/kernel, tests/e2e): reading the metadata of the
# small generated history (scripts/demo-history) and the scenario both tests run on it.

# meta_value META KEY: a string value of the metadata file ("good", "bad", "planted", ...).
meta_value() { sed -n "s/^ *\"$2\": *\"\([^\"]*\)\".*/\1/p" "$1"; }

# meta_first META KEY: the first id of a list ("non_building", "doc_only").
meta_first() { sed -n "s/^ *\"$2\": *\[\"\([0-9a-f]*\)\".*/\1/p" "$1"; }

# kernel_scenario NAME SOURCE_DIR SHARED_DIR SIZE RUNTIME: the scenario on SHARED_DIR/history
# with the build cache and work tree in SHARED_DIR (so the tests share builds): the demo
# workload (4-thread 256k random O_DIRECT reads, file SIZE, RUNTIME seconds) on ext4 in the guest,
# with five minutes beyond RUNTIME for the rest of the workload (the job check refuses less).
# The kernel has XFS too (xfs.config): the VM tests boot it with xfs, and the seeds (configs/
# seed*.yaml, the same fragments) share its builds. No ccache: in a cold run it never hits and
# costs every compile a preprocessor pass and a store (fs/ext4, fs/xfs and block: 147 s with it,
# 107 s without). Every user of the object directory must agree, or Kbuild sees a new CC and
# rebuilds everything: tests/build does the same. harness/build's unit tests run ccache for
# real. Callers may append top-level keys.
kernel_scenario() {
  local name=$1 source_dir=$2 shared=$3 size=$4 runtime=$5
  cat <<YAML
name: $name
kernel:
  repo: $shared/history
  base_config: tinyconfig
  fragments: [$source_dir/vmimages/kconfig/lean.config, $source_dir/vmimages/kconfig/ext4.config,
              $source_dir/vmimages/kconfig/xfs.config]
build: {cache_dir: $shared/cache, ccache: false}
vm: {runner: qemu, accel: auto, vcpus: 2, memory: 512M, boot_timeout: 180s,
     workload_timeout: $((runtime + 300))s}
device: {kind: emulated-nvme, size: 1G}
filesystem: {type: ext4}
workload:
  jobs: [$source_dir/workloads/jobs/demo-randread.fio]
  vars: {SIZE: $size, RUNTIME: "$runtime"}
metrics: [{name: read.iops, better: higher}]
workdir: $shared/work
YAML
}

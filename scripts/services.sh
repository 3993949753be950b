#!/usr/bin/env bash
# Starts and stops the daemons the libvirt runner needs (virtlogd, libvirtd), for the tests and
# for `kbisect` itself. `start` creates the users and groups libvirt's qemu driver expects,
# lets that user open /dev/kvm, starts only what is not running and remembers what it
# started; `stop` stops only that.
#   scripts/services.sh start|stop|status
set -euo pipefail

state_dir=${KBISECT_SERVICES_STATE:-/run/kbisect-services}
daemons=(virtlogd libvirtd)

running() { pgrep -x "$1" >/dev/null 2>&1; }

ensure_accounts() {
  getent group kvm >/dev/null || groupadd --system kvm
  getent group libvirt-qemu >/dev/null || groupadd --system libvirt-qemu
  getent passwd libvirt-qemu >/dev/null ||
    useradd --system --gid libvirt-qemu --groups kvm --no-create-home --shell /usr/sbin/nologin libvirt-qemu
}

# Debian's udev rules give /dev/kvm to group kvm, mode 0660. Where udev does not run (a
# container) it stays root's alone: libvirt's QEMU, run as libvirt-qemu, cannot open it, and
# libvirtd, whose capability probe (as root) saw KVM, probes QEMU again at every lookup: about
# 50 s before each domain starts instead of none.
ensure_kvm_access() {
  [[ -c /dev/kvm ]] || return 0
  runuser -u libvirt-qemu -- test -r /dev/kvm -a -w /dev/kvm && return 0
  chgrp kvm /dev/kvm
  chmod g+rw /dev/kvm
  echo "services: /dev/kvm given to group kvm (read-write), as udev would"
}

wait_for_socket() {
  for _ in $(seq 1 100); do
    [[ -S /run/libvirt/libvirt-sock ]] && return 0
    sleep 0.1
  done
  echo "services: libvirtd did not create /run/libvirt/libvirt-sock within 10 s" >&2
  return 1
}

start() {
  if [[ $(id -u) -ne 0 ]]; then
    echo "services: starting libvirtd needs root (sudo scripts/services.sh start)" >&2
    exit 1
  fi
  for daemon in "${daemons[@]}"; do
    command -v "$daemon" >/dev/null || { echo "services: $daemon is not installed; run 'make deps'" >&2; exit 1; }
  done
  ensure_accounts
  ensure_kvm_access
  mkdir -p "$state_dir" /var/log/libvirt/qemu /run/libvirt /var/lib/libvirt/qemu
  for daemon in "${daemons[@]}"; do
    if running "$daemon"; then continue; fi
    "$daemon" -d
    touch "$state_dir/$daemon"
    echo "services: started $daemon"
  done
  wait_for_socket
}

stop() {
  # Reverse order: libvirtd before the log daemon it writes to.
  for (( i=${#daemons[@]}-1; i>=0; i-- )); do
    daemon=${daemons[$i]}
    [[ -f "$state_dir/$daemon" ]] || continue
    pkill -x "$daemon" || true
    for _ in $(seq 1 100); do running "$daemon" || break; sleep 0.1; done
    rm -f "$state_dir/$daemon"
    echo "services: stopped $daemon"
  done
}

status() {
  for daemon in "${daemons[@]}"; do
    if running "$daemon"; then echo "$daemon: running"; else echo "$daemon: stopped"; fi
  done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac

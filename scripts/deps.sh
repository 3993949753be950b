#!/usr/bin/env bash
# Installs every build and run dependency of kbisect from Debian's apt.
# Idempotent: when everything is present it prints one line and installs nothing.
set -euo pipefail

packages=(
  # toolchain and build
  build-essential cmake pkg-config clang-format clang libclang-rt-14-dev file git
  # harness libraries
  libgit2-dev libvirt-dev libyaml-cpp-dev libboost-dev libboost-filesystem-dev libboost-math-dev
  libsqlite3-dev sqlite3 libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev libfmt-dev libssl-dev
  # kdio (static libaio.a and liburing.a ship with the -dev packages) and its peer
  libaio-dev liburing-dev fio python3
  # guests
  qemu-system-x86 qemu-utils busybox-static e2fsprogs xfsprogs cpio
  libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
  # kernels
  linux-source-6.1 bc flex bison libelf-dev ccache xz-utils
  # the HTML report's browser test (headless)
  chromium
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "deps: all ${#packages[@]} packages present"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "deps: missing packages: ${missing[*]}" >&2
  echo "deps: run 'sudo make deps' (apt-get needs root)" >&2
  exit 1
fi

echo "deps: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -qq; then
  echo "deps: 'apt-get update' failed; check the network and /etc/apt/sources.list" >&2
  exit 1
fi
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/kbisect-deps.log 2>&1; then
  tail -20 /tmp/kbisect-deps.log >&2
  echo "deps: 'apt-get install' failed (full log: /tmp/kbisect-deps.log)" >&2
  exit 1
fi
echo "deps: installed ${missing[*]}"

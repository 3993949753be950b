#include "config/reserved_vars.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace kbisect {
namespace {

// run.env's own settings (KBISECT_FS, KBISECT_DEVICE, ...) and any the guest adds later.
constexpr std::string_view kGuestPrefix = "KBISECT_";

// What the guest's /init exports before it reads run.env (its tools and their libraries), and
// what its shell (busybox sh) exports and changes itself.
constexpr std::array<std::string_view, 7> kGuestInitVars = {
    "PATH", "LD_LIBRARY_PATH", "HOME", "TERM", "PWD", "OLDPWD", "SHLVL"};

}  // namespace

bool is_reserved_var(std::string_view name) {
  return name.starts_with(kGuestPrefix) ||
         std::find(kGuestInitVars.begin(), kGuestInitVars.end(), name) != kGuestInitVars.end();
}

std::string reserved_var_names() {
  std::string names = fmt::format("{}*", kGuestPrefix);
  for (std::string_view name : kGuestInitVars) names += fmt::format(", {}", name);
  return names;
}

}  // namespace kbisect

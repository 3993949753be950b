#include "vm/runner.h"

namespace kbisect {

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kBuildFailed:
      return "build-failed";
    case Outcome::kBootFailed:
      return "boot-failed";
    case Outcome::kWorkloadFailed:
      return "workload-failed";
    case Outcome::kTimeout:
      return "timeout";
    case Outcome::kInfraError:
      return "infra-error";
  }
  return "unknown";
}

}  // namespace kbisect

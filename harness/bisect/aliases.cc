#include "bisect/aliases.h"

namespace kbisect {

std::string follow_aliases(const std::map<std::string, std::string>& aliases, std::string commit) {
  for (size_t hops = 0; hops < aliases.size(); ++hops) {
    auto alias = aliases.find(commit);
    if (alias == aliases.end()) break;
    commit = alias->second;
  }
  return commit;
}

}  // namespace kbisect

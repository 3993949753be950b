// A commit whose kernel image is the same as one measured before is not booted: it takes that
// commit's samples, and the session journals it as an alias (commit -> the commit it was
// measured as). The session, the stored results and the report all follow them with this.
#pragma once

#include <map>
#include <string>

namespace kbisect {

// The commit whose samples `commit` has: itself, or where its aliases lead. A cycle, which a
// journal does not hold, ends once every alias has been followed.
std::string follow_aliases(const std::map<std::string, std::string>& aliases, std::string commit);

}  // namespace kbisect

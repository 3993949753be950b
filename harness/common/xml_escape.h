// Text for XML and HTML, in element content and in quoted attribute values alike: libvirt's
// domain XML and the HTML reports.
#pragma once

#include <string>
#include <string_view>

namespace kbisect {

// & < > ' " as entities; every other byte as it is.
std::string xml_escape(std::string_view text);

}  // namespace kbisect

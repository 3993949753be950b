// Text for XML and HTML, in element content and in quoted attribute values alike: libvirt's
// domain XML and the HTML reports.
#pragma once

#include <string>
#include <string_view>

namespace kbisect {

// & < > ' " as entities, and tab, newline and carriage return as character references (an
// attribute's value would turn them into spaces); every other byte as it is. Throws Error on any
// other control character, which XML 1.0 cannot carry: libvirt must get a value as it is.
std::string xml_escape(std::string_view text);

// The same for text a report shows, which may hold a guest's bytes: such a control character
// is shown as U+FFFD instead.
std::string xml_escape_shown(std::string_view text);

}  // namespace kbisect

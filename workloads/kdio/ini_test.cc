#include "kdio/ini.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kdio/value.h"

namespace kdio {
namespace {

std::string no_file(const std::string& path) {
  throw JobError("cannot open '" + path + "'");
}

std::vector<IniSection> read(std::string_view text, const Environment& env = {}) {
  return read_ini(IniText{text, "t.fio"}, env, no_file);
}

std::string error_of(std::string_view text, const Environment& env = {}) {
  try {
    read(text, env);
  } catch (const JobError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ReadIni, SectionsOptionsAndLocations) {
  const auto sections = read("[global]\nbs=4k\n\n[job one]\n  rw = randread \nthread\n");
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].name, "global");
  EXPECT_EQ(sections[0].where, "t.fio:1");
  ASSERT_EQ(sections[0].options.size(), 1u);
  EXPECT_EQ(sections[0].options[0].key, "bs");
  EXPECT_EQ(sections[0].options[0].value, "4k");
  EXPECT_EQ(sections[0].options[0].where, "t.fio:2");
  EXPECT_EQ(sections[1].name, "job one");
  ASSERT_EQ(sections[1].options.size(), 2u);
  EXPECT_EQ(sections[1].options[0].key, "rw");
  EXPECT_EQ(sections[1].options[0].value, "randread");
  EXPECT_EQ(sections[1].options[1].key, "thread");
  EXPECT_FALSE(sections[1].options[1].value.has_value());
  EXPECT_EQ(sections[1].options[1].where, "t.fio:6");
}

TEST(ReadIni, CommentsAnywhereOnALine) {
  const auto sections =
      read("; leading\n# hash\n[j] ; after a header\nbs=4k ; trailing\nsize=1m# tight\r\n");
  ASSERT_EQ(sections.size(), 1u);
  ASSERT_EQ(sections[0].options.size(), 2u);
  EXPECT_EQ(sections[0].options[0].value, "4k");
  EXPECT_EQ(sections[0].options[1].value, "1m");
}

TEST(ReadIni, EmptyValueIsNotABareOption) {
  const auto sections = read("[j]\nbs=\n");
  EXPECT_EQ(sections[0].options[0].value, "");
}

TEST(ReadIni, Errors) {
  EXPECT_EQ(error_of("bs=4k\n"),
            "t.fio:1: option 'bs=4k' is outside of a [section]; put it under [global] or a [job] "
            "section");
  EXPECT_EQ(error_of("[j]\n[k\n"), "t.fio:2: section header must end with ']'");
  EXPECT_EQ(error_of("\n[ ]\n"), "t.fio:2: empty section name '[]'");
  EXPECT_EQ(error_of("[j]\n=4k\n"), "t.fio:2: '=4k' has no option name");
  EXPECT_EQ(error_of("[globals]\n"),
            "t.fio:1: fio treats section [globals] as [global] because its name starts with "
            "'global'; rename it, or write [global]");
}

// kdio's JSON output carries only UTF-8: a job named otherwise failed after the whole run.
TEST(ReadIni, TextIsUtf8) {
  EXPECT_EQ(error_of("[j\xff]\n"), "t.fio:1: byte 0xFF is not UTF-8 text; kdio reads only UTF-8");
  EXPECT_EQ(error_of("[j]\nfilename=/mnt/\xc3\n"),
            "t.fio:2: byte 0xC3 is not UTF-8 text; kdio reads only UTF-8");
  for (std::string_view overlong_or_surrogate :
       {"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"}) {
    EXPECT_NE(error_of(fmt::format("[j{}]\n", overlong_or_surrogate)), "no error");
  }
  EXPECT_EQ(error_of("[j]\nfilename=${DIR}/f\n", {{"DIR", "/mnt/\xfe"}}),
            "t.fio:2: byte 0xFE is not UTF-8 text; kdio reads only UTF-8");
  // Comments are not read; UTF-8 is taken as it is.
  EXPECT_EQ(read("[j] ; \xff\ndescription=caf\xc3\xa9 \xf0\x9f\x92\xbe\n")[0].options[0].value,
            "caf\xc3\xa9 \xf0\x9f\x92\xbe");
}

// fio would run rw=read here, dropping 'junk' unseen; an error naming the value would end at
// the NUL ("unknown rw 'read").
TEST(ReadIni, NulByteIsAnErrorAtItsLine) {
  using namespace std::string_view_literals;
  EXPECT_EQ(error_of("[j]\nrw=read\0junk\nsize=1M\n"sv),
            "t.fio:2: byte 0x00 (NUL) after 'rw=read' is not text; remove it (fio would end the "
            "line there and ignore the rest)");
  EXPECT_EQ(error_of("[j\0]\n"sv),
            "t.fio:1: byte 0x00 (NUL) after '[j' is not text; remove it (fio would end the line "
            "there and ignore the rest)");
  // Comments are not read, as for UTF-8.
  EXPECT_EQ(read("[j]\nrw=read ; \0\n"sv)[0].options[0].value, "read");
}

TEST(ExpandVariables, FromTheEnvironment) {
  const Environment env{{"SIZE", "64m"}, {"RT", "5"}};
  const auto sections = read("[j]\nsize=${SIZE}\nruntime=${RT}s\nname=a${RT}b${SIZE}\n", env);
  EXPECT_EQ(sections[0].options[0].value, "64m");
  EXPECT_EQ(sections[0].options[1].value, "5s");
  EXPECT_EQ(sections[0].options[2].value, "a5b64m");
}

TEST(ExpandVariables, UnsetOrMalformedIsAnErrorWithTheLine) {
  EXPECT_EQ(error_of("[j]\n\nsize=${SIZE}\n"),
            "t.fio:3: environment variable 'SIZE' is not set; set it (the header of the job file "
            "lists the variables it needs)");
  EXPECT_EQ(error_of("[j]\nsize=${SIZE\n"), "t.fio:2: '${' without a closing '}'");
  EXPECT_EQ(error_of("[j]\nsize=${}\n"), "t.fio:2: empty variable reference '${}'");
}

TEST(ExpandVariables, EmptyValueIsAllowed) {
  const auto sections = read("[j]\nname=x${EMPTY}y\n", {{"EMPTY", ""}});
  EXPECT_EQ(sections[0].options[0].value, "xy");
}

class IncludeTest : public ::testing::Test {
 protected:
  std::vector<IniSection> read_with_files(std::string_view text, const std::string& name) {
    return read_ini(IniText{text, name}, {}, [this](const std::string& path) {
      const auto found = files_.find(path);
      if (found == files_.end()) throw JobError("cannot open '" + path + "'");
      return found->second;
    });
  }
  std::string error_of(std::string_view text, const std::string& name) {
    try {
      read_with_files(text, name);
    } catch (const JobError& e) {
      return e.what();
    }
    return "no error";
  }
  std::map<std::string, std::string> files_;
};

TEST_F(IncludeTest, RelativeToTheIncludingFileAndInlinedIntoTheSection) {
  files_["dir/common.fio"] = "; shared\nbs=8k\ninclude sub/more.fio\n";
  files_["dir/sub/more.fio"] = "direct=1\n";
  const auto sections = read_with_files("[j]\nrw=read\ninclude common.fio\nsize=1m\n", "dir/a.fio");
  ASSERT_EQ(sections.size(), 1u);
  ASSERT_EQ(sections[0].options.size(), 4u);
  EXPECT_EQ(sections[0].options[1].key, "bs");
  EXPECT_EQ(sections[0].options[1].where, "dir/common.fio:2");
  EXPECT_EQ(sections[0].options[2].key, "direct");
  EXPECT_EQ(sections[0].options[2].where, "dir/sub/more.fio:1");
  EXPECT_EQ(sections[0].options[3].key, "size");
}

TEST_F(IncludeTest, AbsolutePath) {
  files_["/etc/x.fio"] = "bs=8k\n";
  const auto sections = read_with_files("[j]\ninclude /etc/x.fio\n", "dir/a.fio");
  EXPECT_EQ(sections[0].options[0].where, "/etc/x.fio:1");
}

TEST_F(IncludeTest, Errors) {
  files_["a.fio"] = "include b.fio\n";
  files_["b.fio"] = "include a.fio\n";
  files_["s.fio"] = "[other]\n";
  EXPECT_EQ(error_of("[j]\ninclude a.fio\n", "top.fio"),
            "b.fio:1: include loop: 'a.fio' includes itself");
  EXPECT_EQ(error_of("[j]\ninclude s.fio\n", "top.fio"),
            "s.fio:1: an included file may hold only options, not [sections] (as in fio)");
  EXPECT_EQ(error_of("[j]\n\ninclude missing.fio\n", "top.fio"),
            "top.fio:3: include: cannot open 'missing.fio'");
  EXPECT_EQ(error_of("include a.fio\n", "top.fio"),
            "top.fio:1: option 'include a.fio' is outside of a [section]; put it under [global] "
            "or a [job] section");
}

TEST_F(IncludeTest, NameAndDepth) {
  EXPECT_EQ(error_of("[j]\ninclude ; nothing\n", "top.fio"),
            "top.fio:2: include needs a file name");
  const auto name = [](int i) { return fmt::format("d{}.fio", i); };
  for (int i = 0; i < 20; ++i) files_[name(i)] = fmt::format("include {}\n", name(i + 1));
  EXPECT_EQ(error_of("[j]\ninclude d0.fio\n", "top.fio"),
            "d14.fio:1: includes nested deeper than 16");
}

TEST_F(IncludeTest, SelfIncludeIsALoop) {
  files_["top.fio"] = "[j]\ninclude top.fio\n";
  EXPECT_EQ(error_of(files_["top.fio"], "top.fio"),
            "top.fio:2: include loop: 'top.fio' includes itself");
  files_["x.fio"] = "include x.fio\n";
  EXPECT_EQ(error_of("[j]\ninclude x.fio\n", "top.fio"),
            "x.fio:1: include loop: 'x.fio' includes itself");
}

}  // namespace
}  // namespace kdio

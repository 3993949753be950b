// main() for a libFuzzer target's entry point outside libFuzzer: runs LLVMFuzzerTestOneInput
// once on each file named, or on each file in each directory named. Built in every build and run
// by ctest over the target's corpus, so the target keeps compiling and every input the corpus
// keeps (a crash once found, a shape worth covering) stays handled.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> inputs_of(const fs::path& path) {
  if (!fs::is_directory(path)) return {path};
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  int replayed = 0;
  for (int i = 1; i < argc; ++i) {
    for (const fs::path& input : inputs_of(argv[i])) {
      std::ifstream in(input, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "fuzz replay: cannot read %s\n", input.c_str());
        return 1;
      }
      std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::fprintf(stderr, "fuzz replay: no inputs; name corpus files or directories\n");
    return 1;
  }
  std::printf("fuzz replay: %d input%s, none crashed\n", replayed, replayed == 1 ? "" : "s");
  return 0;
}

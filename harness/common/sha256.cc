#include "common/sha256.h"

#include <openssl/evp.h>

#include <fstream>

#include "common/error.h"
#include "common/unique_handle.h"

namespace kbisect {
namespace {

class Sha256 {
 public:
  Sha256() : context_(EVP_MD_CTX_new()) {
    if (!context_ || EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1) {
      fail("cannot initialise SHA-256 (OpenSSL)");
    }
  }

  void add(std::string_view data) {
    if (EVP_DigestUpdate(context_.get(), data.data(), data.size()) != 1) {
      fail("SHA-256 update failed (OpenSSL)");
    }
  }

  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(context_.get(), digest, &length) != 1) {
      fail("SHA-256 final failed (OpenSSL)");
    }
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text;
    for (unsigned int i = 0; i < length; ++i) {
      text += kDigits[digest[i] >> 4];
      text += kDigits[digest[i] & 0xf];
    }
    return text;
  }

 private:
  Unique<EVP_MD_CTX, EVP_MD_CTX_free> context_;
};

}  // namespace

std::string sha256_hex(std::string_view data) {
  Sha256 hash;
  hash.add(data);
  return hash.hex();
}

std::string sha256_file_hex(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read {}: {}", path.string(), errno_text(errno));
  Sha256 hash;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    hash.add(std::string_view(buffer, static_cast<size_t>(in.gcount())));
  }
  if (in.bad()) fail("cannot read {}: {}", path.string(), errno_text(errno));
  return hash.hex();
}

}  // namespace kbisect

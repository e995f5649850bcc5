#include "security/password_hash.hpp"

#include <array>
#include <charconv>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "uactor/ua/status_codes.hpp"
#include "security/keys.hpp"

namespace uactor::security {

namespace {

constexpr std::string_view scheme = "pbkdf2-sha256";
constexpr std::size_t salt_bytes = 16;
constexpr std::size_t hash_bytes = 32;  // SHA-256's output: more would not add strength
// Bounds of the salt a stored string may carry (8 bytes is NIST SP 800-132's minimum).
constexpr std::size_t min_salt_bytes = 8, max_salt_bytes = 64;
// The hash is exactly SHA-256's size: PBKDF2's output for a shorter length is a prefix of the
// longer one, so accepting a shorter stored hash would accept a truncated (weaker) string.
constexpr std::size_t min_hash_bytes = hash_bytes, max_hash_bytes = hash_bytes;

constexpr char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(std::span<const std::uint8_t> in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v = (in[i] << 16) | (in[i + 1] << 8) | in[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += b64_alphabet[(v >> s) & 63];
  }
  if (const auto rest = in.size() - i; rest > 0) {
    const std::uint32_t v = (in[i] << 16) | (rest == 2 ? in[i + 1] << 8 : 0);
    out += b64_alphabet[(v >> 18) & 63];
    out += b64_alphabet[(v >> 12) & 63];
    out += rest == 2 ? b64_alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// Strict: padded, canonical, nothing else. nullopt otherwise.
std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view in) {
  if (in.empty() || in.size() % 4 != 0) return std::nullopt;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::vector<std::uint8_t> out;
  out.reserve(in.size() / 4 * 3);
  for (std::size_t i = 0; i < in.size(); i += 4) {
    const bool last = i + 4 == in.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = in[i + k];
      if (c == '=' && last && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;  // data after padding
      v[k] = value(c);
      if (v[k] < 0) return std::nullopt;
    }
    const std::uint32_t n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out.push_back(static_cast<std::uint8_t>(n >> 16));
    if (pad < 2) out.push_back(static_cast<std::uint8_t>(n >> 8));
    if (pad < 1) out.push_back(static_cast<std::uint8_t>(n));
    // Canonical: the bits the padding drops must be zero.
    if ((pad == 1 && (n & 0xFF)) || (pad == 2 && (n & 0xFFFF))) return std::nullopt;
  }
  return out;
}

struct parsed_hash {
  std::uint32_t iterations = 0;
  std::vector<std::uint8_t> salt, hash;
};

std::optional<parsed_hash> parse_stored(std::string_view s) {
  auto next = [&s]() -> std::optional<std::string_view> {
    if (s.data() == nullptr) return std::nullopt;
    const auto pos = s.find('$');
    const auto part = s.substr(0, pos);
    s = pos == std::string_view::npos ? std::string_view() : s.substr(pos + 1);
    return part;
  };
  const auto name = next(), iter = next(), salt = next(), hash = next();
  if (!name || !iter || !salt || !hash || s.data() != nullptr || *name != scheme) return std::nullopt;
  parsed_hash p;
  const auto [end, ec] = std::from_chars(iter->data(), iter->data() + iter->size(), p.iterations);
  if (ec != std::errc() || end != iter->data() + iter->size() || iter->empty() || (*iter)[0] == '0' ||
      p.iterations > max_password_iterations)
    return std::nullopt;
  auto salt_bytes_v = base64_decode(*salt);
  auto hash_bytes_v = base64_decode(*hash);
  if (!salt_bytes_v || !hash_bytes_v) return std::nullopt;
  if (salt_bytes_v->size() < min_salt_bytes || salt_bytes_v->size() > max_salt_bytes ||
      hash_bytes_v->size() < min_hash_bytes || hash_bytes_v->size() > max_hash_bytes)
    return std::nullopt;
  p.salt = std::move(*salt_bytes_v);
  p.hash = std::move(*hash_bytes_v);
  return p;
}

bool derive(std::string_view password, std::span<const std::uint8_t> salt, std::uint32_t iterations,
            std::span<std::uint8_t> out) {
  const int ok = PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), salt.data(),
                                   static_cast<int>(salt.size()), static_cast<int>(iterations), EVP_sha256(),
                                   static_cast<int>(out.size()), out.data());
  if (ok != 1) ERR_clear_error();
  return ok == 1;
}

}  // namespace

std::string hash_password(std::string_view password, std::uint32_t iterations) {
  if (iterations == 0 || iterations > max_password_iterations)
    throw std::invalid_argument("hash_password: iterations out of range");
  std::array<std::uint8_t, salt_bytes> salt{};
  fill_random(salt);
  std::array<std::uint8_t, hash_bytes> hash{};
  if (!derive(password, salt, iterations, hash)) throw std::runtime_error("hash_password: PBKDF2 failed");
  return std::string(scheme) + "$" + std::to_string(iterations) + "$" + base64_encode(salt) + "$" +
         base64_encode(hash);
}

bool is_password_hash(std::string_view stored) { return parse_stored(stored).has_value(); }

bool verify_password(std::string_view stored, std::string_view password) {
  const auto p = parse_stored(stored);
  if (!p) return false;
  std::array<std::uint8_t, max_hash_bytes> got{};
  const std::span<std::uint8_t> out(got.data(), p->hash.size());
  if (!derive(password, p->salt, p->iterations, out)) return false;
  return CRYPTO_memcmp(out.data(), p->hash.data(), out.size()) == 0;
}

void user_store::add(std::string_view user, std::string_view password, std::uint32_t iterations) {
  users_.insert_or_assign(std::string(user), hash_password(password, iterations));
}

ua::status_code user_store::add_hashed(std::string_view user, std::string_view stored) {
  if (user.empty() || user.find(':') != std::string_view::npos || !is_password_hash(stored))
    return ua::status::bad_invalid_argument;
  users_.insert_or_assign(std::string(user), std::string(stored));
  return {};
}

ua::status_code user_store::check(std::string_view user, std::string_view password) const {
  const auto it = users_.find(user);
  if (it == users_.end()) {
    // The same work as for a known user, so that timing does not tell which names exist.
    static const std::string dummy = hash_password("uactor", default_password_iterations);
    (void)verify_password(dummy, password);
    return ua::status::bad_user_access_denied;
  }
  return verify_password(it->second, password) ? ua::status_code{} : ua::status::bad_user_access_denied;
}

ua::expected<user_store> user_store::parse(std::string_view text, std::string* why) {
  const auto refuse = [why](std::size_t line, std::string_view what) {
    if (why) *why = "line " + std::to_string(line) + ": " + std::string(what);
    return ua::status::bad_configuration_error;
  };
  user_store out;
  for (std::size_t number = 1; !text.empty(); ++number) {
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return refuse(number, "no ':' between the user name and the hash");
    if (colon == 0) return refuse(number, "no user name before the ':'");
    if (out.add_hashed(line.substr(0, colon), line.substr(colon + 1)).is_bad())
      return refuse(number, "what follows the user name is not a password hash (uactor hash-password makes one)");
  }
  return out;
}

ua::expected<user_store> user_store::load(const std::filesystem::path& file, std::string* why) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    if (why) *why = "cannot be opened";
    return ua::status::bad_not_found;
  }
  std::string text;
  std::array<char, 64 * 1024> block;
  while (in.read(block.data(), block.size()) || in.gcount() > 0) {
    text.append(block.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_file_bytes) {  // refused without reading the rest
      if (why) *why = "larger than " + std::to_string(max_file_bytes / (1024 * 1024)) + " MiB";
      return ua::status::bad_encoding_limits_exceeded;
    }
  }
  return parse(text, why);
}

std::string user_store::to_text() const {
  std::string out;
  for (const auto& [user, stored] : users_) out += user + ":" + stored + "\n";
  return out;
}

}  // namespace uactor::security

#include "security/password_hash.hpp"

#include <array>
#include <atomic>
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

#include "protocol/base64.hpp"
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
  // Strict base64 (protocol/base64.hpp): one text per salt and hash, and nothing decoded past
  // their bounds.
  const auto salt_decoded = ua::base64_decode(*salt, max_salt_bytes);
  const auto hash_decoded = ua::base64_decode(*hash, max_hash_bytes);
  if (!salt_decoded || !hash_decoded || salt_decoded->size() < min_salt_bytes || hash_decoded->size() < min_hash_bytes)
    return std::nullopt;
  p.salt.assign(salt_decoded->begin(), salt_decoded->end());
  p.hash.assign(hash_decoded->begin(), hash_decoded->end());
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
  return std::string(scheme) + "$" + std::to_string(iterations) + "$" + ua::base64_encode(salt) + "$" +
         ua::base64_encode(hash);
}

bool is_password_hash(std::string_view stored) { return parse_stored(stored).has_value(); }

std::uint32_t password_iterations(std::string_view stored) {
  const auto p = parse_stored(stored);
  return p ? p->iterations : 0;
}

namespace {
std::atomic<std::uint64_t> dummy_checks{0};
}  // namespace

std::uint64_t dummy_password_checks() noexcept { return dummy_checks.load(std::memory_order_relaxed); }

void user_store::count_iterations(const std::string* replaced, const std::string& added) {
  if (replaced)
    if (const auto it = iterations_.find(password_iterations(*replaced)); it != iterations_.end() && --it->second == 0)
      iterations_.erase(it);
  ++iterations_[password_iterations(added)];
  std::uint32_t most = 0;
  std::size_t most_users = 0;
  for (const auto& [n, users] : iterations_)
    if (users > most_users) most = n, most_users = users;
  // A new dummy only when the most common count changed: loading a file of 100,000 users with
  // one count makes it once.
  if (most != 0 && password_iterations(dummy_) != most) dummy_ = hash_password("uactor-dummy", most);
}

bool verify_password(std::string_view stored, std::string_view password) {
  const auto p = parse_stored(stored);
  if (!p) return false;
  std::array<std::uint8_t, max_hash_bytes> got{};
  const std::span<std::uint8_t> out(got.data(), p->hash.size());
  if (!derive(password, p->salt, p->iterations, out)) return false;
  return CRYPTO_memcmp(out.data(), p->hash.data(), out.size()) == 0;
}

void user_store::add(std::string_view user, std::string_view password, std::uint32_t iterations) {
  std::string stored = hash_password(password, iterations);
  const auto it = users_.find(user);
  const std::string replaced = it != users_.end() ? it->second : std::string();
  count_iterations(it != users_.end() ? &replaced : nullptr, stored);
  users_.insert_or_assign(std::string(user), std::move(stored));
}

ua::status_code user_store::add_hashed(std::string_view user, std::string_view stored) {
  if (user.empty() || user.find(':') != std::string_view::npos || !is_password_hash(stored))
    return ua::status::bad_invalid_argument;
  const auto it = users_.find(user);
  const std::string replaced = it != users_.end() ? it->second : std::string();
  count_iterations(it != users_.end() ? &replaced : nullptr, std::string(stored));
  users_.insert_or_assign(std::string(user), std::string(stored));
  return {};
}

ua::status_code user_store::check(std::string_view user, std::string_view password) const {
  const auto it = users_.find(user);
  if (it == users_.end()) {
    // The same work as for a known user, so that timing does not tell which names exist: a PBKDF2
    // with the users' usual count (the default's for a store without users).
    static const std::string default_dummy = hash_password("uactor-dummy", default_password_iterations);
    (void)verify_password(dummy_.empty() ? default_dummy : dummy_, password);
    dummy_checks.fetch_add(1, std::memory_order_relaxed);
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

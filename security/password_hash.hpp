// Password hashes for user name tokens (Part 4 §7.41.3) and the user store that checks them.
// PBKDF2-HMAC-SHA256 with a random salt, stored self-describing:
//   pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>
// Plain values; the caller owns what these return.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_code.hpp"

namespace uactor::security {

// The work factor of new hashes: about 24 ms of one core on this machine (password.verify in
// bench/security/pki_bench), paid once per ActivateSession with a user name token.
inline constexpr std::uint32_t default_password_iterations = 100'000;
// Stored strings asking for more are refused: a bad config line must not stall a session for
// minutes.
inline constexpr std::uint32_t max_password_iterations = 10'000'000;

// A new stored string with a fresh 16-byte random salt.
std::string hash_password(std::string_view password, std::uint32_t iterations = default_password_iterations);
// True when `password` matches `stored`; false for a wrong password and for any stored string
// that is not of the form above (never throws). The hashes are compared in constant time.
bool verify_password(std::string_view stored, std::string_view password);
// True when `stored` has the form above (for loading a user file).
bool is_password_hash(std::string_view stored);
// The iterations of a stored string; 0 when it is not of the form above.
std::uint32_t password_iterations(std::string_view stored);
// How many dummy verifications user_store::check ran for unknown users since the start (all
// stores of the process): what a test counts to see that an unknown user costs a PBKDF2.
std::uint64_t dummy_password_checks() noexcept;

// User names and their stored hashes.
class user_store {
public:
  // Adds or replaces a user with a new hash of `password`.
  void add(std::string_view user, std::string_view password,
           std::uint32_t iterations = default_password_iterations);
  // Adds or replaces a user with an already stored hash; Bad_InvalidArgument when malformed.
  ua::status_code add_hashed(std::string_view user, std::string_view stored);
  // Good, or Bad_UserAccessDenied for an unknown user or a wrong password (the same answer and
  // about the same time for both: no user-name oracle). An unknown user costs a PBKDF2 of a dummy
  // hash with the store's most common iteration count, the time a known user's check takes.
  ua::status_code check(std::string_view user, std::string_view password) const;
  std::size_t size() const noexcept { return users_.size(); }

  // A text file of `user:hash` lines; blank lines and lines starting with '#' are skipped.
  // Bad_NotFound when it cannot be read, Bad_EncodingLimitsExceeded past max_file_bytes,
  // Bad_ConfigurationError for a malformed line. `why`, when given, says which line and what is
  // wrong with it (never the hash itself).
  static constexpr std::size_t max_file_bytes = 16 * 1024 * 1024;  // some 140,000 users
  static ua::expected<user_store> load(const std::filesystem::path& file, std::string* why = nullptr);
  static ua::expected<user_store> parse(std::string_view text, std::string* why = nullptr);
  // The file form, one `user:hash` line per user, sorted by name.
  std::string to_text() const;

private:
  void count_iterations(const std::string* replaced, const std::string& added);

  std::map<std::string, std::string, std::less<>> users_;
  std::map<std::uint32_t, std::size_t> iterations_;  // how many users' hashes have each count
  std::string dummy_;  // a hash with the most common count (made when that count changes)
};

}  // namespace uactor::security

// Tests of security/password_hash: PBKDF2-HMAC-SHA256 stored strings, their verification, and
// the user store; malformed stored strings and user files are refused without a crash.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <openssl/evp.h>

#include "uactor/ua/status_codes.hpp"
#include "security/password_hash.hpp"
#include "tests/security/pki_test_support.hpp"

using namespace uactor;
using namespace uactor::security;

namespace {
// Few iterations keep the tests fast; the format and the checks are the same.
constexpr std::uint32_t fast = 1000;
}  // namespace

TEST_CASE("password_hash: a round trip verifies, a wrong password does not", "[security]") {
  const auto stored = hash_password("s3cret", fast);
  CHECK(stored.rfind("pbkdf2-sha256$1000$", 0) == 0);
  CHECK(is_password_hash(stored));
  CHECK(verify_password(stored, "s3cret"));
  CHECK_FALSE(verify_password(stored, "s3creT"));
  CHECK_FALSE(verify_password(stored, ""));
  CHECK_FALSE(verify_password(stored, "s3cret "));
  // The empty password and passwords with NUL bytes work too.
  const auto empty = hash_password("", fast);
  CHECK(verify_password(empty, ""));
  const std::string with_nul("a\0b", 3);
  const auto nul = hash_password(with_nul, fast);
  CHECK(verify_password(nul, with_nul));
  CHECK_FALSE(verify_password(nul, "a"));
}

TEST_CASE("password_hash: each hash has its own salt, the default work factor is used", "[security]") {
  const auto a = hash_password("same", fast);
  const auto b = hash_password("same", fast);
  CHECK(a != b);
  CHECK(verify_password(a, "same"));
  CHECK(verify_password(b, "same"));
  const auto d = hash_password("x");
  CHECK(d.rfind("pbkdf2-sha256$" + std::to_string(default_password_iterations) + "$", 0) == 0);
}

TEST_CASE("password_hash: the stored hash is PBKDF2-HMAC-SHA256 of the password and salt", "[security]") {
  // A stored string written by hand from PKCS5_PBKDF2_HMAC's output (P="passwd", S="saltsalt",
  // c=1): the format is what the header says, so hashes made elsewhere load.
  const std::string salt = "saltsalt";
  std::vector<std::uint8_t> dk(32);
  REQUIRE(PKCS5_PBKDF2_HMAC("passwd", 6, reinterpret_cast<const unsigned char*>(salt.data()), 8, 1, EVP_sha256(), 32,
                            dk.data()) == 1);
  std::string hash_b64;
  {
    static constexpr char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::size_t i = 0;
    for (; i + 3 <= dk.size(); i += 3) {
      const unsigned v = (dk[i] << 16) | (dk[i + 1] << 8) | dk[i + 2];
      for (int s = 18; s >= 0; s -= 6) hash_b64 += a[(v >> s) & 63];
    }
    const unsigned v = (dk[i] << 16) | (dk[i + 1] << 8);
    hash_b64 += a[(v >> 18) & 63];
    hash_b64 += a[(v >> 12) & 63];
    hash_b64 += a[(v >> 6) & 63];
    hash_b64 += '=';
  }
  const std::string stored = "pbkdf2-sha256$1$c2FsdHNhbHQ=$" + hash_b64;
  CHECK(verify_password(stored, "passwd"));
  CHECK_FALSE(verify_password(stored, "passwe"));
}

TEST_CASE("password_hash: malformed stored strings are refused, never a crash", "[security]") {
  const auto good = hash_password("pw", fast);
  const std::vector<std::string> bad{
      "",
      "$",
      "$$$",
      "pbkdf2-sha256",
      "pbkdf2-sha256$1000",
      "pbkdf2-sha256$1000$c2FsdHNhbHQ=",
      "pbkdf2-sha1$1000$c2FsdHNhbHQ=$c2FsdHNhbHRzYWx0c2FsdA==",
      "pbkdf2-sha256$0$c2FsdHNhbHQ=$c2FsdHNhbHRzYWx0c2FsdA==",
      "pbkdf2-sha256$-1$c2FsdHNhbHQ=$c2FsdHNhbHRzYWx0c2FsdA==",
      "pbkdf2-sha256$01000$c2FsdHNhbHQ=$c2FsdHNhbHRzYWx0c2FsdA==",
      "pbkdf2-sha256$99999999999$c2FsdHNhbHQ=$c2FsdHNhbHRzYWx0c2FsdA==",
      "pbkdf2-sha256$4294967295$c2FsdHNhbHQ=$c2FsdHNhbHRzYWx0c2FsdA==",  // past the work-factor cap
      "pbkdf2-sha256$1000$c2FsdA==$c2FsdHNhbHRzYWx0c2FsdA==",             // 4-byte salt
      "pbkdf2-sha256$1000$c2FsdHNhbHQ=$c2FsdA==",                         // 4-byte hash
      "pbkdf2-sha256$1000$c2FsdHNhbHQ=$c2FsdHNhbHRzYWx0c2FsdA==",         // 16 bytes: a truncated hash
      "pbkdf2-sha256$1000$c2FsdHNhbHQ$c2FsdHNhbHRzYWx0c2FsdA==",          // unpadded
      "pbkdf2-sha256$1000$c2FsdHNh!HQ=$c2FsdHNhbHRzYWx0c2FsdA==",         // not base64
      "pbkdf2-sha256$1000$c2Fs=HNhbHQ=$c2FsdHNhbHRzYWx0c2FsdA==",         // padding inside
      "pbkdf2-sha256$1000$c2FsdHNhbHR=$c2FsdHNhbHRzYWx0c2FsdA==",         // non-canonical
      "pbkdf2-sha256$1000$c2FsdHNhbHQ=$c2FsdHNhbHRzYWx0c2FsdA==$extra",
      good + "$",
      good.substr(0, good.size() - 1),
      "pbkdf2-sha256$1000$" + std::string(100000, 'A') + "$c2FsdHNhbHRzYWx0c2FsdA==",
  };
  for (const auto& s : bad) {
    INFO(s.substr(0, 80));
    CHECK_FALSE(is_password_hash(s));
    CHECK_FALSE(verify_password(s, "pw"));
  }
  // Every prefix and every one-character change of a good string: no crash, and only the
  // original verifies.
  for (std::size_t n = 0; n < good.size(); ++n) CHECK_FALSE(verify_password(good.substr(0, n), "pw"));
  for (std::size_t i = 0; i < good.size(); ++i) {
    auto changed = good;
    changed[i] = changed[i] == 'A' ? 'B' : 'A';
    (void)verify_password(changed, "pw");
  }
}

TEST_CASE("user_store: Good for the right password, Bad_UserAccessDenied for a wrong one or an unknown user",
          "[security]") {
  user_store users;
  users.add("operator", "op-pass", fast);
  users.add("viewer", "view", fast);
  CHECK(users.size() == 2);
  CHECK(users.check("operator", "op-pass").is_good());
  CHECK(users.check("operator", "view") == ua::status::bad_user_access_denied);
  CHECK(users.check("nobody", "op-pass") == ua::status::bad_user_access_denied);
  CHECK(users.check("", "") == ua::status::bad_user_access_denied);
  users.add("viewer", "new", fast);  // replaced
  CHECK(users.check("viewer", "view") == ua::status::bad_user_access_denied);
  CHECK(users.check("viewer", "new").is_good());
}

TEST_CASE("user_store: loads user:hash lines, skips comments, refuses malformed lines", "[security]") {
  user_store made;
  made.add("alice", "wonder", fast);
  made.add("bob", "builder", fast);
  const auto text = "# users of the test server\n\n" + made.to_text() + "   \n";
  uactor::security::testing::temp_dir dir;
  uactor::security::testing::write_file(dir.path() / "users",
                                        {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  auto loaded = user_store::load(dir.path() / "users");
  REQUIRE(loaded.has_value());
  CHECK(loaded->size() == 2);
  CHECK(loaded->check("alice", "wonder").is_good());
  CHECK(loaded->check("bob", "builder").is_good());
  CHECK(loaded->check("bob", "wonder") == ua::status::bad_user_access_denied);
  // CRLF line ends work.
  auto crlf = user_store::parse("carol:" + hash_password("c", fast) + "\r\n");
  REQUIRE(crlf.has_value());
  CHECK(crlf->check("carol", "c").is_good());

  CHECK(user_store::load(dir.path() / "missing").error() == ua::status::bad_not_found);
  // Each refusal names its line and says what is wrong, without echoing the hash.
  const std::string good = "alice:" + hash_password("a", fast) + "\n";
  const std::vector<std::pair<std::string, std::string>> bad{
      {"no colon here\n", "line 1: no ':' between the user name and the hash"},
      {"# users\n" + good + "alice:plaintext\n",
       "line 3: what follows the user name is not a password hash (uactor hash-password makes one)"},
      {good + "\r\n:" + hash_password("x", fast) + "\n", "line 3: no user name before the ':'"},
      {"alice:pbkdf2-sha256$1000$$\n",
       "line 1: what follows the user name is not a password hash (uactor hash-password makes one)"}};
  for (const auto& [text, why] : bad) {
    INFO(text);
    std::string said;
    CHECK(user_store::parse(text, &said).error() == ua::status::bad_configuration_error);
    CHECK(said == why);
  }
  CHECK(user_store::parse(bad[1].first).error() == ua::status::bad_configuration_error);  // `why` is optional
}

TEST_CASE("user_store: a users file past 16 MiB is refused with Bad_EncodingLimitsExceeded", "[security]") {
  uactor::security::testing::temp_dir dir;
  const auto path = dir.path() / "users";
  {
    std::ofstream out(path, std::ios::binary);
    const std::string comment = "# " + std::string(1022, 'x') + "\n";  // 1 KiB of comment lines
    for (std::size_t written = 0; written <= user_store::max_file_bytes; written += comment.size()) out << comment;
  }
  std::string why;
  CHECK(user_store::load(path, &why).error() == ua::status::bad_encoding_limits_exceeded);
  CHECK(why == "larger than 16 MiB");
  std::filesystem::resize_file(path, user_store::max_file_bytes);  // at the limit: read (all comments)
  auto at_limit = user_store::load(path, &why);
  REQUIRE(at_limit.has_value());
  CHECK(at_limit->size() == 0);
}

TEST_CASE("user_store: add_hashed refuses a user name with a colon", "[security]") {
  user_store u;
  CHECK(u.add_hashed("a:b", hash_password("x", fast)) == ua::status::bad_invalid_argument);
}

TEST_CASE("user_store: an unknown user costs one PBKDF2 at the users' most common work factor, a known one none extra",
          "[security][login]") {
  // 50,000 iterations for two users, 1,000 for one: the dummy takes the 50,000 (the time a wrong
  // password of most users takes).
  user_store users;
  users.add("op", "op-pw", 50'000);
  users.add("eng", "eng-pw", 50'000);
  users.add("svc", "svc-pw", 1'000);
  const auto time_check = [&users](const char* user, std::uint64_t& dummies) {
    const auto before = dummy_password_checks();
    const auto t = std::chrono::steady_clock::now();
    CHECK(users.check(user, "guess") == ua::status::bad_user_access_denied);
    dummies += dummy_password_checks() - before;
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  };
  std::vector<double> unknown, wrong;
  std::uint64_t unknown_dummies = 0, wrong_dummies = 0;
  for (int i = 0; i < 7; ++i) {
    unknown.push_back(time_check("nobody", unknown_dummies));
    wrong.push_back(time_check("op", wrong_dummies));
  }
  CHECK(unknown_dummies == 7);
  CHECK(wrong_dummies == 0);
  std::sort(unknown.begin(), unknown.end());
  std::sort(wrong.begin(), wrong.end());
  // Printed, not asserted: the machine is noisy.
  std::printf("user_store::check, 50,000 iterations, median of 7: unknown user %.2f ms, wrong password %.2f ms\n",
              unknown[3], wrong[3]);
}

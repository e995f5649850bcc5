// The trust list of X509 user tokens (Part 12 §7.8.3.3 DefaultUserTokenGroup; docs/decisions/0078):
// <pki>/user/{trusted,issuers}/{certs,crl} once they exist, else (every plant before them, and
// until the group's TrustList is first written) the application trust list, as before. Looked up at
// each check (one stat), so that a push that creates the folders takes effect at the next activation.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>

#include "engine/server/server_security.hpp"

namespace uactor::actors {

// <pki>/user: the user token group's folders.
std::filesystem::path user_token_trust_root(const std::filesystem::path& pki_root);
// Whether <pki>/user holds a trust list of its own (its trusted/certs exists).
bool user_token_trust_separate(const std::filesystem::path& pki_root);

class user_token_checker final : public certificate_checker {
public:
  explicit user_token_checker(std::shared_ptr<security::pki_store> application) : application_(std::move(application)) {}
  using certificate_checker::check;
  security::validation_result check(const security::certificate& peer, std::span<const security::certificate> issuers,
                                    const security::validation_options& o, ua::date_time now) override;

private:
  std::shared_ptr<security::pki_store> application_;
  std::mutex mutex_;
  std::shared_ptr<security::pki_store> user_;  // made at the first check that finds <pki>/user
};

}  // namespace uactor::actors

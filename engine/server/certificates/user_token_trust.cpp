// X509 user tokens' trust list (user_token_trust.hpp).
#include "engine/server/certificates/user_token_trust.hpp"

#include <system_error>

#include <spdlog/spdlog.h>

#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

std::filesystem::path user_token_trust_root(const std::filesystem::path& pki_root) { return pki_root / "user"; }

bool user_token_trust_separate(const std::filesystem::path& pki_root) {
  std::error_code ec;
  return std::filesystem::is_directory(user_token_trust_root(pki_root) / "trusted" / "certs", ec);
}

security::validation_result user_token_checker::check(const security::certificate& peer,
                                                      std::span<const security::certificate> issuers,
                                                      const security::validation_options& o, ua::date_time now) {
  std::shared_ptr<security::pki_store> store;
  if (user_token_trust_separate(application_->root())) {
    std::lock_guard lock(mutex_);
    if (!user_) {
      try {
        user_ = std::make_shared<security::pki_store>(user_token_trust_root(application_->root()));
        spdlog::info("X509 user tokens are checked against the trust list in {} (DefaultUserTokenGroup)",
                     user_->root().string());
      } catch (const std::exception& e) {
        spdlog::error("X509 user tokens: the trust list in {} cannot be used ({}): refused",
                      user_token_trust_root(application_->root()).string(), e.what());
        return {ua::status::bad_certificate_invalid, "trust list", e.what()};
      }
    }
    store = user_;
  } else {
    store = application_;
  }
  return store->validate(peer, issuers, o, now);
}

}  // namespace uactor::actors

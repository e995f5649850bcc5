// Certificates about to expire (docs/security.md "Certificate expiry"): the server's own and those
// of its trust list, looked at every `interval` on the housekeeping tick; days left for /metrics,
// a warning in the log ahead of time (once a day per certificate while it lasts), and the findings
// from which server_core keeps a CertificateExpirationAlarmType condition per certificate (active
// within the warning window; docs/decisions/0081). Plain state, time passed in (docs/decisions/0056).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "security/certificate.hpp"
#include "uactor/ua/builtin_types.hpp"

namespace uactor::actors {

struct expiry_config {
  double warn_days = 30;                   // Part 12 §7.8.4 ExpirationLimit's default is two weeks; we warn earlier
  std::chrono::milliseconds interval{3'600'000};  // how often the certificates are looked at
};

struct watched_certificate {
  std::string group;  // "own", "trusted", "issuer"
  security::certificate cert;
};

struct expiry_finding {
  std::string group, subject, thumbprint;
  ua::date_time not_after;
  double days_left = 0;    // negative: expired
  bool warning = false;    // within warn_days (or expired)
  bool newly = false;      // entered the warning window at this check (or first seen in it)
  security::certificate cert;
};

class certificate_expiry {
public:
  explicit certificate_expiry(expiry_config c = {}) : config_(c) {}
  bool due(std::chrono::steady_clock::time_point now) const noexcept { return !checked_ || now >= next_; }
  // Looks at every certificate: the findings (valid until the next call), and warnings in the log.
  std::span<const expiry_finding> check(std::span<const watched_certificate> certs, ua::date_time utc,
                                        std::chrono::steady_clock::time_point now);
  const expiry_config& config() const noexcept { return config_; }

private:
  expiry_config config_;
  bool checked_ = false;
  std::chrono::steady_clock::time_point next_{};
  std::vector<expiry_finding> findings_;
  // Thumbprint -> when its warning was last logged (UTC ticks): once a day.
  std::unordered_map<std::string, std::int64_t> warned_;
};

}  // namespace uactor::actors

// Certificates about to expire (certificate_expiry.hpp).
#include "engine/server/certificates/certificate_expiry.hpp"

#include <spdlog/spdlog.h>

namespace uactor::actors {

namespace {
constexpr std::int64_t expiry_ticks_per_day = 24LL * 3600 * 10'000'000;  // DateTime: 100 ns ticks
}

std::span<const expiry_finding> certificate_expiry::check(std::span<const watched_certificate> certs, ua::date_time utc,
                                                          std::chrono::steady_clock::time_point now) {
  checked_ = true;
  next_ = now + config_.interval;
  findings_.clear();
  std::unordered_map<std::string, std::int64_t> still;
  for (const auto& w : certs) {
    if (!w.cert) continue;
    expiry_finding f;
    f.group = w.group;
    f.subject = w.cert.subject();
    f.thumbprint = w.cert.thumbprint_hex();
    f.not_after = w.cert.valid_to();
    f.days_left = static_cast<double>(f.not_after.ticks - utc.ticks) / static_cast<double>(expiry_ticks_per_day);
    f.warning = f.days_left <= config_.warn_days;
    f.cert = w.cert;
    if (f.warning) {
      const auto it = warned_.find(f.thumbprint);
      f.newly = it == warned_.end();
      const std::int64_t last = f.newly ? 0 : it->second;
      std::int64_t stamp = last;
      if (f.newly || utc.ticks - last >= expiry_ticks_per_day) {
        stamp = utc.ticks;
        if (f.days_left < 0)
          spdlog::error("certificate expiry: the {} certificate {} expired {:.1f} days ago ({})", f.group, f.subject,
                        -f.days_left, security::format_date_time(f.not_after));
        else
          spdlog::warn("certificate expiry: the {} certificate {} expires in {:.1f} days ({}): renew it", f.group,
                       f.subject, f.days_left, security::format_date_time(f.not_after));
      }
      still.emplace(f.thumbprint, stamp);
    }
    findings_.push_back(std::move(f));
  }
  warned_ = std::move(still);  // a renewed or removed certificate is forgotten
  return findings_;
}

}  // namespace uactor::actors

#include "engine/server/server_security.hpp"

#include <algorithm>
#include <cctype>

namespace uactor::actors {

std::uint8_t security_level(const security_offer& o) noexcept {
  // Part 4 §7.14: only the order matters. Encryption above signing; within a mode, the policies
  // in the order Part 7 rates them (the newer RSA-PSS policy highest).
  if (o.policy->is_none() || o.mode == ua::message_security_mode::none) return 0;
  std::uint8_t rank = 1;
  const auto all = security::all_policies();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (&all[i] == o.policy) rank = static_cast<std::uint8_t>(i);
  return static_cast<std::uint8_t>(o.mode == ua::message_security_mode::sign_and_encrypt ? 10 + rank : rank);
}

namespace {

bool same_text(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

void add_unique(std::vector<security_offer>& out, security_offer o) {
  for (const auto& x : out)
    if (x.policy == o.policy && x.mode == o.mode) return;
  out.push_back(o);
}

}  // namespace

ua::expected<std::vector<security_offer>> parse_security_offers(const std::vector<std::string>& names) {
  using mode = ua::message_security_mode;
  std::vector<security_offer> out;
  for (const auto& name : names) {
    const bool all = same_text(name, "all");
    if (all || same_text(name, "none")) add_unique(out, {});
    // "all" and "secure" stay the RSA policies (what they meant before the ECC ones existed:
    // an ECC policy needs certificates of its own, docs/decisions/0055); "ecc" is every ECC policy.
    const bool ecc = same_text(name, "ecc");
    if (all || same_text(name, "secure") || ecc) {
      for (const auto& p : security::all_policies()) {
        if (p.is_none() || p.is_ecc() != ecc) continue;
        add_unique(out, {&p, mode::sign});
        add_unique(out, {&p, mode::sign_and_encrypt});
      }
    }
    if (all || same_text(name, "none") || same_text(name, "secure") || ecc) continue;
    const auto colon = name.find(':');
    if (colon == std::string::npos) return ua::status::bad_invalid_argument;
    const std::string_view policy_name = std::string_view(name).substr(0, colon);
    const std::string_view mode_name = std::string_view(name).substr(colon + 1);
    const security::security_policy* policy = nullptr;
    for (const auto& p : security::all_policies())
      if (!p.is_none() && same_text(p.name, policy_name)) policy = &p;
    if (!policy) return ua::status::bad_invalid_argument;
    if (same_text(mode_name, "sign")) add_unique(out, {policy, mode::sign});
    else if (same_text(mode_name, "signandencrypt") || same_text(mode_name, "encrypt"))
      add_unique(out, {policy, mode::sign_and_encrypt});
    else return ua::status::bad_invalid_argument;
  }
  if (out.empty()) return ua::status::bad_invalid_argument;
  return out;
}

std::string to_string(const security_offer& o) {
  if (o.policy->is_none()) return "None";
  return std::string(o.policy->name) + (o.mode == ua::message_security_mode::sign ? ":Sign" : ":SignAndEncrypt");
}

}  // namespace uactor::actors

#include "engine/server/login_guard.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

#include <openssl/evp.h>

namespace uactor::actors {

const char* to_string(login_refusal r) noexcept {
  switch (r) {
    case login_refusal::none: return "none";
    case login_refusal::user_backoff: return "the user name failed a moment ago (backoff)";
    case login_refusal::user_locked: return "the user name is locked out";
    case login_refusal::address_locked: return "the source address is locked out";
  }
  return "?";
}

login_guard::login_guard(login_guard_config config)
    : config_(config), users_(std::max<std::size_t>(config.table_size, 1)), addresses_(std::max<std::size_t>(config.table_size, 1)) {}

std::string login_guard::key_of(std::string_view user) {
  if (user.size() <= max_key_bytes) return std::string(user);
  // A long name: its prefix and a hash of the whole, so that a 16 MB name holds 128 bytes.
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string_view>{}(user));
  return std::string(user.substr(0, max_key_bytes - 17)) + "#" + std::string(hash, 16);
}

std::string login_guard::x509_key(std::span<const std::uint8_t> certificate_der) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(certificate_der.data(), certificate_der.size(), digest, &n, EVP_sha1(), nullptr) != 1) n = 0;
  std::string key = "certificate ";
  char hex[3];
  for (unsigned int i = 0; i < n; ++i) {
    std::snprintf(hex, sizeof hex, "%02X", digest[i]);
    key += hex;
  }
  return key;
}

const login_guard::entry* login_guard::table::find(std::string_view key) const {
  const auto it = index_.find(key);
  return it == index_.end() ? nullptr : &it->second->e;
}

login_guard::entry& login_guard::table::touch(std::string_view key) {
  if (const auto it = index_.find(key); it != index_.end()) {
    order_.splice(order_.begin(), order_, it->second);
    return it->second->e;
  }
  if (index_.size() >= capacity_) {
    // The oldest failure goes: its key is dropped from the index before its node.
    index_.erase(order_.back().key);
    order_.pop_back();
    ++evictions_;
  }
  order_.push_front(node{std::string(key), {}});
  index_.emplace(order_.front().key, order_.begin());
  return order_.front().e;
}

void login_guard::table::set_capacity(std::size_t capacity) {
  capacity_ = capacity;
  while (index_.size() > capacity_) {
    index_.erase(order_.back().key);
    order_.pop_back();
    ++evictions_;
  }
}

void login_guard::set_config(const login_guard_config& config) {
  config_ = config;
  users_.set_capacity(std::max<std::size_t>(config.table_size, 1));
  addresses_.set_capacity(std::max<std::size_t>(config.table_size, 1));
}

void login_guard::table::erase(std::string_view key) {
  const auto it = index_.find(key);
  if (it == index_.end()) return;
  const auto node_it = it->second;
  index_.erase(it);
  order_.erase(node_it);
}

std::string_view login_guard::counted(std::string_view address) const noexcept {
  for (const auto& n : config_.exempt_networks)
    if (n.contains(address)) return {};
  return address;
}

login_check login_guard::check(std::string_view user, std::string_view address, time_point now) const {
  login_check c;
  if (!config_.enabled) return c;
  address = counted(address);
  if (!address.empty()) {
    if (const entry* a = addresses_.find(address); a && live(*a, now)) {
      c.suspect = true;
      if (a->failures >= config_.address_max_failures && now < a->blocked_until) {
        c.refusal = login_refusal::address_locked;
        c.until = a->blocked_until;
        return c;
      }
    }
  }
  if (!user.empty()) {
    if (const entry* u = users_.find(key_of(user)); u && live(*u, now)) {
      c.suspect = true;
      if (now < u->blocked_until) {
        c.refusal = u->failures >= config_.max_failures ? login_refusal::user_locked : login_refusal::user_backoff;
        c.until = u->blocked_until;
      }
    }
  }
  return c;
}

login_failure login_guard::failed(std::string_view user, std::string_view address, time_point now) {
  login_failure f;
  if (!config_.enabled) return f;
  address = counted(address);
  if (!user.empty()) {
    entry& u = users_.touch(key_of(user));
    if (!live(u, now)) u = entry{};
    ++u.failures;
    u.last_failure = now;
    if (u.failures >= config_.max_failures) {
      u.blocked_until = now + config_.lockout;
      f.user_locked = u.failures == config_.max_failures;  // this one locked it (not a later one)
    } else if (config_.backoff.count() > 0) {
      // backoff * 2^(k-1), capped at the lockout (and the shift at 30: no overflow).
      const auto shift = std::min<std::uint32_t>(u.failures - 1, 30);
      const auto wait = std::min<std::chrono::milliseconds>(
          config_.backoff * (std::int64_t{1} << shift), std::chrono::duration_cast<std::chrono::milliseconds>(config_.lockout));
      u.blocked_until = now + wait;
    }
    f.user_failures = u.failures;
  }
  if (!address.empty()) {
    entry& a = addresses_.touch(address);
    if (!live(a, now)) a = entry{};
    ++a.failures;
    a.last_failure = now;
    if (a.failures >= config_.address_max_failures) {
      a.blocked_until = now + config_.lockout;
      f.address_locked = a.failures == config_.address_max_failures;
    }
    f.address_failures = a.failures;
  }
  return f;
}

void login_guard::succeeded(std::string_view user) {
  if (!user.empty()) users_.erase(key_of(user));
}

bool log_limiter::allow(std::chrono::steady_clock::time_point now, std::uint64_t& suppressed) noexcept {
  if (now - window_ >= std::chrono::seconds(1)) {
    window_ = now;
    in_window_ = 0;
  }
  if (in_window_ >= per_second_) {
    ++pending_;
    ++suppressed_total_;
    return false;
  }
  ++in_window_;
  suppressed = pending_;
  pending_ = 0;
  return true;
}

}  // namespace uactor::actors

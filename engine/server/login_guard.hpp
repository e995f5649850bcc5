// Logins that cannot be guessed at (docs/security.md "Login attempts"): failed
// ActivateSession credentials counted per user name and per source address, an exponential
// backoff after a user name's failures, a lockout once either reaches its limit. Plain state with
// the time passed in; the session manager owns it and asks it before any password or certificate
// is checked, so that a refused attempt costs no PBKDF2.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/server/ip_network.hpp"

namespace uactor::actors {

struct login_guard_config {
  bool enabled = true;
  // A user name's failures: the one that reaches max_failures locks the name out for `lockout`.
  // Before that, each failure k (1, 2, ...) refuses the name's next attempts for backoff * 2^(k-1)
  // (capped at `lockout`) without checking them. 0 ms: no backoff.
  std::uint32_t max_failures = 5;
  std::chrono::milliseconds backoff{200};
  // A source address's failures, over every user name it tried: the one that reaches
  // address_max_failures locks the address out (UserName and X509 tokens; anonymous logins stay
  // open). Higher than max_failures: several users may share an address (NAT, a gateway).
  std::uint32_t address_max_failures = 20;
  std::chrono::seconds lockout{300};
  // Entries per table (user names, addresses): past it the entry with the oldest failure goes.
  // Measured (glibc heap, 10,000 user names and 10,000 IPv4 addresses): 2.7 MB with 8-byte names,
  // 3.4 MB with 40-byte names, 4.2 MB with names of max_key_bytes.
  std::size_t table_size = 10'000;
  // Source addresses never counted nor locked out (a gateway or a jump host that many users share:
  // the per-address limit would lock them all out at once). Their user names are limited as
  // anywhere else.
  std::vector<ip_network> exempt_networks;
};

// Why an attempt is refused before its credentials are checked.
enum class login_refusal : std::uint8_t {
  none,
  user_backoff,    // the user name failed recently: wait
  user_locked,     // the user name reached max_failures
  address_locked,  // the source address reached address_max_failures
};

const char* to_string(login_refusal r) noexcept;

struct login_check {
  login_refusal refusal = login_refusal::none;
  std::chrono::steady_clock::time_point until{};  // when the refusal ends
  // The user name or the address has failed and is not forgotten yet: its password check waits
  // behind the others' at the crypto workers.
  bool suspect = false;
};

struct login_failure {
  std::uint32_t user_failures = 0;     // the name's failures now (0: no name)
  std::uint32_t address_failures = 0;  // the address's failures now (0: no address)
  bool user_locked = false;            // this failure locked the name out
  bool address_locked = false;         // this failure locked the address out
};

class login_guard {
public:
  using time_point = std::chrono::steady_clock::time_point;
  // Longer user names share the entry of their first max_key_bytes - 17 bytes and a hash of the rest.
  static constexpr std::size_t max_key_bytes = 128;

  // The `user` under which an X509 user token's failures count: its certificate's SHA-1
  // thumbprint (of the token's bytes as sent), "certificate " and 40 hex digits. No user name
  // starts with it that a users file accepts (no space in a name).
  static std::string x509_key(std::span<const std::uint8_t> certificate_der);

  explicit login_guard(login_guard_config config = {});

  // Before an attempt's credentials are checked. `user`: the user name of a UserName token, or
  // x509_key() of an X509 token's certificate; `address` empty: not known (the address is then not
  // limited, as one in exempt_networks).
  login_check check(std::string_view user, std::string_view address, time_point now) const;
  // A credential that was checked and is wrong (or a token that does not prove its user).
  login_failure failed(std::string_view user, std::string_view address, time_point now);
  // A login of `user` succeeded: its failures are forgotten (the address's are not).
  void succeeded(std::string_view user);

  // New limits (a reload): the failures counted so far stay and are measured against them; a
  // smaller table_size evicts the oldest entries now. A lockout already running keeps its end.
  void set_config(const login_guard_config& config);
  const login_guard_config& config() const noexcept { return config_; }
  std::size_t users_tracked() const noexcept { return users_.size(); }
  std::size_t addresses_tracked() const noexcept { return addresses_.size(); }
  std::uint64_t evictions() const noexcept { return users_.evictions() + addresses_.evictions(); }

private:
  struct entry {
    std::uint32_t failures = 0;
    time_point last_failure{};
    time_point blocked_until{};  // backoff or lockout
  };
  // A bounded table: a list in failure order (newest first) and an index into it.
  class table {
  public:
    explicit table(std::size_t capacity) : capacity_(capacity) {}
    const entry* find(std::string_view key) const;
    entry& touch(std::string_view key);  // found or made, moved to the front; may evict the back
    void erase(std::string_view key);
    void set_capacity(std::size_t capacity);  // evicts the oldest down to it
    std::size_t size() const noexcept { return index_.size(); }
    std::uint64_t evictions() const noexcept { return evictions_; }

  private:
    struct node {
      std::string key;
      entry e;
    };
    std::size_t capacity_;
    std::list<node> order_;
    std::unordered_map<std::string_view, std::list<node>::iterator> index_;  // keys point into order_
    std::uint64_t evictions_ = 0;
  };

  // Failures older than the lockout are forgotten: an entry past it counts as new.
  bool live(const entry& e, time_point now) const noexcept { return e.failures > 0 && now - e.last_failure < config_.lockout; }
  static std::string key_of(std::string_view user);
  // The address as the tables count it: empty when it is exempt.
  std::string_view counted(std::string_view address) const noexcept;

  login_guard_config config_;
  table users_;
  table addresses_;
};

// At most `per_second` lines a second; the rest are counted and the next line that may go says
// how many were left out. For the refusals' log lines under a storm.
class log_limiter {
public:
  explicit log_limiter(std::uint32_t per_second = 20) : per_second_(per_second) {}
  // True when a line may go now; `suppressed` then holds how many were left out before it.
  bool allow(std::chrono::steady_clock::time_point now, std::uint64_t& suppressed) noexcept;
  std::uint64_t suppressed_total() const noexcept { return suppressed_total_; }

private:
  std::uint32_t per_second_;
  std::chrono::steady_clock::time_point window_{};
  std::uint32_t in_window_ = 0;
  std::uint64_t pending_ = 0;
  std::uint64_t suppressed_total_ = 0;
};

}  // namespace uactor::actors

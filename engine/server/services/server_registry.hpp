// What a Local Discovery Server knows (Part 12 §4.3, Part 4 §5.4.5-6): the servers registered with
// it, each until it unregisters (IsOnline false) or stops renewing. Plain state, time passed in:
// the session host owns one when the server acts as an LDS (docs/discovery.md,
// docs/decisions/0058). The checks of who may register are the service's (register_server.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/common/clock.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

struct registry_limits {
  // Registrations held at once; a new server past it is refused (Bad_TooManyOperations), a known
  // one still renews or unregisters.
  std::size_t max_servers = 100;
  // A registration not renewed for this long is dropped. Part 12 §4.3.4 has servers renew every
  // 10 minutes (RegisterServer2's default period): 10 minutes plus a grace of one minute.
  std::chrono::seconds expiry{660};
  // Discovery URLs kept per server (the rest are dropped), and the length of every string kept.
  std::size_t max_urls_per_server = 16;
  std::size_t max_string_length = 4096;
};

// One registered server: what it said, when it said it last, and its FindServersOnNetwork records
// (one per DiscoveryUrl, numbered from first_record_id).
struct registration {
  ua::registered_server server;
  std::string mdns_server_name;              // RegisterServer2's MdnsDiscoveryConfiguration, or empty
  std::vector<std::string> capabilities;     // its ServerCapabilities (Part 12 Annex A), upper case
  std::uint32_t first_record_id = 0;
  std::chrono::steady_clock::time_point renewed{};
};

class server_registry {
public:
  explicit server_registry(registry_limits limits = {}, ua::date_time counter_reset = {})
      : limits_(limits), counter_reset_(counter_reset) {}

  // Registers or renews `s` (IsOnline true), or removes it (IsOnline false; Good also when it was
  // not there). With a SemaphoreFilePath IsOnline is ignored (Part 4 §7.32): the file says whether
  // the server is there (drop_missing_semaphores). Good, or Bad_TooManyOperations for a new server past max_servers. The server is
  // taken as checked (register_server.hpp). A renewal gets new record ids: Part 4 §5.4.6 has the
  // LDS assign unique record ids each time RegisterServer2 is called.
  ua::status_code put(const ua::registered_server& s, std::string mdns_server_name,
                      std::vector<std::string> capabilities, const actors::instant& now);
  // Drops the registrations not renewed within `expiry` of `now`.
  void expire(const actors::instant& now);
  // Drops the registrations whose semaphore file no longer exists: Part 4 §7.32 has the Discovery
  // Server check the file before it returns the server to a client. One stat per such server.
  void drop_missing_semaphores();

  const std::vector<registration>& servers() const noexcept { return servers_; }
  const registration* find(std::string_view server_uri) const noexcept;
  std::size_t size() const noexcept { return servers_.size(); }
  const registry_limits& limits() const noexcept { return limits_; }
  // FindServersOnNetwork's LastCounterResetTime: when record ids started from 1.
  ua::date_time counter_reset_time() const noexcept { return counter_reset_; }
  // The next record id to give (ids are never reused while the counter runs).
  std::uint32_t next_record_id() const noexcept { return next_record_id_; }
  // Record ids for `count` records of ours (the LDS's own), given once.
  std::uint32_t take_record_ids(std::uint32_t count) noexcept;

private:
  registry_limits limits_;
  ua::date_time counter_reset_;
  std::uint32_t next_record_id_ = 1;
  std::vector<registration> servers_;
};

}  // namespace uactor::services

// Audit events of secure channels over real sockets (docs/decisions/0034): a runtime whose server has
// audit_events on, our client subscribed to the Server object's audit events, another client's
// channel opened and closed, and a client whose certificate the server does not trust refused
// (Part 4 §6.5.5, Part 5 §6.4.5, §6.4.6, §6.4.12).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "uactor/runtime.hpp"

using namespace uactor;
using namespace std::chrono_literals;

namespace {

// EventType, Status, SecureChannelId, StatusCodeId, SecurityPolicyUri, CertificateErrorEventId, EventId.
enum : std::size_t { f_type, f_status, f_channel, f_code, f_policy, f_cert_error, f_event_id, f_count };

struct audit_inbox {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<ua::event_field_list> events;

  void take(std::span<const ua::event_field_list> in) {
    std::lock_guard lock(mutex);
    events.insert(events.end(), in.begin(), in.end());
    changed.notify_all();
  }
  // Bounded: the events once one of type `type` with Status `ok` has come (empty on timeout).
  std::vector<ua::event_field_list> wait(std::uint32_t type, bool ok, std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(mutex);
    const bool seen = changed.wait_for(lock, limit, [&] {
      for (const auto& e : events)
        if (e.event_fields.size() == f_count && e.event_fields[f_type] == ua::variant(ua::node_id(0, type)) &&
            e.event_fields[f_status] == ua::variant(ok))
          return true;
      return false;
    });
    return seen ? events : std::vector<ua::event_field_list>{};
  }
};

std::string text_of(const ua::variant& v) {
  const auto* s = v.get_if<ua::ua_string>();
  return s ? std::string(s->view()) : std::string();
}

const ua::event_field_list* find(const std::vector<ua::event_field_list>& events, std::uint32_t type, bool ok) {
  for (const auto& e : events)
    if (e.event_fields[f_type] == ua::variant(ua::node_id(0, type)) && e.event_fields[f_status] == ua::variant(ok))
      return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("client: audit events of another client's secure channel and of a refused client certificate",
          "[runtime][client-events][audit]") {
  const auto dir = std::filesystem::temp_directory_path() / ("uactor-channel-audit-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none", "Basic256Sha256:Sign"};
  plan.pki_dir = (dir / "server").string();
  plan.audit_events = true;
  auto started = rt.start_server(plan);
  REQUIRE(started.has_value());
  server& srv = **started;
  const std::string url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());

  audit_inbox box;  // before the clients: their handlers run until they are gone
  client_options o;
  o.endpoint_url = url;
  auto watcher = rt.connect(o);
  REQUIRE(watcher.has_value());
  subscription_handlers h;
  h.on_events = [&box](std::uint32_t, std::uint32_t, std::span<const ua::event_field_list> e) { box.take(e); };
  auto sub = watcher->create_subscription_sync(subscription_settings{}, std::move(h));
  REQUIRE(sub.has_value());
  event_filter_builder f;
  f.select("EventType").select("Status").select("SecureChannelId").select("StatusCodeId").select("SecurityPolicyUri");
  f.select("CertificateErrorEventId").select("EventId").of_type(ua::node_id(0, 2052));  // AuditEventType
  ua::create_monitored_items_request req;
  req.subscription_id = sub->subscription_id;
  req.items_to_create.push_back(monitor_events(ua::node_id(0, server_object_id), 1, f.build()));
  auto items = watcher->create_monitored_items_sync(req);
  REQUIRE(items.has_value());
  REQUIRE(items->results[0].status_code == ua::status::good);

  // Another client's channel: AuditOpenSecureChannelEventType when it opens, AuditChannelEventType
  // when it sends CloseSecureChannel.
  {
    auto other = rt.connect(o);
    REQUIRE(other.has_value());
    other->close();
  }
  auto events = box.wait(2059, true);
  REQUIRE_FALSE(events.empty());
  const auto* opened = find(events, 2060, true);
  REQUIRE(opened);
  CHECK(text_of(opened->event_fields[f_policy]) == "http://opcfoundation.org/UA/SecurityPolicy#None");
  const auto* closed = find(events, 2059, true);
  REQUIRE(closed);
  CHECK(text_of(closed->event_fields[f_channel]) == text_of(opened->event_fields[f_channel]));
  CHECK_FALSE(text_of(opened->event_fields[f_channel]).empty());

  // A client whose certificate is not in the server's trusted/: AuditCertificateUntrustedEventType,
  // then the refused open naming it in CertificateErrorEventId.
  client_options secure = o;
  secure.security.policy = "Basic256Sha256";
  secure.security.mode = ua::message_security_mode::sign;
  secure.security.pki_dir = (dir / "client").string();
  secure.security.accept_untrusted_server_certificate = true;
  secure.security.check_server_host_name = false;
  secure.connect_timeout = 5s;
  auto refused = rt.connect(secure);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error() == ua::status::bad_security_checks_failed);
  events = box.wait(2060, false);
  REQUIRE_FALSE(events.empty());
  const auto* untrusted = find(events, 2087, false);
  REQUIRE(untrusted);
  CHECK(untrusted->event_fields[f_code] == ua::variant(ua::status::bad_certificate_untrusted));
  const auto* failed = find(events, 2060, false);
  REQUIRE(failed);
  CHECK(failed->event_fields[f_code] == ua::variant(ua::status::bad_security_checks_failed));
  CHECK(text_of(failed->event_fields[f_policy]) == "http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256");
  CHECK(failed->event_fields[f_cert_error] == untrusted->event_fields[f_event_id]);
  watcher->close();
  std::filesystem::remove_all(dir);
}

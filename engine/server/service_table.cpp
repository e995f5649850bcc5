#include "engine/server/service_table.hpp"

#include <array>

#include "engine/server/server_core.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::actors {

namespace {

template <class Request>
using handler = void (server_core::*)(const Request&, const service_call&);

// The body is a Request: find_service matched its type before the call.
template <class Request, handler<Request> Serve>
void serve_typed(server_core& core, const ua::extension_body& body, const service_call& call) {
  (core.*Serve)(static_cast<const ua::typed_extension_body<Request>&>(body).value, call);
}

template <class Request, handler<Request> Serve>
constexpr service_descriptor served(session_use s) {
  return {&Request::extension_type_info, Request::binary_encoding_id, s, &serve_typed<Request, Serve>};
}

// Known (the channel decodes it, the metrics count it by name) and answered Bad_ServiceUnsupported.
template <class Request>
constexpr service_descriptor not_served(session_use s) {
  return {&Request::extension_type_info, Request::binary_encoding_id, s, nullptr};
}

}  // namespace

// A friend of server_core: the one place that names its service handlers.
struct service_rows {
  static constexpr auto make() {
    using sc = server_core;
    constexpr auto with = session_use::required;
    // Part 4 §5 (§4.1 the Service Set model): every service request a client sends in MSG
    // chunks, by Service Set. OpenSecureChannel and CloseSecureChannel (the SecureChannel set)
    // travel in OPN and CLO chunks and are the channel's (secure_channel_state).
    return std::to_array<service_descriptor>({
        // Discovery: called before a session exists. FindServersOnNetwork and RegisterServer(2)
        // are a discovery server's: their handlers answer Bad_ServiceUnsupported unless the
        // server acts as one (server_core_config::discovery_server).
        served<ua::find_servers_request, &sc::serve_find_servers>(session_use::none),
        served<ua::find_servers_on_network_request, &sc::serve_find_servers_on_network>(session_use::none),
        served<ua::get_endpoints_request, &sc::serve_get_endpoints>(session_use::none),
        served<ua::register_server_request, &sc::serve_register_server>(session_use::none),
        served<ua::register_server2_request, &sc::serve_register_server2>(session_use::none),
        // Session.
        not_served<ua::create_session_request>(session_use::managed),
        not_served<ua::activate_session_request>(session_use::managed),
        not_served<ua::close_session_request>(session_use::managed),
        not_served<ua::cancel_request>(with),
        // NodeManagement: the application changes nodes through its own door (server::apply).
        not_served<ua::add_nodes_request>(with),
        not_served<ua::add_references_request>(with),
        not_served<ua::delete_nodes_request>(with),
        not_served<ua::delete_references_request>(with),
        // View.
        served<ua::browse_request, &sc::serve_browse>(with),
        served<ua::browse_next_request, &sc::serve_browse_next>(with),
        served<ua::translate_browse_paths_to_node_ids_request, &sc::serve_translate_browse_paths>(with),
        served<ua::register_nodes_request, &sc::serve_register_nodes>(with),
        served<ua::unregister_nodes_request, &sc::serve_unregister_nodes>(with),
        // Query.
        not_served<ua::query_first_request>(with),
        not_served<ua::query_next_request>(with),
        // Attribute.
        served<ua::read_request, &sc::serve_read>(with),
        served<ua::history_read_request, &sc::serve_history_read>(with),
        served<ua::write_request, &sc::serve_write>(with),
        served<ua::history_update_request, &sc::serve_history_update>(with),
        // Method.
        served<ua::call_request, &sc::serve_call>(with),
        // MonitoredItem.
        served<ua::create_monitored_items_request, &sc::serve_create_monitored_items>(with),
        served<ua::modify_monitored_items_request, &sc::serve_modify_monitored_items>(with),
        served<ua::set_monitoring_mode_request, &sc::serve_set_monitoring_mode>(with),
        served<ua::set_triggering_request, &sc::serve_set_triggering>(with),
        served<ua::delete_monitored_items_request, &sc::serve_delete_monitored_items>(with),
        // Subscription.
        served<ua::create_subscription_request, &sc::serve_create_subscription>(with),
        served<ua::modify_subscription_request, &sc::serve_modify_subscription>(with),
        served<ua::set_publishing_mode_request, &sc::serve_set_publishing_mode>(with),
        served<ua::publish_request, &sc::serve_publish>(with),
        served<ua::republish_request, &sc::serve_republish>(with),
        served<ua::transfer_subscriptions_request, &sc::serve_transfer_subscriptions>(with),
        served<ua::delete_subscriptions_request, &sc::serve_delete_subscriptions>(with),
    });
  }
};

namespace {

constexpr auto rows = service_rows::make();

// find_service's index: row = slots[hash(id)], then one compare of the id. The hash is a
// multiply and a shift (multiplicative hashing) whose factor is searched at compile time until
// the rows' encoding ids land in distinct slots: a perfect hash, a few instructions per request,
// whatever the row.
constexpr std::uint8_t no_row = 0xFF;
static_assert(rows.size() < no_row, "a row's position is a byte");
constexpr unsigned slot_bits = 8;  // 256 slots of a byte: four cache lines

constexpr std::uint32_t slot_of(std::uint32_t id, std::uint32_t factor) { return (id * factor) >> (32 - slot_bits); }

constexpr bool separates(std::uint32_t factor) {
  std::array<bool, std::size_t{1} << slot_bits> used{};
  for (const auto& row : rows) {
    if (used[slot_of(row.binary_encoding_id, factor)]) return false;
    used[slot_of(row.binary_encoding_id, factor)] = true;
  }
  return true;
}

constexpr bool ids_distinct() {
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = i + 1; j < rows.size(); ++j)
      if (rows[i].binary_encoding_id == rows[j].binary_encoding_id) return false;
  return true;
}
static_assert(ids_distinct(), "a request type has one row");

constexpr std::uint32_t no_factor = 0;
constexpr std::uint32_t factor = [] {
  // Candidates from a linear congruential sequence seeded with 2^32 / golden ratio: neighbouring
  // odd factors hash the ids (often 6 apart in NodeIds.csv) alike, scattered ones do not.
  std::uint32_t x = 0x9E3779B9u;
  for (int tries = 0; tries < 1000; ++tries, x = x * 1664525u + 1013904223u)
    if (separates(x | 1u)) return x | 1u;
  return no_factor;
}();
static_assert(factor != no_factor, "no factor separates the encoding ids: widen slot_bits");

constexpr auto slots = [] {
  std::array<std::uint8_t, std::size_t{1} << slot_bits> a{};
  a.fill(no_row);
  for (std::size_t i = 0; i < rows.size(); ++i) a[slot_of(rows[i].binary_encoding_id, factor)] = static_cast<std::uint8_t>(i);
  return a;
}();

static_assert(rows.size() + 1 <= max_services, "a request counter per row, and one for Other (server_metrics.hpp)");

}  // namespace

std::span<const service_descriptor> service_table() noexcept { return rows; }

const service_descriptor* find_service(std::uint32_t binary_encoding_id) noexcept {
  const std::uint8_t row = slots[slot_of(binary_encoding_id, factor)];
  if (row == no_row || rows[row].binary_encoding_id != binary_encoding_id) return nullptr;
  return &rows[row];
}

const service_descriptor* find_service(const ua::extension_object& request) noexcept {
  const ua::extension_body* body = request.body();
  if (!body) return nullptr;
  const ua::extension_type& type = body->type();
  const service_descriptor* d = find_service(type.binary_encoding_id);
  return d && d->request_type == &type ? d : nullptr;
}

}  // namespace uactor::actors

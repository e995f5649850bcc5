#include "uactor/runtime.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <future>
#include <thread>
#include <tuple>

#include "actors/common/tune_io.hpp"
#include "engine/common/clock.hpp"
#include "actors/server/application_messages.hpp"
#include "actors/server/historian_actor.hpp"
#include "engine/server/server_object.hpp"
#include "runtime/namespaces/demo_namespace.hpp"
#include "runtime/namespaces/load_namespace.hpp"
#include "actors/server/server_actors.hpp"
#include "engine/server/server_core.hpp"
#include "engine/server/server_security.hpp"
#include "engine/server/certificates/user_token_trust.hpp"
#include "engine/server/services/discovery.hpp"
#include "runtime/access_setup.hpp"
#include "runtime/advertised_host.hpp"
#include "runtime/disk_file.hpp"
#include "runtime/build_stamp.hpp"
#include "runtime/discovery_registrar.hpp"
#include "protocol/node_id_text.hpp"
#include "runtime/history_setup.hpp"
#include "runtime/pubsub_setup.hpp"
#include "pubsub/pubsub_config.hpp"
#include "runtime/nodeset_loader.hpp"
#include "runtime/scripts.hpp"
#include "actors/shards/runner.hpp"
#include "security/certificate.hpp"
#include "security/ecc.hpp"
#include "security/password_hash.hpp"
#include "security/pki_store.hpp"

namespace uactor {

namespace {

// Nonces and authentication tokens: the kernel's CSPRNG.
void fill_random(std::span<std::uint8_t> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const auto n = ::getrandom(out.data() + done, out.size() - done, 0);
    if (n > 0) done += static_cast<std::size_t>(n);
    else if (errno != EINTR) throw std::runtime_error("getrandom failed");
  }
}


// The UserName logins of the plan: its users file, its USER:PASSWORD items, its USER:HASH items.
// Throws std::runtime_error naming what is wrong.
std::shared_ptr<security::user_store> make_users(const server_plan& plan) {
  auto users = std::make_shared<security::user_store>();
  if (!plan.users_file.empty()) {
    std::string why;
    auto loaded = security::user_store::load(plan.users_file, &why);
    if (!loaded) throw std::runtime_error("the users file " + plan.users_file + ": " + why);
    *users = std::move(*loaded);
  }
  for (const auto& u : plan.users) {
    const auto colon = u.find(':');
    if (colon == std::string::npos || colon == 0) throw std::runtime_error("--user: expected USER:PASSWORD");
    users->add(u.substr(0, colon), u.substr(colon + 1));
  }
  for (const auto& u : plan.user_hashes) {
    const auto colon = u.find(':');
    if (colon == std::string::npos || users->add_hashed(u.substr(0, colon), u.substr(colon + 1)).is_bad())
      throw std::runtime_error("a user hash is not USER:HASH (uactor hash-password)");
  }
  return users;
}

// The certificates of the plan's `trust` files. Throws std::runtime_error naming a file that holds none.
std::vector<security::certificate> read_trust(const server_plan& plan) {
  std::vector<security::certificate> certs;
  for (const auto& file : plan.trust) {
    auto cert = security::certificate::from_file(file);
    if (!cert) throw std::runtime_error("--trust: cannot read a certificate from " + file);
    certs.push_back(std::move(*cert));
  }
  return certs;
}

// The URL of each endpoint: its advertised host (decided once at start) and the port it was bound to.
std::vector<std::string> endpoint_urls_of(const server_plan& plan, const std::vector<advertised_host>& hosts,
                                          const std::vector<std::uint16_t>& ports) {
  const auto endpoints = plan.resolved_endpoints();
  std::vector<std::string> urls;
  for (std::size_t i = 0; i < endpoints.size(); ++i)
    urls.push_back(endpoint_url(hosts.at(i).host, i < ports.size() ? ports[i] : endpoints[i].port, endpoints[i].wss));
  return urls;
}

// Writes the certificates into trusted/certs; returns their thumbprints (what a reload without
// them takes out again).
std::vector<std::string> trust_all(security::pki_store& store, const std::vector<security::certificate>& certs) {
  std::vector<std::string> thumbprints;
  for (const auto& cert : certs) {
    if (const auto sc = store.trust(cert); sc.is_bad())
      throw std::runtime_error("trust: " + cert.subject() + " could not be written into the trust list: " + sc.to_string());
    thumbprints.push_back(cert.thumbprint_hex());
  }
  return thumbprints;
}

// DefaultHttpsGroup's certificate (docs/decisions/0078), what opc.wss presents in TLS: the plant
// file's wss_certificate and wss_private_key (ApplyChanges writes a new one there, PEM), else
// own/certs/uactor-https.der once a push made it, else the application certificate (what opc.wss
// served before the group had a certificate of its own; a push then writes uactor-https.der).
// `wss_identity`: what the door serves when no files are configured. Null: the files cannot be read
// (the door then says why when it starts), and the group has no certificate to manage.
std::shared_ptr<actors::https_certificate> https_of(const server_plan& plan, security::pki_store& store,
                                                    const security::certificate_request& request,
                                                    const security::application_identity& own,
                                                    std::optional<security::application_identity>& wss_identity) {
  auto https = std::make_shared<actors::https_certificate>();
  if (!plan.wss->certificate.empty()) {
    auto chain = security::certificate::chain_from_file(plan.wss->certificate);
    std::ifstream in(plan.wss->private_key, std::ios::binary);
    const std::string pem((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto key = security::rsa_key::from_private_pem(pem);
    if (!chain || chain->empty() || !key) return nullptr;
    std::vector<security::certificate> issuers(chain->begin() + 1, chain->end());
    https->current.set(std::make_shared<const actors::own_identity>(
        actors::own_identity{chain->front(), std::move(issuers), std::move(*key)}));
    https->certificate_file = plan.wss->certificate;
    https->key_file = plan.wss->private_key;
    https->pem = true;
    return https;
  }
  const auto certs = store.root() / "own" / "certs";
  wss_identity = own;
  if (std::error_code ec; std::filesystem::exists(certs / "uactor-https.der", ec)) {
    auto pushed = store.load_or_create_own(request, "uactor-https");
    if (!pushed) throw std::runtime_error("cannot load the HTTPS certificate " + (certs / "uactor-https.der").string() +
                                          ": " + pushed.error().to_string());
    wss_identity = *pushed;
  }
  https->current.set(std::make_shared<const actors::own_identity>(
      actors::own_identity{wss_identity->cert, wss_identity->issuers, wss_identity->private_key}));
  https->certificate_file = (certs / "uactor-https.der").string();
  https->key_file = (store.root() / "own" / "private" / "uactor-https.pem").string();
  return https;
}

// The offers, the certificate (created in the PKI folder on first start), the trust checks and
// the users of the plan. Throws std::runtime_error on a bad configuration. `trusted`: the
// thumbprints of the plan's `trust` certificates, now in trusted/. `hosts`: what each endpoint advertises.
std::shared_ptr<actors::server_security> make_security(const server_plan& plan, const std::vector<advertised_host>& hosts,
                                                       std::vector<std::string>& trusted,
                                                       std::optional<security::application_identity>& wss_identity) {
  auto sec = std::make_shared<actors::server_security>();
  // Each endpoint's offers and token types; `offers` is all of them (the certificate, the crypto
  // pool and the None check of the channels go by it).
  const auto endpoints = plan.resolved_endpoints();
  for (const auto& e : endpoints) {
    auto offers = actors::parse_security_offers(e.security);
    if (!offers) throw std::runtime_error("--security: expected all, none, secure, ecc or POLICY:MODE items");
    actors::endpoint_security& es = sec->endpoints.emplace_back();
    const auto has = [&e](std::string_view t) { return std::ranges::find(e.user_tokens, t) != e.user_tokens.end(); };
    for (const auto& t : e.user_tokens)
      if (t != "anonymous" && t != "username" && t != "x509")
        throw std::runtime_error("user_tokens: \"" + t + "\" is not anonymous, username or x509");
    es.tokens = {has("anonymous"), has("username"), has("x509")};
    for (const auto& o : *offers)
      if (!sec->is_offered(*o.policy, o.mode)) sec->offers.push_back(o);
    es.offers = std::move(*offers);
  }
  sec->identities.anonymous = std::ranges::any_of(sec->endpoints, [](const auto& e) { return e.tokens.anonymous; });
  auto users = make_users(plan);
  // With a users file UserName is offered even while it is empty: a reload may fill it, and the
  // endpoints (their token policies) are fixed at start.
  sec->identities.user_name = users->size() > 0 || !plan.users_file.empty();
  sec->identities.users.set(std::move(users));

  const bool secured = std::ranges::any_of(sec->offers, [](const auto& o) { return !o.policy->is_none(); });
  // opc.wss without certificate files of its own serves TLS with the application certificate.
  const bool wss_needs_own = plan.wss && plan.wss->certificate.empty();
  if (!secured && !wss_needs_own) return sec;
  auto store = std::make_shared<security::pki_store>(plan.pki_dir.empty() ? default_pki_dir() : plan.pki_dir);
  // Part 6 §6.2.2: the certificate names every host a client may put in the URL it connects to
  // (Part 4 §6.1.3 host name check): each endpoint's advertised host, the addresses it listens
  // on, and loopback by name and by address, where an engineer on the machine connects.
  security::certificate_request request;
  request.application_uri = plan.application_uri;
  const auto name = [&request](const std::string& host) {
    if (!host.empty() && host != "0.0.0.0" && host != "::" && std::ranges::find(request.host_names, host) == request.host_names.end())
      request.host_names.push_back(host);
  };
  name(plan.host_name);
  for (const auto& h : hosts) name(h.host);
  for (const auto& e : plan.resolved_endpoints()) name(e.listen_address);
  for (const char* loopback : {"localhost", "127.0.0.1", "::1"}) name(loopback);
  for (const auto& extra : plan.certificate_names) name(extra);
  auto own = store->load_or_create_own(request);
  if (!own) throw std::runtime_error("cannot load or create the server certificate in " + store->root().string() + ": " +
                                     own.error().to_string());
  // A certificate made earlier (by an older version, or for other endpoints) is kept: replacing it
  // would break the clients that trust it. Say what it lacks and how to renew it.
  const auto named = own->cert.host_names();
  std::vector<std::string> missing;
  for (const auto& host : request.host_names)
    if (std::ranges::find(named, host) == named.end()) missing.push_back(host);
  if (!missing.empty())
    spdlog::warn("the server certificate in {} does not name {}: clients that check host names refuse URLs with them; "
                 "to renew it, move {}/own away (clients must then trust the new certificate) and start again",
                 store->root().string(), fmt::join(missing, ", "), store->root().string());
  if (own->cert.application_uri() != plan.application_uri)
    spdlog::warn("the server certificate in {} is made for {}, the server's ApplicationUri is {}: clients will refuse it; "
                 "remove own/ to make a new one", store->root().string(), own->cert.application_uri(), plan.application_uri);
  if (plan.wss) sec->https = https_of(plan, *store, request, *own, wss_identity);
  if (!secured) return sec;
  trusted = trust_all(*store, read_trust(plan));
  sec->certificate = own->cert;
  sec->private_key = own->private_key;
  sec->certificate_issuers = own->issuers;  // sent after the certificate when own/ holds its chain
  if (!own->issuers.empty())
    spdlog::info("the server certificate is sent with {} issuer(s) after it [{}]", own->issuers.size(), own->cert.describe());
  // Part 6 §6.8 / Part 12 §7.8.4: an ECC policy signs with a certificate of its curve, made on
  // first start beside the RSA one (own/certs/uactor-ecc-nistP256.der ...), one per curve offered.
  for (const auto& o : sec->offers) {
    if (!o.policy->is_ecc() || sec->identity_for(*o.policy)) continue;
    security::certificate_request ecc_request = request;
    ecc_request.curve = std::string(o.policy->curve);
    const auto file = security::own_identity_name("uactor", *o.policy);
    auto ecc = store->load_or_create_own(ecc_request, file);
    if (!ecc) throw std::runtime_error("cannot load or create the " + std::string(o.policy->certificate_type) + " certificate " +
                                       file + " in " + store->root().string() + ": " + ecc.error().to_string());
    if (!security::key_fits_policy(*o.policy, ecc->private_key))
      throw std::runtime_error(store->root().string() + "/own/certs/" + file + ".der does not hold a key on " +
                               std::string(o.policy->curve) + " as " + std::string(o.policy->name) + " needs");
    sec->ecc_identities.push_back({std::string(o.policy->curve), ecc->cert, ecc->issuers, ecc->private_key});
  }
  sec->checker = std::make_shared<actors::pki_checker>(store);
  // X509 user tokens: DefaultUserTokenGroup's trust list once it has one (docs/decisions/0078).
  sec->user_checker = std::make_shared<actors::user_token_checker>(store);
  sec->store = std::move(store);
  return sec;
}

// The opc.wss door's options (docs/wss.md): its limits are the endpoint's UA limits (a frame is a
// chunk of the receive buffer we offer, Part 6 §7.5.2), its certificate the configured files or
// the application's.
std::shared_ptr<const actors::wss_server_options> wss_options_of(const server_plan& plan,
                                                                 const std::optional<security::application_identity>& own,
                                                                 std::shared_ptr<const actors::https_certificate> https) {
  auto o = std::make_shared<actors::wss_server_options>();
  o->https = std::move(https);  // DefaultHttpsGroup rolls it (docs/decisions/0078)
  const auto& w = *plan.wss;
  o->handshake_timeout = w.handshake_timeout;
  o->max_pending_handshakes = w.max_pending_handshakes;
  o->max_frame = plan.receive_buffer_size;
  o->max_out_chunk = plan.send_buffer_size;
  o->allowed_origins = w.allowed_origins;
  // Which transport serves it (docs/decisions/0073): "native" (TLS and the WebSocket in the
  // connection brokers), the default, or "door" (0057's door and its socket pairs). Unless the
  // plan says, the environment decides, so that one build measures both (docs/performance.md
  // "opc.wss").
  const char* env = std::getenv("UACTOR_WSS_TRANSPORT");
  const std::string_view chosen = !w.transport.empty() ? std::string_view(w.transport) : env ? std::string_view(env) : "native";
  o->native = chosen != "door";
  if (!w.certificate.empty()) {
    o->tls.certificate_file = w.certificate;
    o->tls.private_key_file = w.private_key;
  } else if (own) {
    const auto der = own->cert.der();
    o->tls.certificate_der.assign(der.begin(), der.end());
    for (const auto& i : own->issuers) {
      const auto d = i.der();
      o->tls.issuers_der.emplace_back(d.begin(), d.end());
    }
    o->tls.private_key_pem = own->private_key.to_private_pem();
  }
  return o;
}

// [security.login] as the session manager takes it (docs/security.md "Login attempts").
actors::login_guard_config login_guard_of(const login_plan& l) {
  actors::login_guard_config g;
  g.enabled = l.enabled;
  g.max_failures = l.max_failures;
  g.backoff = std::chrono::milliseconds(l.backoff_ms);
  g.address_max_failures = l.address_max_failures;
  g.lockout = std::chrono::seconds(l.lockout_seconds);
  g.table_size = l.table_size;
  for (const auto& text : l.exempt_addresses) {
    std::string why;
    auto network = actors::ip_network::parse(text, why);
    if (!network) throw std::runtime_error("security.login.exempt_addresses: " + why);
    g.exempt_networks.push_back(*network);
  }
  return g;
}

// The NamespaceArray (Server.NamespaceArray, i=2255) as the store holds it now.
std::vector<std::string> namespace_array_of(const ua::address_space& as) {
  std::vector<std::string> out;
  const ua::node_index n = as.find(ua::node_id(0, 2255));
  if (const auto* v = n == ua::no_node ? nullptr : as.variable(n))
    if (const auto* a = v->value.value.get_if<ua::ua_array<ua::ua_string>>())
      for (const auto& uri : *a) out.emplace_back(uri.view());
  return out;
}

actors::server_core make_core(const server_plan& plan, const std::vector<std::string>& urls,
                              const std::shared_ptr<actors::server_security>& security) {
  const actors::instant now = actors::now_instant();
  actors::server_core_config c;
  c.description.application_uri = plan.application_uri;
  c.description.application_name = plan.application_name;
  c.description.product_uri = plan.product_uri;
  c.description.product_name = plan.product_name;
  c.description.manufacturer_name = plan.manufacturer_name;
  c.description.build_number = app::build_number();
  c.description.build_date = ua::date_time::from_unix_ms(app::build_unix_seconds() * 1000);
  c.description.endpoint_urls = urls;
  c.description.endpoint_url = c.description.endpoint_urls.front();
  c.limits.max_nodes_per_read = c.limits.max_nodes_per_write = c.limits.max_nodes_per_browse =
      c.limits.max_nodes_per_translate_browse_paths = plan.max_nodes_per_operation;
  c.limits.max_browse_continuation_points = c.sessions.max_browse_continuation_points =
      plan.max_browse_continuation_points;
  c.sessions.max_sessions = plan.max_sessions;
  c.sessions.max_session_timeout = plan.max_session_timeout;
  c.sessions.min_session_timeout = std::min(c.sessions.min_session_timeout, plan.max_session_timeout);
  c.sessions.max_request_message_size = plan.max_message_size;
  c.sessions.random = fill_random;
  c.sessions.security = security;
  c.sessions.endpoints = services::make_endpoints(c.description, *security);
  c.audit_events = plan.audit_events;
  c.alarm_chattering_count = plan.alarm_chattering_count;
  c.alarm_chattering_window = plan.alarm_chattering_window;
  c.discovery_server = plan.discovery.lds;
  c.registry.max_servers = plan.discovery.max_registrations;
  c.registry.expiry = plan.discovery.registration_expiry;
  c.sessions.login = login_guard_of(plan.login);
  auto core = actors::make_server_core(std::move(c), UACTOR_VERSION, now.utc, plan.demo_namespace_uri);
  actors::init_server_redundancy(core.space(), plan.redundancy, now.utc);
  // The plan's roles and permissions from the first session on; rules of namespaces and nodes not
  // in yet are resolved as they come (apply), and set_access checks them all once they are.
  if (!plan.roles.empty() || !plan.permissions.empty()) {
    auto a = app::make_access(plan, namespace_array_of(core.space()), true);
    if (!a.errors.empty()) throw std::runtime_error("roles and permissions: " + a.errors.front());
    core.set_access(std::move(a.roles), std::move(a.rules));
  }
  // Push certificate management (Part 12 §7.10; docs/security.md "Remote certificate management"):
  // there whenever the server has a PKI; only SecurityAdmin over SignAndEncrypt may use it.
  if (security->store) {
    actors::certificate_management_config m;
    m.security = security;
    m.application_uri = plan.application_uri;
    m.max_trust_list_size = plan.max_trust_list_size;
    // ResetToServerDefaults' trust list: the plan's `trust` certificates (docs/security.md).
    for (const auto& cert : read_trust(plan)) m.default_trust.emplace_back(cert.der().begin(), cert.der().end());
    if (const auto sc = core.set_certificate_management(std::move(m), now); sc.is_bad())
      spdlog::warn("remote certificate management is off: {}", sc.to_string());
  }
  return core;
}

}  // namespace


// ---------------------------------------------------------------------------------------------
// The application's door (include/uactor/server.hpp): API calls become messages to the session
// host, which owns the address space; answers to callbacks come back the same way.

namespace detail {
struct reply_sink {
  caf::actor host;
  void answer(actors::app_answer&& a) const { caf::anon_send(host, std::move(a)); }
  void answer_roles(actors::authz::role_answer&& a) const { caf::anon_send(host, std::move(a)); }
};
}  // namespace detail

void write_reply::operator()(status_code result) const {
  actors::app_answer a;
  a.id = id_;
  a.status = result;
  sink_->answer(std::move(a));
}

void read_reply::operator()(data_value value) const {
  actors::app_answer a;
  a.id = id_;
  a.has_value = true;
  a.value = std::move(value);
  sink_->answer(std::move(a));
}

void read_reply::operator()(status_code failure) const {
  actors::app_answer a;
  a.id = id_;
  a.status = failure.is_good() ? ua::status::bad_internal_error : failure;
  sink_->answer(std::move(a));
}

void role_reply::operator()(role_decision decision) const {
  actors::authz::role_answer a;
  a.id = id_;
  a.refused = decision.refuse;
  a.roles = std::move(decision.roles);
  a.group_ids = std::move(decision.group_ids);
  sink_->answer_roles(std::move(a));
}

void call_reply::operator()(status_code result, std::vector<variant> outputs) const {
  actors::app_answer a;
  a.id = id_;
  a.status = result;
  a.outputs = std::move(outputs);
  sink_->answer(std::move(a));
}

namespace {

constexpr std::size_t max_batches_in_flight = 1024;

// Where value batches go in: the host and its recycled batch buffers. Shared by the server
// object and the value writers of `uactor run`, which push through it like any application.
struct value_door {
  caf::actor host;
  std::shared_ptr<actors::value_batch_pool> pool = std::make_shared<actors::value_batch_pool>(max_batches_in_flight);
  std::atomic<bool> stopped{false};

  status_code write_values(std::span<const value_update> values) {
    if (values.empty()) return ua::status::bad_nothing_to_do;
    if (stopped.load(std::memory_order_acquire)) return ua::status::bad_server_halted;
    auto batch = pool->take();
    if (!batch) return ua::status::bad_resource_unavailable;
    batch->values.assign(values.begin(), values.end());
    batch->sent();
    caf::anon_send(host, std::move(batch));
    return ua::status::good;
  }
};

using value_source = std::function<void(std::uint64_t tick, ua::date_time now, std::vector<value_update>& out)>;

// A value source on a timer (docs/architecture.md, "Writers"): each tick's values go through the door as one
// batch. It ends with the host it writes to.
caf::behavior value_writer(caf::event_based_actor* self, std::shared_ptr<value_door> door,
                           std::chrono::milliseconds interval, value_source source) {
  self->monitor(door->host);
  self->set_down_handler([self](const caf::down_msg&) { self->quit(); });
  struct state {
    std::uint64_t tick = 0;
    std::vector<value_update> batch;
  };
  auto st = std::make_shared<state>();
  self->send(self, actors::housekeeping_atom::value);
  return {
    [=](actors::housekeeping_atom) {
      source(st->tick++, actors::utc_now(), st->batch);
      if (const auto sc = door->write_values(st->batch); sc.is_bad() && sc != ua::status::bad_nothing_to_do)
        spdlog::warn("writer: a tick's values were not taken: {}", sc.to_string());
      self->delayed_send(self, interval, actors::housekeeping_atom::value);
    },
  };
}

// Runs an application handler; one that throws answers Bad_InternalError (docs/embedding.md).
template <class Reply, class Handler>
void guarded(const char* kind, const Reply& reply, Handler&& handler) {
  try {
    handler();
  } catch (const std::exception& e) {
    spdlog::error("application: a {} handler threw: {}", kind, e.what());
    reply(ua::status::bad_internal_error);
  } catch (...) {
    spdlog::error("application: a {} handler threw", kind);
    reply(ua::status::bad_internal_error);
  }
}

// The role callback's view of a question (server::on_activate).
session_login runtime_role_login_of(const actors::authz::role_question& q) {
  session_login l;
  switch (q.identity.token) {
    case actors::session_identity::kind::anonymous: l.token = session_login::token_kind::anonymous; break;
    case actors::session_identity::kind::user_name: l.token = session_login::token_kind::user_name; break;
    case actors::session_identity::kind::certificate: l.token = session_login::token_kind::certificate; break;
  }
  if (l.token != session_login::token_kind::anonymous) l.user = q.identity.name;
  l.certificate_subject = q.user_subject;
  l.application_uri = q.application_uri;
  l.endpoint_url = q.endpoint_url;
  l.encrypted = q.security_mode == ua::message_security_mode::sign_and_encrypt;
  l.roles = q.roles;
  return l;
}

void runtime_role_timed_out(const detail::reply_sink& sink, std::uint64_t id, bool failed = false) {
  actors::authz::role_answer a;
  a.id = id;
  a.timed_out = true;
  a.failed = failed;
  sink.answer_roles(std::move(a));
}

class embedded_server final : public server {
public:
  embedded_server(server_plan plan, actors::server_handle handle, std::shared_ptr<actors::server_security> security,
                  std::vector<std::string> trusted_by_plan, std::vector<std::string> urls)
      : plan_(std::move(plan)),
        trusted_by_plan_(std::move(trusted_by_plan)),
        handle_(std::move(handle)),
        urls_(std::move(urls)),
        security_(std::move(security)),
        sink_(std::make_shared<detail::reply_sink>(detail::reply_sink{handle_.host})),
        door_(std::make_shared<value_door>()) {
    door_->host = handle_.host;
    // The host's thread, so that a blocking call from an inline handler is refused, not a deadlock.
    ua::status_code failed;
    host_thread_ = run_on_host([](actors::server_core&) { return std::this_thread::get_id(); }, failed)
                       .value_or(std::thread::id{});
  }
  ~embedded_server() override { stop(); }

  std::uint16_t port() const noexcept override { return handle_.port; }
  std::string endpoint_url() const override { return urls_.front(); }
  std::vector<std::uint16_t> ports() const override { return handle_.ports; }
  std::vector<std::string> endpoint_urls() const override { return urls_; }

  status_code open() override {
    if (stopped_.load(std::memory_order_acquire)) return ua::status::bad_server_halted;
    // The listener runs on the host's thread when the host is on the multiplexer.
    if (host_thread_ != std::thread::id{} && std::this_thread::get_id() == host_thread_) return ua::status::bad_invalid_state;
    if (const auto sc = historize_planned(); sc.is_bad()) return sc;
    if (const auto sc = start_pubsub(); sc.is_bad()) return sc;
    const auto sc = actors::open_server(handle_);
    if (sc.is_good()) start_reverse_connect();
    if (sc.is_good()) start_registration();
    return sc;
  }

  // The historian (docs/history.md): the store opened, its actor spawned and bound to the host's
  // life, the core told where HistoryRead reads and where recorded values go.
  status_code start_history(caf::actor_system& sys) {
    const history_plan& hp = plan_.history;
    if (hp.path.empty() && hp.connection.empty()) return ua::status::good;
    if (const auto errors = collection_errors(hp); !errors.empty()) {
      for (const auto& e : errors) spdlog::error("uactor: {}", e);
      return ua::status::bad_configuration_error;
    }
    std::shared_ptr<history::history_store> store;
    try {
      store = open_history_store(hp);
    } catch (const history::store_error& e) {
      spdlog::error("uactor: {}", e.what());
      return ua::status::bad_configuration_error;
    }
    actors::historian_options o;
    o.retention = {hp.retention_days, hp.max_values_per_node};
    if (hp.backend == "postgresql" && hp.spool_max_mb > 0 && !hp.spool_path.empty()) {
      o.spool_path = hp.spool_path;
      o.spool_max_bytes = std::min<std::uint64_t>(hp.spool_max_mb, 1u << 20) << 20;
    }
    actors::historian h;
    try {
      h = actors::spawn_historian(sys, store, o, handle_.metrics);
    } catch (const history::store_error& e) {
      spdlog::error("uactor: {}", e.what());
      return ua::status::bad_configuration_error;
    }
    caf::anon_send(h.actor, actors::history_bind_atom::value, handle_.host);
    caf::anon_send(h.reader, actors::history_bind_atom::value, handle_.host);
    ua::status_code failed;
    if (!run_on_host([store, sink = h.sink, read = h.read, update = h.update](actors::server_core& core) mutable {
          core.set_history(std::move(store), std::move(sink), std::move(read), std::move(update));
          return true;
        }, failed))
      return failed;
    spdlog::info("history: values of historizing variables go to {} ({})", hp.backend == "postgresql" ? "PostgreSQL" : hp.path,
                 hp.backend);
    return ua::status::good;
  }

  // PubSub (docs/pubsub.md): each [pubsub] connection's variables resolved on the host, its actor
  // spawned and bound to the host's life, a value watch over its PublishedDataSets' variables;
  // once, when the server opens (every node is in by then).
  status_code start_pubsub() {
    const auto& cfg = plan_.pubsub;
    if (cfg.connections.empty()) return ua::status::good;
    std::lock_guard lock(pubsub_mutex_);
    if (pubsub_started_) return ua::status::good;
    pubsub_started_ = true;
    auto& sys = handle_.host.home_system();
    for (const auto& c : cfg.connections) {
      ua::status_code failed;
      auto res = run_on_host([c](actors::server_core& core) { return resolve_pubsub(core.space(), c); }, failed);
      if (!res) return failed;
      for (const auto& w : res->warnings) spdlog::warn("{}", w);
      for (const auto& e : res->errors) spdlog::error("{}", e);
      if (!res->errors.empty()) return ua::status::bad_configuration_error;
      actors::pubsub_setup setup;
      setup.config = c;
      std::string why;
      if (!pubsub::parse_pubsub_url(c.url, setup.transport, setup.host, setup.port, why)) {
        spdlog::error("pubsub {}: url \"{}\": {}", c.name, c.url, why);
        return ua::status::bad_configuration_error;
      }
      // The PublishSubscribe Object's view of the connection (Part 14 §9.1): each writer's fields
      // and their variables, filled on the host below.
      actors::pubsub_object_connection shown;
      shown.config = c;
      shown.resolved_address = fmt::format("{}:{}", setup.host, setup.port);
      for (const auto& g : res->groups) {
        auto& group = shown.fields.emplace_back();
        for (const auto& w : g) {
          auto& writer = group.emplace_back();
          for (const auto& f : w.fields)
            writer.push_back({f.name, ua::node_id{}, static_cast<std::uint8_t>(f.type), f.data_type, f.value_rank});
        }
      }
      setup.groups = std::move(res->groups);
      auto slots = res->slots;
      setup.slots = std::move(res->slots);
      setup.reader_types = std::move(res->reader_types);
      setup.reader_arrays = std::move(res->reader_arrays);
      setup.metrics = handle_.metrics;
      // MessageId: unique per start (Part 14 §7.2.5.3), then a counter per message.
      std::uint64_t random = 0;
      if (::getrandom(&random, sizeof random, 0) != static_cast<ssize_t>(sizeof random))
        random = static_cast<std::uint64_t>(actors::utc_now().ticks);
      setup.message_id_prefix = fmt::format("{:016x}", random);
      setup.targets = [door = door_, handles = std::move(res->reader_targets), batch = std::vector<value_update>()](
                          std::size_t reader, std::span<const pubsub::target_write> writes) mutable {
        batch.clear();
        for (const auto& w : writes)
          batch.push_back(value_update{value_handle{handles[reader][w.target]}, w.value.value,
                                       w.value.has_status ? w.value.status : ua::status::good,
                                       w.value.has_source_timestamp ? w.value.source_timestamp : ua::date_time{}});
        if (const auto sc = door->write_values(batch); sc.is_bad() && sc != ua::status::bad_server_halted)
          spdlog::warn("pubsub: {} received values not taken: {}", batch.size(), sc.to_string());
      };
      const std::size_t fields = setup.slots.size();
      auto conn = actors::spawn_pubsub_connection(sys, std::move(setup));
      caf::anon_send(conn.actor, actors::pubsub_bind_atom::value, handle_.host);
      pubsub_.push_back(conn.actor);
      shown.live = conn.counters;
      if (!run_on_host([nodes = std::move(res->watched), slots = std::move(slots), sink = conn.sink,
                        shown = std::move(shown)](actors::server_core& core) mutable {
            for (std::size_t i = 0; i < slots.size() && i < nodes.size(); ++i) {
              const auto& s = slots[i];
              shown.fields.at(s.group).at(s.writer).at(s.field).variable = core.space().at(nodes[i]).id.to_node_id();
            }
            const auto name = shown.config.name;
            if (const auto sc = core.pubsub().add_connection(core.space(), 1, std::move(shown), actors::utc_now()); sc.is_bad())
              spdlog::warn("pubsub {}: not shown under PublishSubscribe: {}", name, sc.to_string());
            return nodes.empty() || core.watches().add(core.space(), nodes, sink);
          }, failed))
        return failed;
      spdlog::info("pubsub {}: {} fields in {} writer groups, {} readers, {}", c.name, fields,
                   c.writer_groups.size(), c.readers.size(), c.url);
    }
    return ua::status::good;
  }

  // The plan's `historize` patterns, once every node is in (open() comes last).
  status_code historize_planned() {
    const history_plan& hp = plan_.history;
    if (hp.path.empty() && hp.connection.empty() && hp.historize.empty() && !hp.updates && hp.events.empty())
      return ua::status::good;
    ua::status_code failed;
    std::vector<ua::node_id> notifiers;
    for (const auto& text : hp.events)
      if (auto id = ua::parse_node_id(text)) notifiers.push_back(std::move(*id));
    // Part 11 §5.7.3: MaxTimeStoredValues and MaxCountStoredValues are the retention rule's.
    const double max_time_ms = static_cast<double>(hp.retention_days) * 86'400'000.0;
    const auto max_count = static_cast<std::uint32_t>(std::min<std::uint64_t>(hp.max_values_per_node, 0xFFFF'FFFFu));
    const auto done = run_on_host([patterns = hp.historize, updates = hp.updates, notifiers, defaults = hp.defaults,
                                   configurations = hp.configurations, max_time_ms, max_count](actors::server_core& core) {
      std::vector<std::string> unmatched;
      const std::size_t n = patterns.empty() ? 0 : historize_matching(core.space(), patterns, unmatched);
      // After the patterns: [history] updates covers the variables they made historize too.
      const std::size_t writable = updates ? allow_history_updates(core.space()) : 0;
      for (const auto& id : core.set_event_history(notifiers, updates)) unmatched.push_back(id.to_string() + " (events: no Object or View)");
      // After the patterns too: a configuration is for a historizing variable.
      std::vector<std::string> unconfigured;
      const auto own = configured_variables(core.space(), configurations, unconfigured);
      for (auto& p : unconfigured) unmatched.push_back(std::move(p) + " (configurations: no historizing variable)");
      core.set_history_configuration(to_historical_configuration(defaults), max_time_ms, max_count, own, actors::now_instant());
      return std::make_tuple(n, unmatched, writable, own.size());
    }, failed);
    if (!done) return failed;
    if (std::get<3>(*done) != 0) spdlog::info("history: {} variables have a configuration of their own", std::get<3>(*done));
    if (!hp.events.empty()) spdlog::info("history: the events of {} notifiers are recorded", hp.events.size());
    for (const auto& p : std::get<1>(*done)) spdlog::warn("history: historize pattern \"{}\" matches no variable", p);
    if (!plan_.history.historize.empty()) spdlog::info("history: {} variables historize", std::get<0>(*done));
    if (plan_.history.updates) spdlog::info("history: HistoryUpdate may change the history of {} variables", std::get<2>(*done));
    return ua::status::good;
  }

  std::uint16_t register_namespace(std::string_view uri) override {
    ua::status_code failed;
    return run_on_host([u = std::string(uri)](actors::server_core& core) {
             const auto index = actors::register_namespace(core.space(), u, actors::utc_now());
             core.refresh_namespaces();  // its NamespaceMetadata Object (Part 5 §6.3.13)
             return index;
           }, failed).value_or(std::uint16_t{0});
  }

  std::vector<std::string> namespace_array() override {
    ua::status_code failed;
    return run_on_host([](actors::server_core& core) { return namespace_array_of(core.space()); }, failed)
        .value_or(std::vector<std::string>{});
  }

  std::vector<std::string> set_access(const server_plan& plan) override {
    auto a = app::make_access(plan, namespace_array());
    if (!a.errors.empty()) return std::move(a.errors);
    ua::status_code failed;
    auto unresolved = run_on_host([roles = std::move(a.roles), rules = std::move(a.rules)](actors::server_core& core) mutable {
      // All or nothing: a rule whose node is not there puts the running ones back.
      auto old_roles = core.sessions().config().roles;
      auto old_rules = core.plant_rules();
      auto missing = core.set_access(std::move(roles), std::move(rules));
      if (!missing.empty()) core.set_access(std::move(old_roles), std::move(old_rules));
      else
        spdlog::info("roles and permissions: {} role(s), {} permission rule(s)", core.sessions().roles().roles().size(),
                     core.plant_rules().size());
      return missing;
    }, failed);
    if (!unresolved) return {fmt::format("roles and permissions: the session host did not take them ({})", failed.name())};
    return std::move(*unresolved);
  }

  std::vector<status_code> apply(std::vector<node_change> changes) override {
    const std::size_t n = changes.size();
    ua::status_code failed;
    auto done = run_on_host([c = std::move(changes)](actors::server_core& core) {
      std::vector<status_code> statuses;
      statuses.reserve(c.size());
      core.apply(c, statuses, actors::now_instant());
      return statuses;
    }, failed);
    if (done) return std::move(*done);
    return std::vector<status_code>(n, failed);
  }

  // The parse here, on the caller's thread; the check and the apply in one host job.
  nodeset_report load_nodeset(const std::string& path, const nodeset_options& options) override {
    auto doc = std::make_shared<nodeset::document>(nodeset::document::load(path));
    if (!doc->ok()) return app::refused_nodeset(*doc);
    ua::status_code failed;
    auto done = run_on_host([doc, options, models = models_](actors::server_core& core) {
      auto report = app::apply_nodeset(core.space(), *doc, *models, options, actors::utc_now());
      // The new namespaces' NamespaceMetadata Objects, with their <Model>'s version and date.
      std::vector<actors::authz::namespace_model> known;
      for (const auto& m : *models) known.push_back({m.uri, m.version, m.publication_date});
      if (!report.registered_namespaces.empty()) core.refresh_namespaces(std::move(known));
      return report;
    }, failed);
    if (done) return std::move(*done);
    nodeset_report r;
    r.errors.push_back(path + ": not loaded: " + failed.to_string());
    return r;
  }

  std::vector<ua::expected<value_handle>> resolve(std::span<const node_id> nodes) override {
    const std::size_t n = nodes.size();
    ua::status_code failed;
    auto done = run_on_host([ids = std::vector<node_id>(nodes.begin(), nodes.end())](actors::server_core& core) {
      std::vector<ua::expected<value_handle>> out;
      out.reserve(ids.size());
      for (const node_id& id : ids) {
        const ua::node_index i = core.space().find(id);
        if (i == ua::no_node) out.emplace_back(ua::status::bad_node_id_unknown);
        else if (core.space().at(i).cls != ua::node_class::variable) out.emplace_back(ua::status::bad_node_class_invalid);
        else out.emplace_back(value_handle{i});
      }
      return out;
    }, failed);
    if (done) return std::move(*done);
    return std::vector<ua::expected<value_handle>>(n, failed);
  }

  status_code write_values(std::span<const value_update> values) override { return door_->write_values(values); }

  status_code add_limit_alarm(const limit_alarm& alarm) override {
    ua::status_code failed;
    return run_on_host([a = alarm](actors::server_core& core) { return core.add_limit_alarm(a, actors::now_instant()); },
                       failed)
        .value_or(failed);
  }

  status_code add_off_normal_alarm(const off_normal_alarm& alarm) override {
    ua::status_code failed;
    return run_on_host(
               [a = alarm](actors::server_core& core) { return core.add_off_normal_alarm(a, actors::now_instant()); },
               failed)
        .value_or(failed);
  }

  status_code add_discrete_alarm(const discrete_alarm& alarm) override {
    ua::status_code failed;
    return run_on_host(
               [a = alarm](actors::server_core& core) { return core.add_discrete_alarm(a, actors::now_instant()); },
               failed)
        .value_or(failed);
  }

  status_code add_deviation_alarm(const deviation_alarm& alarm) override {
    ua::status_code failed;
    return run_on_host(
               [a = alarm](actors::server_core& core) { return core.add_deviation_alarm(a, actors::now_instant()); },
               failed)
        .value_or(failed);
  }

  status_code add_rate_of_change_alarm(const rate_of_change_alarm& alarm) override {
    ua::status_code failed;
    return run_on_host(
               [a = alarm](actors::server_core& core) { return core.add_rate_of_change_alarm(a, actors::now_instant()); },
               failed)
        .value_or(failed);
  }

  status_code add_trip_alarm(const trip_alarm& alarm) override {
    ua::status_code failed;
    return run_on_host([a = alarm](actors::server_core& core) { return core.add_trip_alarm(a, actors::now_instant()); },
                       failed)
        .value_or(failed);
  }

  status_code add_discrepancy_alarm(const discrepancy_alarm& alarm) override {
    ua::status_code failed;
    return run_on_host(
               [a = alarm](actors::server_core& core) { return core.add_discrepancy_alarm(a, actors::now_instant()); },
               failed)
        .value_or(failed);
  }

  status_code add_alarm_group(const alarm_group& group) override {
    ua::status_code failed;
    return run_on_host([g = group](actors::server_core& core) { return core.add_alarm_group(g, actors::now_instant()); },
                       failed)
        .value_or(failed);
  }

  status_code add_file(const file_node& f) override {
    if (f.name.empty() || f.path.empty()) return ua::status::bad_invalid_argument;
    ua::status_code failed;
    return run_on_host(
               [f](actors::server_core& core) {
                 actors::file_options o;
                 o.writable = f.writable;
                 o.max_size = static_cast<std::size_t>(f.max_size);
                 return core.add_file(f.id, f.name, f.parent, std::make_shared<app::disk_file>(f.path, f.max_size), o);
               },
               failed)
        .value_or(failed);
  }

  status_code raise_events(std::span<const event> events) override {
    if (events.empty()) return ua::status::bad_nothing_to_do;
    if (stopped_.load(std::memory_order_acquire)) return ua::status::bad_server_halted;
    auto batch = std::make_shared<actors::event_batch>();
    batch->events.assign(events.begin(), events.end());
    caf::anon_send(handle_.host, actors::event_batch_ptr(std::move(batch)));
    return ua::status::good;
  }
  const std::shared_ptr<value_door>& door() const noexcept { return door_; }

  status_code on_write(const node_id& variable, write_handler handler, callback_options options) override {
    auto sink = sink_;
    return hook(actors::app_call_kind::write, variable, std::move(options),
                [handler = std::move(handler), sink](actors::app_call&& c) {
                  write_reply reply(sink, c.id);
                  guarded("write", reply, [&] {
                    handler(write_call{std::move(c.node), std::move(c.value), caller{std::move(c.user)}}, reply);
                  });
                });
  }

  status_code on_read(const node_id& variable, read_handler handler, callback_options options) override {
    auto sink = sink_;
    return hook(actors::app_call_kind::read, variable, std::move(options),
                [handler = std::move(handler), sink](actors::app_call&& c) {
                  read_reply reply(sink, c.id);
                  guarded("read", reply, [&] { handler(read_call{std::move(c.node), caller{std::move(c.user)}}, reply); });
                });
  }

  status_code on_call(const node_id& method, method_handler handler, callback_options options) override {
    auto sink = sink_;
    return hook(actors::app_call_kind::call, method, std::move(options),
                [handler = std::move(handler), sink](actors::app_call&& c) {
                  call_reply reply(sink, c.id);
                  guarded("method", reply, [&] {
                    handler(method_call{std::move(c.object), std::move(c.node), std::move(c.inputs),
                                        caller{std::move(c.user)}},
                            reply);
                  });
                });
  }

  status_code on_activate(role_handler handler, role_callback_options options) override {
    actors::authz::role_hook_ptr hook;
    if (handler) {
      auto h = std::make_shared<actors::authz::role_hook>();
      h->deadline = options.deadline;
      h->refuse_on_timeout = options.refuse_on_timeout;
      h->dispatch = [where = std::move(options.where), handler = std::move(handler), sink = sink_](
                        actors::authz::role_question&& q) {
        where([handler, sink, q = std::move(q)] {
          role_reply reply(sink, q.id);
          try {
            handler(runtime_role_login_of(q), reply);
          } catch (const std::exception& e) {
            // As if the deadline had passed: the plant's roles, or the refusal it is set to.
            spdlog::error("application: the role callback threw: {}", e.what());
            runtime_role_timed_out(*sink, q.id, true);
          } catch (...) {
            spdlog::error("application: the role callback threw");
            runtime_role_timed_out(*sink, q.id, true);
          }
        });
      };
      hook = std::move(h);
    }
    ua::status_code failed;
    auto done = run_on_host([hook = std::move(hook)](actors::server_core& core) mutable {
      core.set_role_hook(std::move(hook));
      return ua::status_code(ua::status::good);
    }, failed);
    return done ? *done : failed;
  }

  // Everything is read before anything changes: a bad file changes nothing.
  std::vector<std::string> reload(const server_plan& plan) override {
    std::shared_ptr<security::user_store> users;
    std::vector<security::certificate> trust;
    try {
      users = make_users(plan);
      trust = read_trust(plan);
    } catch (const std::exception& e) {
      return {e.what()};
    }
    if (!trust.empty() && !security_->store)
      return {"trust: this server offers no secured endpoint, so it has no trust list"};
    if (users->size() > 0 && !security_->identities.user_name)
      return {"users: this server started without users, so its endpoints offer no UserName login (restart it)"};
    // Roles and permissions first: refused, they leave everything as it was (docs/decisions/0052).
    if (auto errors = set_access(plan); !errors.empty()) return errors;
    std::vector<std::string> trusted;
    try {
      if (security_->store) trusted = trust_all(*security_->store, trust);
    } catch (const std::exception& e) {
      return {e.what()};
    }
    // A certificate the last plan trusted and this one does not leaves trusted/certs: its next
    // OpenSecureChannel is refused (Part 4 §6.1.3 trust list); channels open now go on.
    std::size_t removed = 0;
    for (const auto& old : trusted_by_plan_) {
      if (std::ranges::find(trusted, old) != trusted.end()) continue;
      std::error_code ec;
      if (const auto file = security_->store->find("trusted", old); !file.empty() && std::filesystem::remove(file, ec))
        ++removed;
    }
    trusted_by_plan_ = std::move(trusted);
    spdlog::info("reload: {} user(s), {} certificate(s) trusted, {} no longer", users->size(), trust.size(), removed);
    security_->identities.users.set(std::move(users));
    // [security.login]: the new limits, the failures counted so far kept (the host owns them).
    actors::login_guard_config login;
    try {
      login = login_guard_of(plan.login);
    } catch (const std::exception& e) {
      return {e.what()};
    }
    ua::status_code failed;
    if (!run_on_host([login = std::move(login)](actors::server_core& core) {
          core.set_login(login);
          return true;
        }, failed))
      return {fmt::format("security.login: the session host did not take the new limits ({})", failed.name())};
    return {};
  }

  server_metrics metrics() const override { return handle_.metrics ? handle_.metrics->snapshot() : server_metrics{}; }

  // docs/scripts.md: checked whole (compiled here, nodes and types on the host), then the runner is
  // spawned and the host's watch of the inputs installed; outputs go through the value door.
  script_report add_scripts(const script_plan& plan) override {
    script_report report;
    app::check_scripts(plan, report.errors);
    if (!report.ok()) return report;
    struct resolved {
      actors::runner_setup setup;
      std::vector<ua::node_index> inputs;
      std::vector<value_handle> outputs;
      std::vector<std::string> errors;
    };
    ua::status_code failed;
    auto r = run_on_host([&plan](actors::server_core& core) {
      auto res = std::make_shared<resolved>();
      app::resolve_scripts(plan, core.space(), res->setup, res->inputs, res->outputs, res->errors);
      return res;
    }, failed);
    if (!r) {
      report.errors.push_back("scripts: the server did not answer: " + failed.to_string());
      return report;
    }
    auto& res = **r;
    if (!res.errors.empty()) {
      report.errors = std::move(res.errors);
      return report;
    }
    auto& setup = res.setup;
    setup.policy.strikes = plan.limits.strikes;
    setup.limits.memory_bytes = plan.limits.memory_bytes;
    setup.limits.max_instructions = plan.limits.max_instructions;
    setup.soft_deadline = plan.limits.soft_deadline;
    setup.grace = plan.limits.grace;
    setup.workers = plan.workers;
    setup.worker_program = plan.worker_program;
    setup.worker_address_space = plan.limits.worker_address_space;
    // The runner's outputs: one value batch per pass, through the same door as the application's.
    setup.publish = [door = door_, handles = res.outputs, batch = std::vector<value_update>()](
                        std::span<const scripting::output_value> out) mutable {
      batch.clear();
      for (const auto& o : out) batch.push_back(value_update{handles[o.item], o.value, o.status, {}});
      if (const auto sc = door->write_values(batch); sc.is_bad() && sc != ua::status::bad_server_halted)
        spdlog::warn("scripts: {} output values not taken: {}", batch.size(), sc.to_string());
    };
    auto counters = setup.counters;
    std::shared_ptr<actors::script_counters> shadow_counters;
    auto& sys = handle_.host.home_system();
    caf::actor runner;
    if (plan.runner == script_runner::shadow) {
      // docs/decisions/0043: in process publishes, the same runs out of process are compared.
      auto shadow = setup;
      shadow.counters = shadow_counters = std::make_shared<actors::script_counters>();
      shadow.shadow_queue = plan.shadow_queue;
      runner = actors::spawn_shadowed_runner(sys, std::move(setup), std::move(shadow), handle_.host);
    } else {
      runner = plan.runner == script_runner::out_of_process
                   ? actors::spawn_shard_supervisor(sys, std::move(setup), handle_.host)
                   : actors::spawn_in_process_runner(sys, std::move(setup), handle_.host);
    }
    auto watched = run_on_host([inputs = std::move(res.inputs), runner](actors::server_core& core) {
      return core.watches().add(core.space(), inputs, [runner](actors::watched_changes&& changes) {
        caf::anon_send(runner, actors::input_changes_ptr(std::make_shared<const actors::watched_changes>(std::move(changes))));
      });
    }, failed);
    if (!watched) {
      caf::anon_send_exit(runner, caf::exit_reason::user_shutdown);
      report.errors.push_back("scripts: the server did not answer: " + failed.to_string());
      return report;
    }
    std::lock_guard lock(scripts_mutex_);
    script_counters_.push_back(std::move(counters));
    if (shadow_counters) script_counters_.push_back(std::move(shadow_counters));
    runners_.push_back(std::move(runner));
    return report;
  }

  script_metrics scripts_metrics() const override {
    script_metrics m;
    std::lock_guard lock(scripts_mutex_);
    for (const auto& c : script_counters_) {
      m.evaluations += c->evaluations;
      m.errors += c->errors;
      m.timeouts += c->timeouts;
      m.kills += c->kills;
      m.quarantines += c->quarantines;
      m.victims += c->victims;
      m.worker_starts += c->worker_starts;
      m.worker_deaths += c->worker_deaths;
      m.queue_depth += c->queue_depth;
      m.eval_ns += c->eval_ns;
      m.workers_up += c->workers_up;
      m.shadow_compared += c->shadow_compared;
      m.shadow_mismatches += c->shadow_mismatches;
      m.shadow_timeouts += c->shadow_timeouts;
      m.shadow_unavailable += c->shadow_unavailable;
      m.worker_pids = c->worker_pids();
      for (std::size_t w = 0; w < c->shard_count; ++w) {
        const auto& s = c->shards[w];
        m.shards.push_back({s.evaluations, s.errors, s.timeouts, s.kills, s.queue_depth, s.eval_ns,
                            w < m.worker_pids.size() ? m.worker_pids[w] : -1});
      }
    }
    return m;
  }

  status_code set_service_level(std::uint8_t level) override {
    ua::status_code failed;
    const auto done = run_on_host([level](actors::server_core& core) {
      actors::set_service_level(core.space(), level, actors::utc_now());
      return true;
    }, failed);
    return done ? ua::status::good : failed;
  }

  void drain() override {
    // Part 4 §6.6.2.4.2: ServiceLevel 0 (maintenance) while the sessions still work, so that
    // subscribed clients switch to a backup before the connection goes (docs/decisions/0041).
    if (drained_.exchange(true) || stopped_.load(std::memory_order_acquire) || plan_.redundancy.shutdown_delay.count() <= 0)
      return;
    if (set_service_level(service_level_maintenance).is_bad()) return;
    spdlog::info("ServiceLevel 0 (stopping): the sessions close in {} ms", plan_.redundancy.shutdown_delay.count());
    std::this_thread::sleep_for(plan_.redundancy.shutdown_delay);
  }

  void stop() override {
    drain();
    if (stopped_.exchange(true)) return;
    door_->stopped.store(true, std::memory_order_release);
    {
      std::lock_guard lock(scripts_mutex_);
      for (auto& r : runners_) caf::anon_send_exit(r, caf::exit_reason::user_shutdown);
    }
    {
      std::lock_guard lock(pubsub_mutex_);
      for (auto& a : pubsub_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
    stop_registration();
    std::lock_guard lock(reverse_mutex_);  // the dialers, which open() may be adding
    actors::stop_server(handle_);
  }

private:
  // Registration with an LDS (docs/discovery.md): starts once the server is open (its endpoints
  // answer), once; at stop the periodic actor ends first, then IsOnline false goes out once, so
  // that no late renewal can follow it.
  void start_registration() {
    const discovery_plan& d = plan_.discovery;
    std::lock_guard lock(reverse_mutex_);
    if (d.register_with.empty() || registrar_ || stopped_.load(std::memory_order_acquire)) return;
    auto o = std::make_shared<app::registrar_options>();
    o->discovery_url = d.register_with;
    o->policy = d.register_policy;
    o->mode = d.register_security == "sign" ? ua::message_security_mode::sign : ua::message_security_mode::sign_and_encrypt;
    o->pki_dir = plan_.pki_dir;
    o->period = d.register_period;
    o->capabilities = d.capabilities;
    o->server.server_uri = ua::ua_string(plan_.application_uri);
    o->server.product_uri = ua::ua_string(plan_.product_uri);
    o->server.server_names.push_back({ua::ua_string("en"), ua::ua_string(plan_.application_name)});
    o->server.server_type = ua::application_type::server;
    for (const auto& u : urls_) o->server.discovery_urls.push_back(ua::ua_string(u));
    registration_ = o;
    registrar_ = app::spawn_discovery_registrar(handle_.host.home_system(), o);
  }

  void stop_registration() {
    caf::actor registrar;
    std::shared_ptr<const app::registrar_options> o;
    {
      std::lock_guard lock(reverse_mutex_);
      registrar = std::exchange(registrar_, caf::actor{});
      o = registration_;
    }
    if (!registrar) return;
    {
      caf::scoped_actor self{registrar.home_system()};
      self->monitor(registrar);
      self->send_exit(registrar, caf::exit_reason::user_shutdown);
      // The actor may be in the middle of a registration: it ends after it (each call is bounded).
      self->receive([](const caf::down_msg&) {}, caf::after(3 * o->timeout) >> [] {});
    }
    const auto r = app::register_once(handle_.host.home_system(), *o, false);
    if (r.status.is_good()) spdlog::info("discovery: unregistered from {} (IsOnline false)", o->discovery_url);
    else spdlog::warn("discovery: could not unregister from {}: {}", o->discovery_url, r.status.name());
  }

  // The plan's reverse-connect targets start dialing once the server is open (its nodes in), once.
  void start_reverse_connect() {
    std::lock_guard lock(reverse_mutex_);
    if (reverse_started_ || plan_.reverse_connect.empty() || stopped_.load(std::memory_order_acquire)) return;
    reverse_started_ = true;
    std::vector<actors::reverse_connect_target> targets;
    for (const auto& r : plan_.reverse_connect) {
      actors::reverse_connect_target t;
      t.client_url = r.client_url;
      t.server_uri = plan_.application_uri;
      t.endpoint_url = r.endpoint_url.empty() ? urls_.front() : r.endpoint_url;
      t.max_connections = r.max_connections;
      t.backoff_min = r.backoff_min;
      t.backoff_max = std::max(r.backoff_max, r.backoff_min);
      targets.push_back(std::move(t));
    }
    actors::start_reverse_connect(handle_, targets);
  }

  // Runs `f` on the host with the server's state and waits for its result: Bad_ServerHalted when
  // the host is gone, Bad_InvalidState when called from the host's own thread (an inline handler).
  template <class F>
  auto run_on_host(F&& f, ua::status_code& failed) -> std::optional<std::invoke_result_t<F&, actors::server_core&>> {
    using result = std::invoke_result_t<F&, actors::server_core&>;
    const auto fail = [&](ua::status_code sc) {
      failed = sc;
      return std::nullopt;
    };
    if (stopped_.load(std::memory_order_acquire)) return fail(ua::status::bad_server_halted);
    if (host_thread_ != std::thread::id{} && std::this_thread::get_id() == host_thread_) {
      spdlog::error("application: a blocking server call from the server's own thread (an inline handler) is refused");
      return fail(ua::status::bad_invalid_state);
    }
    auto promise = std::make_shared<std::promise<result>>();
    auto future = promise->get_future();
    caf::anon_send(handle_.host, actors::host_job{[promise, f = std::forward<F>(f)](actors::server_core& core) mutable {
      try {
        promise->set_value(f(core));
      } catch (...) {
        promise->set_exception(std::current_exception());
      }
    }});
    try {
      return future.get();  // a job dropped with the host breaks the promise
    } catch (const std::future_error&) {
      return fail(ua::status::bad_server_halted);
    } catch (const std::exception& e) {
      spdlog::error("application: {}", e.what());
      return fail(ua::status::bad_internal_error);
    }
  }

  template <class Dispatch>
  status_code hook(actors::app_call_kind kind, const node_id& node, callback_options options, Dispatch&& dispatch) {
    auto h = std::make_shared<actors::app_hook>();
    h->deadline = options.deadline;
    h->dispatch = [where = std::move(options.where), d = std::forward<Dispatch>(dispatch)](actors::app_call&& c) {
      where([d, c = std::move(c)]() mutable { d(std::move(c)); });
    };
    ua::status_code failed;
    auto done = run_on_host([kind, node, h = actors::hook_ptr(std::move(h))](actors::server_core& core) {
      return core.set_hook(kind, node, h);
    }, failed);
    return done ? *done : failed;
  }

  server_plan plan_;
  std::atomic<bool> drained_{false};
  std::vector<std::string> trusted_by_plan_;  // thumbprints of the last (re)load's `trust` certificates
  actors::server_handle handle_;
  std::vector<std::string> urls_;  // one per endpoint, with the ports bound
  std::shared_ptr<actors::server_security> security_;
  std::shared_ptr<detail::reply_sink> sink_;
  std::shared_ptr<value_door> door_;
  std::thread::id host_thread_;
  std::atomic<bool> stopped_{false};
  std::mutex reverse_mutex_;
  caf::actor registrar_;  // the LDS registration (under reverse_mutex_), once started
  std::shared_ptr<const app::registrar_options> registration_;
  bool reverse_started_ = false;
  mutable std::mutex scripts_mutex_;
  std::vector<std::shared_ptr<actors::script_counters>> script_counters_;
  std::vector<caf::actor> runners_;  // they end with the host (they monitor it)
  std::mutex pubsub_mutex_;
  std::vector<caf::actor> pubsub_;   // the [pubsub] connections (they also end with the host)
  bool pubsub_started_ = false;
  // The models NodeSets loaded (namespace 0's first); touched only by host jobs.
  std::shared_ptr<std::vector<nodeset::model>> models_ =
      std::make_shared<std::vector<nodeset::model>>(1, nodeset::namespace0_model());
};

// The demo namespace of docs/demo-namespace.md and the load variables, added through the API like
// any application's: nodes, methods (their implementations answer on the server's thread: they
// are a few arithmetic operations), and writers that push value batches.
status_code serve_demo(caf::actor_system& sys, server& srv, const std::shared_ptr<value_door>& door,
                       const server_plan& plan) {
  const auto now = actors::utc_now();
  for (const auto& sc : srv.apply(actors::demo_nodes(now)))
    if (sc.is_bad()) return sc;
  for (auto& m : actors::demo_methods()) {
    const auto sc = srv.on_call(m.method, [run = std::move(m.run)](const method_call& c, call_reply reply) {
      std::vector<variant> outputs;
      const status_code result = run(c.inputs, outputs);
      reply(result, std::move(outputs));
    });
    if (sc.is_bad()) return sc;
  }
  const auto dynamic = actors::demo_writer::variables();
  const auto handles = srv.resolve(dynamic);
  for (const auto& h : handles)
    if (!h) return h.error();
  sys.spawn(value_writer, door, plan.writer_interval,
            [w = actors::demo_writer(*handles[0], *handles[1], *handles[2])](
                std::uint64_t tick, ua::date_time t, std::vector<value_update>& out) {
              const auto values = w.values(tick, t);
              out.assign(values.begin(), values.end());
            });
  if (plan.load_variables == 0) return ua::status::good;
  for (const auto& sc : srv.apply(actors::load_nodes(plan.load_variables)))
    if (sc.is_bad()) return sc;
  std::vector<node_id> ids;
  for (std::size_t i = 0; i < plan.load_variables; ++i)
    ids.push_back(node_id::string(actors::demo_namespace_index, actors::load_variable_name(i)));
  std::vector<value_handle> load;
  for (const auto& h : srv.resolve(ids)) {
    if (!h) return h.error();
    load.push_back(*h);
  }
  // A writer of their own, so that one tick writes all N at the same tick (one batch).
  sys.spawn(value_writer, door, plan.writer_interval,
            [w = actors::load_writer(load)](std::uint64_t tick, ua::date_time t, std::vector<value_update>& out) {
              w.values(tick, t, out);
            });
  return ua::status::good;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The runtime: the actor system and what runs in it.

struct runtime::impl {
  explicit impl(runtime_options o) : options(o), own_config(std::make_unique<caf::actor_system_config>()) {
    configure(*own_config, o);
    own_system = std::make_unique<caf::actor_system>(*own_config);
    system = own_system.get();
  }
  explicit impl(caf::actor_system& joined) : system(&joined) {}

  static void configure(caf::actor_system_config& cfg, const runtime_options& o) {
    cfg.load<caf::io::middleman>();
    // docs/caf-0.17-measured.md: 2 scheduler threads were best on 2 cores.
    cfg.set("scheduler.max-threads", o.threads);
    actors::tune_io(cfg);  // docs/decisions/0013
  }

  runtime_options options;
  std::unique_ptr<caf::actor_system_config> own_config;
  std::unique_ptr<caf::actor_system> own_system;
  caf::actor_system* system = nullptr;
  std::mutex mutex;
  std::vector<std::unique_ptr<embedded_server>> servers;
  bool stopped = false;
};

runtime::runtime(runtime_options options) : impl_(std::make_unique<impl>(options)) {}
runtime::runtime(caf::actor_system& system) : impl_(std::make_unique<impl>(system)) {}
runtime::~runtime() { stop(); }

ua::expected<server*> runtime::start_server(const server_plan& plan) {
  // What each endpoint's URL names, decided here once: it may resolve the host name.
  const auto hosts = advertised_hosts(plan, true);
  std::shared_ptr<actors::server_security> security;
  std::vector<std::string> trusted;
  std::optional<security::application_identity> wss_identity;
  try {
    security = make_security(plan, hosts, trusted, wss_identity);
    login_guard_of(plan.login);  // its exempt addresses checked before anything starts
  } catch (const std::exception& e) {
    spdlog::error("uactor: {}", e.what());
    return ua::status::bad_configuration_error;
  }
  // Roles and permissions with a mistake of their own (a name, not a node: nodes come later).
  if (const auto a = app::make_access(plan, {}, true); !a.errors.empty()) {
    for (const auto& e : a.errors) spdlog::error("uactor: roles and permissions: {}", e);
    return ua::status::bad_configuration_error;
  }
  actors::server_options o;
  o.listen_address = plan.listen_address;
  o.port = plan.port;
  for (const auto& e : plan.resolved_endpoints()) {
    o.endpoints.push_back({e.listen_address, e.port, nullptr});
    if (e.wss) o.endpoints.back().wss = wss_options_of(plan, wss_identity, security->https);
  }
  o.max_connections = plan.max_connections;
  o.session_host = plan.session_host == "scheduler" ? actors::host_thread::scheduler : actors::host_thread::multiplexer;
  o.crypto.workers = plan.crypto_workers;
  o.crypto.max_queued = plan.crypto_queue;
  o.crypto.nice = plan.crypto_nice;
  o.connection.channel.limits.receive_buffer_size = plan.receive_buffer_size;
  o.connection.channel.limits.send_buffer_size = plan.send_buffer_size;
  o.connection.channel.limits.max_message_size = plan.max_message_size;
  o.connection.channel.limits.max_chunk_count = plan.max_chunk_count;
  o.connection.channel.hello_timeout = plan.hello_timeout;
  o.connection.channel.max_token_lifetime = plan.max_token_lifetime;
  o.connection.channel.min_token_lifetime = std::min(o.connection.channel.min_token_lifetime, plan.max_token_lifetime);
  o.connection.channel.decode.max_string_length = o.connection.channel.decode.max_byte_string_length =
      plan.max_string_length;
  o.connection.channel.decode.max_array_length = plan.max_array_length;
  o.connection.channel.decode.max_depth = static_cast<int>(plan.max_nesting_depth);
  o.connection.channel.security = security;
  o.connection.channel.audit = plan.audit_events;  // the channels' audit events (docs/events.md)
  o.open_at_start = false;  // opened below, after the demo's nodes
  std::lock_guard lock(impl_->mutex);
  if (impl_->stopped) return ua::status::bad_server_halted;
  auto& sys = *impl_->system;
  auto h = actors::spawn_server(
      sys, o, actors::endpoints_core_factory([&](const std::vector<std::uint16_t>& ports) {
        return make_core(plan, endpoint_urls_of(plan, hosts, ports), security);
      }));
  if (!h) return h.error();
  auto& s = impl_->servers.emplace_back(
      std::make_unique<embedded_server>(plan, *h, security, std::move(trusted), endpoint_urls_of(plan, hosts, h->ports)));
  if (const auto sc = s->start_history(sys); sc.is_bad()) return sc;
  if (plan.demo) {
    if (const auto sc = serve_demo(sys, *s, s->door(), plan); sc.is_bad()) {
      spdlog::error("uactor: the demo namespace could not be added: {}", sc.to_string());
      return sc;
    }
  }
  if (plan.open_at_start) {
    if (const auto sc = s->open(); sc.is_bad()) return sc;
  }
  return s.get();
}

ua::expected<client> runtime::connect(client_options options) { return client::connect(*impl_->system, std::move(options)); }

void runtime::stop() {
  std::vector<std::unique_ptr<embedded_server>> servers;
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopped) return;
    impl_->stopped = true;
    servers.swap(impl_->servers);
  }
  for (auto& s : servers) s->stop();
  if (impl_->own_system) impl_->system->await_all_actors_done();
  servers.clear();
}

}  // namespace uactor

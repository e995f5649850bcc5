// Part 12 §7.10 ServerConfiguration and §7.8 TrustListType (server_configuration.hpp).
#include "engine/server/certificates/server_configuration.hpp"

#include <filesystem>
#include <fstream>
#include <utility>

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include "engine/server/access/roles.hpp"
#include "engine/server/certificates/certificate_types.hpp"
#include "engine/server/certificates/user_token_trust.hpp"
#include "protocol/base64.hpp"
#include "protocol/byte_buffer.hpp"
#include "protocol/codec.hpp"
#include "security/csr.hpp"
#include "security/ecc.hpp"
#include "security/policy.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

using namespace uactor::ua;
namespace fs = std::filesystem;

namespace {

// The TrustList's bytes: every list now (Open), dropped at Close (only CloseAndUpdate writes).
class trust_list_file final : public file_content {
public:
  explicit trust_list_file(std::function<std::string()> make) : make_(std::move(make)) {}
  status_code load(std::string& out) override {
    out = make_();
    return status::good;
  }
  status_code store(std::string_view) override { return status::bad_not_writable; }

private:
  std::function<std::string()> make_;
};

ua::ua_array<byte_string> to_byte_strings(const std::vector<security::der_bytes>& list) {
  ua::ua_array<byte_string> out;
  out.reserve(list.size());
  for (const auto& e : list) {
    byte_string b;
    b.assign(e.data(), e.size());
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<security::der_bytes> from_byte_strings(const ua::ua_array<byte_string>& list) {
  std::vector<security::der_bytes> out;
  out.reserve(list.size());
  for (const auto& b : list) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(b.data());
    out.emplace_back(p, p + b.size());
  }
  return out;
}

std::span<const std::uint8_t> bytes_in(const byte_string& b) {
  return {reinterpret_cast<const std::uint8_t*>(b.data()), b.size()};
}

void config_assign(address_space& as, node_index n, variant v) {
  if (n == no_node) return;
  data_value dv;
  dv.value = std::move(v);
  dv.has_value = true;
  as.set_value(n, std::move(dv));
}

node_index config_child(const address_space& as, node_index parent, std::string_view name) {
  if (parent == no_node) return no_node;
  for (const reference& r : as.forward_references(parent))
    if (as.at(r.target).browse_name == name) return r.target;
  return no_node;
}

// An optional property of a namespace-0 Object that the namespace-0 tables leave out, added with
// its own NodeId when missing.
void config_optional_property(address_space& as, node_index parent, std::uint32_t id, std::string_view name,
                              const node_id& data_type, variant value) {
  if (config_child(as, parent, name) != no_node) return;
  node_spec spec;
  spec.id = node_id(0, id);
  spec.cls = node_class::variable;
  spec.browse_name = name;
  spec.data_type = data_type;
  spec.value.value = std::move(value);
  spec.value.has_value = true;
  if (const auto added = as.add_node(std::move(spec))) {
    as.add_reference(parent, as.find(node_id(0, ids::has_property)), *added);
    as.add_reference(*added, as.find(node_id(0, ids::has_type_definition)), as.find(node_id(0, ids::property_type)));
  }
}

// A Method of ServerConfigurationType that namespace 0's NodeSet leaves out of the ServerConfiguration
// instance (1.05.07 has GetCertificates only on the type), added with the instance NodeIds of
// NodeIds.csv and its arguments copied from the type's method.
void config_instance_method(address_space& as, node_index parent, std::uint32_t id, std::string_view name,
                            std::uint32_t type_method, std::uint32_t input_id, std::uint32_t output_id) {
  if (config_child(as, parent, name) != no_node) return;
  const node_index from = as.find(node_id(0, type_method));
  if (from == no_node) return;
  node_spec m;
  m.id = node_id(0, id);
  m.cls = node_class::method;
  m.browse_name = name;
  const auto added = as.add_node(std::move(m));
  if (!added) return;
  as.add_reference(parent, as.find(node_id(0, ids::has_component)), *added);
  for (const auto& [arg, arg_id] : {std::pair{std::string_view("InputArguments"), input_id},
                                    std::pair{std::string_view("OutputArguments"), output_id}}) {
    const node_index src = config_child(as, from, arg);
    const auto* v = src == no_node ? nullptr : as.variable(src);
    if (!v) continue;
    node_spec a;
    a.id = node_id(0, arg_id);
    a.cls = node_class::variable;
    a.browse_name = arg;
    a.data_type = node_id(0, 296);  // Argument
    a.value_rank = 1;
    a.value = v->value;
    if (const auto prop = as.add_node(std::move(a))) {
      as.add_reference(*added, as.find(node_id(0, ids::has_property)), *prop);
      as.add_reference(*prop, as.find(node_id(0, ids::has_type_definition)), as.find(node_id(0, ids::property_type)));
    }
  }
}

// The policy whose application certificate a CertificateTypeId names in the default group (Part 12
// §7.8.4): RsaSha256ApplicationCertificateType, the abstract ApplicationCertificateType some tools
// send, or none (null NodeId): an RSA policy; an ECC type: the ECC policy of its curve when the
// server has a certificate for that curve. Null: not a type of this server.
const security::security_policy* config_policy_of_type(const node_id* type, const server_security& sec) {
  const auto* rsa = security::find_policy(security::policy_uri_basic256sha256);
  if (!type || type->is_null() || *type == node_id(0, ids::rsa_sha256_application_certificate_type) ||
      *type == node_id(0, ids::application_certificate_type))
    return rsa;
  for (const auto& p : security::all_policies()) {
    if (!p.is_ecc() || !(*type == node_id(0, ecc_certificate_type(p.curve)))) continue;
    for (const auto& e : sec.ecc_identities)
      if (e.curve == p.curve) return &p;
  }
  return nullptr;
}

// Part 12 §7.8.3.3: each group's Object and the NodeIds of its TrustList's optional Properties.
struct config_group_ids {
  std::uint32_t group, trust_list, certificate_types, max_byte_string_length, update_frequency, activity_timeout;
};
constexpr config_group_ids config_groups[] = {
    {ids::server_configuration_certificate_groups_default_application_group,
     ids::server_configuration_certificate_groups_default_application_group_trust_list,
     ids::server_configuration_certificate_groups_default_application_group_certificate_types,
     ids::server_configuration_certificate_groups_default_application_group_trust_list_max_byte_string_length,
     ids::server_configuration_certificate_groups_default_application_group_trust_list_update_frequency,
     ids::server_configuration_certificate_groups_default_application_group_trust_list_activity_timeout},
    {ids::server_configuration_certificate_groups_default_https_group,
     ids::server_configuration_certificate_groups_default_https_group_trust_list,
     ids::server_configuration_certificate_groups_default_https_group_certificate_types,
     ids::server_configuration_certificate_groups_default_https_group_trust_list_max_byte_string_length,
     ids::server_configuration_certificate_groups_default_https_group_trust_list_update_frequency,
     ids::server_configuration_certificate_groups_default_https_group_trust_list_activity_timeout},
    {ids::server_configuration_certificate_groups_default_user_token_group,
     ids::server_configuration_certificate_groups_default_user_token_group_trust_list,
     ids::server_configuration_certificate_groups_default_user_token_group_certificate_types,
     ids::server_configuration_certificate_groups_default_user_token_group_trust_list_max_byte_string_length,
     ids::server_configuration_certificate_groups_default_user_token_group_trust_list_update_frequency,
     ids::server_configuration_certificate_groups_default_user_token_group_trust_list_activity_timeout},
};

// The group a CertificateGroupId names: null (DefaultApplicationGroup, Part 12 §7.10.4 "If null
// the DefaultApplicationGroup is used") or one of the three; nullopt for any other NodeId.
std::optional<certificate_group> config_group_named(const node_id* id) {
  if (!id || id->is_null()) return certificate_group::application;
  for (std::size_t i = 0; i < std::size(config_groups); ++i)
    if (*id == node_id(0, config_groups[i].group)) return static_cast<certificate_group>(i);
  return std::nullopt;
}

std::string_view config_group_name(certificate_group g) {
  switch (g) {
    case certificate_group::https: return "DefaultHttpsGroup";
    case certificate_group::user_token: return "DefaultUserTokenGroup";
    case certificate_group::application: break;
  }
  return "DefaultApplicationGroup";
}

// A certificate chain as PEM blocks, leaf first (what a web server's certificate file holds).
std::string config_pem_chain(const own_identity& id) {
  std::string out;
  const auto block = [&out](std::span<const std::uint8_t> der) {
    const std::string b64 = base64_encode(der);
    out += "-----BEGIN CERTIFICATE-----\n";
    for (std::size_t i = 0; i < b64.size(); i += 64) out.append(b64, i, 64).push_back('\n');
    out += "-----END CERTIFICATE-----\n";
  };
  block(id.certificate.der());
  for (const auto& i : id.issuers) block(i.der());
  return out;
}

bool config_subject(std::string_view text, security::certificate_request& r);

// Part 12 §7.10.6 CreateSelfSignedCertificate(CertificateGroupId, CertificateTypeId, SubjectName,
// DnsNames, IpAddresses, LifetimeInDays, KeySizeInBits) -> Certificate: a new key and a self-signed
// certificate for the slot `policy` names (an RSA key for the RSA type and DefaultHttpsGroup, the
// curve's for an ECC type). KeySizeInBits 0: the current key's size; else within the policy's
// bounds (an ECC key: its curve's size). LifetimeInDays 0: five years, as on first start. No
// DnsNames and IpAddresses: the host names of `hosts`, else of the current certificate.
ua::expected<own_identity> config_self_signed(std::span<const variant> in, const security::security_policy& policy,
                                              const own_identity& current, const std::string& application_uri,
                                              const std::vector<std::string>& hosts, date_time now) {
  const auto* subject = in[2].get_if<ua_string>();
  const auto* dns = in[3].get_if<ua_array<ua_string>>();
  const auto* ips = in[4].get_if<ua_array<ua_string>>();
  const auto* days = in[5].get_if<std::uint16_t>();
  const auto* bits = in[6].get_if<std::uint16_t>();
  if (!days || !bits) return status::bad_invalid_argument;
  security::certificate_request r;
  r.application_uri = application_uri;
  if (subject && !config_subject(subject->view(), r)) return status::bad_invalid_argument;
  constexpr std::size_t max_names = 64;  // subjectAltName entries: a bound on what a caller may ask
  if ((dns ? dns->size() : 0) + (ips ? ips->size() : 0) > max_names) return status::bad_invalid_argument;
  for (const auto* list : {dns, ips})
    if (list)
      for (const auto& n : *list) {
        if (n.empty() || n.size() > 253) return status::bad_invalid_argument;  // RFC 1035's longest name
        r.host_names.emplace_back(n.view());
      }
  if (r.host_names.empty()) r.host_names = hosts.empty() ? current.certificate.host_names() : hosts;
  if (*days > 0) r.validity = std::chrono::hours(24 * static_cast<long>(*days));
  if (policy.is_ecc()) {
    r.curve = std::string(policy.curve);
    if (*bits != 0 && *bits != current.private_key.bits()) return status::bad_invalid_argument;  // the curve decides
  } else {
    const std::size_t want = *bits == 0 ? current.private_key.bits() : *bits;
    if (want < policy.min_key_bits || want > policy.max_key_bits) return status::bad_invalid_argument;
    r.key_bits = static_cast<unsigned>(want);
  }
  auto made = security::create_self_signed(r, now);
  if (!made) return made.error();
  return own_identity{made->cert, {}, std::move(made->private_key)};
}

// CreateSelfSignedCertificate's SubjectName: "CN=name, O=organization" (other attributes are
// taken as they come and left out); empty: uactor's defaults. False when an item is no KEY=VALUE.
bool config_subject(std::string_view text, security::certificate_request& r) {
  const auto trim = [](std::string_view v) {
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return v;
  };
  if (trim(text).empty()) return true;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || trim(item.substr(eq + 1)).empty()) return false;
    const std::string_view key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    if (value.size() > 64) return false;  // X.520 ub-common-name / ub-organization-name
    if (key == "CN") r.common_name = value;
    else if (key == "O") r.organization = value;
  }
  return true;
}

bool config_write_file(const fs::path& f, std::string_view bytes, bool secret) {
  const fs::path tmp = f.parent_path() / ("." + f.filename().string() + ".new");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (secret) ::chmod(tmp.c_str(), 0600);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) return false;
  }
  std::error_code ec;
  fs::rename(tmp, f, ec);
  return !ec;
}

}  // namespace

server_configuration::server_configuration(certificate_management_config config) : config_(std::move(config)) {}

fs::path server_configuration::trust_root(certificate_group g) const {
  const fs::path& root = config_.security->store->root();
  switch (g) {
    case certificate_group::https: return root / "https";
    case certificate_group::user_token: return user_token_trust_separate(root) ? user_token_trust_root(root) : root;
    case certificate_group::application: break;
  }
  return root;
}

status_code server_configuration::separate_user_trust() {
  const fs::path& root = config_.security->store->root();
  if (user_token_trust_separate(root)) return status::good;
  // Until now the application trust list was the user tokens' (docs/decisions/0078): the copy
  // keeps every X509 user that was trusted trusted, and from now on the two lists part.
  auto lists = security::read_trust_list(root, security::trust_masks::all);
  lists.specified_lists = security::trust_masks::all;
  if (const auto sc = security::write_trust_list(user_token_trust_root(root), lists); sc.is_bad()) return sc;
  std::error_code ec;
  for (const char* d : {"trusted/certs", "trusted/crl", "issuers/certs", "issuers/crl"})
    fs::create_directories(user_token_trust_root(root) / d, ec);
  if (!user_token_trust_separate(root)) return status::bad_internal_error;
  spdlog::info("DefaultUserTokenGroup: X509 user tokens have a trust list of their own from now on, in {} (a copy of the "
               "application trust list, then this change)", user_token_trust_root(root).string());
  return status::good;
}

std::string server_configuration::trust_list_bytes(certificate_group g, std::uint32_t masks) const {
  const auto lists = security::read_trust_list(trust_root(g), masks);
  trust_list_data_type t;
  t.specified_lists = lists.specified_lists;
  t.trusted_certificates = to_byte_strings(lists.trusted_certificates);
  t.trusted_crls = to_byte_strings(lists.trusted_crls);
  t.issuer_certificates = to_byte_strings(lists.issuer_certificates);
  t.issuer_crls = to_byte_strings(lists.issuer_crls);
  byte_buffer buf;
  encoder e(buf);
  encode(e, t);
  return std::string(reinterpret_cast<const char*>(buf.bytes().data()), buf.bytes().size());
}

status_code server_configuration::install(address_space& as, file_objects& files, date_time now) {
  configuration_ = as.find(node_id(0, ids::server_configuration));
  if (configuration_ == no_node || !config_.security || !config_.security->store) return status::bad_node_id_unknown;
  groups_.clear();
  for (std::size_t i = 0; i < std::size(config_groups); ++i) {
    group_state g;
    g.which = static_cast<certificate_group>(i);
    g.group_id = config_groups[i].group;
    g.trust_list = as.find(node_id(0, config_groups[i].trust_list));
    groups_.push_back(g);
  }
  if (group(certificate_group::application).trust_list == no_node) return status::bad_node_id_unknown;
  // Part 12 §7.10.3: TransactionDiagnostics, optional, which the NodeSet has on the type only.
  diagnostics_.install(as, configuration_);
  space_ = &as;
  // Part 12 §7.10.8 GetCertificates (1.05): the NodeSet has it on the type only.
  config_instance_method(as, configuration_, ids::server_configuration_get_certificates, "GetCertificates",
                         ids::server_configuration_type_get_certificates, ids::server_configuration_get_certificates_input_arguments,
                         ids::server_configuration_get_certificates_output_arguments);
  // Part 12 §7.10.3-5: what this server does.
  config_assign(as, as.find(node_id(0, ids::server_configuration_server_capabilities)),
                variant(ua_array<ua_string>{ua_string("NA")}));
  config_assign(as, as.find(node_id(0, ids::server_configuration_supported_private_key_formats)),
                variant(ua_array<ua_string>{ua_string("PEM"), ua_string("PFX")}));
  config_assign(as, as.find(node_id(0, ids::server_configuration_max_trust_list_size)),
                variant(config_.max_trust_list_size));
  // DefaultApplicationGroup: the RSA certificate's type, and one per ECC curve the server has a
  // certificate for (0055).
  ua_array<node_id> types{node_id(0, ids::rsa_sha256_application_certificate_type)};
  for (const auto& e : config_.security->ecc_identities)
    if (const auto type = ecc_certificate_type(e.curve)) types.push_back(node_id(0, type));
  config_assign(as, as.find(node_id(0, config_groups[0].certificate_types)), variant(std::move(types)));
  // DefaultHttpsGroup: HttpsCertificateType, the opc.wss TLS certificate's, when the server has
  // one (Part 12 §7.8.3.3); DefaultUserTokenGroup: the user credentials' (it has no certificate of
  // its own, only the trust list of X509 user tokens). docs/decisions/0078.
  ua_array<node_id> https_types;
  if (config_.security->https) https_types.push_back(node_id(0, ids::https_certificate_type));
  config_assign(as, as.find(node_id(0, config_groups[1].certificate_types)), variant(std::move(https_types)));
  config_assign(as, as.find(node_id(0, config_groups[2].certificate_types)),
                variant(ua_array<node_id>{node_id(0, ids::user_credential_certificate_type)}));
  for (auto& g : groups_)
    if (g.trust_list != no_node)
      if (const auto sc = install_group(g, as, files, now); sc.is_bad()) return sc;
  return status::good;
}

status_code server_configuration::install_group(group_state& g, address_space& as, file_objects& files, date_time now) {
  const auto& nodes = config_groups[static_cast<std::size_t>(g.which)];
  file_options o;
  o.writable = true;
  o.store_on_close = false;
  o.max_size = config_.max_trust_list_size;
  // MaxByteStringLength (1.05, optional) with its namespace-0 NodeId, before attach() finds it.
  config_optional_property(as, g.trust_list, nodes.max_byte_string_length, "MaxByteStringLength", node_id(0, ids::u_int32),
                           variant(files.limits().max_read_length));
  const certificate_group which = g.which;
  auto content = std::make_shared<trust_list_file>([this, which] { return trust_list_bytes(which, security::trust_masks::all); });
  if (const auto sc = files.attach(g.trust_list, std::move(content), o, as); sc.is_bad()) return sc;
  g.last_update = config_child(as, g.trust_list, "LastUpdateTime");
  config_assign(as, g.last_update, variant(now));
  // UpdateFrequency (1.05, optional): how often a CertificateManager should look; one day.
  config_optional_property(as, g.trust_list, nodes.update_frequency, "UpdateFrequency", node_id(0, 290 /* Duration */),
                           variant(86'400'000.0));
  // ActivityTimeout (1.05, Part 12 §7.8.2.1): a TrustList left without a call this long is closed.
  config_optional_property(as, g.trust_list, nodes.activity_timeout, "ActivityTimeout", node_id(0, 290 /* Duration */),
                           variant(static_cast<double>(config_.activity_timeout.count())));
  return status::good;
}

void server_configuration::trust_list_changed(group_state& g, address_space& as, file_objects& files, date_time now) {
  // The channels' and the X509 user sessions' certificates are checked again (Part 12 §7.8.2.5);
  // nothing checks TLS client certificates against the HTTPS trust list (docs/decisions/0078).
  if (g.which != certificate_group::https) trust_changed_ = true;
  config_assign(as, g.last_update, variant(now));
  files.refresh_size(g.trust_list, as);
}

status_code server_configuration::call(const config_caller& who, node_index object, node_index method,
                                       std::span<const variant> in, std::vector<variant>& out, address_space& as,
                                       file_objects& files, date_time now) {
  const std::string_view name = as.at(method).browse_name;
  const std::uint32_t method_id = as.at(method).id.to_node_id().numeric();
  space_ = &as;
  now_ = now;
  // The audit event of each method (refusals included: who tried is what an auditor wants).
  const group_state* on_trust_list = group_of_trust_list(object);
  std::uint32_t event = ids::trust_list_updated_audit_event_type;
  if (!on_trust_list)
    event = name == "UpdateCertificate" || name == "ApplyChanges" || name == "CreateSelfSignedCertificate" ||
                    name == "DeleteCertificate"
                ? ids::certificate_updated_audit_event_type
            : name == "CreateSigningRequest"                     ? ids::certificate_update_requested_audit_event_type
                                                                 : ids::audit_update_method_event_type;
  const std::string audit_name = (on_trust_list ? "TrustList/" : "ServerConfiguration/") + std::string(name);
  audit_ = {};
  // Part 12 §7.2 (and each method's Bad_UserAccessDenied): the SecurityAdmin role, over an
  // encrypted channel, for everything here, reading the trust list included.
  if (!who.roles.has(authz::well_known::security_admin)) {
    audit_ = {event, method_id, audit_name, status::bad_user_access_denied, {}, {}};
    return status::bad_user_access_denied;
  }
  if (who.mode != message_security_mode::sign_and_encrypt) {
    audit_ = {event, method_id, audit_name, status::bad_security_mode_insufficient, {}, {}};
    return status::bad_security_mode_insufficient;
  }
  if (on_trust_list) {
    auto& g = groups_[static_cast<std::size_t>(on_trust_list->which)];
    // Part 12 §7.8.2.1 ActivityTimeout: counted from the last call on the TrustList.
    g.activity = now;
    return trust_list_call(who, g, name, in, out, as, files, now, method);
  }

  status_code sc = status::bad_not_implemented;
  std::vector<std::uint32_t> types, groups;  // of the certificates the call updates
  if (name == "UpdateCertificate") {
    const auto named = in.empty() ? std::optional<certificate_group>{} : config_group_named(in[0].get_if<node_id>());
    if (named == certificate_group::https) {
      sc = update_https_certificate(who, in, out);
      types.push_back(ids::https_certificate_type);
      groups.push_back(ids::server_configuration_certificate_groups_default_https_group);
    } else {
      sc = update_certificate(who, in, out);
      const auto* policy = in.size() > 1 ? config_policy_of_type(in[1].get_if<node_id>(), *config_.security) : nullptr;
      if (policy) types.push_back(certificate_type_of_curve(policy->curve));
      groups.push_back(ids::server_configuration_certificate_groups_default_application_group);
    }
  } else if (name == "CreateSigningRequest") {
    sc = create_signing_request(in, out);
  } else if (name == "CreateSelfSignedCertificate" || name == "DeleteCertificate") {
    // Part 12 §7.10.6-7 (1.05): on the type only in namespace 0 (no instance NodeIds); Call takes
    // the type's Method on the instance (Part 4 §5.11.2). Both join the session's transaction.
    const bool create = name == "CreateSelfSignedCertificate";
    const auto named = in.empty() ? std::optional<certificate_group>{} : config_group_named(in[0].get_if<node_id>());
    const auto* type = in.size() > 1 ? in[1].get_if<node_id>() : nullptr;
    // The slot: "" (RSA) or a curve in DefaultApplicationGroup, "https" in DefaultHttpsGroup.
    std::string slot;
    const security::security_policy* policy = nullptr;
    std::shared_ptr<const own_identity> current;
    if (named == certificate_group::application) {
      policy = config_policy_of_type(type, *config_.security);
      if (policy) {
        slot = std::string(policy->curve);
        current = config_.security->identity_for(*policy);
      }
    } else if (named == certificate_group::https && config_.security->https &&
               (!type || type->is_null() || *type == node_id(0, ids::https_certificate_type))) {
      policy = security::find_policy(security::policy_uri_basic256sha256);
      slot = "https";
      current = config_.security->https->current.get();
    }
    if (in.size() < (create ? 7u : 2u) || !policy) {
      sc = status::bad_invalid_argument;  // DefaultUserTokenGroup has no certificate; a type the group has not
    } else if (other_transaction(who)) {
      sc = status::bad_transaction_pending;  // §7.10.6-7, as UpdateCertificate
    } else if (!current) {
      sc = status::bad_invalid_state;  // §7.10.7: "If no Certificate is assigned to the CertificateType slot"
    } else if (create) {
      auto made = config_self_signed(in, *policy, *current, config_.application_uri, config_.host_names, now);
      sc = made ? status::good : made.error();
      if (made) {
        transaction_started(who);
        diagnostics_.affects_group(as, node_id(0, config_groups[static_cast<std::size_t>(*named)].group));
        byte_string b;
        b.assign(made->certificate.der().data(), made->certificate.der().size());
        out.emplace_back(std::move(b));
        spdlog::info("CreateSelfSignedCertificate: {} waits for ApplyChanges of session {}", made->certificate.describe(),
                     who.session);
        tx_->certificates[slot] = std::make_shared<const own_identity>(std::move(*made));
        new_keys_.erase(slot);  // §7.10.10: a key CreateSigningRequest made for the slot is discarded
      }
    } else {
      // §7.10.7: ApplyChanges decides, refusing a certificate an endpoint uses: held as no identity.
      transaction_started(who);
      diagnostics_.affects_group(as, node_id(0, config_groups[static_cast<std::size_t>(*named)].group));
      tx_->certificates[slot] = nullptr;
      new_keys_.erase(slot);
      sc = status::good;
    }
    if (policy) {
      types.push_back(slot == "https" ? ids::https_certificate_type : certificate_type_of_curve(policy->curve));
      groups.push_back(config_groups[static_cast<std::size_t>(*named)].group);
    }
  } else if (name == "ApplyChanges") {
    if (tx_ && tx_->session == who.session)
      for (const auto& [curve, identity] : tx_->certificates) {
        const bool https = curve == "https";
        types.push_back(https ? ids::https_certificate_type : certificate_type_of_curve(curve));
        groups.push_back(https ? ids::server_configuration_certificate_groups_default_https_group
                               : ids::server_configuration_certificate_groups_default_application_group);
      }
    sc = apply_changes(who, as, files, now);
  } else if (name == "CancelChanges") {
    sc = cancel_changes(who);
  } else if (name == "GetRejectedList") {
    const auto rejected = security::rejected_certificates(config_.security->store->root(), config_.max_rejected);
    out.emplace_back(to_byte_strings(rejected));
    sc = status::good;
  } else if (name == "GetCertificates") {
    sc = get_certificates(in, out);
  } else if (name == "ResetToServerDefaults") {
    sc = reset_to_defaults(as, files, now);
  }
  audit_ = {event, method_id, audit_name, sc, std::move(types), std::move(groups)};
  return sc;
}

void server_configuration::transaction_started(const config_caller& who) {
  if (tx_) return;  // continued
  tx_ = transaction{who.session, {}, {}};
  if (space_) diagnostics_.started(*space_, now_);
}

void server_configuration::session_closed(std::uint32_t session, std::optional<ua::date_time> now) {
  // Part 12 §7.10.9: "If a Session is closed or abandoned then the transaction is closed and all
  // pending changes are discarded."
  if (!tx_ || tx_->session != session) return;
  spdlog::info("ServerConfiguration: the transaction of session {} is dropped with its session (nothing of it applied)",
               session);
  tx_.reset();
  if (space_) diagnostics_.ended(*space_, now.value_or(now_), status::bad_session_closed);
}

std::size_t server_configuration::expire(address_space& as, file_objects& files, date_time now) {
  if (config_.activity_timeout.count() <= 0) return 0;
  std::size_t closed = 0;
  for (auto& g : groups_) {
    if (g.trust_list == no_node || files.open_count(g.trust_list) == 0) continue;
    const std::int64_t idle_ms = (now.ticks - g.activity.ticks) / 10'000;
    if (idle_ms < config_.activity_timeout.count()) continue;
    const std::size_t n = files.close_all(g.trust_list, as);
    spdlog::warn("TrustList of {}: {} handle(s) closed after {} ms without a call (ActivityTimeout); what was written is "
                 "dropped", config_group_name(g.which), n, idle_ms);
    closed += n;
  }
  return closed;
}

status_code server_configuration::trust_list_call(const config_caller& who, group_state& g, std::string_view name,
                                                  std::span<const variant> in, std::vector<variant>& out,
                                                  address_space& as, file_objects& files, date_time now,
                                                  node_index method) {
  const std::uint32_t method_id = as.at(method).id.to_node_id().numeric();
  const node_index trust_list = g.trust_list;
  const auto audited = [&](status_code sc) {
    audit_ = {ids::trust_list_updated_audit_event_type, method_id, "TrustList/" + std::string(name), sc, {}, {}};
    return sc;
  };
  if (name == "Open") {
    // Part 12 §7.8.1: Read (1) or Write + EraseExisting (6), nothing else.
    const auto* mode = in.empty() ? nullptr : in[0].get_if<std::uint8_t>();
    if (!mode || (*mode != open_mode::read && *mode != (open_mode::write | open_mode::erase_existing)))
      return status::bad_invalid_argument;
    // Part 12 §7.8.2.1: writing joins a transaction; another session's waits.
    if ((*mode & open_mode::write) && other_transaction(who)) return status::bad_transaction_pending;
    return files.call(who.session, trust_list, method, in, out, as);
  }
  if (name == "OpenWithMasks") {
    // Part 12 §7.8.2.2: opened for reading, holding only the lists the masks name.
    const auto* masks = in.empty() ? nullptr : in[0].get_if<std::uint32_t>();
    if (!masks) return status::bad_invalid_argument;
    const std::string bytes = trust_list_bytes(g.which, *masks & security::trust_masks::all);
    auto opened = files.open(who.session, trust_list, open_mode::read, as, &bytes);
    if (!opened) return opened.error();
    out.emplace_back(*opened);
    return status::good;
  }
  if (name == "CloseAndUpdate") {
    const auto* handle = in.empty() ? nullptr : in[0].get_if<std::uint32_t>();
    if (!handle) return status::bad_invalid_argument;
    // The handle ends whatever follows: "If the file cannot be processed this Method still closes
    // the file and discards the data before returning an error" (Part 12 §7.8.2.3).
    auto written = files.take(who.session, trust_list, *handle, as);
    if (!written) return written.error();
    decode_limits limits;
    limits.max_string_length = config_.max_trust_list_size;
    limits.max_array_length = 10'000;
    decoder d({reinterpret_cast<const std::uint8_t*>(written->data()), written->size()}, limits);
    trust_list_data_type t;
    decode(d, t);
    if (!d.ok() || d.remaining() != 0) {
      spdlog::warn("TrustList CloseAndUpdate refused: the bytes written are not one TrustListDataType ({})",
                   d.ok() ? "bytes after it" : d.status().to_string());
      return audited(status::bad_decoding_error);
    }
    security::trust_list_contents lists;
    lists.specified_lists = t.specified_lists & security::trust_masks::all;
    lists.trusted_certificates = from_byte_strings(t.trusted_certificates);
    lists.trusted_crls = from_byte_strings(t.trusted_crls);
    lists.issuer_certificates = from_byte_strings(t.issuer_certificates);
    lists.issuer_crls = from_byte_strings(t.issuer_crls);
    // Another session's transaction took the TrustList after this handle was opened.
    if (other_transaction(who)) return audited(status::bad_transaction_pending);
    std::string why;
    if (const auto sc = security::check_trust_list(lists, &why); sc.is_bad()) {
      spdlog::warn("TrustList CloseAndUpdate refused ({}): {}; the trust list is unchanged", sc.name(), why);
      return audited(sc);
    }
    // Part 12 §7.8.2.5: the lists join this session's transaction (created or continued) and take
    // effect at ApplyChanges; a list named again replaces what an earlier CloseAndUpdate gave it.
    transaction_started(who);
    diagnostics_.affects_trust_list(as, as.at(trust_list).id.to_node_id());
    auto& held = tx_->trust[g.which];
    const auto take = [&](std::uint32_t bit, std::vector<security::der_bytes>& into, std::vector<security::der_bytes>& from) {
      if (lists.specified_lists & bit) into = std::move(from);
    };
    take(security::trust_masks::trusted_certificates, held.trusted_certificates, lists.trusted_certificates);
    take(security::trust_masks::trusted_crls, held.trusted_crls, lists.trusted_crls);
    take(security::trust_masks::issuer_certificates, held.issuer_certificates, lists.issuer_certificates);
    take(security::trust_masks::issuer_crls, held.issuer_crls, lists.issuer_crls);
    held.specified_lists |= lists.specified_lists;
    spdlog::info("TrustList CloseAndUpdate ({}): {} trusted, {} issuer certificate(s) wait for ApplyChanges of session {}",
                 config_group_name(g.which), held.trusted_certificates.size(), held.issuer_certificates.size(), who.session);
    out.emplace_back(true);  // applyChangesRequired
    return audited(status::good);
  }
  if (name == "AddCertificate" || name == "RemoveCertificate") {
    // Part 12 §7.8.2.4-5: "This Method cannot be called if the containing TrustList Object is open."
    if (files.open_count(trust_list) > 0) return audited(status::bad_invalid_state);
    // Part 12 §7.8.2.6-7: not while a transaction waits for ApplyChanges or CancelChanges (they
    // apply at once, and would be lost or undone by it).
    if (tx_) return audited(status::bad_transaction_pending);
    const auto* trusted = in.size() > 1 ? in[1].get_if<bool>() : nullptr;
    if (!trusted) return status::bad_invalid_argument;
    if (g.which == certificate_group::user_token)
      if (const auto sc = separate_user_trust(); sc.is_bad()) return audited(sc);
    const fs::path pki = trust_root(g.which);
    status_code sc;
    if (name == "AddCertificate") {
      const auto* cert = in[0].get_if<byte_string>();
      if (!cert) return status::bad_invalid_argument;
      // The list stays within MaxTrustListSize.
      const auto now_lists = security::read_trust_list(pki, security::trust_masks::all);
      if (config_.max_trust_list_size && now_lists.byte_size() + cert->size() > config_.max_trust_list_size)
        return audited(status::bad_encoding_limits_exceeded);
      sc = security::add_to_trust_list(pki, bytes_in(*cert), *trusted);
    } else {
      const auto* thumbprint = in[0].get_if<ua_string>();
      if (!thumbprint) return status::bad_invalid_argument;
      sc = security::remove_from_trust_list(pki, thumbprint->view(), *trusted);
    }
    if (sc.is_good()) trust_list_changed(g, as, files, now);
    return audited(sc);
  }
  // Close, Read, Write, GetPosition, SetPosition: FileType's.
  return files.call(who.session, trust_list, method, in, out, as);
}

status_code server_configuration::update_certificate(const config_caller& who, std::span<const variant> in,
                                                     std::vector<variant>& out) {
  // Part 12 §7.10.4 UpdateCertificate(CertificateGroupId, CertificateTypeId, Certificate,
  // IssuerCertificates, PrivateKeyFormat, PrivateKey) -> ApplyChangesRequired.
  if (in.size() < 6) return status::bad_invalid_argument;
  // Part 12 §7.10.5: "If a transaction is in progress on another Session then the Server shall
  // return Bad_TransactionPending."
  if (other_transaction(who)) return status::bad_transaction_pending;
  const auto* group = in[0].get_if<node_id>();
  const auto* type = in[1].get_if<node_id>();
  const auto* cert_bytes = in[2].get_if<byte_string>();
  const auto* issuers_bytes = in[3].get_if<ua_array<byte_string>>();
  const auto* key_format = in[4].get_if<ua_string>();
  const auto* key_bytes = in[5].get_if<byte_string>();
  if (!cert_bytes) return status::bad_invalid_argument;
  // The one group and type this server has (a null NodeId names the default, §7.10.4).
  const node_id default_group(0, ids::server_configuration_certificate_groups_default_application_group);
  if (group && !group->is_null() && !(*group == default_group)) return status::bad_invalid_argument;
  const auto* policy = config_policy_of_type(type, *config_.security);
  if (!policy) return status::bad_invalid_argument;
  const auto cert = security::certificate::from_der(bytes_in(*cert_bytes));
  if (!cert) {
    spdlog::warn("UpdateCertificate refused: the certificate does not parse (Bad_CertificateInvalid)");
    return status::bad_certificate_invalid;
  }
  if (cert->application_uri() != config_.application_uri) {
    spdlog::warn("UpdateCertificate refused: the certificate is made for {}, the server is {} (Bad_CertificateUriInvalid)",
                 cert->application_uri(), config_.application_uri);
    return status::bad_certificate_uri_invalid;
  }
  std::vector<security::certificate> issuers;
  if (issuers_bytes)
    for (const auto& b : *issuers_bytes) {
      auto c = security::certificate::from_der(bytes_in(b));
      if (!c) return status::bad_certificate_invalid;
      issuers.push_back(std::move(*c));
    }
  // The key: a new one given here, the one CreateSigningRequest made for this type, or the current
  // one of the type (the RSA identity, or the ECC curve's).
  const std::string curve(policy->curve);
  const auto current = config_.security->identity_for(*policy);
  if (!current) return status::bad_invalid_argument;
  security::rsa_key key;
  const bool key_given = key_format && !key_format->empty() && key_bytes && !key_bytes->empty();
  const auto made = new_keys_.find(curve);
  if (key_given) {
    auto k = security::private_key_from(key_format->view(), bytes_in(*key_bytes));
    if (!k) return k.error();
    key = std::move(*k);
  } else if (made != new_keys_.end() && security::key_matches(*cert, made->second)) {
    key = made->second;
  } else {
    key = current->private_key;
  }
  if (!security::key_matches(*cert, key)) {
    spdlog::warn("UpdateCertificate refused: the certificate's public key is not the server's private key "
                 "(Bad_SecurityChecksFailed) [{}]", cert->describe());
    return status::bad_security_checks_failed;
  }
  // The certificate type decides the key: RSA for RsaSha256ApplicationCertificateType, an EC key
  // on the curve for an ECC type (Part 12 §7.8.4; the channels' Security Policy Check, 0055).
  if (!security::key_fits_policy(*policy, key)) {
    spdlog::warn("UpdateCertificate refused: the certificate's key does not fit {} (Bad_CertificateInvalid) [{}]",
                 policy->certificate_type, cert->describe());
    return status::bad_certificate_invalid;
  }
  // The issuers must complete the chain: each certificate is issued by the next.
  if (!issuers.empty() && !security::issued_by(issuers.front(), *cert)) {
    spdlog::warn("UpdateCertificate refused: the first issuer certificate did not issue it (Bad_SecurityChecksFailed)");
    return status::bad_security_checks_failed;
  }
  transaction_started(who);
  if (space_)
    diagnostics_.affects_group(*space_, node_id(0, ids::server_configuration_certificate_groups_default_application_group));
  tx_->certificates[curve] = std::make_shared<const own_identity>(own_identity{*cert, std::move(issuers), std::move(key)});
  spdlog::info("UpdateCertificate: {} ({}) waits for ApplyChanges of session {}", cert->describe(), policy->certificate_type,
               who.session);
  // Part 12 §7.10.4: the new certificate is used after ApplyChanges.
  out.emplace_back(true);
  return status::good;
}

status_code server_configuration::update_https_certificate(const config_caller& who, std::span<const variant> in,
                                                           std::vector<variant>& out) {
  // Part 12 §7.10.4 on DefaultHttpsGroup (§7.8.3.3): the certificate the opc.wss endpoints present
  // in TLS (docs/decisions/0078). Its checks are the application certificate's but the URI: a TLS
  // client checks the host names, not an ApplicationUri.
  if (in.size() < 6) return status::bad_invalid_argument;
  if (other_transaction(who)) return status::bad_transaction_pending;
  const auto& https = config_.security->https;
  if (!https) return status::bad_invalid_argument;  // no opc.wss endpoint: the group has no certificate
  const auto* type = in[1].get_if<node_id>();
  const auto* cert_bytes = in[2].get_if<byte_string>();
  const auto* issuers_bytes = in[3].get_if<ua_array<byte_string>>();
  const auto* key_format = in[4].get_if<ua_string>();
  const auto* key_bytes = in[5].get_if<byte_string>();
  if (!cert_bytes) return status::bad_invalid_argument;
  // The group's type, HttpsCertificateType; RsaSha256ApplicationCertificateType, which tools that
  // know one certificate type send; or none.
  if (type && !type->is_null() && !(*type == node_id(0, ids::https_certificate_type)) &&
      !(*type == node_id(0, ids::rsa_sha256_application_certificate_type)))
    return status::bad_invalid_argument;
  const auto cert = security::certificate::from_der(bytes_in(*cert_bytes));
  if (!cert) {
    spdlog::warn("UpdateCertificate (DefaultHttpsGroup) refused: the certificate does not parse (Bad_CertificateInvalid)");
    return status::bad_certificate_invalid;
  }
  std::vector<security::certificate> issuers;
  if (issuers_bytes)
    for (const auto& b : *issuers_bytes) {
      auto c = security::certificate::from_der(bytes_in(b));
      if (!c) return status::bad_certificate_invalid;
      issuers.push_back(std::move(*c));
    }
  const auto current = https->current.get();
  if (!current) return status::bad_invalid_argument;
  security::rsa_key key;
  const bool key_given = key_format && !key_format->empty() && key_bytes && !key_bytes->empty();
  const auto made = new_keys_.find("https");
  if (key_given) {
    auto k = security::private_key_from(key_format->view(), bytes_in(*key_bytes));
    if (!k) return k.error();
    key = std::move(*k);
  } else if (made != new_keys_.end() && security::key_matches(*cert, made->second)) {
    key = made->second;
  } else {
    key = current->private_key;
  }
  if (!security::key_matches(*cert, key)) {
    spdlog::warn("UpdateCertificate (DefaultHttpsGroup) refused: the certificate's public key is not the key given or "
                 "held (Bad_SecurityChecksFailed) [{}]", cert->describe());
    return status::bad_security_checks_failed;
  }
  // An RSA key of 2048 to 4096 bits, as the application certificate's.
  if (!security::key_fits_policy(*security::find_policy(security::policy_uri_basic256sha256), key)) {
    spdlog::warn("UpdateCertificate (DefaultHttpsGroup) refused: not an RSA key of 2048 to 4096 bits (Bad_CertificateInvalid) [{}]",
                 cert->describe());
    return status::bad_certificate_invalid;
  }
  if (!issuers.empty() && !security::issued_by(issuers.front(), *cert)) {
    spdlog::warn("UpdateCertificate (DefaultHttpsGroup) refused: the first issuer certificate did not issue it "
                 "(Bad_SecurityChecksFailed)");
    return status::bad_security_checks_failed;
  }
  transaction_started(who);
  if (space_) diagnostics_.affects_group(*space_, node_id(0, ids::server_configuration_certificate_groups_default_https_group));
  tx_->certificates["https"] = std::make_shared<const own_identity>(own_identity{*cert, std::move(issuers), std::move(key)});
  spdlog::info("UpdateCertificate: the HTTPS certificate {} waits for ApplyChanges of session {}", cert->describe(),
               who.session);
  out.emplace_back(true);
  return status::good;
}

status_code server_configuration::create_signing_request(std::span<const variant> in, std::vector<variant>& out) {
  // Part 12 §7.10.7 CreateSigningRequest(CertificateGroupId, CertificateTypeId, SubjectName,
  // RegeneratePrivateKey, Nonce) -> CertificateRequest.
  if (in.size() < 5) return status::bad_invalid_argument;
  const auto* group = in[0].get_if<node_id>();
  const auto* type = in[1].get_if<node_id>();
  const auto* subject = in[2].get_if<ua_string>();
  const auto* regenerate = in[3].get_if<bool>();
  const auto* nonce = in[4].get_if<byte_string>();
  const auto named = config_group_named(group);
  const bool https = named == certificate_group::https;
  if (!named || named == certificate_group::user_token) return status::bad_invalid_argument;  // no certificate of its own
  // The type names whose key signs: the RSA certificate's, or an ECC curve's (Part 12 §7.8.4); in
  // DefaultHttpsGroup the TLS certificate's (an RSA key, docs/decisions/0078).
  const auto* policy = https ? security::find_policy(security::policy_uri_basic256sha256)
                             : config_policy_of_type(type, *config_.security);
  if (https && type && !type->is_null() && !(*type == node_id(0, ids::https_certificate_type)) &&
      !(*type == node_id(0, ids::rsa_sha256_application_certificate_type)))
    return status::bad_invalid_argument;
  if (!policy) return status::bad_invalid_argument;
  const auto current = https ? (config_.security->https ? config_.security->https->current.get() : nullptr)
                             : config_.security->identity_for(*policy);
  if (!current) return status::bad_invalid_argument;
  security::rsa_key key = current->private_key;
  if (regenerate && *regenerate) {
    // "The Nonce ... shall be at least 32 bytes" when a new key is made (§7.10.7): entropy the
    // server may mix in; OpenSSL's generator needs none, the length is still checked.
    if (nonce && !nonce->empty() && nonce->size() < 32) return status::bad_invalid_argument;
    auto fresh = policy->is_ecc() ? security::generate_ecc_key(policy->curve)
                                  : security::rsa_key::generate(static_cast<unsigned>(current->private_key.bits()));
    if (!fresh) return fresh.error();
    key = std::move(*fresh);
    new_keys_[https ? std::string("https") : std::string(policy->curve)] = key;
  }
  std::vector<std::string> hosts = config_.host_names;
  if (hosts.empty()) hosts = current->certificate.host_names();
  auto csr = security::create_signing_request(key, subject ? subject->view() : std::string_view{}, current->certificate,
                                              config_.application_uri, hosts);
  if (!csr) return csr.error();
  byte_string b;
  b.assign(csr->data(), csr->size());
  out.emplace_back(std::move(b));
  return status::good;
}

status_code server_configuration::install_identity(std::shared_ptr<const own_identity> identity, std::string_view by,
                                                   std::string_view curve) {
  const auto store_root = config_.security->store->root();
  // own/certs/uactor.der for the RSA certificate, uactor-ecc-nistP256.der ... for a curve's (0055).
  const security::security_policy* ecc = nullptr;
  for (const auto& p : security::all_policies())
    if (!curve.empty() && p.curve == curve) {
      ecc = &p;
      break;
    }
  if (!curve.empty() && !ecc) return status::bad_internal_error;
  const std::string name = ecc ? security::own_identity_name(config_.own_name, *ecc) : config_.own_name;
  const fs::path cert_file = store_root / "own" / "certs" / (name + ".der");
  const fs::path key_file = store_root / "own" / "private" / (name + ".pem");
  // The certificate in use stays next to the new one: the rollback an operator may do by hand.
  std::error_code ec;
  fs::copy_file(cert_file, cert_file.string() + ".previous", fs::copy_options::overwrite_existing, ec);
  fs::copy_file(key_file, key_file.string() + ".previous", fs::copy_options::overwrite_existing, ec);
  ::chmod((key_file.string() + ".previous").c_str(), 0600);  // a private key, as own/private/ keeps it
  const auto chain = identity->chain();
  const std::string pem = identity->private_key.to_private_pem();
  if (!config_write_file(key_file, pem, true) ||
      !config_write_file(cert_file, std::string_view(reinterpret_cast<const char*>(chain.data()), chain.size()), false)) {
    spdlog::error("{}: cannot write the new certificate into {}: the certificate in use stays", by,
                  cert_file.parent_path().string());
    return status::bad_internal_error;
  }
  if (ecc) config_.security->replaced_ecc.set(curve, identity);
  else config_.security->replaced.set(identity);
  spdlog::info("{}: new channels use {}; running sessions keep theirs", by, identity->certificate.describe());
  identity_changed_ = true;
  return status::good;
}

status_code server_configuration::install_https(std::shared_ptr<const own_identity> identity, std::string_view by) {
  // Where the HTTPS certificate came from (docs/decisions/0078): the plant file's PEM files, or
  // own/certs/uactor-https.der (DER, its key PEM, as own/ keeps the others). The old ones stay as
  // .previous, the rollback.
  auto& https = *config_.security->https;
  const fs::path cert_file = https.certificate_file, key_file = https.key_file;
  std::error_code ec;
  fs::create_directories(cert_file.parent_path(), ec);
  fs::copy_file(cert_file, cert_file.string() + ".previous", fs::copy_options::overwrite_existing, ec);
  fs::copy_file(key_file, key_file.string() + ".previous", fs::copy_options::overwrite_existing, ec);
  ::chmod((key_file.string() + ".previous").c_str(), 0600);
  const auto chain = identity->chain();
  const std::string cert_bytes = https.pem ? config_pem_chain(*identity)
                                           : std::string(reinterpret_cast<const char*>(chain.data()), chain.size());
  if (!config_write_file(key_file, identity->private_key.to_private_pem(), true) ||
      !config_write_file(cert_file, cert_bytes, false)) {
    spdlog::error("{}: cannot write the new HTTPS certificate into {}: the certificate in use stays", by, cert_file.string());
    return status::bad_internal_error;
  }
  https.current.set(identity);
  spdlog::info("{}: new opc.wss TLS connections present {}; running ones keep theirs", by, identity->certificate.describe());
  return status::good;
}

status_code server_configuration::apply_changes(const config_caller& who, address_space& as, file_objects& files,
                                                date_time now) {
  // Part 12 §7.10.9: no transaction, nothing to do; another session's is not this one's to apply
  // (as CancelChanges, §7.10.11: Bad_SessionIdInvalid); a TrustList still open for writing first
  // has to be closed (Bad_InvalidState, the transaction stays).
  if (!tx_) return status::bad_nothing_to_do;
  if (tx_->session != who.session) return status::bad_session_id_invalid;
  for (const auto& g : groups_)
    if (g.trust_list != no_node && files.open_for_writing(g.trust_list)) return status::bad_invalid_state;
  // Part 12 §7.10.7: "Certificates that are referenced by EndpointDescriptions shall not be deleted.
  // This determination happens when ApplyChanges is called." Each certificate this server has is
  // one an endpoint uses (the RSA one and each curve's: the offers made them; the HTTPS one: the
  // opc.wss endpoint presents it), so a DeleteCertificate never applies; the transaction stays for
  // CancelChanges.
  for (const auto& [slot, identity] : tx_->certificates)
    if (!identity) {
      spdlog::warn("ApplyChanges refused: the {} certificate is in use by an endpoint and cannot be deleted (Part 12 §7.10.7); "
                   "nothing changed, CancelChanges drops the transaction",
                   slot.empty() ? "RSA application" : slot == "https" ? "HTTPS" : slot);
      diagnostics_.ended(as, now, status::bad_invalid_state,
                         node_id(0, slot == "https" ? ids::server_configuration_certificate_groups_default_https_group
                                                    : ids::server_configuration_certificate_groups_default_application_group),
                         "the certificate is used by an endpoint");
      return status::bad_invalid_state;
    }
  // The changes in the order they came: the trust lists, then the certificates. They were checked
  // when they were made; what can still fail is the disk, and then the transaction stays for a
  // CancelChanges or another ApplyChanges.
  for (auto it = tx_->trust.begin(); it != tx_->trust.end();) {
    auto& g = group(it->first);
    status_code sc = g.which == certificate_group::user_token ? separate_user_trust() : status::good;
    if (sc.is_good()) sc = security::write_trust_list(trust_root(g.which), it->second);
    if (sc.is_bad()) {
      spdlog::error("ApplyChanges: the trust list of {} could not be written ({}): it is unchanged", config_group_name(g.which),
                    sc.to_string());
      diagnostics_.ended(as, now, sc, as.at(g.trust_list).id.to_node_id(), "the trust list could not be written");
      return sc;
    }
    trust_list_changed(g, as, files, now);
    spdlog::info("ApplyChanges: the trust list of {} of session {} applied ({} trusted, {} issuer certificate(s) in the lists "
                 "it named)", config_group_name(g.which), tx_->session, it->second.trusted_certificates.size(),
                 it->second.issuer_certificates.size());
    it = tx_->trust.erase(it);
  }
  for (auto it = tx_->certificates.begin(); it != tx_->certificates.end();) {
    const bool https = it->first == "https";
    if (const auto sc = https ? install_https(it->second, "ApplyChanges") : install_identity(it->second, "ApplyChanges", it->first);
        sc.is_bad()) {
      diagnostics_.ended(as, now, sc,
                         node_id(0, https ? ids::server_configuration_certificate_groups_default_https_group
                                          : ids::server_configuration_certificate_groups_default_application_group),
                         "the certificate could not be written");
      return sc;
    }
    new_keys_.erase(it->first);
    it = tx_->certificates.erase(it);  // applied: a later failure leaves only what is still to do
  }
  tx_.reset();
  diagnostics_.ended(as, now, status::good);
  return status::good;
}

status_code server_configuration::cancel_changes(const config_caller& who) {
  // Part 12 §7.10.11: only the session that made the transaction may drop it; a key
  // CreateSigningRequest made stays (its certificate may still come).
  if (!tx_) return status::bad_nothing_to_do;
  if (tx_->session != who.session) return status::bad_session_id_invalid;
  spdlog::info("CancelChanges: the transaction of session {} is dropped{}{}", tx_->session,
               tx_->certificates.empty() ? std::string{} : fmt::format("; {} certificate(s) not applied", tx_->certificates.size()),
               !tx_->trust.empty() ? "; the trust list written is not applied" : "");
  tx_.reset();
  if (space_) diagnostics_.ended(*space_, now_, status::bad_request_cancelled_by_client);
  return status::good;
}

status_code server_configuration::get_certificates(std::span<const variant> in, std::vector<variant>& out) const {
  // Part 12 §7.10.8 GetCertificates(CertificateGroupId) -> CertificateTypeIds[], Certificates[]:
  // the certificates in use now (not one waiting for ApplyChanges), each with its type.
  const auto* group = in.empty() ? nullptr : in[0].get_if<node_id>();
  if (!group) return status::bad_invalid_argument;
  const auto named = config_group_named(group);
  if (!named) return status::bad_invalid_argument;
  ua_array<node_id> types;
  ua_array<byte_string> certs;
  const auto add = [&](std::uint32_t type, const security::certificate& c) {
    if (!c) return;
    types.push_back(node_id(0, type));
    byte_string b;
    b.assign(c.der().data(), c.der().size());
    certs.push_back(std::move(b));
  };
  const auto& sec = *config_.security;
  // DefaultHttpsGroup: the opc.wss TLS certificate; DefaultUserTokenGroup has none (0078).
  if (named != certificate_group::application) {
    if (named == certificate_group::https && sec.https)
      if (const auto id = sec.https->current.get()) add(ids::https_certificate_type, id->certificate);
    out.emplace_back(std::move(types));
    out.emplace_back(std::move(certs));
    return status::good;
  }
  add(ids::rsa_sha256_application_certificate_type, sec.own()->certificate);
  for (const auto& e : sec.ecc_identities)
    for (const auto& p : security::all_policies())
      if (p.curve == e.curve) {
        if (const auto id = sec.identity_for(p)) add(ecc_certificate_type(e.curve), id->certificate);
        break;
      }
  out.emplace_back(std::move(types));
  out.emplace_back(std::move(certs));
  return status::good;
}

status_code server_configuration::reset_to_defaults(address_space& as, file_objects& files, date_time now) {
  // Part 12 §7.10.13: the application's configuration back to its defaults, which configuration
  // sets (not a factory reset): the trust list is the plant file's pki.trust certificates alone
  // (no issuers, no CRLs), and the certificate a new self-signed one as the first start makes it
  // (Annex G's setup). Open TrustList handles end and a waiting transaction is dropped. It takes
  // effect as ApplyChanges would: new channels at once, running sessions keep theirs; the server
  // does not shut down (docs/decisions/0064).
  const auto current = config_.security->own();
  security::certificate_request request;
  request.application_uri = config_.application_uri;
  request.host_names = config_.host_names.empty() ? current->certificate.host_names() : config_.host_names;
  if (current->private_key) request.key_bits = static_cast<unsigned>(current->private_key.bits());
  auto fresh = security::create_self_signed(request, now);
  if (!fresh) return fresh.error();
  security::trust_list_contents lists;
  lists.specified_lists = security::trust_masks::all;
  lists.trusted_certificates = config_.default_trust;
  if (const auto sc = security::write_trust_list(config_.security->store->root(), lists); sc.is_bad()) return sc;
  // The application group's; DefaultHttpsGroup and DefaultUserTokenGroup keep theirs (0078).
  auto& application = group(certificate_group::application);
  files.close_all(application.trust_list, as);
  if (tx_) {
    spdlog::info("ResetToServerDefaults: the transaction of session {} is dropped", tx_->session);
    diagnostics_.ended(as, now, status::bad_request_cancelled_by_client);
  }
  tx_.reset();
  new_keys_.clear();
  trust_list_changed(application, as, files, now);
  if (const auto sc = install_identity(
          std::make_shared<const own_identity>(own_identity{fresh->cert, {}, std::move(fresh->private_key)}),
          "ResetToServerDefaults", {});
      sc.is_bad())
    return sc;
  spdlog::warn("ResetToServerDefaults: the trust list holds the {} configured certificate(s) only, the server certificate is "
               "a new self-signed one [{}]: clients that trusted the old one must trust it again",
               config_.default_trust.size(), fresh->cert.describe());
  // The ECC certificates too, one per curve the server has (as its first start makes them,
  // docs/decisions/0055): each a new self-signed one on its curve.
  for (const auto& e : config_.security->ecc_identities) {
    request.curve = e.curve;
    auto ecc = security::create_self_signed(request, now);
    if (!ecc) return ecc.error();
    if (const auto sc = install_identity(
            std::make_shared<const own_identity>(own_identity{ecc->cert, {}, std::move(ecc->private_key)}),
            "ResetToServerDefaults", e.curve);
        sc.is_bad())
      return sc;
  }
  return status::good;
}

}  // namespace uactor::actors

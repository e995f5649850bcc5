// Part 12 §7.10 ServerConfiguration and §7.8 TrustListType (server_configuration.hpp).
#include "engine/server/certificates/server_configuration.hpp"

#include <filesystem>
#include <fstream>
#include <utility>

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include "engine/server/access/roles.hpp"
#include "protocol/byte_buffer.hpp"
#include "protocol/codec.hpp"
#include "security/csr.hpp"
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

std::string server_configuration::trust_list_bytes(std::uint32_t masks) const {
  const auto lists = security::read_trust_list(config_.security->store->root(), masks);
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
  trust_list_ = as.find(node_id(0, ids::server_configuration_certificate_groups_default_application_group_trust_list));
  if (configuration_ == no_node || trust_list_ == no_node || !config_.security || !config_.security->store)
    return status::bad_node_id_unknown;
  // Part 12 §7.10.3-5: what this server does.
  config_assign(as, as.find(node_id(0, ids::server_configuration_server_capabilities)),
                variant(ua_array<ua_string>{ua_string("NA")}));
  config_assign(as, as.find(node_id(0, ids::server_configuration_supported_private_key_formats)),
                variant(ua_array<ua_string>{ua_string("PEM"), ua_string("PFX")}));
  config_assign(as, as.find(node_id(0, ids::server_configuration_max_trust_list_size)),
                variant(config_.max_trust_list_size));
  config_assign(as,
                as.find(node_id(0, ids::server_configuration_certificate_groups_default_application_group_certificate_types)),
                variant(ua_array<node_id>{node_id(0, ids::rsa_sha256_application_certificate_type)}));
  file_options o;
  o.writable = true;
  o.store_on_close = false;
  o.max_size = config_.max_trust_list_size;
  // MaxByteStringLength (1.05, optional) with its namespace-0 NodeId, before attach() finds it.
  config_optional_property(as, trust_list_,
                           ids::server_configuration_certificate_groups_default_application_group_trust_list_max_byte_string_length,
                           "MaxByteStringLength", node_id(0, ids::u_int32), variant(files.limits().max_read_length));
  auto content = std::make_shared<trust_list_file>([this] { return trust_list_bytes(security::trust_masks::all); });
  if (const auto sc = files.attach(trust_list_, std::move(content), o, as); sc.is_bad()) return sc;
  last_update_ = config_child(as, trust_list_, "LastUpdateTime");
  config_assign(as, last_update_, variant(now));
  // UpdateFrequency (1.05, optional): how often a CertificateManager should look; one day.
  config_optional_property(as, trust_list_,
                           ids::server_configuration_certificate_groups_default_application_group_trust_list_update_frequency,
                           "UpdateFrequency", node_id(0, 290 /* Duration */), variant(86'400'000.0));
  return status::good;
}

void server_configuration::trust_list_changed(address_space& as, file_objects& files, date_time now) {
  trust_changed_ = true;
  config_assign(as, last_update_, variant(now));
  files.refresh_size(trust_list_, as);
}

status_code server_configuration::call(const config_caller& who, node_index object, node_index method,
                                       std::span<const variant> in, std::vector<variant>& out, address_space& as,
                                       file_objects& files, date_time now) {
  const std::string_view name = as.at(method).browse_name;
  const std::uint32_t method_id = as.at(method).id.to_node_id().numeric();
  // The audit event of each method (refusals included: who tried is what an auditor wants).
  std::uint32_t event = ids::trust_list_updated_audit_event_type;
  if (object != trust_list_)
    event = name == "UpdateCertificate" || name == "ApplyChanges" ? ids::certificate_updated_audit_event_type
            : name == "CreateSigningRequest"                     ? ids::certificate_update_requested_audit_event_type
                                                                 : ids::audit_update_method_event_type;
  const std::string audit_name = (object == trust_list_ ? "TrustList/" : "ServerConfiguration/") + std::string(name);
  audit_ = {};
  // Part 12 §7.2 (and each method's Bad_UserAccessDenied): the SecurityAdmin role, over an
  // encrypted channel, for everything here, reading the trust list included.
  if (!who.roles.has(authz::well_known::security_admin)) {
    audit_ = {event, method_id, audit_name, status::bad_user_access_denied};
    return status::bad_user_access_denied;
  }
  if (who.mode != message_security_mode::sign_and_encrypt) {
    audit_ = {event, method_id, audit_name, status::bad_security_mode_insufficient};
    return status::bad_security_mode_insufficient;
  }
  if (object == trust_list_) return trust_list_call(who, name, in, out, as, files, now, method);

  status_code sc = status::bad_not_implemented;
  if (name == "UpdateCertificate") {
    sc = update_certificate(in, out);
  } else if (name == "CreateSigningRequest") {
    sc = create_signing_request(in, out);
  } else if (name == "ApplyChanges") {
    sc = apply_changes();
  } else if (name == "CancelChanges") {
    // Part 12 §7.10.11: what UpdateCertificate holds for ApplyChanges is dropped (a key
    // CreateSigningRequest made stays: its certificate may still come). The trust list has no
    // transaction (its methods apply at once): nothing of it waits.
    sc = pending_ ? status::good : status::bad_nothing_to_do;
    if (pending_) spdlog::info("CancelChanges: {} will not be applied", pending_->certificate.describe());
    pending_.reset();
  } else if (name == "GetRejectedList") {
    const auto rejected = security::rejected_certificates(config_.security->store->root(), config_.max_rejected);
    out.emplace_back(to_byte_strings(rejected));
    sc = status::good;
  }
  audit_ = {event, method_id, audit_name, sc};
  return sc;
}

status_code server_configuration::trust_list_call(const config_caller& who, std::string_view name,
                                                  std::span<const variant> in, std::vector<variant>& out,
                                                  address_space& as, file_objects& files, date_time now,
                                                  node_index method) {
  const std::uint32_t method_id = as.at(method).id.to_node_id().numeric();
  const auto audited = [&](status_code sc) {
    audit_ = {ids::trust_list_updated_audit_event_type, method_id, "TrustList/" + std::string(name), sc};
    return sc;
  };
  const fs::path pki = config_.security->store->root();
  if (name == "Open") {
    // Part 12 §7.8.1: Read (1) or Write + EraseExisting (6), nothing else.
    const auto* mode = in.empty() ? nullptr : in[0].get_if<std::uint8_t>();
    if (!mode || (*mode != open_mode::read && *mode != (open_mode::write | open_mode::erase_existing)))
      return status::bad_invalid_argument;
    return files.call(who.session, trust_list_, method, in, out, as);
  }
  if (name == "OpenWithMasks") {
    // Part 12 §7.8.2.2: opened for reading, holding only the lists the masks name.
    const auto* masks = in.empty() ? nullptr : in[0].get_if<std::uint32_t>();
    if (!masks) return status::bad_invalid_argument;
    const std::string bytes = trust_list_bytes(*masks & security::trust_masks::all);
    auto opened = files.open(who.session, trust_list_, open_mode::read, as, &bytes);
    if (!opened) return opened.error();
    out.emplace_back(*opened);
    return status::good;
  }
  if (name == "CloseAndUpdate") {
    const auto* handle = in.empty() ? nullptr : in[0].get_if<std::uint32_t>();
    if (!handle) return status::bad_invalid_argument;
    // The handle ends whatever follows: "If the file cannot be processed this Method still closes
    // the file and discards the data before returning an error" (Part 12 §7.8.2.3).
    auto written = files.take(who.session, trust_list_, *handle, as);
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
    lists.specified_lists = t.specified_lists;
    lists.trusted_certificates = from_byte_strings(t.trusted_certificates);
    lists.trusted_crls = from_byte_strings(t.trusted_crls);
    lists.issuer_certificates = from_byte_strings(t.issuer_certificates);
    lists.issuer_crls = from_byte_strings(t.issuer_crls);
    std::string why;
    if (const auto sc = security::check_trust_list(lists, &why); sc.is_bad()) {
      spdlog::warn("TrustList CloseAndUpdate refused ({}): {}; the trust list is unchanged", sc.name(), why);
      return audited(sc);
    }
    if (const auto sc = security::write_trust_list(pki, lists); sc.is_bad()) return audited(sc);
    trust_list_changed(as, files, now);
    spdlog::info("TrustList updated by CloseAndUpdate: {} trusted, {} issuer certificate(s) in the lists written",
                 lists.trusted_certificates.size(), lists.issuer_certificates.size());
    // No transactions: applied now, new channels validate against it at once (Part 12 §7.8.2.3).
    out.emplace_back(false);
    return audited(status::good);
  }
  if (name == "AddCertificate" || name == "RemoveCertificate") {
    // Part 12 §7.8.2.4-5: "This Method cannot be called if the containing TrustList Object is open."
    if (files.open_count(trust_list_) > 0) return audited(status::bad_invalid_state);
    const auto* trusted = in.size() > 1 ? in[1].get_if<bool>() : nullptr;
    if (!trusted) return status::bad_invalid_argument;
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
    if (sc.is_good()) trust_list_changed(as, files, now);
    return audited(sc);
  }
  // Close, Read, Write, GetPosition, SetPosition: FileType's.
  return files.call(who.session, trust_list_, method, in, out, as);
}

status_code server_configuration::update_certificate(std::span<const variant> in, std::vector<variant>& out) {
  // Part 12 §7.10.4 UpdateCertificate(CertificateGroupId, CertificateTypeId, Certificate,
  // IssuerCertificates, PrivateKeyFormat, PrivateKey) -> ApplyChangesRequired.
  if (in.size() < 6) return status::bad_invalid_argument;
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
  if (type && !type->is_null() && !(*type == node_id(0, ids::rsa_sha256_application_certificate_type)) &&
      !(*type == node_id(0, 12557)))  // ApplicationCertificateType: the abstract base some tools send
    return status::bad_invalid_argument;
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
  // The key: a new one given here, the one CreateSigningRequest made, or the current one.
  const auto current = config_.security->own();
  security::rsa_key key;
  const bool key_given = key_format && !key_format->empty() && key_bytes && !key_bytes->empty();
  if (key_given) {
    auto k = security::private_key_from(key_format->view(), bytes_in(*key_bytes));
    if (!k) return k.error();
    key = std::move(*k);
  } else if (new_key_ && security::key_matches(*cert, new_key_)) {
    key = new_key_;
  } else {
    key = current->private_key;
  }
  if (!security::key_matches(*cert, key)) {
    spdlog::warn("UpdateCertificate refused: the certificate's public key is not the server's private key "
                 "(Bad_SecurityChecksFailed) [{}]", cert->describe());
    return status::bad_security_checks_failed;
  }
  // The issuers must complete the chain: each certificate is issued by the next.
  if (!issuers.empty() && !security::issued_by(issuers.front(), *cert)) {
    spdlog::warn("UpdateCertificate refused: the first issuer certificate did not issue it (Bad_SecurityChecksFailed)");
    return status::bad_security_checks_failed;
  }
  pending_ = std::make_shared<const own_identity>(own_identity{*cert, std::move(issuers), std::move(key)});
  spdlog::info("UpdateCertificate: {} waits for ApplyChanges", cert->describe());
  // Part 12 §7.10.4: the new certificate is used after ApplyChanges.
  out.emplace_back(true);
  return status::good;
}

status_code server_configuration::create_signing_request(std::span<const variant> in, std::vector<variant>& out) {
  // Part 12 §7.10.7 CreateSigningRequest(CertificateGroupId, CertificateTypeId, SubjectName,
  // RegeneratePrivateKey, Nonce) -> CertificateRequest.
  if (in.size() < 5) return status::bad_invalid_argument;
  const auto* group = in[0].get_if<node_id>();
  const auto* subject = in[2].get_if<ua_string>();
  const auto* regenerate = in[3].get_if<bool>();
  const auto* nonce = in[4].get_if<byte_string>();
  const node_id default_group(0, ids::server_configuration_certificate_groups_default_application_group);
  if (group && !group->is_null() && !(*group == default_group)) return status::bad_invalid_argument;
  const auto current = config_.security->own();
  security::rsa_key key = current->private_key;
  if (regenerate && *regenerate) {
    // "The Nonce ... shall be at least 32 bytes" when a new key is made (§7.10.7): entropy the
    // server may mix in; OpenSSL's generator needs none, the length is still checked.
    if (nonce && !nonce->empty() && nonce->size() < 32) return status::bad_invalid_argument;
    auto fresh = security::rsa_key::generate(static_cast<unsigned>(current->private_key.bits()));
    if (!fresh) return fresh.error();
    key = std::move(*fresh);
    new_key_ = key;
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

status_code server_configuration::apply_changes() {
  // Part 12 §7.10.9: what UpdateCertificate prepared takes effect; nothing pending is nothing to do.
  if (!pending_) return status::good;
  const auto store_root = config_.security->store->root();
  const fs::path cert_file = store_root / "own" / "certs" / (config_.own_name + ".der");
  const fs::path key_file = store_root / "own" / "private" / (config_.own_name + ".pem");
  // The certificate in use stays next to the new one: the rollback an operator may do by hand.
  std::error_code ec;
  fs::copy_file(cert_file, cert_file.string() + ".previous", fs::copy_options::overwrite_existing, ec);
  fs::copy_file(key_file, key_file.string() + ".previous", fs::copy_options::overwrite_existing, ec);
  ::chmod((key_file.string() + ".previous").c_str(), 0600);  // a private key, as own/private/ keeps it
  const auto chain = pending_->chain();
  const std::string pem = pending_->private_key.to_private_pem();
  if (!config_write_file(key_file, pem, true) ||
      !config_write_file(cert_file, std::string_view(reinterpret_cast<const char*>(chain.data()), chain.size()), false)) {
    spdlog::error("ApplyChanges: cannot write the new certificate into {}: nothing changed", cert_file.parent_path().string());
    return status::bad_internal_error;
  }
  config_.security->replaced.set(pending_);
  spdlog::info("ApplyChanges: new channels use {}; running sessions keep theirs", pending_->certificate.describe());
  pending_.reset();
  new_key_ = {};
  identity_changed_ = true;
  return status::good;
}

}  // namespace uactor::actors

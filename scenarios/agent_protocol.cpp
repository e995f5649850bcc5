#include "scenarios/agent_protocol.hpp"

#include <openssl/crypto.h>

#include <fstream>
#include <iterator>
#include <vector>

#include "scenarios/agent_wire.hpp"
#include "security/hmac_sha256.hpp"
#include "security/keys.hpp"

namespace uactor::scenarios {
namespace {

std::span<const std::uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::string mac(const std::string& secret, std::string_view label, const std::string& first, const std::string& second) {
  std::string data(label);
  data += first;
  data += second;
  const security::hmac_sha256 h(bytes(secret));
  std::string out(security::hmac_sha256_size, '\0');
  h.compute(bytes(data), reinterpret_cast<std::uint8_t*>(out.data()));
  return out;
}

}  // namespace

std::string agent_version() {
  return std::string(UACTOR_VERSION) + " (agent protocol " + std::to_string(agent_protocol_version) + ")";
}

std::optional<std::string> read_secret_file(const std::string& path, std::string& error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    error = "cannot read the secret file " + path;
    return std::nullopt;
  }
  std::string s;
  char buf[4097];
  f.read(buf, sizeof buf);
  s.assign(buf, static_cast<std::size_t>(f.gcount()));
  if (s.size() > 4096) {
    error = "the secret file " + path + " is longer than 4 KiB";
    return std::nullopt;
  }
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  if (s.size() < 16) {
    error = "the secret in " + path + " is shorter than 16 bytes";
    return std::nullopt;
  }
  return s;
}

std::string agent_proof(const std::string& secret, const std::string& coordinator_nonce, const std::string& agent_nonce) {
  return mac(secret, "uactor agent: agent proof\n", coordinator_nonce, agent_nonce);
}

std::string coordinator_proof(const std::string& secret, const std::string& agent_nonce,
                              const std::string& coordinator_nonce) {
  return mac(secret, "uactor agent: coordinator proof\n", agent_nonce, coordinator_nonce);
}

bool same_proof(const std::string& a, const std::string& b) {
  return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool split_host_port(const std::string& s, std::string& host, std::uint16_t& port) {
  const auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  host = s.substr(0, colon);
  try {
    std::size_t used = 0;
    const auto p = std::stoul(s.substr(colon + 1), &used);
    if (used != s.size() - colon - 1 || p > 65535) return false;
    port = static_cast<std::uint16_t>(p);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

std::string random_nonce() {
  std::string out(agent_nonce_size, '\0');
  security::fill_random({reinterpret_cast<std::uint8_t*>(out.data()), out.size()});
  return out;
}

}  // namespace uactor::scenarios

#include "engine/common/channel_crypto.hpp"

#include "security/keys.hpp"


namespace uactor::actors {

void token_crypto::install(std::uint32_t token_id, const security::security_policy& policy,
                           ua::message_security_mode mode, const security::symmetric_keys& send,
                           const security::symmetric_keys& receive) {
  entry& e = entries_[next_];
  next_ = (next_ + 1) % entries_.size();
  e.token_id = token_id;
  e.send.emplace(policy, mode, send);
  e.receive.emplace(policy, mode, receive);
}

token_crypto::entry* token_crypto::find(std::uint32_t token_id) noexcept {
  if (token_id == 0) return nullptr;
  for (auto& e : entries_)
    if (e.token_id == token_id && e.send) return &e;
  return nullptr;
}

security::symmetric_context* token_crypto::sender(std::uint32_t token_id) noexcept {
  auto* e = find(token_id);
  return e ? &*e->send : nullptr;
}

security::symmetric_context* token_crypto::receiver(std::uint32_t token_id) noexcept {
  auto* e = find(token_id);
  return e ? &*e->receive : nullptr;
}

std::vector<std::uint8_t> signed_data(std::span<const std::uint8_t> certificate, std::span<const std::uint8_t> nonce) {
  std::vector<std::uint8_t> v(certificate.begin(), certificate.end());
  v.insert(v.end(), nonce.begin(), nonce.end());
  return v;
}

ua::byte_string random_nonce(std::size_t length) {
  std::uint8_t bytes[64];
  if (length > sizeof bytes) length = sizeof bytes;
  security::fill_random({bytes, length});
  return to_byte_string({bytes, length});
}

void protect_chunks(security::symmetric_context& ctx, ua::byte_buffer& out, std::size_t from) {
  std::uint8_t* const base = out.data();
  std::size_t at = from;
  while (at + 8 <= out.size()) {
    std::uint32_t size = 0;  // MessageSize, little endian (Part 6 §7.1.2.2)
    size = std::uint32_t{base[at + 4]} | std::uint32_t{base[at + 5]} << 8 | std::uint32_t{base[at + 6]} << 16 |
           std::uint32_t{base[at + 7]} << 24;
    ctx.protect(std::span<std::uint8_t>(base + at, size), symmetric_header_size);
    at += size;
  }
}

}  // namespace uactor::actors

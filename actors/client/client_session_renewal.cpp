// The security token's renewal before it runs out (Part 6 §6.7.4, engine/client/token_renewal.hpp).

#include "actors/client/client_session.hpp"
#include "actors/common/self_send.hpp"

namespace uactor::actors {

void client_session::schedule_renewal(const instant& now) {
  delayed_send_to_self(self_, token_renewal::wait(st().link.channel().renewal_due(), now.steady), client_renew_atom::value,
                       st().generation);
}

void client_session::on_renew(std::uint32_t gen) {
  auto& s = st();
  if (s.finished || gen != s.generation || !s.link.has_channel()) return;
  auto& channel = s.link.channel();
  const auto now = now_instant();
  if (!channel.needs_renewal(now.steady)) {
    if (channel.is_open()) schedule_renewal(now);
    return;
  }
  if (const auto sc = channel.write_open(now); sc.is_bad()) {
    lose(sc, "Renew");
    return;
  }
  s.renewal.sent(now.steady);
  flush();
}

}  // namespace uactor::actors

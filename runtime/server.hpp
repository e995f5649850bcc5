// The server as an application embeds it: an actor system of its own, the listener, the session
// host with namespace 0 and the demo namespace, and the demo writers. The object owns all of it;
// stop() (or the destructor) ends it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "protocol/expected.hpp"
#include "uactor/server_plan.hpp"

namespace uactor::app {

class server {
public:
  // Listens on plan.listen_address:plan.port (port 0: an ephemeral one) and serves until stop().
  // Bad_ResourceUnavailable when the port cannot be bound.
  static ua::expected<std::unique_ptr<server>> start(const server_plan& plan);

  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  std::uint16_t port() const noexcept;
  // opc.tcp://<host name>:<port>, the port it really listens on.
  std::string endpoint_url() const;
  // Stops accepting, closes every connection, waits for the actors to end. Idempotent.
  void stop();

private:
  struct impl;
  explicit server(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace uactor::app

// The loopback floor (docs/performance.md "The load harness"): raw TCP request/response with the
// byte sizes of the chosen Read, the same sessions and inflight, so that every figure can be
// stated as a fraction of what the kernel allows on this machine. Both sides are as lean as a
// server can be: one epoll thread, one recv per readiness, one send per batch of responses,
// nothing allocated per request.
#pragma once

#include <memory>

#include "scenarios/driver.hpp"
#include "scenarios/requests.hpp"

namespace uactor::scenarios {

// `uactor-load --serve-floor`: listens on 127.0.0.1, an ephemeral port, prints
// `listening on tcp://127.0.0.1:PORT`, answers every `sizes.request` bytes received with
// `sizes.response` bytes, prints `stats <fields>` on SIGUSR1 and ends on SIGTERM/SIGINT.
int serve_floor(wire_sizes sizes);

// The client side: --sessions connections to `host:port`, --inflight requests outstanding on each.
std::unique_ptr<load_driver> make_floor_driver(const load_options& options, wire_sizes sizes, std::string host,
                                               unsigned port);

}  // namespace uactor::scenarios

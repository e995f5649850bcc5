// The live values of namespace 0's Server object (i=2253, Part 5 §6.3.1): NamespaceArray,
// ServerArray, ServerStatus and its children, ServiceLevel, and the ServerCapabilities the services
// enforce. Plain functions over the address space, which keeps the values they set.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "engine/server/services/service_limits.hpp"
#include "protocol/address_space.hpp"
#include "uactor/redundancy.hpp"

namespace uactor::actors {

inline constexpr std::string_view ua_namespace_uri = "http://opcfoundation.org/UA/";

struct server_info {
  std::string application_uri;
  std::string product_uri = "urn:uactor";
  std::string product_name = "uactor";
  std::string manufacturer = "uactor";
  std::string software_version;
  std::string build_number;
  ua::date_time build_date;
};

// Sets, each with source and server timestamp `start`:
//   NamespaceArray i=2255 = namespace_uris, with "http://opcfoundation.org/UA/" put first when it is
//     not already (so {"urn:uactor:demo"} and {UA, "urn:uactor:demo"} give the same array);
//   ServerArray i=2254 = [application_uri];
//   ServerStatus i=2256 (a ServerStatusDataType: StartTime = CurrentTime = start, State Running, the
//     BuildInfo) and its children i=2257-2266, SecondsTillShutdown i=2992 = 0, ShutdownReason i=2993;
//   ServiceLevel i=2267 = 255 (Part 5 §6.3.1: full service);
//   ServerCapabilities: OperationLimits MaxNodesPerRead/Write/MethodCall/Browse/RegisterNodes/
//     TranslateBrowsePathsToNodeIds (i=11705, 11707, 11709-11712) and MaxBrowseContinuationPoints
//     (i=2735) from `limits` (Part 5 §6.3.11: 0 would mean "no limit", so a limit above UInt32 is
//     clamped, not wrapped).
// Throws std::logic_error when namespace 0 is not loaded (a start-up error).
void init_server_object(ua::address_space& as, const server_info& info, const services::service_limits& limits,
                        std::span<const std::string> namespace_uris, ua::date_time start);

// Part 5 §6.3.7/§6.3.8, Part 4 §6.6.2: the Server object's ServerRedundancy (i=2296). Namespace 0
// makes it a ServerRedundancyType (i=2034) with RedundancySupport (i=3709) only. With support none
// it stays so (RedundancySupport None). Otherwise it becomes a NonTransparentRedundancyType
// (i=2039): its HasTypeDefinition is replaced, and ServerUriArray (i=11314, which namespace 0
// holds unattached) becomes its property with `plan.server_uris`. ServiceLevel = plan.service_level.
// std::logic_error when namespace 0 is not loaded.
void init_server_redundancy(ua::address_space& as, const redundancy_plan& plan, ua::date_time now);

// ServiceLevel (i=2267, Part 5 §6.3.1, sub-ranges Part 4 §6.6.2.4.2) = level, timestamped `now`:
// monitored items of it are notified like any value change.
void set_service_level(ua::address_space& as, std::uint8_t level, ua::date_time now);

// Server.ServerStatus.CurrentTime (i=2258) and the CurrentTime inside ServerStatus (i=2256) = now:
// called before a Read that asks for them, or on a timer. Rebuilding the ServerStatus value copies
// its BuildInfo strings (the store hands out no mutable value), so it allocates a little: keep it off
// a per-request path that does not read those nodes.
void update_server_time(ua::address_space& as, ua::date_time now);

// Sampling (Part 4 §5.13.1.2): `fastest_ms` is the fastest cyclic rate the server samples at (its
// subscription tick). ServerCapabilities.MinSupportedSampleRate (i=2272, a Duration) = fastest_ms,
// and CurrentTime (i=2258), which changes continuously and is refreshed on that tick (not on each
// change: it is not exception-based), gets it as MinimumSamplingInterval, so that a
// samplingInterval of 0 on it is revised to what it really gets. Variables whose values are pushed
// (writes, writers, the application) keep 0: every change is reported (exception-based).
// Does nothing for nodes namespace 0 lacks.
void init_server_sampling(ua::address_space& as, double fastest_ms, ua::date_time now);

// The index of `uri` in the NamespaceArray (i=2255), appended when it is not there yet (Part 3
// §8.2.2: indices of registered namespaces never change while the server runs).
// std::logic_error when namespace 0 is not loaded.
std::uint16_t register_namespace(ua::address_space& as, std::string_view uri, ua::date_time now);

}  // namespace uactor::actors

// The start that every service over a list of operations shares (Part 4 §7.33 ResponseHeader,
// and the Bad_NothingToDo / Bad_TooManyOperations rule of each service's section).
#pragma once

#include <cstddef>

#include "uactor/ua/status_codes.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::services {

// Refuses the whole request with `sc`: no results. The results vector keeps its capacity.
template <class Response>
void refuse_request(Response& resp, ua::status_code sc) {
  resp.response_header.service_result = sc;
  resp.results.clear();
}

// Answers the request's handle, clears the diagnostics, and refuses an empty list
// (Bad_NothingToDo) or one longer than `max` (Bad_TooManyOperations). True when the operations
// may run; the caller then sizes the results (resize keeps a previous call's elements, so their
// storage is reused).
template <class Response>
bool start_operations(const ua::request_header& req, Response& resp, std::size_t count, std::size_t max) {
  resp.response_header.request_handle = req.request_handle;
  resp.response_header.service_result = ua::status::good;
  resp.diagnostic_infos.clear();
  if (count == 0) { refuse_request(resp, ua::status::bad_nothing_to_do); return false; }
  if (count > max) { refuse_request(resp, ua::status::bad_too_many_operations); return false; }
  return true;
}

}  // namespace uactor::services

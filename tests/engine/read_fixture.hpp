// The address space the service tests (read, browse, write) run against: namespace 0 and a few
// demo nodes in ns=1 under Objects. Each call builds a fresh store the caller owns.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "protocol/address_space.hpp"

namespace uactor::test {

inline constexpr std::uint8_t read_only = 1;     // CurrentRead
inline constexpr std::uint8_t read_write = 3;    // CurrentRead | CurrentWrite
inline constexpr std::uint8_t write_all = 0x63;  // and StatusWrite | TimestampWrite

inline ua::node_id demo(std::string_view name) { return ua::node_id::string(1, name); }

inline void add_demo_variable(ua::address_space& as, std::string_view name, std::uint32_t data_type,
                              std::int32_t value_rank, ua::variant value, std::uint8_t access) {
  ua::node_spec s;
  s.id = demo(name);
  s.cls = ua::node_class::variable;
  s.browse_ns = 1;
  s.browse_name = name;
  s.data_type = ua::node_id(0, data_type);
  s.value_rank = value_rank;
  s.value.set_value(std::move(value));
  s.access_level = s.user_access_level = access;
  if (!as.add_node(std::move(s))) throw std::logic_error("demo node");
  if (as.add_reference(ua::node_id(0, 85), ua::node_id(0, 35), demo(name)).is_bad())  // Objects Organizes
    throw std::logic_error("demo reference");
}

// Namespace 0 plus:
//   demo.int32_array   Int32[10] {0..9}, read/write          demo.double   Double 3.5, read only
//   demo.string        String "hello world", read/write      demo.secret   Int32, not readable
//   demo.int32         Int32 7, read/write                   demo.state    ServerState (an enum), read/write
//   demo.number        Number, read/write                    demo.time     UtcTime, read/write
//   demo.full          Int32, status and timestamps writable demo.folder  an Object whose
//                                                              DisplayName/Description are writable
inline ua::address_space demo_address_space() {
  ua::address_space as;
  ua::load_namespace0(as);
  add_demo_variable(as, "demo.int32_array", 6, 1, ua::ua_array<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, read_write);
  add_demo_variable(as, "demo.double", 11, -1, 3.5, read_only);
  add_demo_variable(as, "demo.string", 12, -1, ua::ua_string("hello world"), read_write);
  add_demo_variable(as, "demo.secret", 6, -1, std::int32_t{42}, 0);
  add_demo_variable(as, "demo.int32", 6, -1, std::int32_t{7}, read_write);
  add_demo_variable(as, "demo.state", 852, -1, std::int32_t{0}, read_write);
  add_demo_variable(as, "demo.number", 26, -1, 1.0, read_write);
  add_demo_variable(as, "demo.time", 294, -1, ua::date_time{}, read_write);
  add_demo_variable(as, "demo.full", 6, -1, std::int32_t{0}, write_all);
  ua::node_spec folder;
  folder.id = demo("demo.folder");
  folder.cls = ua::node_class::object;
  folder.browse_ns = 1;
  folder.browse_name = "demo.folder";
  folder.write_mask = folder.user_write_mask = 32 | 64;  // Description, DisplayName
  if (!as.add_node(std::move(folder))) throw std::logic_error("demo folder");
  if (as.add_reference(ua::node_id(0, 85), ua::node_id(0, 35), demo("demo.folder")).is_bad())
    throw std::logic_error("demo reference");
  return as;
}

// The store for tests that only read it: built once.
inline const ua::address_space& shared_demo_address_space() {
  static const ua::address_space as = demo_address_space();
  return as;
}

}  // namespace uactor::test

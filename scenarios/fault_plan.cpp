#include "scenarios/fault_plan.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

namespace uactor::scenarios {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

// "500ms", "2s", "1.5s", "1m": positive, at most an hour, at least a millisecond.
std::string parse_duration(std::string_view item, std::string_view text, std::chrono::milliseconds& out) {
  const auto bad = [&](const std::string& why) {
    return std::string(item) + ": '" + std::string(text) + "' " + why;
  };
  std::size_t unit_at = 0;
  while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) || text[unit_at] == '.' ||
                                   text[unit_at] == '-' || text[unit_at] == '+'))
    ++unit_at;
  const auto number = text.substr(0, unit_at);
  const auto unit = text.substr(unit_at);
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value))
    return bad("is not a duration (a number and a unit: 500ms, 2s, 1.5s, 1m)");
  double ms = 0;
  if (unit == "ms") ms = value;
  else if (unit == "s") ms = value * 1000;
  else if (unit == "m") ms = value * 60'000;
  else if (unit.empty()) return bad("has no unit (ms, s or m: 2s, 500ms)");
  else return bad("has an unknown unit '" + std::string(unit) + "' (ms, s or m)");
  if (value <= 0) return bad("is not positive");
  if (ms < 1) return bad("is shorter than a millisecond");
  if (ms > 3'600'000) return bad("is longer than an hour");
  out = std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(ms)));
  return {};
}

std::string fmt_ms(std::chrono::milliseconds d) {
  const auto n = d.count();
  if (n % 1000 == 0) return std::to_string(n / 1000) + "s";
  return std::to_string(n) + "ms";
}

}  // namespace

std::string parse_faults(std::string_view text, fault_plan& out) {
  out = {};
  if (text.empty()) return "an empty list (e.g. cut:2s or cut:2s,stall:3s)";
  for (const auto item : split(text, ',')) {
    const auto item_s = std::string(item);
    if (item.empty()) return "an empty fault in '" + std::string(text) + "' (two commas, or one at an end)";
    const auto parts = split(item, ':');
    fault_spec f;
    if (parts[0] == "cut") {
      f.type = fault_type::cut;
      if (parts.size() < 2) return item_s + ": a cut needs its period (cut:EVERY, e.g. cut:2s)";
      if (auto e = parse_duration(item, parts[1], f.every); !e.empty()) return e;
      bool have_kind = false, have_side = false;
      for (std::size_t i = 2; i < parts.size(); ++i) {
        const auto p = parts[i];
        if ((p == "rst" || p == "fin") && !have_kind) {
          f.how = p == "rst" ? cut_kind::rst : cut_kind::fin;
          have_kind = true;
        } else if ((p == "client" || p == "server" || p == "both") && !have_side) {
          f.side = p == "client" ? cut_side::client : p == "server" ? cut_side::server : cut_side::both;
          have_side = true;
        } else {
          return item_s + ": '" + std::string(p) + "' is not a cut's variant (rst or fin, then client, server or both; each once)";
        }
      }
    } else if (parts[0] == "stall") {
      f.type = fault_type::stall;
      if (parts.size() < 2) return item_s + ": a stall needs its length (stall:T, e.g. stall:3s)";
      if (parts.size() > 3) return item_s + ": too many parts (stall:T or stall:T:EVERY)";
      if (auto e = parse_duration(item, parts[1], f.length); !e.empty()) return e;
      f.every = f.length + default_stall_gap;
      if (parts.size() == 3) {
        if (auto e = parse_duration(item, parts[2], f.every); !e.empty()) return e;
        if (f.every <= f.length) return item_s + ": the period " + std::string(parts[2]) + " is not longer than the stall " + std::string(parts[1]);
      }
    } else {
      return item_s + ": unknown fault '" + std::string(parts[0]) + "' (cut or stall)";
    }
    out.faults.push_back(f);
  }
  return {};
}

std::string describe(const fault_spec& f) {
  if (f.type == fault_type::stall) return "stall:" + fmt_ms(f.length) + ":" + fmt_ms(f.every);
  return "cut:" + fmt_ms(f.every) + (f.how == cut_kind::rst ? ":rst" : ":fin") +
         (f.side == cut_side::both ? ":both" : f.side == cut_side::client ? ":client" : ":server");
}

std::string describe(const fault_plan& p) {
  std::string out;
  for (const auto& f : p.faults) out += (out.empty() ? "" : ",") + describe(f);
  return out;
}

}  // namespace uactor::scenarios

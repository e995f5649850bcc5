#include "scripting/shadow.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace uactor::scripting {

bool same_value(const script_value& a, const script_value& b) noexcept {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<double>(&a)) {
    const double y = std::get<double>(b);
    if (std::isnan(*x) && std::isnan(y)) return true;
    return std::bit_cast<std::uint64_t>(*x) == std::bit_cast<std::uint64_t>(y);
  }
  return a == b;
}

shadow_verdict compare_runs(const eval_result& published, const eval_result& shadow, bool shadow_late) noexcept {
  if (shadow_late || shadow.how == outcome::deadline || published.how == outcome::deadline) return shadow_verdict::timeout;
  if (published.how != shadow.how) return shadow_verdict::mismatch;
  if (published.how != outcome::ok) return shadow_verdict::same;
  return same_value(published.value, shadow.value) ? shadow_verdict::same : shadow_verdict::mismatch;
}

std::string describe(const eval_result& r) {
  std::string s = to_string(r.how);
  if (r.how != outcome::ok) return s;
  std::visit(
      [&s](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) s += " nil";
        else if constexpr (std::is_same_v<T, bool>) s += v ? " true" : " false";
        else if constexpr (std::is_same_v<T, std::int64_t>) s += " " + std::to_string(v);
        else if constexpr (std::is_same_v<T, double>) {
          char buf[40];
          std::snprintf(buf, sizeof buf, " %.17g", v);
          s += buf;
        } else {
          s += " \"" + (v.size() > 64 ? v.substr(0, 64) + "..." : v) + "\"";
        }
      },
      r.value);
  return s;
}

}  // namespace uactor::scripting

#include "scripting/schedule.hpp"

#include <charconv>
#include <vector>

namespace uactor::scripting {

namespace {

struct field_spec {
  const char* name;
  int low;
  int high;
};

constexpr field_spec fields[] = {{"minute", 0, 59}, {"hour", 0, 23}, {"day of month", 1, 31}, {"month", 1, 12},
                                 {"day of week", 0, 7}};

bool number(std::string_view s, int& out) {
  if (s.empty() || s.size() > 4) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// One field ("*/15", "1-5,10"): the values it names set in `bits`; false and `error` otherwise.
template <std::size_t N>
bool parse_field(std::string_view text, const field_spec& f, std::bitset<N>& bits, bool& restricted,
                 std::string& error) {
  const auto fail = [&](const std::string& what) {
    error = std::string(f.name) + ": " + what;
    return false;
  };
  restricted = text.empty() || text[0] != '*';  // as Vixie cron: "*/2" restricts nothing for the day rule
  while (true) {
    const auto comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    int step = 1;
    if (const auto slash = part.find('/'); slash != std::string_view::npos) {
      if (!number(part.substr(slash + 1), step) || step < 1)
        return fail("'" + std::string(part) + "' has no step of 1 or more after '/'");
      part = part.substr(0, slash);
    }
    int low = f.low, high = f.high;
    if (part != "*") {
      const auto dash = part.find('-');
      if (!number(part.substr(0, dash), low)) return fail("'" + std::string(part) + "' is no number, range or *");
      if (dash != std::string_view::npos) {
        if (!number(part.substr(dash + 1), high)) return fail("'" + std::string(part) + "' is no range a-b");
      } else if (step == 1) {
        high = low;  // "5"; "5/10" runs from 5 to the end, as in Vixie cron
      }
      for (const int v : {low, high})
        if (v < f.low || v > f.high)
          return fail(std::to_string(v) + " is out of range " + std::to_string(f.low) + ".." + std::to_string(f.high));
      if (low > high) return fail("the range " + std::string(part) + " runs backwards");
    }
    for (int v = low; v <= high; v += step) bits.set(static_cast<std::size_t>(v == 7 && f.high == 7 ? 0 : v));  // 7: Sunday
    if (comma == std::string_view::npos) return true;
    text = text.substr(comma + 1);
  }
}

std::string_view shortcut(std::string_view text) {
  if (text == "@hourly") return "0 * * * *";
  if (text == "@daily" || text == "@midnight") return "0 0 * * *";
  if (text == "@weekly") return "0 0 * * 0";
  if (text == "@monthly") return "0 0 1 * *";
  if (text == "@yearly" || text == "@annually") return "0 0 1 1 *";
  return text;
}

}  // namespace

std::optional<cron_schedule> cron_schedule::parse(std::string_view text, std::string& error) {
  cron_schedule s;
  if (text.size() > 256) {
    error = "longer than 256 characters";
    return std::nullopt;
  }
  text = shortcut(text);
  std::vector<std::string_view> parts;
  for (std::size_t i = 0; i < text.size();) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) parts.push_back(text.substr(start, i - start));
  }
  if (parts.size() != 5) {
    error = "has " + std::to_string(parts.size()) +
            " fields; a schedule has 5 (minute hour day-of-month month day-of-week) or is @hourly, @daily, "
            "@weekly, @monthly, @yearly";
    return std::nullopt;
  }
  bool unused = false;
  if (!parse_field(parts[0], fields[0], s.minutes_, unused, error) ||
      !parse_field(parts[1], fields[1], s.hours_, unused, error) ||
      !parse_field(parts[2], fields[2], s.days_, s.days_restricted_, error) ||
      !parse_field(parts[3], fields[3], s.months_, unused, error) ||
      !parse_field(parts[4], fields[4], s.weekdays_, s.weekdays_restricted_, error))
    return std::nullopt;
  // 2000-01-01 is a leap year's first day: within 8 years every calendar date there is comes.
  if (!s.search(wall_time(std::chrono::sys_days(std::chrono::year(2000) / 1 / 1)))) {
    error = "names no minute that exists (such as the 30th of February)";
    return std::nullopt;
  }
  return s;
}

bool cron_schedule::day_matches(std::chrono::sys_days day) const {
  const std::chrono::year_month_day ymd(day);
  const bool dom = days_.test(static_cast<unsigned>(ymd.day()));
  const bool dow = weekdays_.test(std::chrono::weekday(day).c_encoding());
  if (days_restricted_ && weekdays_restricted_) return dom || dow;  // Vixie cron: either day field
  return dom && dow;
}

std::optional<wall_time> cron_schedule::search(wall_time t) const {
  using namespace std::chrono;
  const auto start = floor<minutes>(t) + minutes(1);
  sys_days day = floor<days>(start);
  auto minute_of_day = duration_cast<minutes>(start - day).count();
  for (int d = 0; d < 8 * 366; ++d, day += days(1), minute_of_day = 0) {
    if (!months_.test(static_cast<unsigned>(year_month_day(day).month())) || !day_matches(day)) continue;
    for (auto m = minute_of_day; m < 24 * 60; ++m)
      if (hours_.test(static_cast<std::size_t>(m / 60)) && minutes_.test(static_cast<std::size_t>(m % 60)))
        return wall_time(day) + minutes(m);
  }
  return std::nullopt;
}

wall_time cron_schedule::next_after(wall_time t) const {
  // parse() made sure some minute matches within any 8 years.
  return search(t).value_or(wall_time::max());
}

}  // namespace uactor::scripting

// A calculation's cron-like schedule (docs/scripts.md "Schedules"): five fields, minute hour day-of-month month
// day-of-week, in UTC, with the forms cron users know: `*`, `5`, `1-5`, `*/15`, `0-30/10`, lists
// `0,15,30`, and the shortcuts @hourly @daily @weekly @monthly @yearly. As in Vixie cron, when both
// day fields are restricted a day matches either. Pure: time is passed in.
#pragma once

#include <bitset>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace uactor::scripting {

using wall_time = std::chrono::system_clock::time_point;

class cron_schedule {
public:
  // nullopt and `error` set ("hour: 24 is out of range 0..23") for text that is no schedule, or
  // one that never fires (`0 0 30 2 *`).
  static std::optional<cron_schedule> parse(std::string_view text, std::string& error);

  // The first whole minute strictly after `t` that the schedule names.
  wall_time next_after(wall_time t) const;

private:
  cron_schedule() = default;
  bool day_matches(std::chrono::sys_days day) const;
  std::optional<wall_time> search(wall_time t) const;  // nullopt: nothing within 8 years

  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;    // 1..31
  std::bitset<13> months_;  // 1..12
  std::bitset<7> weekdays_; // 0 = Sunday (7 is read as 0)
  bool days_restricted_ = false;
  bool weekdays_restricted_ = false;
};

}  // namespace uactor::scripting

#include "engine/server/history/regions.hpp"

#include <optional>

#include "uactor/ua/status_codes.hpp"

namespace uactor::history {

void sub_regions(std::span<const sample> points, bool skip_unusable, bool stepped,
                 const aggregate_configuration& config, std::vector<sub_region>& out) {
  out.clear();
  std::optional<sub_region> open;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const sample& p = points[i];
    const bool last = i + 1 == points.size();
    const bool p_usable = usable(p.status, config);
    double value = 0;
    ua::status_code status = p.status;
    if (!status.is_bad()) {
      if (p.numeric) value = p.value;
      else status = ua::status::bad_type_mismatch;
    } else if (open) {
      value = open->start_value;  // a Bad point ends the region at the value it had
    }

    if (skip_unusable && open) {
      if (!p_usable) {
        if (!open->status.is_bad()) open->status = ua::status::uncertain_data_sub_normal;
        if (!last) continue;  // only the interval's end point is kept
      } else if (!stepped && !p.status.is_good()) {
        open->status = ua::status::uncertain_data_sub_normal;
      }
    }

    if (open) {
      if (stepped) {
        open->end_value = open->start_value;
      } else if (p_usable) {
        if (!p.status.is_good() && !open->status.is_bad())
          open->status = ua::status::uncertain_data_sub_normal;
        open->end_value = value;
      } else {
        if (!open->status.is_bad()) open->status = ua::status::uncertain_data_sub_normal;
        if (skip_unusable && !status.is_bad()) open->end_value = value;
      }
      // A Good region closed by the Bad_NoData bound past the end of the data: the data ends
      // at its opening point, so the region is given the smallest duration (1 ms), not the
      // time to the interval's end (Part 13's example tables, docs/decisions/0049).
      if (!skip_unusable && usable(open->point_status, config) &&
          status == ua::status::bad_no_data && last) {
        open->duration_ms = 1;
      } else {
        if (status.is_uncertain() && !p_usable) status = ua::status::bad_no_data;
        open->duration_ms = static_cast<double>(p.ticks - open->start_ticks) / 10'000.0;
      }
      out.push_back(*open);
    }
    open = sub_region{value, value, p.ticks, 0, status, p.status};
  }
}

}  // namespace uactor::history

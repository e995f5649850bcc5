#include "scripting/script_set.hpp"

#include "uactor/ua/status_codes.hpp"

namespace uactor::scripting {

script_set::script_set(std::vector<set_item> items, std::size_t input_slots, set_policy policy, steady_time now)
    : items_(std::move(items)), state_(items_.size()), slots_(input_slots), readers_(input_slots), policy_(policy) {
  for (std::uint32_t i = 0; i < items_.size(); ++i) {
    if (items_[i].spec.kind == item_kind::calculation) {
      state_[i].next_run = now;  // a first run at once, then every period
      if (items_[i].spec.schedule) schedule_next(i, now);  // a scheduled one first at its first minute
      continue;
    }
    for (const std::uint32_t slot : items_[i].inputs)
      if (slot < readers_.size()) readers_[slot].push_back(i);
    mark(i);  // a first evaluation once the inputs have values
  }
}

// The wall clock's next minute of the schedule, as a time of the steady clock the runners' timers
// use. A timer that fires a little early on the wall clock (the clocks drift, NTP slews) does not
// run the same minute twice: the search starts from the minute just run at the earliest.
void script_set::schedule_next(std::uint32_t item, steady_time now) {
  auto& s = state_[item];
  const wall_time wall = policy_.wall_clock();
  s.next_fire = items_[item].spec.schedule->next_after(std::max(wall, s.next_fire));
  s.next_run = now + std::chrono::duration_cast<steady_time::duration>(s.next_fire - wall);
}

void script_set::mark(std::uint32_t item) {
  auto& s = state_[item];
  if (s.dirty || s.quarantined) return;
  s.dirty = true;
  dirty_.push_back(item);
}

void script_set::input_changed(std::uint32_t slot, const ua::data_value& v) {
  if (slot >= slots_.size()) return;
  slots_[slot] = v;
  for (const std::uint32_t item : readers_[slot]) mark(item);
}

void script_set::write_alarm(std::uint32_t item, ua::status_code status, std::vector<output_value>& out) {
  auto& s = state_[item];
  out.push_back({item, ua::variant(s.active), status});
  s.last_status = status;
}

void script_set::take_ready(steady_time now, std::vector<eval_request>& ready, std::vector<output_value>& out) {
  // Alarms whose delay has run out: the predicate has held since `pending` (a change of an input
  // in between would have evaluated it again and cleared `pending` if it no longer held).
  for (std::uint32_t i = 0; i < items_.size(); ++i) {
    auto& s = state_[i];
    if (items_[i].spec.kind == item_kind::calculation) {
      if (!s.quarantined && !s.in_flight && now >= s.next_run) {
        mark(i);
        if (items_[i].spec.schedule) {
          schedule_next(i, now);
          continue;
        }
        const auto period = std::max(items_[i].spec.period, std::chrono::milliseconds(1));
        do s.next_run += period; while (s.next_run <= now);  // a late tick does not run twice
      }
      continue;
    }
    if (items_[i].spec.kind != item_kind::alarm || !s.pending || s.quarantined) continue;
    const auto delay = s.active ? items_[i].spec.alarm.off_delay : items_[i].spec.alarm.on_delay;
    if (now - *s.pending < delay) continue;
    s.pending.reset();
    s.active = !s.active;
    write_alarm(i, ua::status::good, out);
  }
  std::size_t kept = 0;
  for (const std::uint32_t i : dirty_) {
    auto& s = state_[i];
    if (s.in_flight) {
      dirty_[kept++] = i;  // it runs again once the run in flight is back
      continue;
    }
    s.dirty = false;
    if (s.quarantined) continue;
    const set_item& it = items_[i];
    ua::status_code blocked = ua::status::good;
    if (it.spec.kind != item_kind::calculation) {
      for (const std::uint32_t slot : it.inputs) {
        const ua::data_value& v = slots_[slot];
        if (v.status.is_bad()) blocked = v.status;
        else if (!v.has_value) blocked = ua::status::bad_waiting_for_initial_data;
        if (blocked.is_bad()) break;
      }
    }
    if (blocked.is_bad()) {
      if (it.spec.kind == item_kind::alarm) {
        if (s.last_status != blocked) write_alarm(i, blocked, out);
      } else {
        out.push_back({i, ua::variant(), blocked});
      }
      continue;
    }
    eval_request r;
    r.item = i;
    r.active = s.active;
    r.inputs.reserve(it.inputs.size());
    for (const std::uint32_t slot : it.inputs) r.inputs.push_back(from_variant(slots_[slot].value));
    ready.push_back(std::move(r));
    s.in_flight = true;
  }
  dirty_.resize(kept);
}

void script_set::alarm_result(std::uint32_t item, const script_value& v, steady_time now,
                              std::vector<output_value>& out, std::string& log) {
  auto& s = state_[item];
  const auto& opt = items_[item].spec.alarm;
  bool want = s.active;
  if (const auto* d = std::get_if<double>(&v)) want = s.active ? !(*d < -opt.hysteresis) : *d > 0;
  else if (const auto* n = std::get_if<std::int64_t>(&v))
    want = s.active ? !(static_cast<double>(*n) < -opt.hysteresis) : *n > 0;
  else if (std::holds_alternative<std::string>(v)) {
    log = items_[item].spec.name + ": an alarm predicate returned a string (expected a boolean or a number)";
    write_alarm(item, ua::status::bad_type_mismatch, out);
    return;
  } else want = truthy(v);
  if (want == s.active) {
    s.pending.reset();
    if (s.last_status != ua::status::good) write_alarm(item, ua::status::good, out);
    return;
  }
  if (!s.pending) s.pending = now;
  const auto delay = s.active ? opt.off_delay : opt.on_delay;
  if (now - *s.pending >= delay) {
    s.pending.reset();
    s.active = want;
    write_alarm(item, ua::status::good, out);
  } else if (s.last_status != ua::status::good) {
    write_alarm(item, ua::status::good, out);
  }
}

void script_set::completed(std::uint32_t item, const eval_result& r, steady_time now, std::vector<output_value>& out,
                           std::string& log) {
  if (item >= items_.size()) return;
  auto& s = state_[item];
  s.in_flight = false;
  const set_item& it = items_[item];
  if (r.how == outcome::ok) {
    s.last_error.clear();
    if (it.spec.kind == item_kind::alarm) return alarm_result(item, r.value, now, out, log);
    if (it.spec.kind == item_kind::calculation && std::holds_alternative<std::monostate>(r.value)) return;  // nothing to write
    output_value o{item, {}, ua::status::good};
    o.status = to_variant(r.value, it.output_type, o.value);
    if (o.status.is_bad()) {
      o.value = ua::variant();
      log = it.spec.name + ": the result does not fit the output's DataType: " + o.status.to_string();
    }
    out.push_back(std::move(o));
    return;
  }
  const bool strike = r.how == outcome::deadline || r.how == outcome::memory || r.how == outcome::instructions;
  ua::status_code status = r.how == outcome::deadline ? ua::status::bad_timeout : ua::status::bad_internal_error;
  if (strike && ++s.strikes >= policy_.strikes) {
    s.quarantined = true;
    status = ua::status::bad_out_of_service;
    log = it.spec.name + ": quarantined after " + std::to_string(s.strikes) + " runs stopped by a limit (last: " +
          to_string(r.how) + ": " + r.error + ")";
  } else if (r.error != s.last_error || strike) {
    log = it.spec.name + ": " + to_string(r.how) + ": " + r.error;
  }
  s.last_error = r.error;
  if (it.spec.kind == item_kind::alarm) {
    write_alarm(item, status, out);  // frozen in its state: a failing predicate clears nothing
  } else {
    out.push_back({item, ua::variant(), status});
  }
}

void script_set::late(std::uint32_t item, std::vector<output_value>& out) {
  if (item >= items_.size() || state_[item].quarantined) return;
  if (items_[item].spec.kind == item_kind::alarm) write_alarm(item, ua::status::bad_timeout, out);
  else out.push_back({item, ua::variant(), ua::status::bad_timeout});
}

void script_set::victim(std::uint32_t item) {
  if (item >= items_.size()) return;
  state_[item].in_flight = false;
  mark(item);
}

void script_set::runner_down(std::uint32_t item, std::vector<output_value>& out) {
  if (item >= items_.size()) return;
  auto& s = state_[item];
  s.in_flight = false;
  if (s.quarantined) return;
  if (items_[item].spec.kind == item_kind::alarm) write_alarm(item, ua::status::bad_resource_unavailable, out);
  else out.push_back({item, ua::variant(), ua::status::bad_resource_unavailable});
  if (items_[item].spec.kind != item_kind::calculation) mark(item);
}

std::optional<steady_time> script_set::next_due() const {
  std::optional<steady_time> due;
  const auto earlier = [&](steady_time t) {
    if (!due || t < *due) due = t;
  };
  for (std::uint32_t i = 0; i < items_.size(); ++i) {
    const auto& s = state_[i];
    if (s.quarantined) continue;
    if (items_[i].spec.kind == item_kind::calculation) earlier(s.next_run);
    else if (s.pending)
      earlier(*s.pending + (s.active ? items_[i].spec.alarm.off_delay : items_[i].spec.alarm.on_delay));
  }
  return due;
}

}  // namespace uactor::scripting

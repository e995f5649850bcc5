// A reader of Part 13's AggregateExamples.csv: the raw tables (Historian1..5 with their
// configuration) and, per aggregate and historian, the processed values the spec expects.
// It checks every line against the file's layout and its limits and reports the first line
// that does not fit, by number, instead of guessing.
#pragma once

#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/server/history/aggregate_status.hpp"
#include "engine/server/history/aggregates.hpp"
#include "uactor/ua/status_codes.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::test::aggregate_examples {

struct limits {
  std::size_t max_bytes = 1 << 20;
  std::size_t max_line = 4096;
  std::size_t max_fields = 8;
  std::size_t max_tables = 1000;
  std::size_t max_rows = 1000;  // per table
};

struct raw_table {
  std::string historian;
  history::aggregate_configuration config;
  std::vector<ua::data_value> values;
};

struct expected_row {
  std::size_t line = 0;
  std::int64_t ticks = 0;
  std::optional<double> number;                 // a numeric value
  std::optional<ua::status_code> status_value;  // a StatusCode value (WorstQuality)
  int decimals = 0;                             // of the number as written
  ua::status_code status;
};

struct processed_table {
  std::size_t line = 0;
  std::string aggregate;
  std::string historian;
  double interval_ms = 0;
  history::aggregate_configuration config;
  std::vector<expected_row> rows;
};

struct examples {
  std::vector<raw_table> raw;
  std::vector<processed_table> processed;
};

struct parse_result {
  examples data;
  std::string error;  // "line N: ..." when the text does not fit
};

// The day the tables' times of day fall on: any day will do, the file names none.
inline constexpr std::int64_t base_ticks =
    ua::date_time::unix_epoch_ticks + 1'325'376'000LL * ua::date_time::ticks_per_second;  // 2012-01-01

namespace detail {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\r' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// One CSV line into fields; quotes may hold commas. False on an unterminated quote or too many fields.
inline bool split(std::string_view line, std::size_t max_fields, std::vector<std::string>& out) {
  out.clear();
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::string(trim(field)));
      field.clear();
      if (out.size() >= max_fields) return false;
    } else {
      field += c;
    }
  }
  if (quoted) return false;
  out.push_back(std::string(trim(field)));
  return true;
}

// "HH:MM:SS" or "HH:MM:SS.mmm" as ticks on the base day.
inline std::optional<std::int64_t> time_of_day(std::string_view s) {
  auto num = [](std::string_view d) -> std::optional<int> {
    int v = 0;
    if (d.empty()) return std::nullopt;
    auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
    if (ec != std::errc{} || p != d.data() + d.size()) return std::nullopt;
    return v;
  };
  if (s.size() != 8 && s.size() != 12) return std::nullopt;
  if (s[2] != ':' || s[5] != ':' || (s.size() == 12 && s[8] != '.')) return std::nullopt;
  const auto h = num(s.substr(0, 2)), m = num(s.substr(3, 2)), sec = num(s.substr(6, 2));
  const auto ms = s.size() == 12 ? num(s.substr(9, 3)) : std::optional<int>{0};
  if (!h || !m || !sec || !ms || *h > 23 || *m > 59 || *sec > 59) return std::nullopt;
  return base_ticks + ((static_cast<std::int64_t>(*h) * 3600 + *m * 60 + *sec) * 1000 + *ms) * 10'000;
}

inline std::optional<double> number(std::string_view s, int* decimals = nullptr) {
  double v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  if (decimals) {
    const auto dot = s.find('.');
    *decimals = dot == std::string_view::npos ? 0 : static_cast<int>(s.size() - dot - 1);
  }
  return v;
}

// The status names the file uses, with and without the underscore.
inline std::optional<ua::status_code> status_name(std::string_view s) {
  static const std::map<std::string, ua::status_code, std::less<>> names{
      {"Good", ua::status::good},
      {"Uncertain", ua::status::uncertain},
      {"Bad", ua::status::bad},
      {"BadNoData", ua::status::bad_no_data},
      {"Bad_NoData", ua::status::bad_no_data},
      {"UncertainDataSubNormal", ua::status::uncertain_data_sub_normal},
      {"Uncertain_DataSubNormal", ua::status::uncertain_data_sub_normal},
  };
  const auto it = names.find(s);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

// "Good, Calculated, Partial": a status name and the historian bits of Part 4 §7.39.
inline std::optional<ua::status_code> status_with_bits(std::string_view s) {
  std::uint32_t bits = 0;
  std::optional<ua::status_code> base;
  while (!s.empty()) {
    const auto comma = s.find(',');
    const auto word = trim(s.substr(0, comma));
    s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
    if (!base) {
      base = status_name(word);
      if (!base) return std::nullopt;
    } else if (word == "Calculated") {
      bits |= history::historian_bits::calculated;
    } else if (word == "Interpolated") {
      bits |= history::historian_bits::interpolated;
    } else if (word == "Partial") {
      bits |= history::historian_bits::partial;
    } else if (word == "ExtraData") {
      bits |= history::historian_bits::extra_data;
    } else if (word == "MultipleValues") {
      bits |= history::historian_bits::multiple_values;
    } else {
      return std::nullopt;
    }
  }
  if (!base) return std::nullopt;
  return history::with_aggregate_bits(*base, bits);
}

inline std::optional<bool> boolean(std::string_view s) {
  if (s == "true") return true;
  if (s == "false") return false;
  return std::nullopt;
}

}  // namespace detail

inline parse_result parse(std::string_view text, const limits& lim = {}) {
  using namespace detail;
  parse_result r;
  if (text.size() > lim.max_bytes) {
    r.error = "line 0: the file is larger than " + std::to_string(lim.max_bytes) + " bytes";
    return r;
  }
  enum class section { preamble, raw, between, processed, done } where = section::preamble;
  raw_table* raw = nullptr;
  processed_table* proc = nullptr;
  bool in_rows = false;
  std::vector<std::string> f;
  std::size_t line_no = 0;
  auto fail = [&](const std::string& what) {
    r.error = "line " + std::to_string(line_no) + ": " + what;
    return r;
  };
  auto config_of = [&]() -> history::aggregate_configuration* {
    if (where == section::raw && raw) return &raw->config;
    if (where == section::processed && proc) return &proc->config;
    return nullptr;
  };

  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto nl = text.find('\n', pos);
    const auto line = text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (line.size() > lim.max_line) return fail("the line is longer than " + std::to_string(lim.max_line));
    const auto t = trim(line);
    if (t.empty()) continue;
    if (!split(t, lim.max_fields, f)) return fail("an unterminated quote or too many fields");

    if (t == "Generate Test Data for Part 13 Spec" && where == section::preamble) continue;
    if (t == "Start of Raw Data Tables" && where == section::preamble) { where = section::raw; continue; }
    if (t == "End of Raw Data Tables" && where == section::raw) { where = section::between; continue; }
    if (t == "Start of Processed Data Tables" && where == section::between) { where = section::processed; continue; }
    if (t == "End of Processed Data Tables" && where == section::processed) { where = section::done; continue; }
    if (t == "Test Aggregates Complete" && where == section::done) continue;
    if (where != section::raw && where != section::processed) return fail("text outside the tables");

    if (f.size() == 1 && f[0].rfind("Historian", 0) == 0) {
      in_rows = false;
      if (where == section::raw) {
        if (r.data.raw.size() >= lim.max_tables) return fail("too many tables");
        raw = &r.data.raw.emplace_back();
        raw->historian = f[0];
      } else {
        if (!proc || !proc->historian.empty()) return fail("a historian without its aggregate line");
        proc->historian = f[0];
      }
      continue;
    }
    if (where == section::processed && f.size() == 2 && f[0] == "Aggregate") {
      if (r.data.processed.size() >= lim.max_tables) return fail("too many tables");
      proc = &r.data.processed.emplace_back();
      proc->line = line_no;
      proc->aggregate = f[1];
      in_rows = false;
      continue;
    }
    if (f.size() == 2 && !in_rows) {
      auto* c = config_of();
      if (!c) return fail("a setting outside a table");
      if (f[0] == "Processing Interval" && where == section::processed) {
        const auto v = number(f[1]);
        if (!v || *v <= 0) return fail("a processing interval that is not a positive number");
        proc->interval_ms = *v;
      } else if (f[0] == "Stepped" || f[0] == "Treat Uncertain as Bad" ||
                 f[0] == "Use Sloped Extrapolation") {
        const auto b = boolean(f[1]);
        if (!b) return fail("a setting that is not true or false");
        (f[0] == "Stepped" ? c->stepped
                           : f[0] == "Treat Uncertain as Bad" ? c->treat_uncertain_as_bad
                                                              : c->use_sloped_extrapolation) = *b;
      } else if (f[0] == "Percent Bad" || f[0] == "Percent Good") {
        const auto v = number(f[1]);
        if (!v || *v < 0 || *v > 100) return fail("a percentage outside 0..100");
        (f[0] == "Percent Bad" ? c->percent_data_bad : c->percent_data_good) =
            static_cast<std::uint8_t>(*v);
      } else {
        return fail("an unknown setting '" + f[0] + "'");
      }
      continue;
    }
    if (f.size() == 4 && f[0] == "Timestamp" && f[1] == "Value" && f[2] == "StatusCode") {
      if (!config_of()) return fail("a header outside a table");
      in_rows = true;
      continue;
    }
    if (!in_rows || f.size() < 3) return fail("a line that is neither a setting, a header nor a row");

    if (where == section::raw) {
      if (f[0].empty()) continue;  // ",,No Data": the end of the archive, no value
      if (raw->values.size() >= lim.max_rows) return fail("too many rows in the table");
      const auto ticks = time_of_day(f[0]);
      const auto status = status_name(f[2]);
      if (!ticks) return fail("a time that is not HH:MM:SS");
      if (!status) return fail("an unknown status '" + f[2] + "'");
      ua::data_value dv;
      if (const auto b = boolean(f[1])) dv.set_value(*b);
      else if (const auto n = number(f[1])) dv.set_value(*n);
      else if (!f[1].empty() && f[1] != "undefined") return fail("a value that is not a number or a Boolean");
      dv.status = *status;
      dv.has_status = true;
      dv.source_timestamp = ua::date_time{*ticks};
      dv.has_source_timestamp = true;
      raw->values.push_back(std::move(dv));
    } else {
      if (proc->rows.size() >= lim.max_rows) return fail("too many rows in the table");
      expected_row row;
      row.line = line_no;
      const auto ticks = time_of_day(f[0]);
      const auto status = status_with_bits(f[2]);
      if (!ticks) return fail("a time that is not HH:MM:SS.mmm");
      if (!status) return fail("an unknown status '" + f[2] + "'");
      row.ticks = *ticks;
      row.status = *status;
      if (!f[1].empty()) {
        if (const auto n = number(f[1], &row.decimals)) row.number = n;
        else if (const auto sv = status_name(f[1])) row.status_value = sv;
        else return fail("a value that is not a number or a status name");
      }
      proc->rows.push_back(row);
    }
  }
  if (where != section::done) return fail("the file ends before the end of its processed tables");
  for (const auto& p : r.data.processed)
    if (p.historian.empty() || p.interval_ms == 0) {
      line_no = p.line;
      return fail("an aggregate table without its historian or processing interval");
    }
  return r;
}

}  // namespace uactor::test::aggregate_examples

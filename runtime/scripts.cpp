#include "runtime/scripts.hpp"

#include <map>

#include "scripting/engine.hpp"

namespace uactor::app {

namespace {

const char* section(script_kind k) {
  switch (k) {
    case script_kind::virtual_tag: return "virtual_tags";
    case script_kind::calculation: return "calculations";
    case script_kind::alarm: return "alarms";
  }
  return "scripts";
}

scripting::item_kind kind_of(script_kind k) {
  switch (k) {
    case script_kind::virtual_tag: return scripting::item_kind::virtual_tag;
    case script_kind::calculation: return scripting::item_kind::calculation;
    case script_kind::alarm: return scripting::item_kind::alarm;
  }
  return scripting::item_kind::virtual_tag;
}

bool lua_identifier(const std::string& s) {
  static const char* reserved[] = {"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
                                   "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then",
                                   "true", "until", "while", "now", "active"};
  if (s.empty() || s.size() > 64 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (const char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  for (const char* r : reserved)
    if (s == r) return false;
  return true;
}

scripting::item_spec spec_of(const script_definition& d, const std::string& name) {
  scripting::item_spec s;
  s.kind = kind_of(d.kind);
  s.name = name;
  s.source = d.source;
  for (const auto& in : d.inputs) s.input_names.push_back(in.name);
  s.period = d.period;
  if (!d.schedule.empty()) {
    std::string error;
    s.schedule = scripting::cron_schedule::parse(d.schedule, error);  // check_scripts names the error
  }
  s.alarm.on_delay = d.on_delay;
  s.alarm.off_delay = d.off_delay;
  s.alarm.hysteresis = d.hysteresis;
  return s;
}

// The built-in type a DataType stands for: itself or its nearest built-in supertype (Duration is a
// Double); null for structures and enumerations.
ua::builtin_type builtin_of(const ua::address_space& as, const ua::node_key& type) {
  ua::node_index n = as.find(type.to_node_id());
  for (int depth = 0; n != ua::no_node && depth < 32; ++depth) {
    const auto& key = as.at(n).id;
    if (key.ns == 0 && key.type == ua::node_id_type::numeric && key.numeric >= 1 && key.numeric <= 25)
      return static_cast<ua::builtin_type>(key.numeric);
    n = as.super_type(n);
  }
  return ua::builtin_type::null;
}

}  // namespace

std::vector<std::string> script_names(const script_plan& plan) {
  std::map<script_kind, std::size_t> counts;
  std::vector<std::string> names;
  for (const auto& d : plan.scripts) {
    const std::size_t i = counts[d.kind]++;
    names.push_back(!d.name.empty() ? d.name
                                    : std::string(section(d.kind)) + "[" + std::to_string(i) + "] (" +
                                          d.output.to_string() + ")");
  }
  return names;
}

void check_scripts(const script_plan& plan, std::vector<std::string>& errors) {
  const auto names = script_names(plan);
  if (plan.runner != script_runner::in_process && (plan.workers == 0 || plan.workers > 64))
    errors.push_back("scripts: workers must be 1..64, not " + std::to_string(plan.workers));
  if (plan.limits.soft_deadline.count() <= 0 || plan.limits.grace.count() < 0)
    errors.push_back("scripts: the soft deadline must be > 0 ms and the grace >= 0 ms");
  if (plan.limits.strikes == 0) errors.push_back("scripts: strikes must be at least 1");
  if (plan.runner == script_runner::shadow && plan.shadow_queue == 0)
    errors.push_back("scripts: the shadow's queue must hold at least 1 run");
  if (plan.limits.memory_bytes < (1u << 20)) errors.push_back("scripts: memory must be at least 1 MiB");
  scripting::engine_limits limits;
  limits.memory_bytes = plan.limits.memory_bytes;
  scripting::engine check(limits);  // compiles only; nothing runs
  for (std::size_t i = 0; i < plan.scripts.size(); ++i) {
    const auto& d = plan.scripts[i];
    const auto& name = names[i];
    if (d.output.is_null()) errors.push_back(name + ": no output node");
    if (d.kind == script_kind::calculation && d.period.count() <= 0) errors.push_back(name + ": the period must be > 0 ms");
    if (!d.schedule.empty()) {
      std::string error;
      if (d.kind != script_kind::calculation) errors.push_back(name + ": only a calculation has a schedule");
      else if (!scripting::cron_schedule::parse(d.schedule, error))
        errors.push_back(name + ": the schedule '" + d.schedule + "': " + error);
    }
    if (d.kind != script_kind::calculation && d.inputs.empty())
      errors.push_back(name + ": no inputs (it would never run; a calculation runs on a period)");
    if (d.on_delay.count() < 0 || d.off_delay.count() < 0 || d.hysteresis < 0)
      errors.push_back(name + ": delays and hysteresis must not be negative");
    for (const auto& in : d.inputs)
      if (!lua_identifier(in.name))
        errors.push_back(name + ": the input name '" + in.name +
                         "' is not a Lua identifier (or is a keyword, `now` or `active`)");
    if (auto e = check.load(spec_of(d, name)); !e.empty()) errors.push_back(std::move(e));
  }
}

void resolve_scripts(const script_plan& plan, const ua::address_space& as, actors::runner_setup& setup,
                     std::vector<ua::node_index>& inputs, std::vector<value_handle>& outputs,
                     std::vector<std::string>& errors) {
  const auto names = script_names(plan);
  std::map<ua::node_index, std::uint32_t> slots;
  for (std::size_t i = 0; i < plan.scripts.size(); ++i) {
    const auto& d = plan.scripts[i];
    scripting::set_item item;
    item.spec = spec_of(d, names[i]);
    const ua::node_index out = as.find(d.output);
    const ua::variable_data* var = out == ua::no_node ? nullptr : as.variable(out);
    if (!var || as.at(out).cls != ua::node_class::variable) {
      errors.push_back(names[i] + ": the output " + d.output.to_string() +
                       (out == ua::no_node ? " does not exist" : " is not a Variable"));
    } else {
      item.output_type = builtin_of(as, var->data_type);
      if (d.kind == script_kind::alarm && item.output_type != ua::builtin_type::boolean)
        errors.push_back(names[i] + ": the output " + d.output.to_string() + " of an alarm must be a Boolean");
      else if (item.output_type == ua::builtin_type::null || item.output_type > ua::builtin_type::string)
        errors.push_back(names[i] + ": the output " + d.output.to_string() +
                         " has a DataType a script cannot write (Boolean, numbers, String)");
    }
    outputs.push_back(value_handle{out == ua::no_node ? 0xFFFF'FFFFu : static_cast<std::uint32_t>(out)});
    for (const auto& in : d.inputs) {
      const ua::node_index n = as.find(in.node);
      if (n == ua::no_node || !as.variable(n) || as.at(n).cls != ua::node_class::variable) {
        errors.push_back(names[i] + ": the input " + in.name + " (" + in.node.to_string() + ") " +
                         (n == ua::no_node ? "does not exist" : "is not a Variable"));
        continue;
      }
      auto [it, added] = slots.emplace(n, static_cast<std::uint32_t>(inputs.size()));
      if (added) inputs.push_back(n);
      item.inputs.push_back(it->second);
    }
    setup.items.push_back(std::move(item));
  }
  setup.input_slots = inputs.size();
}

}  // namespace uactor::app

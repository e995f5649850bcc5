// scada_backend: a SCADA backend that embeds uactor's OPC UA server (docs/embedding.md). It serves the
// plant of plant.hpp: 10,000 tags a device thread pushes in batches, setpoints whose Writes it
// checks, a read-through variable of a slow device, and a method. Built against the installed
// package (README.md); every call below is the public API of <uactor/runtime.hpp>.
#include <pthread.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <uactor/runtime.hpp>

#include "device.hpp"
#include "machine.hpp"
#include "options.hpp"
#include "plant.hpp"

namespace {

namespace status = uactor::ua::status;

std::string str(uactor::status_code sc) { return std::string(sc.name()); }

uactor::date_time now() {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  return uactor::date_time::from_unix_ms(ms.count());
}

std::string who(const uactor::caller& c) { return c.user.empty() ? "anonymous" : c.user; }

}  // namespace

int main(int argc, char** argv) {
  const scada::options o = scada::parse_options(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  // SIGINT and SIGTERM blocked before any thread starts (the runtime's, the executors', the
  // device's inherit the mask): only sigwait below takes them, and shutdown runs on this thread.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // Where the callbacks run, never on the server's threads: `control` checks setpoint Writes and
  // pump starts (a quick check, but a real backend would ask its PLC here); `slow_line` talks to
  // the slow device, one question at a time, as a serial line does. They outlive the runtime,
  // which holds copies of their executors until it is destroyed.
  uactor::thread_executor control;
  uactor::thread_executor slow_line;

  uactor::runtime runtime;

  uactor::server_plan plan = uactor::default_server_plan();
  plan.port = o.port;
  plan.demo = false;
  if (!o.host.empty()) {
    plan.host_name = o.host;
    plan.application_uri = "urn:" + o.host + ":scada_backend";
    // An IPv4 address is also where to listen; a name is only advertised (0.0.0.0 stays).
    if (o.host.find_first_not_of("0123456789.") == std::string::npos) plan.listen_address = o.host;
  } else {
    plan.application_uri = "urn:" + plan.host_name + ":scada_backend";
  }
  if (!o.pki_dir.empty()) plan.pki_dir = o.pki_dir;

  auto started = runtime.start_server(plan);
  if (!started) {
    std::fprintf(stderr, "scada_backend: cannot start the server on port %u: %s\n", o.port, str(started.error()).c_str());
    return 1;
  }
  uactor::server& server = **started;

  // The plant's nodes, in one batch.
  const std::uint16_t ns = server.register_namespace(scada::namespace_uri);
  const scada::plant_ids ids(ns, o);
  {
    const std::vector<uactor::status_code> results = server.apply(scada::plant_nodes(ids, o));
    std::size_t failed = 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i].is_bad() && failed++ < 5) std::fprintf(stderr, "scada_backend: node %zu: %s\n", i, str(results[i]).c_str());
    }
    if (failed) {
      std::fprintf(stderr, "scada_backend: %zu of %zu nodes were refused\n", failed, results.size());
      return 1;
    }
  }

  // A machine of the Machinery companion specification, from its NodeSet2 files (machine.cpp).
  if (!o.machinery_dir.empty() && !scada::add_machine(server, o.machinery_dir, ns)) return 1;

  // Handles for the values the application pushes: resolved once, no lookup per value.
  std::vector<uactor::node_id> pushed = ids.tags;
  pushed.push_back(ids.running);
  pushed.push_back(ids.pushes);
  pushed.push_back(ids.pump_speed);
  std::vector<uactor::value_handle> handles;
  handles.reserve(pushed.size());
  for (auto& h : server.resolve(pushed)) {
    if (!h) {
      std::fprintf(stderr, "scada_backend: resolve: %s\n", str(h.error()).c_str());
      return 1;
    }
    handles.push_back(*h);
  }
  const uactor::value_handle pump_speed = handles.back();
  handles.pop_back();
  const uactor::value_handle pushes = handles.back();
  handles.pop_back();
  const uactor::value_handle running = handles.back();
  handles.pop_back();

  scada::device device(server, std::move(handles), running, pushes, o);

  const auto registered = [](const char* what, uactor::status_code sc) {
    if (sc.is_bad()) {
      std::fprintf(stderr, "scada_backend: %s: %s\n", what, str(sc).c_str());
      std::exit(1);
    }
  };
  uactor::callback_options on_control;
  on_control.where = control.get();

  // Setpoints: the value is taken only inside the EURange; the client gets Bad_OutOfRange
  // otherwise. The server has already checked the DataType (Double) and the AccessLevel.
  for (const uactor::node_id& sp : ids.setpoints) {
    registered("on_write setpoint",
               server.on_write(sp, [](const uactor::write_call& call, uactor::write_reply reply) {
                 const double* v = call.value.value.get_if<double>();
                 const bool in_range = v && *v >= scada::setpoint_low && *v <= scada::setpoint_high;  // NaN: out
                 std::printf("setpoint %s = %g by %s: %s\n", call.node.to_string().c_str(), v ? *v : NAN,
                             who(call.who).c_str(), in_range ? "accepted" : "Bad_OutOfRange");
                 reply(in_range ? status::good : status::bad_out_of_range);
               }, on_control));
  }

  // Plant.Device.Running: a client starts and pauses the device.
  registered("on_write running",
             server.on_write(ids.running, [&device](const uactor::write_call& call, uactor::write_reply reply) {
               const bool* on = call.value.value.get_if<bool>();
               if (!on) return reply(status::bad_type_mismatch);
               device.set_running(*on);
               std::printf("device: %s by %s\n", *on ? "started" : "paused", who(call.who).c_str());
               reply(status::good);
             }, on_control));

  // The slow device: each Read of Temperature waits for its answer (o.slow_read) on slow_line's
  // thread; the server goes on with every other request meanwhile.
  uactor::callback_options on_slow_line;
  on_slow_line.where = slow_line.get();
  on_slow_line.deadline = std::chrono::milliseconds(2'000);
  const auto slow_read = o.slow_read;
  registered("on_read temperature",
             server.on_read(ids.temperature, [slow_read](const uactor::read_call&, uactor::read_reply reply) {
               std::this_thread::sleep_for(slow_read);  // the device's round trip
               const double t = 20.0 + 5.0 * std::sin(static_cast<double>(now().to_unix_ms()) / 10'000.0);
               uactor::data_value v;
               v.set_value(t);
               v.source_timestamp = now();
               v.has_source_timestamp = true;
               reply(std::move(v));
             }, on_slow_line));

  // StartPump(Speed) -> Started: 0..3000 rpm, else Bad_OutOfRange; Plant.Pump.Speed follows.
  registered("on_call StartPump",
             server.on_call(ids.start_pump, [&server, pump_speed](const uactor::method_call& call, uactor::call_reply reply) {
               const double* speed = call.inputs.empty() ? nullptr : call.inputs[0].get_if<double>();
               if (!speed || !(*speed >= scada::pump_speed_low && *speed <= scada::pump_speed_high)) {
                 std::printf("pump: StartPump(%g) by %s: Bad_OutOfRange\n", speed ? *speed : NAN, who(call.who).c_str());
                 return reply(status::bad_out_of_range);
               }
               const uactor::value_update update{pump_speed, *speed, {}, now()};
               server.write_values(std::span(&update, 1));
               std::printf("pump: started at %g rpm by %s\n", *speed, who(call.who).c_str());
               reply(status::good, {uactor::variant(true)});
             }, on_control));

  std::printf("namespace %s is ns=%u: %zu tags, %zu setpoints under ns=%u;s=Plant\n", scada::namespace_uri, ns,
              ids.tags.size(), ids.setpoints.size(), ns);
  std::printf("device: %zu tags every %lld ms%s\n", ids.tags.size(), static_cast<long long>(o.interval.count()),
              device.running() ? "" : ", paused (write Plant.Device.Running = true to start)");
  std::printf("listening on %s\n", server.endpoint_url().c_str());

  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::printf("stopping (%s)\n", signal == SIGINT ? "SIGINT" : "SIGTERM");

  device.stop();
  runtime.stop();
  std::printf("device: pushed %llu batches, %llu values in all (the server was behind %llu times)\n",
              static_cast<unsigned long long>(device.batches()), static_cast<unsigned long long>(device.values()),
              static_cast<unsigned long long>(device.behind()));
  return 0;
}

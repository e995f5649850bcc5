// One MQTT client connection through Debian's libmosquitto (Part 14 §7.3.5): libmosquitto's own
// network thread (mosquitto_loop_start) does the socket, the keep-alive and, once connected, the
// reconnects with exponential backoff; this class owns the handle and reports what happens through
// callbacks that run on that thread (they must only hand the event on: the pubsub actor sends
// itself a message). docs/decisions/0051. No CAF here.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "pubsub/pubsub_config.hpp"

struct mosquitto;
struct mosquitto_message;

namespace uactor::actors {

class mqtt_link {
public:
  struct events {
    std::function<void()> connected;                 // CONNACK accepted (first time and after a loss)
    std::function<void(int reason)> disconnected;    // 0: asked for; otherwise a loss
    std::function<void(std::string topic, std::string payload)> message;
    std::function<void(int reason)> refused;         // CONNACK refused (bad user/password, ...)
  };

  mqtt_link(const pubsub::mqtt_settings& settings, std::string host, std::uint16_t port, events ev);
  ~mqtt_link();
  mqtt_link(const mqtt_link&) = delete;
  mqtt_link& operator=(const mqtt_link&) = delete;

  // Starts connecting (non-blocking once the name resolved). False when the first attempt failed at
  // once (the broker refused the TCP connection): call again after a backoff. Once it has
  // succeeded, libmosquitto's thread runs and reconnects by itself.
  bool start();
  bool started() const noexcept { return loop_started_; }
  // Publishes now (copies the payload into libmosquitto's queue). 0 on success, else a
  // MOSQ_ERR_* (MOSQ_ERR_NO_CONN while the broker is away: the caller keeps the message).
  int publish(const std::string& topic, std::string_view payload, int qos, bool retain);
  int subscribe(const std::string& pattern, int qos);
  static const char* error_text(int rc);

private:
  static void on_connect(mosquitto*, void* self, int rc);
  static void on_disconnect(mosquitto*, void* self, int rc);
  static void on_message(mosquitto*, void* self, const ::mosquitto_message* m);

  pubsub::mqtt_settings settings_;
  std::string host_;
  std::uint16_t port_;
  events ev_;
  mosquitto* m_ = nullptr;
  bool loop_started_ = false;
};

}  // namespace uactor::actors

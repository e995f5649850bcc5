#include "actors/pubsub/mqtt_link.hpp"

#include <mosquitto.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace uactor::actors {

namespace {

// mosquitto_lib_init is not thread-safe and is needed once per process.
void init_library_once() {
  static std::once_flag once;
  std::call_once(once, [] { mosquitto_lib_init(); });
}

unsigned whole_seconds(std::chrono::milliseconds ms) {
  return static_cast<unsigned>(std::max<std::int64_t>(1, (ms.count() + 999) / 1000));
}

}  // namespace

mqtt_link::mqtt_link(const pubsub::mqtt_settings& settings, std::string host, std::uint16_t port, events ev)
    : settings_(settings), host_(std::move(host)), port_(port), ev_(std::move(ev)) {
  init_library_once();
  m_ = mosquitto_new(settings_.client_id.empty() ? nullptr : settings_.client_id.c_str(), true, this);
  if (!m_) throw std::runtime_error("mosquitto_new failed");
  mosquitto_int_option(m_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
  if (!settings_.username.empty())
    mosquitto_username_pw_set(m_, settings_.username.c_str(), settings_.password.empty() ? nullptr : settings_.password.c_str());
  // libmosquitto's backoff, after a connection was lost: whole seconds, growing up to the max.
  mosquitto_reconnect_delay_set(m_, whole_seconds(settings_.reconnect_min), whole_seconds(settings_.reconnect_max), true);
  mosquitto_connect_callback_set(m_, &mqtt_link::on_connect);
  mosquitto_disconnect_callback_set(m_, &mqtt_link::on_disconnect);
  mosquitto_message_callback_set(m_, &mqtt_link::on_message);
}

mqtt_link::~mqtt_link() {
  if (loop_started_) {
    mosquitto_disconnect(m_);
    mosquitto_loop_stop(m_, false);
  }
  mosquitto_destroy(m_);
}

bool mqtt_link::start() {
  if (loop_started_) return true;
  const int keep_alive = static_cast<int>(std::max<std::int64_t>(5, settings_.keep_alive.count() / 1000));
  const int rc = mosquitto_connect_async(m_, host_.c_str(), port_, keep_alive);
  // A first attempt that fails at once leaves libmosquitto's thread with nothing to reconnect:
  // the caller retries (measured, docs/decisions/0051).
  if (rc != MOSQ_ERR_SUCCESS) return false;
  if (mosquitto_loop_start(m_) != MOSQ_ERR_SUCCESS) return false;
  loop_started_ = true;
  return true;
}

int mqtt_link::publish(const std::string& topic, std::string_view payload, int qos, bool retain) {
  if (!loop_started_) return MOSQ_ERR_NO_CONN;
  return mosquitto_publish(m_, nullptr, topic.c_str(), static_cast<int>(payload.size()), payload.data(), qos, retain);
}

int mqtt_link::subscribe(const std::string& pattern, int qos) {
  if (!loop_started_) return MOSQ_ERR_NO_CONN;
  return mosquitto_subscribe(m_, nullptr, pattern.c_str(), qos);
}

const char* mqtt_link::error_text(int rc) { return mosquitto_strerror(rc); }

void mqtt_link::on_connect(mosquitto*, void* self, int rc) {
  auto* l = static_cast<mqtt_link*>(self);
  if (rc == 0) {
    if (l->ev_.connected) l->ev_.connected();
  } else if (l->ev_.refused) {
    l->ev_.refused(rc);
  }
}

void mqtt_link::on_disconnect(mosquitto*, void* self, int rc) {
  auto* l = static_cast<mqtt_link*>(self);
  if (l->ev_.disconnected) l->ev_.disconnected(rc);
}

void mqtt_link::on_message(mosquitto*, void* self, const mosquitto_message* m) {
  auto* l = static_cast<mqtt_link*>(self);
  if (!l->ev_.message || !m) return;
  l->ev_.message(m->topic ? std::string(m->topic) : std::string(),
                 std::string(static_cast<const char*>(m->payload), static_cast<std::size_t>(m->payloadlen)));
}

}  // namespace uactor::actors

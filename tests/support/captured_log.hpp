// Test helper: spdlog's default logger copied into a string for a test's duration (made before
// anything logs, destroyed after every actor that logs has stopped).
#pragma once

#include <memory>
#include <sstream>
#include <string>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

namespace uactor::test {

class captured_log {
public:
  captured_log() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(text_);
    auto logger = std::make_shared<spdlog::logger>("captured", spdlog::sinks_init_list{sink});
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
  }
  ~captured_log() { spdlog::set_default_logger(previous_); }
  captured_log(const captured_log&) = delete;
  captured_log& operator=(const captured_log&) = delete;
  std::string text() {
    spdlog::default_logger()->flush();
    return text_.str();
  }

private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream text_;
};

}  // namespace uactor::test

// The simulated signals of [[writers]] (docs/configuration.md): a pure function of the tick (and,
// for the random walk, of the seed and the steps before). No clock, no actor: tests walk it.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

#include "runtime/config/config.hpp"

namespace uactor::config {

class signal {
public:
  explicit signal(const writer_spec& w) : w_(w), rng_(w.seed), walk_(w.min) {}

  // The value of tick 0, 1, 2, ... (called once per tick, in order).
  double next() {
    const std::uint64_t tick = tick_++;
    const double span = w_.max - w_.min;
    const double t = static_cast<double>(tick) * static_cast<double>(w_.interval.count());
    const double period = static_cast<double>(w_.period.count());
    if (w_.kind == "counter") {
      // min, min + step, ... up to max, then min again.
      const double steps = w_.step > 0 ? std::floor(span / w_.step) + 1 : 1;
      return w_.min + std::fmod(static_cast<double>(tick), steps) * w_.step;
    }
    if (w_.kind == "ramp") return span > 0 ? w_.min + std::fmod(static_cast<double>(tick) * w_.step, span) : w_.min;
    if (w_.kind == "sine")
      return w_.min + span / 2 * (1 + std::sin(2 * std::numbers::pi * std::fmod(t, period) / period));
    if (w_.kind == "square") return std::fmod(t, period) < period / 2 ? w_.max : w_.min;
    if (w_.kind == "steps") return w_.values.empty() ? 0 : w_.values[tick % w_.values.size()];
    // random_walk: a step of at most `step` either way, kept within [min, max].
    if (tick > 0) {
      std::uniform_real_distribution<double> d(-w_.step, w_.step);
      walk_ = std::clamp(walk_ + d(rng_), w_.min, w_.max);
    }
    return walk_;
  }

private:
  const writer_spec& w_;
  std::uint64_t tick_ = 0;
  std::mt19937_64 rng_;
  double walk_;
};

}  // namespace uactor::config

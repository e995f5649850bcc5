#include "scripting/worker.hpp"

#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <cstdio>
#include <vector>

#include "scripting/engine.hpp"
#include "scripting/frames.hpp"

namespace uactor::scripting {

namespace {

bool write_all(int fd, std::vector<std::byte>& out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  out.clear();
  return true;
}

}  // namespace

int run_worker(int fd, const worker_options& options) {
  std::signal(SIGPIPE, SIG_IGN);
  // Not under AddressSanitizer: its shadow memory is terabytes of address space (the Lua
  // allocator's own limit still holds there).
  constexpr bool may_limit_address_space =
#if defined(__SANITIZE_ADDRESS__)
      false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
      false;
#else
      true;
#endif
#else
      true;
#endif
  if (may_limit_address_space && options.address_space_limit) {
    rlimit lim{options.address_space_limit, options.address_space_limit};
    if (::setrlimit(RLIMIT_AS, &lim) != 0) std::perror("uactor worker: setrlimit(RLIMIT_AS)");
  }
  engine eng(options.limits);
  frame_reader reader(options.max_frame);
  std::vector<std::byte> in(64u << 10);
  std::vector<std::byte> out;
  std::uint64_t beats = 0;
  int exit_code = -1;
  const auto on_frame = [&](std::span<const std::byte> body) {
    if (exit_code >= 0) return;
    const auto type = static_cast<frame_type>(body[0]);
    if (type == frame_type::load) {
      auto f = decode_load(body);
      if (!f) {
        std::fprintf(stderr, "uactor worker: a load frame refused: %s\n", f.error().to_string().c_str());
        exit_code = 2;
        return;
      }
      loaded_frame done;
      for (const auto& it : f->items) done.errors.push_back(eng.load(it));
      encode(done, out);
      if (!write_all(fd, out)) exit_code = 3;
      return;
    }
    if (type == frame_type::run_batch) {
      auto f = decode_run_batch(body);
      if (!f) {
        std::fprintf(stderr, "uactor worker: a batch frame refused: %s\n", f.error().to_string().c_str());
        exit_code = 2;
        return;
      }
      result_frame r;
      r.batch = f->batch;
      auto flushed = std::chrono::steady_clock::now();
      for (const auto& run : f->runs) {
        const auto t0 = std::chrono::steady_clock::now();
        r.item = run.item;
        r.result = eng.evaluate(run.item, run.inputs, f->now_seconds, run.active);
        const auto t1 = std::chrono::steady_clock::now();
        r.duration_ns = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
        encode(r, out);
        // Streamed: the host starts the next run's clock when this one's result arrives. Results of
        // fast runs leave together, at least every millisecond (a clock starts at most 1 ms late).
        if (t1 - flushed >= std::chrono::milliseconds(1)) {
          if (!write_all(fd, out)) {
            exit_code = 3;
            return;
          }
          flushed = t1;
        }
      }
      if (!write_all(fd, out)) exit_code = 3;
      return;
    }
    std::fprintf(stderr, "uactor worker: a frame of type %u refused\n", static_cast<unsigned>(body[0]));
    exit_code = 2;
  };
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(options.heartbeat.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      encode(heartbeat_frame{++beats}, out);
      if (!write_all(fd, out)) return 3;
      continue;
    }
    const ssize_t n = ::read(fd, in.data(), in.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    if (const auto sc = reader.put(std::span(in.data(), static_cast<std::size_t>(n)), on_frame); sc.is_bad()) {
      std::fprintf(stderr, "uactor worker: a frame header refused: %s\n", sc.to_string().c_str());
      return 2;
    }
    if (exit_code >= 0) return exit_code;
  }
}

int worker_main(int argc, char** argv) {
  worker_options o;
  int fd = -1;
  int i = argc >= 2 && std::strcmp(argv[1], "worker") == 0 ? 2 : 1;
  for (; i + 1 < argc; i += 2) {
    const std::string_view key = argv[i];
    const unsigned long long v = std::strtoull(argv[i + 1], nullptr, 10);
    if (key == "--fd") fd = static_cast<int>(v);
    else if (key == "--memory") o.limits.memory_bytes = v;
    else if (key == "--instructions") o.limits.max_instructions = v;
    else if (key == "--address-space") o.address_space_limit = v;
    else if (key == "--heartbeat-ms") o.heartbeat = std::chrono::milliseconds(v);
    else {
      std::fprintf(stderr, "uactor worker: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (i < argc) {
    std::fprintf(stderr, "uactor worker: %s has no value\n", argv[i]);
    return 2;
  }
  if (fd < 0) {
    std::fprintf(stderr, "uactor worker: started by a server's shard supervisor (--fd N), not by hand\n");
    return 2;
  }
  return run_worker(fd, o);
}

}  // namespace uactor::scripting

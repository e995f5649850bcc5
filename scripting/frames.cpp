#include "scripting/frames.hpp"

#include <cstring>

#include "uactor/ua/status_codes.hpp"

namespace uactor::scripting {

namespace {

constexpr std::size_t max_string = 1u << 20;     // a name, a source, a string value, an error
constexpr std::uint32_t max_inputs = 1024;        // per item

struct writer {
  std::vector<std::byte>& out;
  std::size_t start;
  explicit writer(std::vector<std::byte>& o, frame_type t) : out(o), start(o.size()) {
    out.resize(start + frame_header_size);
    u8(static_cast<std::uint8_t>(t));
  }
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out.insert(out.end(), b, b + n);
  }
  void u8(std::uint8_t v) { out.push_back(static_cast<std::byte>(v)); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
  }
  void f64(double d) {
    std::uint64_t v;
    std::memcpy(&v, &d, 8);
    u64(v);
  }
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  void value(const script_value& v) {
    u8(static_cast<std::uint8_t>(v.index()));
    std::visit(
        [this](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, bool>) u8(x ? 1 : 0);
          else if constexpr (std::is_same_v<T, std::int64_t>) u64(static_cast<std::uint64_t>(x));
          else if constexpr (std::is_same_v<T, double>) f64(x);
          else if constexpr (std::is_same_v<T, std::string>) str(x);
        },
        v);
  }
  ~writer() {
    const auto n = static_cast<std::uint32_t>(out.size() - start - frame_header_size);
    for (int i = 0; i < 4; ++i) out[start + static_cast<std::size_t>(i)] = static_cast<std::byte>(n >> (8 * i));
  }
};

// Every read checks what is left: a count or a length past the body's end fails the whole frame.
struct reader {
  std::span<const std::byte> in;
  bool ok = true;
  bool take(std::size_t n) {
    if (!ok || in.size() < n) return ok = false;
    return true;
  }
  std::uint8_t u8() {
    if (!take(1)) return 0;
    const auto v = static_cast<std::uint8_t>(in[0]);
    in = in.subspan(1);
    return v;
  }
  std::uint32_t u32() {
    if (!take(4)) return 0;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(in[static_cast<std::size_t>(i)]) << (8 * i);
    in = in.subspan(4);
    return v;
  }
  std::uint64_t u64() {
    if (!take(8)) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(in[static_cast<std::size_t>(i)]) << (8 * i);
    in = in.subspan(8);
    return v;
  }
  double f64() {
    const std::uint64_t v = u64();
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  }
  std::string str() {
    const std::uint32_t n = u32();
    if (n > max_string || !take(n)) {
      ok = false;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(in.data()), n);
    in = in.subspan(n);
    return s;
  }
  // A count of elements of at least `min_size` bytes each: more than the body can hold is hostile.
  std::uint32_t count(std::size_t min_size) {
    const std::uint32_t n = u32();
    if (ok && static_cast<std::uint64_t>(n) * min_size > in.size()) ok = false;
    return ok ? n : 0;
  }
  script_value value() {
    switch (u8()) {
      case 0: return std::monostate{};
      case 1: return u8() != 0;
      case 2: return static_cast<std::int64_t>(u64());
      case 3: return f64();
      case 4: return str();
      default: ok = false; return {};
    }
  }
  bool type(frame_type t) { return u8() == static_cast<std::uint8_t>(t) && ok; }
  template <class T>
  ua::expected<T> done(T&& v) {
    if (!ok || !in.empty()) return ua::status::bad_decoding_error;  // trailing bytes are malformed too
    return std::move(v);
  }
};

}  // namespace

void encode(const load_frame& f, std::vector<std::byte>& out) {
  writer w(out, frame_type::load);
  w.u32(static_cast<std::uint32_t>(f.items.size()));
  for (const auto& it : f.items) {
    w.u8(static_cast<std::uint8_t>(it.kind));
    w.str(it.name);
    w.str(it.source);
    w.u32(static_cast<std::uint32_t>(it.input_names.size()));
    for (const auto& n : it.input_names) w.str(n);
  }
}

void encode(const loaded_frame& f, std::vector<std::byte>& out) {
  writer w(out, frame_type::loaded);
  w.u32(static_cast<std::uint32_t>(f.errors.size()));
  for (const auto& e : f.errors) w.str(e);
}

void encode(const run_batch_frame& f, std::vector<std::byte>& out) {
  writer w(out, frame_type::run_batch);
  w.u64(f.batch);
  w.f64(f.now_seconds);
  w.u32(static_cast<std::uint32_t>(f.runs.size()));
  for (const auto& r : f.runs) {
    w.u32(r.item);
    w.u8(r.active ? 1 : 0);
    w.u32(static_cast<std::uint32_t>(r.inputs.size()));
    for (const auto& v : r.inputs) w.value(v);
  }
}

void encode(const result_frame& f, std::vector<std::byte>& out) {
  writer w(out, frame_type::result);
  w.u64(f.batch);
  w.u32(f.item);
  w.u8(static_cast<std::uint8_t>(f.result.how));
  w.value(f.result.value);
  w.str(f.result.error);
  w.u64(f.duration_ns);
}

void encode(const heartbeat_frame& f, std::vector<std::byte>& out) {
  writer w(out, frame_type::heartbeat);
  w.u64(f.sequence);
}

ua::expected<load_frame> decode_load(std::span<const std::byte> body) {
  reader r{body};
  load_frame f;
  if (!r.type(frame_type::load)) return ua::status::bad_decoding_error;
  const std::uint32_t n = r.count(1 + 4 + 4 + 4);
  for (std::uint32_t i = 0; i < n && r.ok; ++i) {
    item_spec it;
    const std::uint8_t kind = r.u8();
    if (kind > static_cast<std::uint8_t>(item_kind::alarm)) r.ok = false;
    it.kind = static_cast<item_kind>(kind);
    it.name = r.str();
    it.source = r.str();
    const std::uint32_t inputs = r.count(4);
    if (inputs > max_inputs) r.ok = false;
    for (std::uint32_t k = 0; k < inputs && r.ok; ++k) it.input_names.push_back(r.str());
    f.items.push_back(std::move(it));
  }
  return r.done(std::move(f));
}

ua::expected<loaded_frame> decode_loaded(std::span<const std::byte> body) {
  reader r{body};
  loaded_frame f;
  if (!r.type(frame_type::loaded)) return ua::status::bad_decoding_error;
  const std::uint32_t n = r.count(4);
  for (std::uint32_t i = 0; i < n && r.ok; ++i) f.errors.push_back(r.str());
  return r.done(std::move(f));
}

ua::expected<run_batch_frame> decode_run_batch(std::span<const std::byte> body) {
  reader r{body};
  run_batch_frame f;
  if (!r.type(frame_type::run_batch)) return ua::status::bad_decoding_error;
  f.batch = r.u64();
  f.now_seconds = r.f64();
  const std::uint32_t n = r.count(4 + 1 + 4);
  f.runs.reserve(n);
  for (std::uint32_t i = 0; i < n && r.ok; ++i) {
    run_entry e;
    e.item = r.u32();
    e.active = r.u8() != 0;
    const std::uint32_t inputs = r.count(1);
    if (inputs > max_inputs) r.ok = false;
    e.inputs.reserve(inputs);
    for (std::uint32_t k = 0; k < inputs && r.ok; ++k) e.inputs.push_back(r.value());
    f.runs.push_back(std::move(e));
  }
  return r.done(std::move(f));
}

ua::expected<result_frame> decode_result(std::span<const std::byte> body) {
  reader r{body};
  result_frame f;
  if (!r.type(frame_type::result)) return ua::status::bad_decoding_error;
  f.batch = r.u64();
  f.item = r.u32();
  const std::uint8_t how = r.u8();
  if (how > static_cast<std::uint8_t>(outcome::not_loaded)) r.ok = false;
  f.result.how = static_cast<outcome>(how);
  f.result.value = r.value();
  f.result.error = r.str();
  f.duration_ns = r.u64();
  return r.done(std::move(f));
}

ua::expected<heartbeat_frame> decode_heartbeat(std::span<const std::byte> body) {
  reader r{body};
  heartbeat_frame f;
  if (!r.type(frame_type::heartbeat)) return ua::status::bad_decoding_error;
  f.sequence = r.u64();
  return r.done(std::move(f));
}

}  // namespace uactor::scripting

// NodeIds and ExpandedNodeIds as text, both ways (node_id_text.hpp).
#include "protocol/node_id_text.hpp"

#include <charconv>
#include <optional>

#include "protocol/base64.hpp"
#include "uactor/ua/status_codes.hpp"
#include "protocol/guid_text.hpp"
#include "protocol/hex_digit.hpp"

namespace uactor::ua {

namespace {

// Decimal digits only: no sign, no "0x", no white space; nullopt past T's range.
template <class T>
std::optional<T> parse_decimal(std::string_view s) {
  if (s.empty() || s.front() < '0' || s.front() > '9') return std::nullopt;
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Characters, not bytes: a UTF-8 continuation byte (10xxxxxx) does not start one.
std::size_t utf8_characters(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Part 6 §5.3.1.11: the reserved characters of a NamespaceUri in the text are '%' and ';'.
std::string percent_encode_uri(std::string_view uri) {
  std::string out;
  out.reserve(uri.size());
  for (const char c : uri) {
    if (c == '%') out += "%25";
    else if (c == ';') out += "%3B";
    else out += c;
  }
  return out;
}

std::optional<std::string> percent_decode_uri(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int hi = hex_digit(text[i + 1]), lo = hex_digit(text[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi << 4 | lo);
    i += 2;
  }
  return out;
}

class node_id_reader {
public:
  node_id_reader(std::string_view text, std::string* why) : rest_(text), why_(why) {}

  status_code refuse(std::string what) const {
    if (why_) *why_ = std::move(what);
    return status::bad_node_id_invalid;
  }

  // The value of a leading "key=value;" clause, or nullopt (rest unchanged) when the text does
  // not start with `key`=.
  std::optional<std::string_view> clause(std::string_view key) {
    if (rest_.substr(0, key.size()) != key || rest_.size() <= key.size() || rest_[key.size()] != '=') return std::nullopt;
    const auto semi = rest_.find(';');
    if (semi == std::string_view::npos) return std::nullopt;
    const auto value = rest_.substr(key.size() + 1, semi - key.size() - 1);
    rest_.remove_prefix(semi + 1);
    return value;
  }

  bool starts_with(std::string_view key) const {
    return rest_.substr(0, key.size()) == key && rest_.size() > key.size() && rest_[key.size()] == '=';
  }

  // The identifier that ends the text, in namespace `ns`.
  expected<node_id> identifier(std::uint16_t ns) const {
    if (rest_.size() < 2 || rest_[1] != '=')
      return refuse("the identifier must be i=, s=, g= or b= (e.g. ns=1;s=the.answer or i=85)");
    const std::string_view id = rest_.substr(2);
    switch (rest_[0]) {
      case 'i': {
        const auto n = parse_decimal<std::uint32_t>(id);
        if (!n) return refuse("i=" + std::string(id) + ": a numeric identifier is a decimal number from 0 to 4294967295");
        return node_id(ns, *n);
      }
      case 's':
        if (utf8_characters(id) > max_node_id_identifier)
          return refuse("a String identifier has more than " + std::to_string(max_node_id_identifier) + " characters");
        return node_id::string(ns, id);
      case 'g': {
        std::string what;
        const auto g = parse_guid(id, &what);
        if (!g) return refuse(what);
        return node_id::guid_id(ns, *g);
      }
      case 'b': {
        std::string what;
        const auto bytes = base64_decode(id, max_node_id_identifier, base64_whitespace::refuse, &what);
        if (!bytes) return refuse("an Opaque identifier: " + what);
        return node_id::opaque(ns, *bytes);
      }
      default:
        return refuse("the identifier must be i=, s=, g= or b= (e.g. ns=1;s=the.answer or i=85)");
    }
  }

  // "ns=" index ";" when the text has it; 0 otherwise.
  expected<std::uint16_t> namespace_index() {
    if (!starts_with("ns")) return std::uint16_t{0};
    const auto value = clause("ns");
    if (!value) return refuse("ns= must end with ';' before the identifier");
    const auto ns = parse_decimal<std::uint16_t>(*value);
    if (!ns) return refuse("ns=" + std::string(*value) + ": a namespace index is a decimal number from 0 to 65535");
    return *ns;
  }

private:
  std::string_view rest_;
  std::string* why_;
};

// "i=85", "s=the.answer", ...: a NodeId's text without its namespace.
std::string identifier_text(const node_id& id) {
  switch (id.type()) {
    case node_id_type::numeric: return "i=" + std::to_string(id.numeric());
    case node_id_type::string: return "s=" + std::string(id.text());
    case node_id_type::guid: return "g=" + id.guid_value().to_string();
    case node_id_type::byte_string: return "b=" + base64_encode(id.text());
  }
  return {};
}

}  // namespace

std::string node_id::to_string() const {
  return (ns_ ? "ns=" + std::to_string(ns_) + ";" : std::string()) + identifier_text(*this);
}

expected<node_id> parse_node_id(std::string_view text, std::string* why) {
  node_id_reader r(text, why);
  if (r.starts_with("nsu") || r.starts_with("svr"))
    return r.refuse("nsu= and svr= belong to an ExpandedNodeId, not a NodeId");
  const auto ns = r.namespace_index();
  if (!ns) return ns.error();
  return r.identifier(*ns);
}

expected<expanded_node_id> parse_expanded_node_id(std::string_view text, std::string* why) {
  node_id_reader r(text, why);
  expanded_node_id out;
  if (r.starts_with("svr")) {
    const auto value = r.clause("svr");
    const auto index = value ? parse_decimal<std::uint32_t>(*value) : std::nullopt;
    if (!index) return r.refuse("svr= takes a decimal server index from 0 to 4294967295, then ';'");
    out.server_index = *index;
  }
  std::uint16_t ns = 0;
  if (r.starts_with("nsu")) {
    const auto value = r.clause("nsu");
    if (!value || value->empty()) return r.refuse("nsu= takes a namespace URI, then ';'");
    auto uri = percent_decode_uri(*value);
    if (!uri) return r.refuse("nsu=: a '%' in the URI must be followed by two hex digits (%25 for '%', %3B for ';')");
    out.namespace_uri = ua_string(*uri);
  } else {
    const auto index = r.namespace_index();
    if (!index) return index.error();
    ns = *index;
  }
  auto id = r.identifier(ns);
  if (!id) return id.error();
  out.id = std::move(*id);
  return out;
}

std::string to_string(const expanded_node_id& x) {
  std::string out;
  if (x.server_index) out += "svr=" + std::to_string(x.server_index) + ";";
  if (x.namespace_uri.is_null() || x.namespace_uri.view().empty()) return out + x.id.to_string();
  // With a URI there is no index in the text.
  return out + "nsu=" + percent_encode_uri(x.namespace_uri.view()) + ";" + identifier_text(x.id);
}

}  // namespace uactor::ua

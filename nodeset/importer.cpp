// UANodeSet XML (Part 6 Annex F) into the address space: parse, check everything, then apply.
// docs/decisions/0015-nodeset-import.md says why it is shaped so.
#include "nodeset/importer.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "protocol/base64.hpp"
#include "protocol/byte_buffer.hpp"
#include "protocol/civil_date.hpp"
#include "protocol/codec.hpp"
#include "uactor/ua/node_ids.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "protocol/guid_text.hpp"
#include "protocol/node_id_text.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::nodeset {

using namespace uactor::ua;

std::string error::to_string() const {
  std::string s = file + ":" + std::to_string(line) + ": ";
  if (!node.empty()) s += node + ": ";
  return s + what;
}

model namespace0_model() {
  // Opc.Ua.NodeSet2.xml <Model ModelUri="http://opcfoundation.org/UA/" Version="1.05.07"
  // PublicationDate="2026-05-01T00:00:00Z">: the file protocol/ns0 is generated from (its
  // NamespaceVersion and NamespacePublicationDate say the same; a test holds them together).
  return model{"http://opcfoundation.org/UA/", "1.05.07", date_time{134220672000000000}};
}

// ---- the document -------------------------------------------------------------------------

struct document::impl {
  std::string file;
  std::vector<std::size_t> line_starts{0};  // byte offset of each line's first character
  pugi::xml_document xml;
  std::vector<error> errors;

  std::size_t line_of(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;
    const auto it = std::upper_bound(line_starts.begin(), line_starts.end(), static_cast<std::size_t>(offset));
    return static_cast<std::size_t>(it - line_starts.begin());
  }
};

document::document(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
document::document(document&&) noexcept = default;
document& document::operator=(document&&) noexcept = default;
document::~document() = default;
const std::string& document::file_name() const noexcept { return impl_->file; }
const std::vector<error>& document::errors() const noexcept { return impl_->errors; }

document document::parse(std::string file_name, std::string text, const limits& lim) {
  auto p = std::make_unique<impl>();
  p->file = std::move(file_name);
  if (text.size() > lim.max_file_bytes) {
    p->errors.push_back({p->file, 0, "", "the file has " + std::to_string(text.size()) + " bytes, more than the limit of " +
                                             std::to_string(lim.max_file_bytes)});
    return document(std::move(p));
  }
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') p->line_starts.push_back(i + 1);
  // No DOCTYPE expansion in pugixml (no entity declarations, no external fetch): XML bombs stay small.
  const auto r = p->xml.load_buffer(text.data(), text.size(), pugi::parse_default | pugi::parse_ws_pcdata_single,
                                    pugi::encoding_utf8);
  if (!r) {
    p->errors.push_back({p->file, p->line_of(r.offset), "", std::string("malformed XML: ") + r.description()});
    p->xml.reset();
  }
  return document(std::move(p));
}

document document::load(const std::string& path, const limits& lim) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    auto p = std::make_unique<impl>();
    p->file = path;
    p->errors.push_back({path, 0, "", "cannot open the file"});
    return document(std::move(p));
  }
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(std::max<std::streamoff>(in.tellg(), 0));
  if (size > lim.max_file_bytes) {
    auto p = std::make_unique<impl>();
    p->file = path;
    p->errors.push_back({path, 0, "", "the file has " + std::to_string(size) + " bytes, more than the limit of " +
                                          std::to_string(lim.max_file_bytes)});
    return document(std::move(p));
  }
  in.seekg(0);
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  return parse(path, std::move(text), lim);
}

namespace {

// ---- small parsers ------------------------------------------------------------------------

std::string_view local_name(const char* name) {
  std::string_view n(name);
  const auto colon = n.find(':');
  return colon == std::string_view::npos ? n : n.substr(colon + 1);
}

// Children by local name: NodeSet files write the value elements with a prefix (uax:) or none.
pugi::xml_node kid(pugi::xml_node el, std::string_view name) {
  for (pugi::xml_node c : el.children())
    if (c.type() == pugi::node_element && local_name(c.name()) == name) return c;
  return {};
}

std::vector<pugi::xml_node> kids(pugi::xml_node el, std::string_view name) {
  std::vector<pugi::xml_node> out;
  for (pugi::xml_node c : el.children())
    if (c.type() == pugi::node_element && local_name(c.name()) == name) out.push_back(c);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::strchr(" \t\r\n", s.front())) s.remove_prefix(1);
  while (!s.empty() && std::strchr(" \t\r\n", s.back())) s.remove_suffix(1);
  return s;
}

template <class T>
bool parse_int(std::string_view s, T& out) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size() && !s.empty();
}

bool parse_bool(std::string_view s, bool& out) {
  s = trim(s);
  if (s == "true" || s == "1") return out = true, true;
  if (s == "false" || s == "0") return out = false, true;
  return false;
}

template <class T>
bool parse_float(std::string_view s, T& out) {
  s = trim(s);
  if (s == "INF") return out = INFINITY, true;
  if (s == "-INF") return out = -INFINITY, true;
  if (s == "NaN") return out = NAN, true;
  if (s.empty()) return false;
  std::string z(s);
  char* end = nullptr;
  const double d = std::strtod(z.c_str(), &end);
  if (end != z.c_str() + z.size()) return false;
  out = static_cast<T>(d);
  return true;
}

// xs:dateTime: 2023-12-15T00:00:00Z, with fractional seconds and an offset or none (UTC).
bool parse_date_time(std::string_view s, date_time& out) {
  s = trim(s);
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (s.size() < 10 || !parse_int(s.substr(0, 4), y) || s[4] != '-' || !parse_int(s.substr(5, 2), mo) || s[7] != '-' ||
      !parse_int(s.substr(8, 2), d))
    return false;
  std::size_t p = 10;
  std::int64_t frac_ticks = 0;
  if (p < s.size() && s[p] == 'T') {
    if (s.size() < p + 9 || !parse_int(s.substr(p + 1, 2), h) || s[p + 3] != ':' || !parse_int(s.substr(p + 4, 2), mi) ||
        s[p + 6] != ':' || !parse_int(s.substr(p + 7, 2), sec))
      return false;
    p += 9;
    if (p < s.size() && s[p] == '.') {
      ++p;
      std::int64_t scale = 1'000'000;
      while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
        if (scale > 0) frac_ticks += (s[p] - '0') * scale;
        scale /= 10;
        ++p;
      }
    }
  }
  std::int64_t offset_min = 0;
  if (p < s.size()) {
    if (s[p] == 'Z') {
      ++p;
    } else if ((s[p] == '+' || s[p] == '-') && s.size() >= p + 6) {
      int oh = 0, om = 0;
      if (!parse_int(s.substr(p + 1, 2), oh) || s[p + 3] != ':' || !parse_int(s.substr(p + 4, 2), om)) return false;
      offset_min = (oh * 60 + om) * (s[p] == '-' ? -1 : 1);
      p += 6;
    }
  }
  if (p != s.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 24 || mi > 59 || sec > 60) return false;
  const std::int64_t unix_s = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                              h * 3600 + mi * 60 + sec - offset_min * 60;
  out.ticks = date_time::unix_epoch_ticks + unix_s * date_time::ticks_per_second + frac_ticks;
  return true;
}

// A Guid of the file: white space around it and the braces of the registry form ("{...}") are
// passed over on purpose, as NodeSet files written by other tools carry them.
bool parse_guid(std::string_view s, guid& g) {
  s = trim(s);
  if (s.size() >= 2 && s.front() == '{' && s.back() == '}') s = s.substr(1, s.size() - 2);
  const auto parsed = ua::parse_guid(s);
  if (parsed) g = *parsed;
  return parsed.has_value();
}

// A ByteString of the file: xs:base64Binary, whose lines a NodeSet file may wrap and indent, so
// white space is passed over on purpose; otherwise strict.
bool parse_base64(std::string_view s, std::string& out) {
  auto bytes = ua::base64_decode(s, decode_limits{}.max_byte_string_length, base64_whitespace::skip);
  if (bytes) out = std::move(*bytes);
  return bytes.has_value();
}

// The same identifier in the server's namespace `ns` (the file's indexes are its own, Part 6 §F.2).
node_id in_namespace(const node_id& id, std::uint16_t ns) {
  switch (id.type()) {
    case node_id_type::numeric: return node_id(ns, id.numeric());
    case node_id_type::guid: return node_id::guid_id(ns, id.guid_value());
    default: {
      node_id n;
      n.set_string(ns, id.text(), id.type());
      return n;
    }
  }
}

// "1:Name" -> (1, "Name"); a prefix that is not a number is part of the name (Part 6 §F.3).
std::pair<std::uint16_t, std::string_view> split_qualified(std::string_view s) {
  const auto colon = s.find(':');
  std::uint16_t ns = 0;
  if (colon != std::string_view::npos && parse_int(s.substr(0, colon), ns)) return {ns, s.substr(colon + 1)};
  return {0, s};
}

// ---- the importer -------------------------------------------------------------------------

struct file_node {
  pugi::xml_node el;
  std::string id_text;  // as the file spells it
  node_spec spec;
  std::unique_ptr<structure_definition> structure;  // a DataType's <Definition>, before it is stored
  std::unique_ptr<enum_definition> enumeration;
};

struct file_reference {
  node_id source, type, target;
  pugi::xml_node el;
  std::size_t owner;  // index into nodes
};

std::string key(const node_id& id) { return id.to_string(); }

class importer {
public:
  importer(const document::impl& doc, address_space& as, const server_state& state, const limits& lim)
      : doc_(doc), as_(as), state_(state), lim_(lim) {}

  import_result run() {
    result_.errors = doc_.errors;
    if (!result_.errors.empty()) return std::move(result_);
    const pugi::xml_node root = doc_.xml.document_element();
    if (!root || local_name(root.name()) != "UANodeSet") {
      err(root, "", "not a UANodeSet document (the root element is <" + std::string(root ? root.name() : "") + ">)");
      return std::move(result_);
    }
    namespaces(kid(root, "NamespaceUris"));
    models(kid(root, "Models"));
    aliases(kid(root, "Aliases"));
    for (pugi::xml_node el : root.children()) {
      if (stop()) break;
      const auto name = local_name(el.name());
      if (name.size() > 2 && name.substr(0, 2) == "UA") node(el);
      else if (name != "NamespaceUris" && name != "Models" && name != "Aliases" && name != "Extensions" &&
               name != "ServerUris" && name != "LastModified" && el.type() == pugi::node_element)
        err(el, "", "unknown element <" + std::string(el.name()) + ">");
    }
    if (!stop()) check_references();
    if (!stop()) definitions();
    if (!stop()) inherit_fields();
    if (!stop()) values();
    if (result_.errors.empty()) apply();
    return std::move(result_);
  }

private:
  bool stop() const { return result_.errors.size() >= lim_.max_errors; }

  void err(pugi::xml_node el, std::string_view node, std::string what) {
    if (result_.errors.size() > lim_.max_errors) return;
    if (result_.errors.size() == lim_.max_errors) {
      result_.errors.push_back({doc_.file, doc_.line_of(el ? el.offset_debug() : 0), "",
                                "more than " + std::to_string(lim_.max_errors) + " errors: the check stops here"});
      return;
    }
    result_.errors.push_back({doc_.file, doc_.line_of(el ? el.offset_debug() : 0), std::string(node), std::move(what)});
    reported_ = el;
  }

  // -- NamespaceUris: file index i+1 is uris[i]; 0 is always the UA namespace.
  void namespaces(pugi::xml_node el) {
    ns_map_.push_back(0);
    for (pugi::xml_node u : el.children()) {
      if (u.type() != pugi::node_element) continue;
      const std::string uri(trim(u.child_value()));
      std::uint16_t index = 0;
      bool found = false;
      for (std::size_t i = 0; i < state_.namespace_array.size() && !found; ++i)
        if (state_.namespace_array[i] == uri) index = static_cast<std::uint16_t>(i), found = true;
      for (std::size_t i = 0; i < result_.new_namespaces.size() && !found; ++i)
        if (result_.new_namespaces[i] == uri)
          index = static_cast<std::uint16_t>(state_.namespace_array.size() + i), found = true;
      if (!found) {
        if (state_.namespace_array.size() + result_.new_namespaces.size() >= 0xFFFF) {
          err(u, "", "too many namespaces");
          return;
        }
        index = static_cast<std::uint16_t>(state_.namespace_array.size() + result_.new_namespaces.size());
        result_.new_namespaces.push_back(uri);
      }
      ns_map_.push_back(index);
    }
  }

  static int compare_versions(std::string_view a, std::string_view b) {
    while (!a.empty() || !b.empty()) {
      std::uint64_t x = 0, y = 0;
      const auto take = [](std::string_view& s, std::uint64_t& v) {
        std::size_t i = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') v = v * 10 + static_cast<std::uint64_t>(s[i++] - '0');
        while (i < s.size() && (s[i] < '0' || s[i] > '9')) ++i;
        s.remove_prefix(i);
      };
      take(a, x);
      take(b, y);
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  }

  // -- Models: each RequiredModel must be loaded, with a version and publication date no older.
  void models(pugi::xml_node el) {
    for (pugi::xml_node m : kids(el, "Model")) {
      model defined{m.attribute("ModelUri").value(), m.attribute("Version").value(), {}};
      if (const char* d = m.attribute("PublicationDate").value(); *d && !parse_date_time(d, defined.publication_date))
        err(m, "", std::string("Model ") + defined.uri + ": PublicationDate '" + d + "' is not an xs:dateTime");
      for (pugi::xml_node r : kids(m, "RequiredModel")) {
        model req{r.attribute("ModelUri").value(), r.attribute("Version").value(), {}};
        if (const char* d = r.attribute("PublicationDate").value(); *d) parse_date_time(d, req.publication_date);
        const model* have = nullptr;
        for (const model& l : state_.loaded_models)
          if (l.uri == req.uri) have = &l;
        if (!have) {
          err(r, "", "RequiredModel " + req.uri + " " + req.version + " is not loaded: load it first");
          continue;
        }
        const bool older_date = req.publication_date.ticks != 0 && have->publication_date.ticks != 0 &&
                                have->publication_date < req.publication_date;
        const bool older_version = !req.version.empty() && !have->version.empty() &&
                                   compare_versions(have->version, req.version) < 0;
        if (!older_date && !older_version) continue;
        std::string what = "RequiredModel " + req.uri + " " + req.version + " is loaded in an older version (" +
                           have->version + "): load the newer one first";
        if (state_.accept_older_models)
          result_.warnings.push_back({doc_.file, doc_.line_of(r.offset_debug()), "", std::move(what)});
        else
          err(r, "", std::move(what));
      }
      result_.models.push_back(std::move(defined));
    }
  }

  void aliases(pugi::xml_node el) {
    for (pugi::xml_node a : kids(el, "Alias")) {
      const std::string name = a.attribute("Alias").value();
      if (name.empty()) err(a, "", "an Alias without a name");
      aliases_[name] = std::string(trim(a.child_value()));
    }
  }

  // A NodeId of the file ("ns=1;i=5", "i=85", "nsu=URI;s=x" or an alias) with the server's
  // namespace index. An error names `node` and what is wrong; false then.
  bool resolve(std::string_view text, pugi::xml_node el, std::string_view node, node_id& out, bool allow_alias = true) {
    text = trim(text);
    if (allow_alias) {
      if (auto it = aliases_.find(std::string(text)); it != aliases_.end()) text = it->second;
      else if (text.find('=') == std::string_view::npos) {
        err(el, node, "unknown alias '" + std::string(text) + "'");
        return false;
      }
    }
    std::string why;
    const auto parsed = parse_expanded_node_id(text, &why);
    if (!parsed) {
      err(el, node, "malformed NodeId '" + std::string(text) + "': " + why);
      return false;
    }
    if (parsed->server_index != 0) {
      err(el, node, "NodeId '" + std::string(text) + "' names another server (svr=); a NodeSet's nodes are its own");
      return false;
    }
    std::uint16_t ns = 0;
    if (!parsed->namespace_uri.is_null()) {
      const std::string_view uri = parsed->namespace_uri.view();
      bool found = false;
      for (std::size_t i = 0; i < state_.namespace_array.size() && !found; ++i)
        if (state_.namespace_array[i] == uri) ns = static_cast<std::uint16_t>(i), found = true;
      for (std::size_t i = 0; i < result_.new_namespaces.size() && !found; ++i)
        if (result_.new_namespaces[i] == uri) ns = static_cast<std::uint16_t>(state_.namespace_array.size() + i), found = true;
      if (!found) {
        err(el, node, "NodeId '" + std::string(text) + "' names an unknown namespace");
        return false;
      }
    } else if (const std::uint16_t file_ns = parsed->id.namespace_index(); file_ns != 0) {
      if (file_ns >= ns_map_.size()) {
        err(el, node, "NodeId '" + std::string(text) + "' names namespace index " + std::to_string(file_ns) +
                          ", which the file's NamespaceUris do not declare");
        return false;
      }
      ns = ns_map_[file_ns];
    }
    out = in_namespace(parsed->id, ns);
    return true;
  }

  // A part the file leaves out (no Locale attribute) is null, not empty (Part 6 §5.2.2.14).
  static localized_text localized(text_view t) {
    return localized_text{t.locale.data() ? ua_string(t.locale) : ua_string(), t.text.data() ? ua_string(t.text) : ua_string()};
  }

  static text_view text_of(pugi::xml_node el) {
    if (!el) return {};
    return text_view{el.attribute("Locale") ? std::string_view(el.attribute("Locale").value()) : std::string_view{},
                     std::string_view(el.child_value())};
  }

  template <class T>
  bool attr_int(pugi::xml_node el, const char* name, T& out, std::string_view node) {
    const pugi::xml_attribute a = el.attribute(name);
    if (!a) return true;
    if (parse_int(a.value(), out)) return true;
    err(el, node, std::string(name) + " '" + a.value() + "' is not a number of its type");
    return false;
  }
  bool attr_bool(pugi::xml_node el, const char* name, bool& out, std::string_view node) {
    const pugi::xml_attribute a = el.attribute(name);
    if (!a) return true;
    if (parse_bool(a.value(), out)) return true;
    err(el, node, std::string(name) + " '" + a.value() + "' is not a boolean");
    return false;
  }

  void node(pugi::xml_node el) {
    static const std::unordered_map<std::string_view, node_class> classes = {
        {"UAObject", node_class::object},           {"UAVariable", node_class::variable},
        {"UAMethod", node_class::method},           {"UAObjectType", node_class::object_type},
        {"UAVariableType", node_class::variable_type}, {"UAReferenceType", node_class::reference_type},
        {"UADataType", node_class::data_type},      {"UAView", node_class::view}};
    const std::string id_text = el.attribute("NodeId").value();
    const auto cls = classes.find(local_name(el.name()));
    if (cls == classes.end()) {
      err(el, id_text, "unknown node class <" + std::string(el.name()) + ">");
      return;
    }
    if (++node_count_ > lim_.max_nodes) {
      if (node_count_ == lim_.max_nodes + 1) err(el, id_text, "more than " + std::to_string(lim_.max_nodes) + " nodes");
      return;
    }
    if (id_text.empty()) {
      err(el, "", std::string("<") + el.name() + "> without a NodeId");
      return;
    }
    file_node n;
    n.el = el;
    n.id_text = id_text;
    node_spec& s = n.spec;
    if (!resolve(id_text, el, id_text, s.id, false)) return;
    if (s.id.is_null()) {  // the store refuses a null NodeId: refused here, before anything is added
      err(el, id_text, "a null NodeId");
      return;
    }
    s.cls = cls->second;
    const char* browse = el.attribute("BrowseName").value();
    if (!*browse) err(el, id_text, "no BrowseName");
    const auto [bns, bname] = split_qualified(browse);
    if (bns >= ns_map_.size()) {
      err(el, id_text, "BrowseName '" + std::string(browse) + "' names namespace index " + std::to_string(bns) +
                           ", which the file's NamespaceUris do not declare");
      return;
    }
    s.browse_ns = ns_map_[bns];
    s.browse_name = bname;
    if (*browse && bname.empty()) err(el, id_text, "BrowseName '" + std::string(browse) + "' has an empty name");
    s.display_name = text_of(kid(el, "DisplayName"));
    s.description = text_of(kid(el, "Description"));
    attr_int(el, "WriteMask", s.write_mask, id_text);
    attr_int(el, "UserWriteMask", s.user_write_mask, id_text);
    attr_bool(el, "IsAbstract", s.is_abstract, id_text);
    switch (s.cls) {
      case node_class::object:
        attr_int(el, "EventNotifier", s.event_notifier, id_text);
        break;
      case node_class::view:
        attr_int(el, "EventNotifier", s.event_notifier, id_text);
        attr_bool(el, "ContainsNoLoops", s.contains_no_loops, id_text);
        break;
      case node_class::method:
        attr_bool(el, "Executable", s.executable, id_text);
        s.user_executable = s.executable;
        attr_bool(el, "UserExecutable", s.user_executable, id_text);
        break;
      case node_class::reference_type:
        attr_bool(el, "Symmetric", s.symmetric, id_text);
        s.inverse_name = text_of(kid(el, "InverseName"));
        break;
      case node_class::variable:
      case node_class::variable_type: {
        if (const char* dt = el.attribute("DataType").value(); *dt) resolve(dt, el, id_text, s.data_type);
        attr_int(el, "ValueRank", s.value_rank, id_text);
        if (const char* dims = el.attribute("ArrayDimensions").value(); *dims) {
          std::string_view rest(dims);
          while (!rest.empty()) {
            const auto comma = rest.find(',');
            std::uint32_t d = 0;
            if (!parse_int(rest.substr(0, comma), d)) {
              err(el, id_text, std::string("ArrayDimensions '") + dims + "' is not a list of numbers");
              break;
            }
            s.array_dimensions.push_back(d);
            rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
          }
        }
        if (s.cls == node_class::variable) {
          attr_int(el, "AccessLevel", s.access_level, id_text);
          s.user_access_level = s.access_level;
          attr_int(el, "UserAccessLevel", s.user_access_level, id_text);
          attr_bool(el, "Historizing", s.historizing, id_text);
          if (const char* msi = el.attribute("MinimumSamplingInterval").value();
              *msi && !parse_float(msi, s.minimum_sampling_interval))
            err(el, id_text, std::string("MinimumSamplingInterval '") + msi + "' is not a number");
        }
        break;
      }
      default: break;
    }
    const std::size_t index = nodes_.size();
    std::vector<file_reference> refs;
    std::size_t count = 0;
    for (pugi::xml_node r : kids(kid(el, "References"), "Reference")) {
      if (++count > lim_.max_references_per_node) {
        err(r, id_text, "more than " + std::to_string(lim_.max_references_per_node) + " references on one node");
        break;
      }
      if (refs_.size() + refs.size() >= lim_.max_references) {
        err(r, id_text, "more than " + std::to_string(lim_.max_references) + " references in the file");
        break;
      }
      bool forward = true;
      attr_bool(r, "IsForward", forward, id_text);
      node_id type, target;
      if (!resolve(r.attribute("ReferenceType").value(), r, id_text, type)) continue;
      if (!resolve(r.child_value(), r, id_text, target)) continue;
      if (forward) refs.push_back({s.id, std::move(type), std::move(target), r, index});
      else refs.push_back({std::move(target), std::move(type), s.id, r, index});
    }
    // The server's nodes first: by_id_ may only name nodes that nodes_ holds (an entry for a node
    // refused here pointed past its end; found by nodeset_fuzz).
    if (as_.find(s.id) != no_node) {
      err(el, id_text, "duplicate NodeId: the server already has this node");
      return;
    }
    auto [it, fresh] = by_id_.emplace(key(s.id), index);
    if (!fresh) {
      err(el, id_text, "duplicate NodeId: already defined at line " +
                           std::to_string(doc_.line_of(nodes_[it->second].el.offset_debug())));
      return;
    }
    nodes_.push_back(std::move(n));
    for (file_reference& r : refs) refs_.push_back(std::move(r));
  }

  // The class of a node of the file or the server, or unspecified when neither has it.
  node_class class_of(const node_id& id) const {
    if (auto it = by_id_.find(key(id)); it != by_id_.end()) return nodes_[it->second].spec.cls;
    const node_index n = as_.find(id);
    return n == no_node ? node_class::unspecified : as_.at(n).cls;
  }
  bool is_abstract(const node_id& id) const {
    if (auto it = by_id_.find(key(id)); it != by_id_.end()) return nodes_[it->second].spec.is_abstract;
    const node_index n = as_.find(id);
    return n != no_node && as_.at(n).is_abstract;
  }

  void check_references() {
    for (const file_node& n : nodes_)
      if ((n.spec.cls == node_class::variable || n.spec.cls == node_class::variable_type) &&
          class_of(n.spec.data_type) != node_class::data_type)
        err(n.el, n.id_text, "DataType " + n.spec.data_type.to_string() + " is neither in the file nor in the server");
    std::unordered_set<std::string> seen;
    for (file_reference& r : refs_) {
      if (stop()) return;
      const std::string& owner = nodes_[r.owner].id_text;
      const node_class t = class_of(r.type);
      if (t == node_class::unspecified) {
        err(r.el, owner, "reference type " + r.type.to_string() + " is neither in the file nor in the server");
        continue;
      }
      if (t != node_class::reference_type || is_abstract(r.type)) {
        err(r.el, owner, "reference type " + r.type.to_string() + " is not a concrete ReferenceType");
        continue;
      }
      const node_id& other = r.source == nodes_[r.owner].spec.id ? r.target : r.source;
      if (class_of(other) == node_class::unspecified) {
        err(r.el, owner, "reference to " + other.to_string() + ", which neither the file nor the server has");
        continue;
      }
      if (r.type == node_id(0, ids::has_subtype)) super_[key(r.target)] = r.source;
      if (r.type == node_id(0, ids::has_encoding)) encodings_.push_back(&r);
      std::string k = key(r.source) + '|' + key(r.type) + '|' + key(r.target);
      if (seen.insert(std::move(k)).second) unique_refs_.push_back(&r);
    }
  }

  // ---- DataTypes ----

  node_id super_of(const node_id& type) const {
    if (auto it = super_.find(key(type)); it != super_.end()) return it->second;
    const node_index n = as_.find(type);
    if (n == no_node) return {};
    const node_index s = as_.super_type(n);
    return s == no_node ? node_id{} : as_.at(s).id.to_node_id();
  }

  bool derives_from(node_id type, const node_id& base) const {
    for (int i = 0; i < 64 && !type.is_null(); ++i, type = super_of(type))
      if (type == base) return true;
    return false;
  }

  // The built-in type a DataType is encoded as (Part 3 §5.8.2): the nearest ns=0 id <= 25 on its
  // supertype chain; Int32 for an Enumeration, ExtensionObject for a Structure; null when unknown.
  builtin_type builtin_of(node_id type) const {
    for (int i = 0; i < 64 && !type.is_null(); ++i, type = super_of(type)) {
      if (type.namespace_index() != 0 || type.type() != node_id_type::numeric) continue;
      const std::uint32_t v = type.numeric();
      if (v == ids::enumeration) return builtin_type::int32;
      if (v >= 1 && v <= 25) return static_cast<builtin_type>(v);
    }
    return builtin_type::null;
  }

  const structure_definition* structure_of(const node_id& type) {
    if (auto it = by_id_.find(key(type)); it != by_id_.end()) return nodes_[it->second].structure.get();
    const node_index n = as_.find(type);
    if (n == no_node) return nullptr;
    data_value dv;
    if (as_.read(n, attribute_id::data_type_definition, dv).is_bad()) return nullptr;
    const auto* eo = dv.value.get_if<extension_object>();
    const auto* sd = eo ? eo->get_if<structure_definition>() : nullptr;
    if (!sd) return nullptr;
    auto& cached = server_structures_[key(type)];
    if (!cached) cached = std::make_unique<structure_definition>(*sd);
    return cached.get();
  }

  // The DefaultBinary encoding of a DataType of the file (its HasEncoding "Default Binary").
  node_id binary_encoding_of(const node_id& type) const {
    for (const file_reference* r : encodings_) {
      if (!(r->source == type)) continue;
      auto it = by_id_.find(key(r->target));
      if (it != by_id_.end() && nodes_[it->second].spec.browse_name == "Default Binary") return r->target;
    }
    return {};
  }

  void definitions() {
    for (file_node& n : nodes_) {
      if (stop()) return;
      if (n.spec.cls != node_class::data_type) continue;
      const pugi::xml_node def = kid(n.el, "Definition");
      if (!def) continue;
      const bool is_enum = derives_from(n.spec.id, node_id(0, ids::enumeration));
      const bool option_set = def.attribute("IsOptionSet").as_bool();
      if (is_enum || option_set) {
        auto e = std::make_unique<enum_definition>();
        std::int64_t next = 0;
        for (pugi::xml_node f : kids(def, "Field")) {
          enum_field ef;
          ef.name = ua_string(f.attribute("Name").value());
          ef.value = option_set ? 0 : next;
          if (f.attribute("Value") && !parse_int(f.attribute("Value").value(), ef.value))
            err(f, n.id_text, std::string("enumeration field Value '") + f.attribute("Value").value() + "' is not a number");
          next = ef.value + 1;
          const text_view dn = text_of(kid(f, "DisplayName"));
          ef.display_name = localized(dn);
          if (!dn.text.data()) ef.display_name.text = ef.name;
          if (kid(f, "Description")) ef.description = localized(text_of(kid(f, "Description")));
          e->fields.push_back(std::move(ef));
        }
        n.enumeration = std::move(e);
        continue;
      }
      auto sd = std::make_unique<structure_definition>();
      sd->base_data_type = super_of(n.spec.id);
      sd->default_encoding_id = binary_encoding_of(n.spec.id);
      const bool is_union = def.attribute("IsUnion").as_bool();
      bool any_optional = false, any_subtyped = false;
      for (pugi::xml_node f : kids(def, "Field")) {
        structure_field sf;
        sf.name = ua_string(f.attribute("Name").value());
        sf.data_type = node_id(0, ids::base_data_type);
        if (const char* dt = f.attribute("DataType").value(); *dt) resolve(dt, f, n.id_text, sf.data_type);
        sf.value_rank = -1;
        attr_int(f, "ValueRank", sf.value_rank, n.id_text);
        attr_int(f, "MaxStringLength", sf.max_string_length, n.id_text);
        attr_bool(f, "IsOptional", sf.is_optional, n.id_text);
        any_optional = any_optional || sf.is_optional;
        // Part 3 §8.51: in a StructureWithSubtypedValues (or UnionWith...), IsOptional means that
        // the field allows subtypes; a structure cannot have both kinds of fields.
        bool allow_subtypes = false;
        attr_bool(f, "AllowSubTypes", allow_subtypes, n.id_text);
        if (allow_subtypes && sf.is_optional)
          err(f, n.id_text, "field " + std::string(sf.name.view()) +
                                ": IsOptional and AllowSubTypes together, which a StructureDefinition cannot express");
        any_subtyped = any_subtyped || allow_subtypes;
        sf.is_optional = sf.is_optional || allow_subtypes;
        if (const char* dims = f.attribute("ArrayDimensions").value(); *dims) {
          std::uint32_t d = 0;
          if (parse_int(dims, d)) sf.array_dimensions.push_back(d);
        }
        if (kid(f, "Description")) sf.description = localized(text_of(kid(f, "Description")));
        if (class_of(sf.data_type) != node_class::data_type)
          err(f, n.id_text, "field " + std::string(sf.name.view()) + ": DataType " + sf.data_type.to_string() +
                                " is neither in the file nor in the server");
        sd->fields.push_back(std::move(sf));
      }
      if (any_subtyped && any_optional && !is_union)
        err(def, n.id_text, "a structure with both optional fields and fields that allow subtypes, which a "
                            "StructureDefinition cannot express");
      sd->structure_type = is_union ? (any_subtyped ? structure_type::union_with_subtyped_values : structure_type::union_)
                           : any_subtyped ? structure_type::structure_with_subtyped_values
                           : any_optional ? structure_type::structure_with_optional_fields
                                          : structure_type::structure;
      n.structure = std::move(sd);
    }
  }

  // Part 3 §8.48: the fields of a structure derived from another begin with its base's fields; a
  // <Definition> lists its own (Opc.Ua.Woodworking's subtype of Argument), so the base's are put in
  // front, bases first. A Definition that already begins with its base's fields is left as it is.
  void inherit_fields() {
    std::unordered_set<std::string> done;
    for (file_node& n : nodes_) inherit_fields(n, done, 0);
  }
  void inherit_fields(file_node& n, std::unordered_set<std::string>& done, int depth) {
    if (!n.structure || depth > lim_.max_value_depth || !done.insert(key(n.spec.id)).second) return;
    const node_id base = n.structure->base_data_type;
    if (base == node_id(0, ids::structure) || base == node_id(0, ids::union_)) return;
    if (auto it = by_id_.find(key(base)); it != by_id_.end()) inherit_fields(nodes_[it->second], done, depth + 1);
    const structure_definition* b = structure_of(base);
    if (!b || b->fields.empty()) return;
    auto& own = n.structure->fields;
    const bool has_them = own.size() >= b->fields.size() &&
                          std::equal(b->fields.begin(), b->fields.end(), own.begin(),
                                     [](const structure_field& x, const structure_field& y) { return x.name == y.name; });
    if (!has_them) {
      own.insert(own.begin(), b->fields.begin(), b->fields.end());
      // Empty, not null, as the file's own fields (namespace 0's generated definitions have null ones).
      for (std::size_t i = 0; i < b->fields.size(); ++i) own[i].array_dimensions.set_not_null();
    }
    if (n.structure->structure_type == structure_type::structure && b->structure_type != structure_type::structure)
      n.structure->structure_type = b->structure_type;  // the base's optional or subtyped fields are its too
  }

  // ---- Values (Part 6 §5.3) ----

  // One scalar of built-in type T from its XML element.
  bool scalar(pugi::xml_node el, bool& v) { return parse_bool(el.child_value(), v); }
  template <class T>
    requires std::is_integral_v<T>
  bool scalar(pugi::xml_node el, T& v) { return parse_int(el.child_value(), v); }
  bool scalar(pugi::xml_node el, float& v) { return parse_float(el.child_value(), v); }
  bool scalar(pugi::xml_node el, double& v) { return parse_float(el.child_value(), v); }
  bool scalar(pugi::xml_node el, ua_string& v) { v = ua_string(el.child_value()); return true; }
  bool scalar(pugi::xml_node el, date_time& v) { return parse_date_time(el.child_value(), v); }
  bool scalar(pugi::xml_node el, guid& v) {
    return parse_guid(kid(el, "String") ? kid(el, "String").child_value() : el.child_value(), v);
  }
  bool scalar(pugi::xml_node el, byte_string& v) {
    std::string bytes;
    if (!parse_base64(el.child_value(), bytes)) return false;
    v = byte_string(bytes);
    return true;
  }
  bool scalar(pugi::xml_node el, xml_element& v) {
    std::ostringstream os;
    for (pugi::xml_node c : el.children()) c.print(os, "", pugi::format_raw);
    v = xml_element(os.str());
    return true;
  }
  bool scalar(pugi::xml_node el, node_id& v) {
    const std::string_view text = trim(kid(el, "Identifier") ? kid(el, "Identifier").child_value() : el.child_value());
    if (text.empty()) return v = node_id{}, true;
    return resolve(text, el, current_, v);
  }
  bool scalar(pugi::xml_node el, expanded_node_id& v) {
    const std::string_view text = trim(kid(el, "Identifier") ? kid(el, "Identifier").child_value() : el.child_value());
    if (text.empty()) return v = expanded_node_id{}, true;
    return resolve(text, el, current_, v.id);
  }
  bool scalar(pugi::xml_node el, status_code& v) {
    std::uint32_t c = 0;
    if (!parse_int(kid(el, "Code") ? kid(el, "Code").child_value() : el.child_value(), c)) return false;
    v = status_code{c};
    return true;
  }
  bool scalar(pugi::xml_node el, qualified_name& v) {
    std::uint16_t ns = 0;
    if (kid(el, "NamespaceIndex") && !parse_int(kid(el, "NamespaceIndex").child_value(), ns)) return false;
    if (ns >= ns_map_.size()) return false;
    v.namespace_index = ns_map_[ns];
    v.name = ua_string(kid(el, "Name").child_value());
    return true;
  }
  bool scalar(pugi::xml_node el, localized_text& v) {
    // A locale id holds no white space (RFC 3066): a pretty-printed <Locale> with nothing else in it
    // (Opc.ISA95.NodeSet2.xml's EnumStrings) is no locale.
    if (const std::string_view locale = trim(kid(el, "Locale").child_value()); !locale.empty()) v.locale = ua_string(locale);
    if (kid(el, "Text")) v.text = ua_string(kid(el, "Text").child_value());
    // <LocalizedText/>: both parts null (Part 6 §5.3.1.14: an absent element is a null part).
    else if (el.first_child() && el.first_child().type() == pugi::node_pcdata) v.text = ua_string(el.child_value());
    return true;
  }
  bool scalar(pugi::xml_node el, extension_object& v) { return extension(el, v); }
  // <Variant><Value><Int32>5</Int32></Value></Variant> (Part 6 §5.3.1.17); the typed element
  // without its <Value> wrapper is taken too.
  bool scalar(pugi::xml_node el, variant& v) {
    const pugi::xml_node value = kid(el, "Value");
    const pugi::xml_node inner = first_element(value ? value : el);
    if (!inner) return v = variant{}, true;  // an empty Variant
    return value_of(inner, v);
  }
  // Part 6 §5.3.1.18: each part is there when its element is.
  bool scalar(pugi::xml_node el, data_value& v) {
    v = data_value{};
    if (const pugi::xml_node x = kid(el, "Value")) {
      variant inner;
      if (!scalar(x, inner)) return false;
      v.set_value(std::move(inner));
    }
    if (const pugi::xml_node x = kid(el, "StatusCode")) {
      if (!scalar(x, v.status)) return value_error(x), false;
      v.has_status = true;
    }
    const auto time = [&](const char* name, date_time& t, bool& has) {
      const pugi::xml_node x = kid(el, name);
      if (!x) return true;
      if (!parse_date_time(x.child_value(), t)) return value_error(x), false;
      return has = true;
    };
    const auto pico = [&](const char* name, std::uint16_t& p, bool& has) {
      const pugi::xml_node x = kid(el, name);
      if (!x) return true;
      if (!parse_int(x.child_value(), p)) return value_error(x), false;
      return has = true;
    };
    return time("SourceTimestamp", v.source_timestamp, v.has_source_timestamp) &&
           pico("SourcePicoseconds", v.source_picoseconds, v.has_source_picoseconds) &&
           time("ServerTimestamp", v.server_timestamp, v.has_server_timestamp) &&
           pico("ServerPicoseconds", v.server_picoseconds, v.has_server_picoseconds);
  }
  // Part 6 §5.3.1.12: the indices into a string table, AdditionalInfo, InnerStatusCode and
  // InnerDiagnosticInfo, each there when its element is.
  bool scalar(pugi::xml_node el, diagnostic_info& v) {
    const value_level level(*this);
    if (too_deep(el)) return false;
    v = diagnostic_info{};
    const auto index = [&](const char* name, std::optional<std::int32_t>& out) {
      const pugi::xml_node x = kid(el, name);
      if (!x) return true;
      std::int32_t i = 0;
      if (!parse_int(x.child_value(), i)) return value_error(x), false;
      out = i;
      return true;
    };
    if (!index("SymbolicId", v.symbolic_id) || !index("NamespaceUri", v.namespace_uri) || !index("Locale", v.locale) ||
        !index("LocalizedText", v.localized_text))
      return false;
    if (const pugi::xml_node x = kid(el, "AdditionalInfo")) v.additional_info = ua_string(x.child_value());
    if (const pugi::xml_node x = kid(el, "InnerStatusCode")) {
      status_code sc;
      if (!scalar(x, sc)) return value_error(x), false;
      v.inner_status_code = sc;
    }
    if (const pugi::xml_node x = kid(el, "InnerDiagnosticInfo")) {
      v.inner_diagnostic_info = std::make_unique<diagnostic_info>();
      if (!scalar(x, *v.inner_diagnostic_info)) return false;
    }
    return true;
  }

  static pugi::xml_node first_element(pugi::xml_node el) {
    return el.find_child([](pugi::xml_node c) { return c.type() == pugi::node_element; });
  }

  // A Variant from a typed element (<Int32>, <ListOfString>, <ExtensionObject>, ...).
  bool value_of(pugi::xml_node el, variant& out) {
    const value_level level(*this);
    if (too_deep(el)) return false;
    return value_of_inner(el, out);
  }

  // One level deeper into a nested value (a Variant, a structure, a DiagnosticInfo) while it lives.
  struct value_level {
    explicit value_level(importer& i) : depth(++i.depth_) {}
    ~value_level() { --depth; }
    value_level(const value_level&) = delete;
    value_level& operator=(const value_level&) = delete;
    int& depth;
  };
  // Past the limit of nesting: an error at `el`.
  bool too_deep(pugi::xml_node el) {
    if (depth_ <= lim_.max_value_depth) return false;
    err(el, current_, "a value nested deeper than " + std::to_string(lim_.max_value_depth));
    return true;
  }

  static builtin_type type_named(std::string_view name) {
    static const std::unordered_map<std::string_view, builtin_type> names = {
        {"Boolean", builtin_type::boolean}, {"SByte", builtin_type::sbyte}, {"Byte", builtin_type::byte},
        {"Int16", builtin_type::int16}, {"UInt16", builtin_type::uint16}, {"Int32", builtin_type::int32},
        {"UInt32", builtin_type::uint32}, {"Int64", builtin_type::int64}, {"UInt64", builtin_type::uint64},
        {"Float", builtin_type::float_}, {"Double", builtin_type::double_}, {"String", builtin_type::string},
        {"DateTime", builtin_type::date_time}, {"Guid", builtin_type::guid}, {"ByteString", builtin_type::byte_string},
        {"XmlElement", builtin_type::xml_element}, {"NodeId", builtin_type::node_id},
        {"ExpandedNodeId", builtin_type::expanded_node_id}, {"StatusCode", builtin_type::status_code},
        {"QualifiedName", builtin_type::qualified_name}, {"LocalizedText", builtin_type::localized_text},
        {"ExtensionObject", builtin_type::extension_object}, {"DataValue", builtin_type::data_value},
        {"Variant", builtin_type::variant}, {"DiagnosticInfo", builtin_type::diagnostic_info}};
    const auto it = names.find(name);
    return it == names.end() ? builtin_type::null : it->second;
  }

  // The element type of a built-in type's Variant alternative (boxed<data_value> holds data_value).
  template <class T> struct unboxed { using type = T; };
  template <class T> struct unboxed<boxed<T>> { using type = T; };

  template <class B>
  bool typed(pugi::xml_node el, bool array, variant& out) {
    using T = typename unboxed<B>::type;
    if (!array) {
      T v{};
      if (!scalar(el, v)) return false;
      out = variant(std::move(v));  // a Variant in a Variant is its content (Part 6 §5.2.2.16)
      return true;
    }
    ua_array<T> a;
    for (pugi::xml_node c : el.children()) {
      if (c.type() != pugi::node_element) continue;
      if (a.size() >= lim_.max_array_length) {
        err(c, current_, "an array longer than " + std::to_string(lim_.max_array_length));
        return false;
      }
      T v{};
      if (!scalar(c, v)) {
        value_error(c);
        return false;
      }
      a.push_back(std::move(v));
    }
    out = variant(std::move(a));
    return true;
  }

  template <class F>
  static auto with_type(builtin_type t, F&& f) {
    switch (t) {
      case builtin_type::boolean: return f(static_cast<bool*>(nullptr));
      case builtin_type::sbyte: return f(static_cast<std::int8_t*>(nullptr));
      case builtin_type::byte: return f(static_cast<std::uint8_t*>(nullptr));
      case builtin_type::int16: return f(static_cast<std::int16_t*>(nullptr));
      case builtin_type::uint16: return f(static_cast<std::uint16_t*>(nullptr));
      case builtin_type::int32: return f(static_cast<std::int32_t*>(nullptr));
      case builtin_type::uint32: return f(static_cast<std::uint32_t*>(nullptr));
      case builtin_type::int64: return f(static_cast<std::int64_t*>(nullptr));
      case builtin_type::uint64: return f(static_cast<std::uint64_t*>(nullptr));
      case builtin_type::float_: return f(static_cast<float*>(nullptr));
      case builtin_type::double_: return f(static_cast<double*>(nullptr));
      case builtin_type::string: return f(static_cast<ua_string*>(nullptr));
      case builtin_type::date_time: return f(static_cast<date_time*>(nullptr));
      case builtin_type::guid: return f(static_cast<guid*>(nullptr));
      case builtin_type::byte_string: return f(static_cast<byte_string*>(nullptr));
      case builtin_type::xml_element: return f(static_cast<xml_element*>(nullptr));
      case builtin_type::node_id: return f(static_cast<node_id*>(nullptr));
      case builtin_type::expanded_node_id: return f(static_cast<expanded_node_id*>(nullptr));
      case builtin_type::status_code: return f(static_cast<status_code*>(nullptr));
      case builtin_type::qualified_name: return f(static_cast<qualified_name*>(nullptr));
      case builtin_type::localized_text: return f(static_cast<localized_text*>(nullptr));
      case builtin_type::extension_object: return f(static_cast<extension_object*>(nullptr));
      case builtin_type::data_value: return f(static_cast<boxed<data_value>*>(nullptr));
      case builtin_type::variant: return f(static_cast<boxed<variant>*>(nullptr));
      case builtin_type::diagnostic_info: return f(static_cast<boxed<diagnostic_info>*>(nullptr));
      default: return f(static_cast<std::monostate*>(nullptr));
    }
  }

  bool value_of_inner(pugi::xml_node el, variant& out) {
    std::string_view name = local_name(el.name());
    if (name == "Matrix") return matrix(el, out);
    bool array = false;
    if (name.substr(0, 6) == "ListOf") {
      array = true;
      name.remove_prefix(6);
    }
    const builtin_type t = type_named(name);
    if (t == builtin_type::null) {
      err(el, current_, "a value of type <" + std::string(el.name()) + "> is not supported");
      return false;
    }
    const bool ok = with_type(t, [&]<class T>(T*) {
      if constexpr (std::is_same_v<T, std::monostate>) return false;
      else return typed<T>(el, array, out);
    });
    if (!ok) value_error(el);
    return ok;
  }

  // <Matrix><Dimensions><Int32>2</Int32><Int32>3</Int32></Dimensions><Elements><Int32>1</Int32>...
  // (Part 6 §5.3.1.17): the elements in the order of the binary encoding, the last index varying
  // fastest (Part 6 §5.2.2.16). An empty <Elements> takes its type from the Variable's DataType.
  bool matrix(pugi::xml_node el, variant& out) {
    ua_array<std::int32_t> dims;
    std::vector<pugi::xml_node> items;
    if (!matrix_shape(el, dims, items)) return false;
    const pugi::xml_node elems_el = kid(el, "Elements");
    const pugi::xml_node first = first_element(elems_el);
    builtin_type t = first ? type_named(local_name(first.name())) : builtin_of(current_type_);
    if (t == builtin_type::null) {
      err(first ? first : elems_el, current_,
          first ? "a Matrix element of type <" + std::string(first.name()) + "> is not supported"
                : "an empty Matrix of DataType " + current_type_.to_string() + ", which has no built-in type");
      return false;
    }
    for (pugi::xml_node c : items)
      if (local_name(c.name()) != local_name(first.name())) {
        err(c, current_, "a Matrix element <" + std::string(c.name()) + "> among <" + std::string(first.name()) +
                             "> elements: a Matrix holds one built-in type");
        return false;
      }
    const bool ok = with_type(t, [&]<class T>(T*) {
      if constexpr (std::is_same_v<T, std::monostate>) return false;
      else return typed<T>(elems_el, true, out);
    });
    if (!ok) {
      value_error(elems_el);
      return false;
    }
    // One dimension, or an empty matrix: a plain array (Part 6 §5.2.2.16 sends no dimensions then).
    if (dims.size() > 1 && !items.empty()) out.dimensions() = std::move(dims);
    return true;
  }

  // A Matrix's <Dimensions> (none negative) and the element children of its <Elements>, as many
  // as the dimensions' product.
  bool matrix_shape(pugi::xml_node el, ua_array<std::int32_t>& dims, std::vector<pugi::xml_node>& items) {
    const pugi::xml_node dims_el = kid(el, "Dimensions"), elems_el = kid(el, "Elements");
    if (!dims_el || !elems_el) {
      err(el, current_, "a <" + std::string(el.name()) + "> Matrix needs <Dimensions> and <Elements>");
      return false;
    }
    // The product saturates past the array limit, where it cannot match the elements anyway.
    const auto cap = static_cast<std::int64_t>(lim_.max_array_length) + 1;
    std::int64_t product = 1;
    std::string shape;
    for (pugi::xml_node c : dims_el.children()) {
      if (c.type() != pugi::node_element) continue;
      std::int32_t d = 0;
      if (local_name(c.name()) != "Int32" || !parse_int(c.child_value(), d)) {
        value_error(c);
        return false;
      }
      if (d < 0) {
        err(c, current_, "a Matrix dimension of " + std::to_string(d) + ": a dimension is not negative");
        return false;
      }
      if (dims.size() >= lim_.max_array_length) {
        err(c, current_, "a Matrix of more than " + std::to_string(lim_.max_array_length) + " dimensions");
        return false;
      }
      dims.push_back(d);
      product = std::min(product * d, cap);
      shape += (shape.empty() ? "" : "x") + std::to_string(d);
    }
    if (dims.empty()) {
      err(dims_el, current_, "a Matrix without dimensions");
      return false;
    }
    for (pugi::xml_node c : elems_el.children())
      if (c.type() == pugi::node_element && static_cast<std::int64_t>(items.size()) < cap) items.push_back(c);
    if (product == cap) {
      err(el, current_, "a Matrix of dimensions " + shape + ": more than the limit of " +
                            std::to_string(lim_.max_array_length) + " elements");
      return false;
    }
    if (static_cast<std::int64_t>(items.size()) != product) {
      err(el, current_, "a Matrix of dimensions " + shape + " has " + std::to_string(items.size()) + " elements, not " +
                            std::to_string(product));
      return false;
    }
    return true;
  }

  // "does not decode", unless an error was reported for this element or one inside it already.
  void value_error(pugi::xml_node el) {
    for (pugi::xml_node p = reported_; p; p = p.parent())
      if (p == el) return;
    err(el, current_, "<" + std::string(el.name()) + "> does not decode: '" +
                          std::string(trim(el.child_value())).substr(0, 64) + "'");
  }

  // <ExtensionObject><TypeId><Identifier>i=297</Identifier></TypeId><Body><Argument>...</Body>:
  // the body encoded in binary by the DataType's StructureDefinition, then decoded by the codec,
  // so that a structure of namespace 0 becomes its generated type and any other keeps its binary
  // body under its DefaultBinary encoding id (what a client reads).
  // `field_type`, for a field of a structure: the field's DataType, which the body's must derive from.
  bool extension(pugi::xml_node el, extension_object& out, const node_id* field_type = nullptr) {
    const pugi::xml_node type_el = kid(el, "TypeId");
    const pugi::xml_node body_parent = kid(el, "Body");
    if (!type_el && !body_parent) {
      if (const pugi::xml_node c = first_element(el)) {
        err(c, current_, "<" + std::string(c.name()) + "> where an ExtensionObject (<TypeId> and <Body>) is expected" +
                             (field_type ? ": a field of DataType " + field_type->to_string() +
                                               " holds a structure of its own type or a subtype as an ExtensionObject"
                                         : std::string()));
        return false;
      }
      return out = extension_object{}, true;
    }
    if (!type_el) {
      err(el, current_, "an ExtensionObject with a <Body> but no <TypeId>");
      return false;
    }
    node_id type_id;
    if (!resolve(kid(type_el, "Identifier").child_value(), type_el, current_, type_id)) return false;
    node_id data_type = type_id;
    if (class_of(type_id) != node_class::data_type) data_type = data_type_of_encoding(type_id);
    if (data_type.is_null()) {
      err(el, current_, "ExtensionObject TypeId " + type_id.to_string() + " is neither a DataType nor one's encoding");
      return false;
    }
    if (is_abstract(data_type)) {
      err(type_el, current_, "ExtensionObject of " + data_type.to_string() + ", an abstract DataType: a value is of a concrete one");
      return false;
    }
    if (field_type && !derives_from(data_type, *field_type)) {
      err(type_el, current_, "ExtensionObject of " + data_type.to_string() + " in a field of DataType " +
                                 field_type->to_string() + ", which it does not derive from");
      return false;
    }
    const structure_definition* sd = structure_of(data_type);
    if (!sd) {
      err(el, current_, "ExtensionObject of " + data_type.to_string() + ": no StructureDefinition known for it");
      return false;
    }
    node_id encoding = sd->default_encoding_id;
    if (encoding.is_null()) encoding = binary_encoding_of(data_type);
    if (encoding.is_null()) {
      err(el, current_, "ExtensionObject of " + data_type.to_string() + ": the DataType has no DefaultBinary encoding");
      return false;
    }
    const pugi::xml_node body = body_parent.find_child([](pugi::xml_node c) { return c.type() == pugi::node_element; });
    byte_buffer bytes;
    encoder e(bytes);
    if (!structure(body, *sd, e)) return false;
    // Wrapped as the wire would carry it, then decoded: known types get their typed body.
    byte_buffer wire;
    encoder we(wire);
    encode(we, extension_object::raw(encoding, extension_object::encoding::byte_string,
                                     std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
    decoder d(std::span<const std::uint8_t>(wire.data(), wire.size()));
    decode(d, out);
    if (!d.ok() || d.remaining() != 0) {
      err(el, current_, "ExtensionObject of " + data_type.to_string() + " does not decode as that structure");
      return false;
    }
    return true;
  }

  node_id data_type_of_encoding(const node_id& enc) const {
    for (const file_reference* r : encodings_)
      if (r->target == enc) return r->source;
    const node_index n = as_.find(enc);
    if (n == no_node) return {};
    const node_index has_encoding = as_.find(node_id(0, ids::has_encoding));
    for (const reference& r : as_.inverse_references(n))
      if (r.type == has_encoding) return as_.at(r.target).id.to_node_id();
    return {};
  }

  // A structure's fields from the children of `el`, binary-encoded (Part 6 §5.2.6) by `sd`.
  bool structure(pugi::xml_node el, const structure_definition& sd, encoder& e) {
    const value_level level(*this);
    if (too_deep(el)) return false;
    const auto field_el = [&](const structure_field& f) { return kid(el, f.name.view()); };
    if (sd.structure_type == structure_type::union_ || sd.structure_type == structure_type::union_with_subtyped_values) {
      std::uint32_t sw = 0;
      for (std::uint32_t i = 0; i < sd.fields.size() && sw == 0; ++i)
        if (field_el(sd.fields[i])) sw = i + 1;
      e.write(sw);
      const bool subtyped = sd.structure_type == structure_type::union_with_subtyped_values;
      return sw == 0 || field(field_el(sd.fields[sw - 1]), sd.fields[sw - 1], e, subtyped && sd.fields[sw - 1].is_optional);
    }
    // Part 3 §8.51: IsOptional is an optional field in a StructureWithOptionalFields, a field that
    // allows subtypes in a StructureWithSubtypedValues.
    const bool optional_fields = sd.structure_type == structure_type::structure_with_optional_fields;
    const bool subtyped = sd.structure_type == structure_type::structure_with_subtyped_values;
    if (optional_fields) {
      std::uint32_t mask = 0, bit = 0;
      for (const structure_field& f : sd.fields)
        if (f.is_optional) mask |= (field_el(f) ? 1u : 0u) << bit++;
      e.write(mask);
    }
    for (const structure_field& f : sd.fields) {
      const pugi::xml_node fe = field_el(f);
      if (optional_fields && f.is_optional && !fe) continue;
      if (!field(fe, f, e, subtyped && f.is_optional)) return false;
    }
    return true;
  }

  // One field: a missing element is the type's default (null for strings and arrays).
  bool field(pugi::xml_node fe, const structure_field& f, encoder& e, bool allow_subtypes) {
    if (f.value_rank >= 2) {  // Part 6 §5.2.5: the inline matrix, its dimensions then its elements
      if (!fe) {
        e.write<std::int32_t>(-1);
        return true;
      }
      ua_array<std::int32_t> dims;
      std::vector<pugi::xml_node> items;
      if (!matrix_shape(fe, dims, items)) return false;
      if (dims.size() != static_cast<std::size_t>(f.value_rank)) {
        err(fe, current_, "a Matrix of " + std::to_string(dims.size()) + " dimensions in field " +
                              std::string(f.name.view()) + " of ValueRank " + std::to_string(f.value_rank));
        return false;
      }
      encode(e, dims);
      for (pugi::xml_node c : items)
        if (!one(c, f.data_type, e, allow_subtypes)) return false;
      return true;
    }
    if (f.value_rank == 1 || f.value_rank == 0) {  // an array (ValueRank 0: one or more dimensions, as one)
      std::vector<pugi::xml_node> items;
      if (fe)
        for (pugi::xml_node c : fe.children())
          if (c.type() == pugi::node_element) items.push_back(c);
      if (items.size() > lim_.max_array_length) {
        err(fe, current_, "an array longer than " + std::to_string(lim_.max_array_length));
        return false;
      }
      if (!fe) e.write<std::int32_t>(-1);
      else e.write(static_cast<std::int32_t>(items.size()));
      for (pugi::xml_node c : items)
        if (!one(c, f.data_type, e, allow_subtypes)) return false;
      return true;
    }
    return one(fe, f.data_type, e, allow_subtypes);
  }

  // One value of a field by its DataType (Part 6 §5.1.7, §5.2.6): an enumeration as Int32; a
  // concrete structure inline; Structure itself, an abstract structure or a field that allows
  // subtypes as an ExtensionObject (which names the concrete type); an abstract DataType that is
  // not a structure (BaseDataType, Number, ...) or a field of another type that allows subtypes as
  // a Variant; any other by its built-in type.
  bool one(pugi::xml_node el, const node_id& data_type, encoder& e, bool allow_subtypes) {
    if (derives_from(data_type, node_id(0, ids::enumeration)) && !(data_type == node_id(0, ids::enumeration))) {
      std::int32_t v = 0;
      if (el) {
        std::string_view text = trim(el.child_value());
        const auto us = text.rfind('_');
        if (!parse_int(us == std::string_view::npos ? text : text.substr(us + 1), v)) {
          value_error(el);
          return false;
        }
      }
      e.write(v);
      return true;
    }
    builtin_type b = builtin_of(data_type);
    const bool abstract = is_abstract(data_type);
    if (b == builtin_type::extension_object && (abstract || allow_subtypes || data_type == node_id(0, ids::structure))) {
      extension_object eo;
      if (el && !extension(el, eo, &data_type)) return false;
      encode(e, eo);
      return true;
    }
    if (b != builtin_type::extension_object && (abstract || allow_subtypes)) b = builtin_type::variant;
    if (b == builtin_type::extension_object) {
      const structure_definition* sd = structure_of(data_type);
      if (!sd) {
        err(el, current_, "a field of " + data_type.to_string() + ": no StructureDefinition known for it");
        return false;
      }
      return structure(el, *sd, e);  // a nested structure is encoded inline
    }
    if (b == builtin_type::null) {
      err(el, current_, "a field of DataType " + data_type.to_string() + ", which is not known");
      return false;
    }
    return with_type(b, [&]<class B>(B*) {
      if constexpr (std::is_same_v<B, std::monostate>) return false;
      else {
        typename unboxed<B>::type v{};  // a missing field: the default (a null String, ByteString, NodeId, ...)
        if (el && !scalar(el, v)) {
          value_error(el);
          return false;
        }
        encode(e, v);
        return true;
      }
    });
  }

  void values() {
    for (file_node& n : nodes_) {
      if (stop()) return;
      if (n.spec.cls != node_class::variable && n.spec.cls != node_class::variable_type) continue;
      const pugi::xml_node v = kid(n.el, "Value");
      if (!v) continue;
      const pugi::xml_node inner = v.find_child([](pugi::xml_node c) { return c.type() == pugi::node_element; });
      if (!inner) continue;
      current_ = n.id_text;
      current_type_ = n.spec.data_type;
      variant value;
      if (!value_of(inner, value)) continue;
      data_value dv;
      dv.set_value(std::move(value));
      dv.source_timestamp = dv.server_timestamp = state_.now;
      dv.has_source_timestamp = dv.has_server_timestamp = true;
      n.spec.value = std::move(dv);
    }
  }

  // ---- apply: every check passed ----

  void apply() {
    // Exactly the room the file needs, Variables too: namespace 0 reserves its exact counts, so a
    // vector left to grow would double on the file's first Variable and keep the slack.
    std::size_t variables = 0;
    for (const file_node& n : nodes_)
      variables += n.spec.cls == node_class::variable || n.spec.cls == node_class::variable_type ? 1 : 0;
    as_.reserve(as_.size() + nodes_.size(), as_.variable_count() + variables);
    for (file_node& n : nodes_) {
      if (n.structure) n.spec.data_type_definition = extension_object(std::move(*n.structure));
      else if (n.enumeration) n.spec.data_type_definition = extension_object(std::move(*n.enumeration));
      const auto added = as_.add_node(std::move(n.spec));
      if (!added) err(n.el, n.id_text, "the store refused the node: " + added.error().to_string());
      else ++result_.nodes;
    }
    for (const file_reference* r : unique_refs_) {
      const status_code sc = as_.add_reference(r->source, r->type, r->target);
      if (sc.is_good()) ++result_.references;
      else if (sc != status::bad_duplicate_reference_not_allowed)
        err(r->el, nodes_[r->owner].id_text, "the store refused a reference: " + sc.to_string());
    }
  }

  const document::impl& doc_;
  address_space& as_;
  const server_state& state_;
  const limits& lim_;
  import_result result_;
  std::vector<std::uint16_t> ns_map_;
  std::unordered_map<std::string, std::string> aliases_;
  std::vector<file_node> nodes_;
  std::unordered_map<std::string, std::size_t> by_id_;
  std::vector<file_reference> refs_;
  std::vector<const file_reference*> unique_refs_;
  std::vector<const file_reference*> encodings_;
  std::unordered_map<std::string, node_id> super_;
  std::unordered_map<std::string, std::unique_ptr<structure_definition>> server_structures_;
  std::size_t node_count_ = 0;
  std::string current_;  // the NodeId whose value is being decoded
  node_id current_type_;  // its DataType
  pugi::xml_node reported_;
  int depth_ = 0;
};

}  // namespace

import_result import(const document& doc, address_space& as, const server_state& state, const limits& lim) {
  return importer(doc.get(), as, state, lim).run();
}

}  // namespace uactor::nodeset

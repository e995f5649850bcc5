// Objects of FileType (Part 20 §4.2, formerly Part 5 Annex C): Open, Close, Read, Write,
// GetPosition, SetPosition and the Variables Size, Writable, UserWritable, OpenCount and
// MaxByteStringLength. The bytes behind an object are a file_content's (the application's file on
// disk, the server's trust list); a handle works on its own copy, taken at Open and handed back at
// Close, so that a reader never sees half of a write. Handles belong to a session and end with it.
// Plain state in the session host, no CAF, no I/O of its own (docs/decisions/0056).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "protocol/address_space.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

// The bytes behind one FileType object. load() and store() run on the session host's thread: a
// content that reads a disk does so there, bounded by the file's size limit (docs/decisions/0056).
class file_content {
public:
  virtual ~file_content() = default;
  // The whole content now (Open).
  virtual ua::status_code load(std::string& out) = 0;
  // A handle opened for writing closed (Close): the new content. Bad_NotWritable when the content
  // cannot take it now.
  virtual ua::status_code store(std::string_view bytes) = 0;
};

struct file_limits {
  std::size_t max_file_size = 16u << 20;    // bytes one handle may hold (Write past it: Bad_OutOfRange)
  std::size_t max_handles = 256;            // open handles, all sessions (Open past it: Bad_ResourceUnavailable)
  std::size_t max_handles_per_session = 8;
  std::uint32_t max_read_length = 1u << 20;  // what one Read returns at most: the MaxByteStringLength Variable
};

struct file_options {
  bool writable = false;
  // Close of a handle opened for writing stores its bytes (an application file). The TrustList's
  // Close drops them instead: only CloseAndUpdate applies a trust list (Part 12 §7.8.2.1).
  bool store_on_close = true;
  std::size_t max_size = 0;  // 0: file_limits::max_file_size
};

// Part 20 §4.2.2 OpenFileMode bits.
namespace open_mode {
inline constexpr std::uint8_t read = 1, write = 2, erase_existing = 4, append = 8;
}

class file_objects {
public:
  explicit file_objects(file_limits limits = {}) : limits_(limits) {}

  // Makes the Object `object` a file: its Size, Writable, UserWritable, OpenCount and
  // MaxByteStringLength properties are found (a namespace-0 instance has them) or added, and
  // HasComponent references to FileType's Methods are added when it has no Open of its own (so
  // that TranslateBrowsePath finds "Open" under it). Bad_NodeIdUnknown, Bad_NodeClassInvalid (not
  // an Object), Bad_NodeIdExists (already a file).
  ua::status_code attach(ua::node_index object, std::shared_ptr<file_content> content, file_options o,
                         ua::address_space& as);
  // A new Object of FileType `id`, BrowseName `name` (the id's namespace), Organizes from `parent`,
  // attached as above. Bad_NodeIdExists, Bad_ParentNodeIdInvalid, Bad_InvalidArgument (no name).
  ua::status_code add(const ua::node_id& id, std::string_view name, const ua::node_id& parent,
                      std::shared_ptr<file_content> content, file_options o, ua::address_space& as);

  bool is_file(ua::node_index object) const noexcept { return files_.contains(object); }
  // Whether an item of the request calls a method on a file object (then the server answers it here).
  bool is_file_call(const ua::call_request& req, const ua::address_space& as) const noexcept;

  // One Call on a file object, after services::check_call (the arguments have their types): the
  // method by its BrowseName (Open, Close, Read, Write, GetPosition, SetPosition). Other names:
  // Bad_NotImplemented (the TrustList's own methods are server_configuration's).
  ua::status_code call(std::uint32_t session, ua::node_index object, ua::node_index method,
                       std::span<const ua::variant> in, std::vector<ua::variant>& out, ua::address_space& as);

  // Part 20 §4.2.3 Open with `initial` as the content instead of file_content::load (the TrustList's
  // OpenWithMasks). Returns the handle or the status.
  ua::expected<std::uint32_t> open(std::uint32_t session, ua::node_index object, std::uint8_t mode,
                                   ua::address_space& as, const std::string* initial = nullptr);
  // Ends a handle of `session` on `object` without storing anything and returns what it held:
  // CloseAndUpdate. Bad_InvalidArgument (no such handle), Bad_InvalidState (not opened for writing).
  ua::expected<std::string> take(std::uint32_t session, ua::node_index object, std::uint32_t handle,
                                 ua::address_space& as);
  // The handles of `object` open now.
  std::size_t open_count(ua::node_index object) const noexcept;
  std::size_t handles() const noexcept { return handles_.size(); }
  // Whether a handle of `object` is open for writing.
  bool open_for_writing(ua::node_index object) const noexcept;
  // Every handle of `object` ends, whoever holds it, without storing anything (a TrustList's
  // ActivityTimeout, Part 12 §7.8.2.1). Returns how many ended.
  std::size_t close_all(ua::node_index object, ua::address_space& as);
  // The session ended (closed, timed out): its handles are gone, their writes dropped.
  void session_closed(std::uint32_t session, ua::address_space& as);
  // The file's Size Variable from its content now (after a change that did not come through a handle).
  void refresh_size(ua::node_index object, ua::address_space& as);
  const file_limits& limits() const noexcept { return limits_; }

private:
  struct file {
    std::shared_ptr<file_content> content;
    file_options options;
    ua::node_index size = ua::no_node, writable = ua::no_node, user_writable = ua::no_node,
                   open_count = ua::no_node, max_length = ua::no_node;
    std::uint16_t readers = 0, writers = 0;
  };
  struct handle {
    std::uint32_t session = 0;
    ua::node_index object = ua::no_node;
    std::uint8_t mode = 0;
    std::uint64_t position = 0;
    std::string bytes;
  };
  ua::status_code close(std::uint32_t session, ua::node_index object, std::uint32_t id, ua::address_space& as);
  handle* find(std::uint32_t session, ua::node_index object, std::uint32_t id) noexcept;
  void forget(std::unordered_map<std::uint32_t, handle>::iterator it, ua::address_space& as);
  void publish_open_count(const file& f, ua::address_space& as);
  void publish_size(const file& f, std::uint64_t size, ua::address_space& as);
  std::size_t max_size(const file& f) const noexcept {
    return f.options.max_size ? f.options.max_size : limits_.max_file_size;
  }

  file_limits limits_;
  std::unordered_map<ua::node_index, file> files_;
  std::unordered_map<std::uint32_t, handle> handles_;  // by handle id, unique in the server
  std::uint32_t next_handle_ = 1;
};

}  // namespace uactor::actors

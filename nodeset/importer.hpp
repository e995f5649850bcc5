// The UANodeSet importer (Part 6 Annex F): a NodeSet2 XML file checked whole against a server's
// address space, then applied to it, or refused with every error found. Owns nothing of the
// store: a document owns its parsed XML, an import_result owns its strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/address_space.hpp"
#include "uactor/ua/builtin_types.hpp"

namespace uactor::nodeset {

// Bounds on what one file may hold; past one, the file is refused with an error that says which.
struct limits {
  std::size_t max_file_bytes = 256u << 20;       // the XML text
  std::size_t max_nodes = 1'000'000;             // UAObject, UAVariable, ... elements
  std::size_t max_references = 10'000'000;       // <Reference> elements, all nodes together
  std::size_t max_references_per_node = 100'000;
  std::size_t max_array_length = 1'000'000;      // elements of a ListOf value or an array field
  int max_value_depth = 32;                      // nested ExtensionObject / Variant / structure values
  std::size_t max_errors = 200;                  // reported; the check stops past them
};

// One thing wrong with a file: `file:line: NodeId: what` (the NodeId as the file spells it; empty
// when the error is not about a node).
struct error {
  std::string file;
  std::size_t line = 0;
  std::string node;
  std::string what;
  std::string to_string() const;
};

// A model a file defines or requires (<Model>, <RequiredModel>); a null publication date: none given.
struct model {
  std::string uri;
  std::string version;
  ua::date_time publication_date;
};

// The model namespace 0 of this build was generated from (Opc.Ua.NodeSet2.xml's <Model>).
model namespace0_model();

// A file parsed into an XML tree, with its line table. Parsing is CPU only, touches no server
// state: it can run on any thread. A document that failed to parse holds its errors.
class document {
public:
  static document parse(std::string file_name, std::string text, const limits& lim = {});
  static document load(const std::string& path, const limits& lim = {});
  document(document&&) noexcept;
  document& operator=(document&&) noexcept;
  ~document();

  const std::string& file_name() const noexcept;
  const std::vector<error>& errors() const noexcept;
  bool ok() const noexcept { return errors().empty(); }

  struct impl;
  const impl& get() const noexcept { return *impl_; }

private:
  explicit document(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

// What the server has before the import: its NamespaceArray and the models loaded so far
// (namespace 0's first).
struct server_state {
  std::span<const std::string> namespace_array;
  std::span<const model> loaded_models;
  ua::date_time now;  // source and server timestamp of the initial values
  // A RequiredModel loaded in an older version is a warning instead of an error (a missing one
  // is always an error): for companion files released against a newer namespace 0 than this build's.
  bool accept_older_models = false;
};

struct import_result {
  std::vector<error> errors;            // empty: applied; otherwise nothing was added
  // URIs the file uses that the NamespaceArray lacks, in the order of the indices the import gave
  // them (namespace_array.size(), +1, ...): the caller appends them to the NamespaceArray.
  std::vector<std::string> new_namespaces;
  std::vector<error> warnings;          // what accept_older_models let through
  std::vector<model> models;            // the models the file defines (to add to loaded_models)
  std::size_t nodes = 0;                // added
  std::size_t references = 0;           // added (a reference the file gives at both ends: once)
  bool ok() const noexcept { return errors.empty(); }
};

// Checks `doc` completely against `as` and, only when nothing is wrong, adds its nodes and
// references to `as`. Errors (each with file:line and NodeId): a malformed file, an unknown
// alias, a NodeId of a namespace the file does not declare, a duplicate NodeId (in the file or
// the server), a reference to a node neither the file nor the server has, a reference type that
// is not a (concrete) ReferenceType, a missing or older RequiredModel, a Value that does not
// decode, a limit exceeded.
import_result import(const document& doc, ua::address_space& as, const server_state& state, const limits& lim = {});

}  // namespace uactor::nodeset

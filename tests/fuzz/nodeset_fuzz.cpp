// libFuzzer target for the NodeSet2 importer (nodeset/importer.hpp): any input parses and is
// checked, or is refused with errors that each name the file, never crashes, over-reads, leaks
// or loops (ASan/UBSan); a refused input leaves the store as it was.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "nodeset/importer.hpp"

using namespace uactor;

namespace {

std::unique_ptr<ua::address_space> fresh() {
  auto as = std::make_unique<ua::address_space>();
  ua::load_namespace0(*as);
  return as;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::unique_ptr<ua::address_space> as = fresh();
  static const std::vector<std::string> namespaces{"http://opcfoundation.org/UA/"};
  static const std::vector<nodeset::model> models{nodeset::namespace0_model()};
  nodeset::limits lim;
  lim.max_nodes = 10'000;
  lim.max_references = 100'000;
  const auto doc = nodeset::document::parse("fuzz.xml", std::string(reinterpret_cast<const char*>(data), size), lim);
  const std::size_t before = as->size(), refs = as->reference_count();
  const auto r = nodeset::import(doc, *as, {namespaces, models, {}}, lim);
  if (!r.ok()) {
    for (const auto& e : r.errors)
      if (e.file != "fuzz.xml" || e.what.empty()) std::abort();
    if (as->size() != before || as->reference_count() != refs) std::abort();  // half-loaded
  } else {
    as = fresh();  // the next input starts from namespace 0 alone again
  }
  return 0;
}

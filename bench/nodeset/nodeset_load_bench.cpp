// Loading companion NodeSets into a store that holds namespace 0: per file set, the time to parse,
// check and apply (median and spread of the runs), and the heap the store keeps per node, against
// namespace 0's own per node (its strings are static: the store keeps views of them). Both are
// measured alike, as a server pays them: mallinfo2 before and after the nodes are added (the
// parsed documents freed), each load reserving the store's vectors as it does in use (namespace 0
// its exact counts, an import its file's), so that both count their nodes' slots in the store's
// vectors and neither counts the other's. The open-addressing index is a power of two of at least
// twice the nodes: namespace 0 pays its 16,384 slots; the files pay only when they cross a power.
// Usage: nodeset_load_bench [RUNS] [NODESET_DIR]   (default: 9, node-opcua-nodesets in tests/interop)
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "nodeset/importer.hpp"

using namespace uactor;

namespace {

// In use from the heap and from mmap: glibc serves blocks above its mmap threshold (128 KiB at
// first, then moving) with mmap, which uordblks does not count, and the store's node and variable
// vectors are such blocks.
std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

struct set {
  const char* name;
  std::vector<const char*> files;
};

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;
  const std::string dir = argc > 2 ? argv[2] : UACTOR_SOURCE_DIR "/tests/interop/node_modules/node-opcua-nodesets/nodesets";
  const std::vector<set> sets = {
      {"di+machinery", {"Opc.Ua.Di.NodeSet2.xml", "Opc.Ua.IA.NodeSet2.xml", "Opc.Ua.Machinery.NodeSet2.xml"}},
      {"di+machinery+machinetool",
       {"Opc.Ua.Di.NodeSet2.xml", "Opc.Ua.IA.NodeSet2.xml", "Opc.Ua.Machinery.NodeSet2.xml",
        "opc.ua.isa95-jobcontrol.nodeset2.xml", "Opc.Ua.Machinery.Jobs.Nodeset2.xml", "Opc.Ua.MachineTool.NodeSet2.xml"}},
  };
  std::printf("nodeset_load_bench (%s build), %d runs; ms per set, heap bytes per node\n",
#ifdef NDEBUG
              "release",
#else
              "debug",
#endif
              runs);
  {
    const std::size_t h0 = heap_in_use();
    ua::address_space as;
    const auto t0 = std::chrono::steady_clock::now();
    ua::load_namespace0(as);
    const auto t1 = std::chrono::steady_clock::now();
    const std::size_t h1 = heap_in_use();
    std::printf("namespace0                  %5zu nodes  %6zu refs  load %7.2f ms  %6.0f B/node\n", as.size(),
                as.reference_count(), std::chrono::duration<double, std::milli>(t1 - t0).count(),
                double(h1 - h0) / double(as.size()));
  }
  for (const set& s : sets) {
    std::vector<double> ms;
    std::size_t nodes = 0, refs = 0, kept = 0, peak = 0;
    for (int run = 0; run < runs; ++run) {
      ua::address_space as;
      ua::load_namespace0(as);
      std::vector<std::string> namespaces{"http://opcfoundation.org/UA/"};
      std::vector<nodeset::model> models{nodeset::namespace0_model()};
      const std::size_t h0 = heap_in_use();
      std::size_t n = 0, r = 0, top = 0;
      const auto t0 = std::chrono::steady_clock::now();
      for (const char* f : s.files) {
        const auto doc = nodeset::document::load(dir + "/" + f);
        top = std::max(top, heap_in_use() - h0);
        const auto res = nodeset::import(doc, as, {namespaces, models, {}, true});
        if (!res.ok()) {
          std::fprintf(stderr, "%s: %s\n", f, res.errors.front().to_string().c_str());
          return 1;
        }
        namespaces.insert(namespaces.end(), res.new_namespaces.begin(), res.new_namespaces.end());
        models.insert(models.end(), res.models.begin(), res.models.end());
        n += res.nodes;
        r += res.references;
      }
      const auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      nodes = n;
      refs = r;
      kept = heap_in_use() - h0;
      peak = top;
    }
    std::sort(ms.begin(), ms.end());
    std::printf("load.%-23s %5zu nodes  %6zu refs  median %7.2f ms  [%.2f .. %.2f]  %6.0f B/node kept  peak %.1f MB\n",
                s.name, nodes, refs, ms[ms.size() / 2], ms.front(), ms.back(), double(kept) / double(nodes),
                double(peak) / 1e6);
  }
  return 0;
}

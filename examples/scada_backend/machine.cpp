#include "machine.hpp"

#include <chrono>
#include <cstdio>
#include <vector>

namespace scada {
namespace {

// Machinery's and DI's NodeIds (Opc.Ua.Machinery.NodeSet2.xml, Opc.Ua.Di.NodeSet2.xml).
constexpr std::uint32_t machines_folder = 1001;              // Objects/Machines (Machinery §9.2)
constexpr std::uint32_t machine_identification_type = 1012;  // MachineIdentificationType (§8.6)
constexpr std::uint32_t has_add_in = 17604;                  // ns0 HasAddIn: a machine's Identification (§8.1)

}  // namespace

bool add_machine(uactor::server& server, const std::string& nodesets_dir, std::uint16_t ns) {
  // node-opcua-nodesets' DI asks for namespace 0 1.05.04; this uactor serves 1.05.07.
  const uactor::nodeset_options options;
  for (const char* file : {"Opc.Ua.Di.NodeSet2.xml", "Opc.Ua.IA.NodeSet2.xml", "Opc.Ua.Machinery.NodeSet2.xml"}) {
    const auto started = std::chrono::steady_clock::now();
    const uactor::nodeset_report r = server.load_nodeset(nodesets_dir + "/" + file, options);
    for (const auto& w : r.warnings) std::fprintf(stderr, "scada_backend: %s: warning: %s\n", file, w.c_str());
    if (!r.ok()) {
      for (const auto& e : r.errors) std::fprintf(stderr, "scada_backend: %s\n", e.c_str());
      return false;
    }
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    std::printf("nodeset %s: %zu nodes in %.1f ms\n", file, r.nodes, ms);
  }
  const std::uint16_t di = server.register_namespace("http://opcfoundation.org/UA/DI/");
  const std::uint16_t machinery = server.register_namespace("http://opcfoundation.org/UA/Machinery/");

  // The machine: an object the Machines folder organizes; its Identification an AddIn of type
  // MachineIdentificationType, whose mandatory children (Manufacturer, SerialNumber,
  // ProductInstanceUri) and the requested optional ones come from the type, its supertypes and
  // their interfaces.
  uactor::object_node press;
  press.id = uactor::node_id::string(ns, "Machines.Press1");
  press.parent = uactor::node_id(machinery, machines_folder);
  press.browse_name = uactor::qualified_name{ns, uactor::ua::ua_string("Press1")};
  uactor::object_node identification;
  identification.id = uactor::node_id::string(ns, "Machines.Press1.Identification");
  identification.parent = press.id;
  identification.reference_type = uactor::node_id(0, has_add_in);
  identification.browse_name = uactor::qualified_name{di, uactor::ua::ua_string("Identification")};
  identification.type_definition = uactor::node_id(machinery, machine_identification_type);
  identification.optional = {uactor::qualified_name{di, uactor::ua::ua_string("Model")},
                             uactor::qualified_name{machinery, uactor::ua::ua_string("YearOfConstruction")}};
  std::vector<uactor::node_change> nodes;
  nodes.emplace_back(std::move(press));
  nodes.emplace_back(std::move(identification));
  const auto results = server.apply(std::move(nodes));
  for (const auto& sc : results) {
    if (sc.is_bad()) {
      std::fprintf(stderr, "scada_backend: the machine was refused: %s\n", std::string(sc.name()).c_str());
      return false;
    }
  }

  // Its nameplate, as a real backend would read it from the machine's controller.
  const auto child = [ns](const char* name) { return uactor::node_id::string(ns, std::string("Machines.Press1.Identification.") + name); };
  const std::vector<uactor::node_id> fields{child("Manufacturer"), child("SerialNumber"), child("ProductInstanceUri"),
                                            child("Model"), child("YearOfConstruction")};
  std::vector<uactor::value_update> nameplate;
  const std::vector<uactor::variant> values{
      uactor::variant(uactor::localized_text{uactor::ua::ua_string("en"), uactor::ua::ua_string("ACME Presses")}),
      uactor::variant(uactor::ua::ua_string("P-0001")),
      uactor::variant(uactor::ua::ua_string("urn:acme:press:P-0001")),
      uactor::variant(uactor::localized_text{uactor::ua::ua_string("en"), uactor::ua::ua_string("HP 400")}),
      uactor::variant(std::uint16_t{2024})};
  const auto handles = server.resolve(fields);
  for (std::size_t i = 0; i < handles.size(); ++i) {
    if (!handles[i]) {
      std::fprintf(stderr, "scada_backend: %s: %s\n", fields[i].to_string().c_str(), std::string(handles[i].error().name()).c_str());
      return false;
    }
    nameplate.push_back(uactor::value_update{*handles[i], values[i], {}, {}});
  }
  if (const auto sc = server.write_values(nameplate); sc.is_bad()) {
    std::fprintf(stderr, "scada_backend: the nameplate was not taken: %s\n", std::string(sc.name()).c_str());
    return false;
  }
  std::printf("machine ns=%u;s=Machines.Press1 (Machinery ns=%u, DI ns=%u) with its Identification\n", ns, machinery, di);
  return true;
}

}  // namespace scada

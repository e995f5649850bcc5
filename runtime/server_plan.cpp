#include "uactor/server_plan.hpp"

#include "security/pki_store.hpp"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <sstream>

namespace uactor {

server_plan default_server_plan() {
  server_plan p;
  char name[HOST_NAME_MAX + 1] = {};
  p.host_name = gethostname(name, sizeof name) == 0 && name[0] ? name : "localhost";
  p.application_uri = "urn:" + p.host_name + ":uactor:server";
  return p;
}

std::string default_pki_dir() { return security::default_pki_dir(); }

std::string server_plan::endpoint_url() const {
  return "opc.tcp://" + host_name + ":" + std::to_string(port);
}

namespace {
std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}
}  // namespace

std::string describe(const server_plan& p) {
  std::ostringstream out;
  out << "endpoint          " << p.endpoint_url() << " (to listen on " << p.listen_address << ":" << p.port << ")\n"
      << "application uri   " << p.application_uri << "\n"
      << "namespaces        0 http://opcfoundation.org/UA/, 1 " << p.demo_namespace_uri << "\n";
  if (p.load_variables)
    out << "load variables    " << p.load_variables << " (ns=1;s=Load.V0..V" << p.load_variables - 1
        << "), every one changed each " << p.writer_interval.count() << " ms\n";
  out
      << "security          " << join(p.security) << " (pki " << (p.pki_dir.empty() ? default_pki_dir() : p.pki_dir)
      << ")\n"
      << "limits            " << p.max_connections << " connections, " << p.max_sessions << " sessions, buffers "
      << p.receive_buffer_size << "/" << p.send_buffer_size << " B, message " << p.max_message_size << " B in at most "
      << p.max_chunk_count << " chunks, " << p.max_nodes_per_operation << " nodes per operation\n"
      << "                  Hello within " << p.hello_timeout.count() << " ms, tokens and sessions at most "
      << p.max_token_lifetime.count() << "/" << p.max_session_timeout.count() << " ms, "
      << p.max_browse_continuation_points << " continuation points per session; strings " << p.max_string_length
      << " B, arrays " << p.max_array_length << " elements, nesting " << p.max_nesting_depth << " deep\n";
  return out.str();
}

}  // namespace uactor

// What this build is, for the Server object's BuildInfo (Part 5 §12.4): generated at every build by
// cmake/build_stamp.cmake into the build folder.
#pragma once

#include <cstdint>

namespace uactor::app {

const char* build_number();         // the git commit (short hash), or empty outside a checkout
std::int64_t build_unix_seconds();    // the commit's date, else the time of the first build

}  // namespace uactor::app

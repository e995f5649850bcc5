// Checks that committed generator output is what the generator makes of the schema today.
#pragma once

#include <string>

namespace uactor::test {

// The release folder of namespace 0's schema files, <UACTOR_OPCUA_SCHEMA_DIR>/<release>
// (tests/CMakeLists.txt), or empty when it is not there.
std::string schema_dir();

// Runs `python3 tools/codegen/<script> --quiet --schema <schema_dir()> --schema
// <UACTOR_OPCUA_SCHEMA_DIR> --out <tmp>` (the CSVs from the second when the first has none; and, with a
// public_dir, `--public-out <tmp2>`) and checks (Catch2) that <committed_dir> (relative to the
// source tree) holds exactly those files, byte for byte, and that <public_dir> holds the public
// ones byte for byte (beside the hand-written headers there). Warns "skipped" and passes when the
// schema folder is not there.
void check_regenerated_output(const std::string& script, const std::string& committed_dir,
                              const std::string& public_dir = "");

}  // namespace uactor::test

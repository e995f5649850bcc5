// History through the embedding API on SQLite (tests/history/runtime_history.hpp): the plan's
// collection settings decide what is recorded, our client pages processed and at-time reads; a
// plan whose settings are out of bounds does not start.
#include <catch2/catch.hpp>

#include "tests/history/runtime_history.hpp"
#include "tests/support/temp_folder.hpp"

namespace history_runtime_test {

using namespace uactor;

TEST_CASE("history on SQLite: the plan's collection settings, processed and at-time reads in pages", "[history][runtime][collection]") {
  test::temp_folder folder{"history-runtime"};
  runtime rt;
  history_plan h;
  h.path = folder.file("h.sqlite");
  test::check_collection_and_paging(rt, h);
  rt.stop();
}

TEST_CASE("history: a plan whose collection settings are out of bounds does not start", "[history][runtime][collection]") {
  test::temp_folder folder{"history-runtime"};
  runtime rt;
  history_plan h;
  h.path = folder.file("h.sqlite");
  h.defaults.max_time_interval_ms = 10;
  CHECK_FALSE(test::start_recording(rt, h).has_value());
  h.defaults.max_time_interval_ms = 0;
  h.configurations.emplace_back().exception_deviation = -3;
  h.configurations[0].nodes = {"ns=1;s=*"};
  CHECK_FALSE(test::start_recording(rt, h).has_value());
  rt.stop();
}

}  // namespace history_runtime_test

// A SQLite history store in a temp folder of its own, both gone at the end.
#pragma once

#include <memory>

#include "history/sqlite_store.hpp"
#include "tests/support/temp_folder.hpp"

namespace uactor::test {

struct temp_store {
  temp_folder folder{"history-test"};  // declared first: removed after the store is closed
  std::shared_ptr<history::sqlite_store> store = std::make_shared<history::sqlite_store>(folder.file("h.sqlite"));
};

}  // namespace uactor::test

// The historian (docs/history.md): a detached actor (a thread of its own: SQLite blocks) that
// writes the batches of recorded values the session host hands it through a bounded queue, and
// applies the retention rule now and then. The host never waits on it: past `max_queued_batches`
// a batch is dropped and counted (history_counters::values_dropped). While the store is unavailable
// (a database down) the batches wait, in order and within the same bound, and the historian tries
// the oldest again with a growing pause until the store takes it. Beside it a second detached
// actor, the history reader, runs HistoryRead's store reads and hands each job back to the host
// (docs/decisions/0048); the store's reads and writes use connections of their own.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>

#include "engine/server/history_recorder.hpp"
#include "engine/server/server_core.hpp"
#include "engine/server/server_metrics.hpp"
#include "engine/server/services/history_read.hpp"
#include "history/history_store.hpp"

namespace uactor::actors {

// One batch in flight from the host to the historian.
struct history_batch {
  std::vector<history::record> records;
};
using history_batch_ptr = std::shared_ptr<history_batch>;
// A HistoryRead on its way to the reader and back to the host.
using history_read_job_ptr = std::shared_ptr<services::history_read_job>;
// A HistoryUpdate on its way to the reader (which also runs the updates) and back to the host.
using history_update_job_ptr = std::shared_ptr<services::history_update_job>;

using history_retention_atom = caf::atom_constant<caf::atom("histkeep")>;
using history_bind_atom = caf::atom_constant<caf::atom("histbind")>;
using history_retry_atom = caf::atom_constant<caf::atom("histretry")>;
using history_flush_atom = caf::atom_constant<caf::atom("histflush")>;

struct historian_options {
  std::size_t max_queued_batches = 64;  // of history_recorder's batches (1,000 values each at most)
  history::retention retention;
  std::chrono::milliseconds retention_interval{60'000};
  // The pause before the first retry of an unavailable store, doubled up to retry_max.
  std::chrono::milliseconds retry_min{250};
  std::chrono::milliseconds retry_max{10'000};
  // While the store is unavailable, batches that wait are joined up to this many values each (the
  // queue's bound counts batches: 64 x 1,000 values wait at most by default).
  std::size_t max_waiting_batch_values = 1'000;
  // While batches queue up behind the one at hand (the store is slower than the recording), they
  // are joined into one write of up to this many values: a transaction per recorder batch was most
  // of a write's cost with many nodes (docs/decisions/0083).
  std::size_t max_joined_values = 64'000;
  // The on-disk spool (history/spool_file.hpp; docs/history.md "When storage is down"): once
  // spool_after batches wait in memory, the next ones go to this file, up to spool_max_bytes, and
  // come back in order when the store is; past the bound they are dropped and counted. Empty path:
  // no spool (past the memory queue values are dropped). A spool an earlier run left is written first.
  std::string spool_path;
  std::uint64_t spool_max_bytes = 0;
  std::size_t spool_after = 32;
  // The spool is written back one write per turn of the actor (its frames joined up to
  // max_waiting_batch_values values), so that new batches, which go behind them into the spool,
  // keep coming off the mailbox meanwhile.
};

struct historian {
  caf::actor actor;   // the writer
  caf::actor reader;  // HistoryRead's reads
  // The engine's sink (server_core::set_history): never blocks, refuses past the queue's bound.
  history_recorder::sink sink;
  // server_core::set_history's reader: sends the job to `reader`, which answers the host.
  server_core::history_reader read;
  // server_core::set_history's updater: sends the job to `reader` too (docs/decisions/0060).
  server_core::history_updater update;
};

// `metrics` may be null (nothing counted; the queue is still bounded). Both actors end with the
// actor given in a (history_bind_atom, actor) message (the session host, which the reader also
// answers), or when sent exit. Throws history::store_error when the spool cannot be opened.
historian spawn_historian(caf::actor_system& sys, std::shared_ptr<history::history_store> store,
                          historian_options options, std::shared_ptr<metrics_registry> metrics);

}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::history_batch_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::history_read_job_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::history_update_job_ptr)

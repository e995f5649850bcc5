// uactor-worker: a script shard process (docs/scripts.md), started by a server's shard supervisor
// with the arguments of `uactor worker`. Only the script engine is linked: no actor system, no
// OpenSSL, no server, so that an idle worker stays small (docs/performance.md "Scripts").
#include "scripting/worker.hpp"

int main(int argc, char** argv) { return uactor::scripting::worker_main(argc, argv); }

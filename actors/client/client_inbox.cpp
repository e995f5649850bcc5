#include "actors/client/client_inbox.hpp"

#include <cerrno>
#include <system_error>
#include <utility>

#include <sys/socket.h>
#include <unistd.h>

namespace uactor::actors {

namespace {
thread_local client_inbox* handling_inbox = nullptr;  // the inbox whose actor runs on this thread now
}

client_inbox::client_inbox(inbox_wake_up wake_up) {
  queue_.reserve(64);
  if (wake_up == inbox_wake_up::message) return;
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::system_error(errno, std::generic_category(), "client_inbox: socketpair");
  app_socket_ = fds[0];
  actor_socket_ = fds[1];
}

client_inbox::~client_inbox() {
  if (app_socket_ >= 0) ::close(app_socket_);
  if (actor_socket_ >= 0) ::close(actor_socket_);
}

int client_inbox::take_actor_socket() noexcept { return std::exchange(actor_socket_, -1); }

void client_inbox::set_actor(const caf::actor& actor) {
  std::lock_guard lock(mutex_);
  actor_ = caf::actor_cast<caf::weak_actor_ptr>(actor);
}

bool client_inbox::submit(client_call_ptr call) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    queue_.push_back(std::move(call));
    // The actor's own thread inside an event takes the queue when the event is done.
    if (!wake_outstanding_ && handling_inbox != this) wake = wake_outstanding_ = true;
  }
  if (!wake) return true;
  if (app_socket_ < 0) {
    caf::weak_actor_ptr target;
    {
      std::lock_guard lock(mutex_);
      target = actor_;
    }
    // An actor already gone has closed the inbox (or is about to: close() answers what is queued).
    if (auto strong = caf::actor_cast<caf::actor>(target)) caf::anon_send(strong, client_inbox_wake_atom::value);
    return true;
  }
  const char byte = 1;
  // Nonblocking: at most one byte is outstanding, far below any socket buffer. A failure means
  // the actor's end is closed: close() answers what is queued.
  (void)::send(app_socket_, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  return true;
}

void client_inbox::take(std::vector<client_call_ptr>& out) {
  out.clear();
  std::lock_guard lock(mutex_);
  out.swap(queue_);
  wake_outstanding_ = false;
}

void client_inbox::close(ua::status_code why) {
  std::vector<client_call_ptr> left;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    left.swap(queue_);
  }
  for (auto& c : left) c->finish(why);
}

client_inbox::handling::handling(client_inbox* inbox) noexcept : previous_(handling_inbox) { handling_inbox = inbox; }
client_inbox::handling::~handling() { handling_inbox = previous_; }

}  // namespace uactor::actors

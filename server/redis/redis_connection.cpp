#include "redis/redis_connection.hpp"

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <boost/asio/post.hpp>

namespace ringcast {

namespace asio = boost::asio;

namespace {

struct pending_command {
  redis_connection::reply_handler done;
  const bool* destroying;
  bool persistent;  // a subscription: called for every message until the connection ends
};

void reply_trampoline(redisAsyncContext*, void* reply, void* privdata) {
  auto* p = static_cast<pending_command*>(privdata);
  std::unique_ptr<pending_command> owned(p->persistent && reply ? nullptr : p);
  // While the connection is being destroyed hiredis fails every pending command; their owners
  // are going away too and must not be called.
  if (!*p->destroying) p->done(static_cast<const redisReply*>(reply));
}

redis_connection* self_of(void* data) {
  return static_cast<redis_connection*>(data);
}

std::string_view text_of(const redisReply* r) {
  return {r->str, r->len};
}

// hiredis's errstr for a failed connect ("Connection refused"), as the log writes causes.
std::string connect_error(const redisAsyncContext* ac) {
  std::string why = ac && ac->errstr[0] ? ac->errstr : "connection failed";
  why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
  return why;
}

// A server that wants a password, or another one, answers NOAUTH or WRONGPASS (ERR for a password
// given to a server that has none).
bool auth_error(std::string_view text) {
  return text.starts_with("NOAUTH") || text.starts_with("WRONGPASS") ||
         text.find("AUTH") != std::string_view::npos;
}

}  // namespace

redis_connection::redis_connection(asio::io_context& ctx, redis_url url,
                                   std::chrono::milliseconds connect_timeout)
    : ctx_(ctx),
      url_(std::move(url)),
      socket_(ctx),
      connect_timeout_(connect_timeout),
      deadline_(ctx) {}

redis_connection::~redis_connection() {
  destroying_ = true;
  if (ac_) redisAsyncFree(ac_);
}

void redis_connection::connect(std::function<void()> on_up, down_handler on_down) {
  on_down_ = std::move(on_down);
  ac_ = redisAsyncConnect(url_.host.c_str(), url_.port);
  if (!ac_ || ac_->err) {
    failure_ = connect_error(ac_);
    if (ac_) redisAsyncFree(ac_);
    ac_ = nullptr;
    asio::post(ctx_, [this] { lost(); });
    return;
  }
  ac_->data = this;
  ac_->ev.data = this;
  ac_->ev.addRead = add_read;
  ac_->ev.delRead = del_read;
  ac_->ev.addWrite = add_write;
  ac_->ev.delWrite = del_write;
  ac_->ev.cleanup = cleanup;
  redisAsyncSetConnectCallback(ac_, on_connected);
  redisAsyncSetDisconnectCallback(ac_, on_disconnected);
  boost::system::error_code ec;
  socket_.assign(ac_->c.fd, ec);

  // hiredis's connect waits for ever on an address that drops packets; so does a server that
  // accepts and never answers.
  deadline_.expires_after(connect_timeout_);
  deadline_.async_wait([this, alive = std::weak_ptr<void>(alive_)](boost::system::error_code e) {
    if (e || alive.expired() || up_ || !on_down_) return;
    refuse(fmt::format("timeout (no answer within {} ms)", connect_timeout_.count()));
  });

  // The first command also completes the non-blocking connect; its reply says we are up.
  auto ready = [this, on_up = std::move(on_up)](const redisReply* r) {
    if (!r) return;  // a failed connect reports through lost()
    if (!handshake_ok(r, url_.is_sentinel ? "PING" : "SELECT")) return;
    deadline_.cancel();
    up_ = true;
    on_up();
  };
  if (url_.is_sentinel) {
    command({"PING"}, std::move(ready));
    return;
  }
  // Pipelined: AUTH, ROLE and SELECT go out together and their replies come back in order.
  if (!url_.password.empty()) {
    std::vector<std::string> auth{"AUTH"};
    if (!url_.user.empty()) auth.push_back(url_.user);
    auth.push_back(url_.password);
    command(auth, [this](const redisReply* r) {
      if (r && r->type == REDIS_REPLY_ERROR) refuse(fmt::format("auth failed ({})", text_of(r)));
    });
  }
  command({"ROLE"}, [this](const redisReply* r) { handshake_ok(r, "ROLE"); });
  command({"SELECT", std::to_string(url_.db)}, std::move(ready));
}

bool redis_connection::handshake_ok(const redisReply* r, std::string_view command) {
  if (!failure_.empty()) return false;  // refused already (AUTH)
  if (!r) return false;
  if (r->type == REDIS_REPLY_ERROR) {
    const auto text = text_of(r);
    // Only a refused password is a reason here: a user whose ACL does not allow ROLE may still
    // publish.
    if (auth_error(text)) {
      refuse(url_.password.empty()
                 ? fmt::format("auth failed ({}; give it in the URL: redis://:PASSWORD@HOST:PORT)",
                               text)
                 : fmt::format("auth failed ({})", text));
      return false;
    }
    if (command == "ROLE") return true;
    refuse(fmt::format("{} failed ({})", command, text));
    return false;
  }
  if (command == "ROLE" && r->type == REDIS_REPLY_ARRAY && r->elements > 0 &&
      r->element[0]->type == REDIS_REPLY_STRING) {
    const auto role = text_of(r->element[0]);
    if (role == "sentinel") {
      refuse("wrong role: a Sentinel, not a master; use sentinel://HOST:PORT/MASTER_NAME");
      return false;
    }
    if (role != "master") {
      refuse(
          fmt::format("wrong role: a {} (read-only), not a master; give the master's address, or "
                      "sentinel:// to follow failovers",
                      role == "slave" ? "replica" : role));
      return false;
    }
  }
  return true;
}

void redis_connection::refuse(std::string why) {
  if (!failure_.empty() || !on_down_) return;
  failure_ = std::move(why);
  // Not from within hiredis's reply callback: free the context once it has returned.
  asio::post(ctx_, [this, alive = std::weak_ptr<void>(alive_)] {
    if (!alive.expired()) abort();
  });
}

void redis_connection::abort() {
  // hiredis fails every pending command, then reports the disconnect (on_disconnected), which
  // ends in lost(). A context that never connected reports nothing: post lost() ourselves.
  if (!ac_) return;
  if (failure_.empty()) failure_ = "dropped to reconnect";
  const bool connected = (ac_->c.flags & REDIS_CONNECTED) != 0;
  redisAsyncFree(ac_);
  if (!connected) {
    ac_ = nullptr;
    asio::post(ctx_, [this] { lost(); });
  }
}

void redis_connection::command(const std::vector<std::string>& args, reply_handler done) {
  send(args, std::move(done), false);
}

void redis_connection::subscribe(const std::string& channel, reply_handler on_message) {
  send({"SUBSCRIBE", channel}, std::move(on_message), true);
}

void redis_connection::send(const std::vector<std::string>& args, reply_handler done,
                            bool persistent) {
  if (!ac_) {
    asio::post(ctx_, [done = std::move(done)] { done(nullptr); });
    return;
  }
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  auto* p = new pending_command{std::move(done), &destroying_, persistent};
  if (redisAsyncCommandArgv(ac_, reply_trampoline, p, static_cast<int>(argv.size()), argv.data(),
                            lengths.data()) != REDIS_OK) {
    asio::post(ctx_, [p] { reply_trampoline(nullptr, nullptr, p); });
  }
}

void redis_connection::on_connected(const redisAsyncContext* ac, int status) {
  if (status == REDIS_OK) return;
  auto* self = self_of(ac->data);
  if (self->failure_.empty()) self->failure_ = connect_error(ac);
  on_disconnected(ac, status);  // hiredis frees a context whose connect failed, without saying so
}

void redis_connection::on_disconnected(const redisAsyncContext* ac, int status) {
  // hiredis frees the context right after this callback.
  auto* self = self_of(ac->data);
  if (self->failure_.empty())
    self->failure_ =
        status == REDIS_OK ? "connection closed" : "connection lost (" + connect_error(ac) + ")";
  self->ac_ = nullptr;
  if (!self->destroying_) asio::post(self->ctx_, [self] { self->lost(); });
}

void redis_connection::lost() {
  up_ = false;
  deadline_.cancel();
  if (failure_.empty()) failure_ = "connection lost";
  if (on_down_) std::exchange(on_down_, nullptr)(failure_);
}

void redis_connection::add_read(void* self) {
  self_of(self)->want_read_ = true;
  self_of(self)->wait_readable();
}
void redis_connection::del_read(void* self) {
  self_of(self)->want_read_ = false;
}
void redis_connection::add_write(void* self) {
  self_of(self)->want_write_ = true;
  self_of(self)->wait_writable();
}
void redis_connection::del_write(void* self) {
  self_of(self)->want_write_ = false;
}

// hiredis is done with the socket: stop waiting on it, and leave closing it to hiredis.
void redis_connection::cleanup(void* self) {
  auto* c = self_of(self);
  c->want_read_ = c->want_write_ = false;
  boost::system::error_code ignored;
  c->socket_.cancel(ignored);
  c->socket_.release();
}

void redis_connection::wait_readable() {
  if (read_waiting_ || !socket_.is_open()) return;
  read_waiting_ = true;
  socket_.async_wait(asio::posix::stream_descriptor::wait_read,
                     [this, alive = std::weak_ptr<void>(alive_)](boost::system::error_code ec) {
                       if (alive.expired())
                         return;  // the connection was destroyed while the wait was pending
                       read_waiting_ = false;
                       if (ec || !ac_ || !want_read_) return;
                       redisAsyncHandleRead(
                           ac_);  // may free the context (ac_ becomes null through on_disconnected)
                       if (ac_ && want_read_) wait_readable();
                     });
}

void redis_connection::wait_writable() {
  if (write_waiting_ || !socket_.is_open()) return;
  write_waiting_ = true;
  socket_.async_wait(asio::posix::stream_descriptor::wait_write,
                     [this, alive = std::weak_ptr<void>(alive_)](boost::system::error_code ec) {
                       if (alive.expired()) return;  // destroyed while the wait was pending
                       write_waiting_ = false;
                       if (ec || !ac_ || !want_write_) return;
                       redisAsyncHandleWrite(ac_);
                       if (ac_ && want_write_) wait_writable();
                     });
}

}  // namespace ringcast

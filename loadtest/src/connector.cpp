#include "connector.hpp"

#include <boost/asio/post.hpp>
#include <stdexcept>
#include <utility>

#include "loopback.hpp"

namespace ringcast::load {

namespace asio = boost::asio;
using error_code = boost::system::error_code;

deadline::deadline(const asio::any_io_executor& ex) : state_(std::make_shared<state>(ex)) {}

deadline::~deadline() {
  cancel();
}

void deadline::arm(net_stream& stream, std::chrono::steady_clock::duration after) {
  state_->stream = &stream;
  state_->expired = false;
  const auto generation = ++state_->generation;
  state_->timer.expires_after(after);  // a wait still pending completes as cancelled
  // A wait that had already completed is queued before cancel() or a new arm() could stop it:
  // the generation tells it that it is stale.
  state_->timer.async_wait([s = state_, generation](error_code ec) {
    if (ec || s->generation != generation || !s->stream) return;
    s->expired = true;
    std::exchange(s->stream, nullptr)->close();
  });
}

void deadline::cancel() {
  state_->stream = nullptr;
  ++state_->generation;
  state_->timer.cancel();
}

connector::connector(const options& opts) {
  if (!opts.tls) return;
  auto ctx = tls_context::for_client(opts.tls_ca);
  if (!ctx) throw std::runtime_error("--tls-ca: " + ctx.error);
  tls_ = std::move(*ctx.value);
}

namespace {

// One connect() under way; the handlers hold it, and it holds the caller's handler (and so the
// stream's owner) until it completes.
struct connect_op {
  connect_op(net_stream& s, connector::handler h)
      : stream(s), limit(s.get_executor()), done(std::move(h)) {}

  void finish(std::string_view failure) {
    limit.cancel();
    auto call = std::move(done);
    call(failure);
  }

  net_stream& stream;
  deadline limit;
  connector::handler done;
};

}  // namespace

void connector::connect(net_stream& stream, const asio::ip::tcp::endpoint& server,
                        const std::optional<asio::ip::address_v4>& source,
                        std::chrono::steady_clock::duration timeout, handler done) const {
  auto op = std::make_shared<connect_op>(stream, std::move(done));
  error_code ec;
  if (source) {
    ec = bind_source(stream.socket(), *source);
  } else {
    stream.socket().open(asio::ip::tcp::v4(), ec);
    if (!ec) stream.socket().set_option(asio::ip::tcp::no_delay(true), ec);
  }
  if (ec) {
    asio::post(stream.get_executor(), [op] { op->finish(bind_failed); });
    return;
  }
  op->limit.arm(stream, timeout);
  stream.socket().async_connect(server, [op, tls = tls_, server](error_code cec) {
    // The deadline closed the socket: the connect completes as cancelled.
    if (cec || op->limit.expired()) return op->finish(connect_failed);
    if (!tls) return op->finish({});
    // The session is made on the connected socket; its name is the address, which a verifying
    // context checks against the certificate's IP SANs.
    auto session =
        tls->new_session(op->stream.socket().native_handle(), server.address().to_string());
    if (!session) return op->finish(tls_handshake_failed);
    op->stream = net_stream(std::move(op->stream.socket()), std::move(session));
    op->stream.async_handshake([op](error_code hec) {
      if (hec || op->limit.expired()) return op->finish(tls_handshake_failed);
      op->finish({});
    });
  });
}

}  // namespace ringcast::load

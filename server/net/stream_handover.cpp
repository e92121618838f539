// A stream's part of an upgrade in place (server_upgrade.cpp): what of it moves to the new
// process, and its resumption there.
#include "net/stream_connection.hpp"

namespace ringcast {

std::size_t stream_connection::capture_loop(connection_registry& loop,
                                            std::vector<moved_stream>& out,
                                            queued_messages& messages) {
  std::vector<stream_connection*> secure;
  const auto take = [&](stream_connection& c) {
    moved_stream m;
    if (c.stream_.secure() && c.session_ && !c.closing_) {
      secure.push_back(&c);
    } else if (c.capture(m, messages)) {
      out.push_back(std::move(m));
    }
  };
  loop.for_each<stream_connection>(connection_kind::ws, take);
  loop.for_each<stream_connection>(connection_kind::sse, take);
  // Written at once if the socket takes it (it is closed by the exec, whatever is left).
  for (stream_connection* c : secure)
    c->ctx_.sessions().end_connection(*c->session_, ending::reconnect_shutdown, c->ctx_.now());
  return secure.size();
}

bool stream_connection::capture(moved_stream& out, queued_messages& messages) {
  if (!session_ || closing_ || failed_ || stream_.secure() || !capture_transport(out)) return false;
  boost::system::error_code ec;
  const auto local = stream_.socket().local_endpoint(ec);
  if (ec) return false;
  out.fd = stream_.socket().native_handle();
  out.v6 = local.address().is_v6();
  out.user = session_->user();
  out.sid = session_->sid();
  out.channels = session_->channels();
  // As admitted, which the session keeps for its connection.
  out.allowed_channels = session_->allowed_channels();
  if (const time_point expires = session_->token_expires(); expires != time_point::max()) {
    out.token_expires_ms =
        ctx_.timers().unix_ms() +
        std::chrono::duration_cast<std::chrono::milliseconds>(expires - ctx_.now()).count();
  }
  out.highest_id = highest_id_;
  // Only the frame whose write began goes as bytes; a message is named, its bytes written once
  // for the whole state however many streams hold it.
  auto items = queue_.items();
  if (written_ > 0 && !items.empty()) {
    frame_buffers parts;
    std::size_t skip = written_;
    const std::size_t n = unwritten_buffers_of(items.front(), skip, parts);
    for (std::size_t i = 0; i < n; ++i)
      out.partial.append(static_cast<const char*>(parts[i].data()), parts[i].size());
    items = items.subspan(1);
  }
  out.queued.reserve(items.size());
  for (const outbound& item : items) {
    if (item.msg)
      out.queued.push_back({messages.add(item.msg), {}, item.unnumbered});
    else
      out.queued.push_back({queued_frame::own, item.text, false});
  }
  return true;
}

void stream_connection::resume_moved(const moved_stream& m, std::vector<outbound> queue) {
  highest_id_ = m.highest_id;
  for (outbound& item : queue) {
    if (item.msg) queued(*item.msg, item.unnumbered);  // its shared compressed form
    push(std::move(item));
  }
  // The session came with the node's state, waiting for this connection: it goes on as it was.
  session_ = ctx_.sessions().adopt(m.user, m.sid, *this);
  if (session_) return flush();
  // Without it (the state was refused), attached again as a resume from what it was sent.
  client_params params;
  params.user = m.user;
  params.sid = m.sid;
  params.sid_given = true;
  params.since = m.highest_id;
  params.channels = m.channels;
  params.allowed_channels = m.allowed_channels;
  if (m.token_expires_ms)
    params.expires =
        ctx_.now() + std::chrono::milliseconds(*m.token_expires_ms - ctx_.timers().unix_ms());
  auto attached = ctx_.sessions().attach(params, *this, ctx_.now());
  session_ = attached.s;
  for (auto& msg : attached.backlog)
    push(numbered(std::move(msg)));
  flush();
}

}  // namespace ringcast

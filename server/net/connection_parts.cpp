#include "net/connection_parts.hpp"

namespace ringcast {

std::optional<connection_parts::detached> connection_parts::detach() {
  boost::system::error_code ec;
  auto d = stream.detach(peer, ec);
  if (ec) {
    stream.close();
    return std::nullopt;
  }
  return detached{std::move(d), std::move(buffer), std::move(slot), std::move(address), peer};
}

std::optional<connection_parts> connection_parts::adopt(connection_context& ctx, detached d) {
  auto stream = net_stream::adopt(ctx.io(), std::move(d.stream));
  if (!stream) return std::nullopt;
  return connection_parts{std::move(*stream), std::move(d.buffer), std::move(d.slot),
                          std::move(d.address), d.peer};
}

boost::asio::ip::address connection_parts::peer_of(net_stream& stream) {
  boost::system::error_code ec;
  const auto peer = stream.socket().remote_endpoint(ec);
  return ec ? boost::asio::ip::address{} : peer.address();
}

}  // namespace ringcast

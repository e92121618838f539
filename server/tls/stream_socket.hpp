// The socket of every connection: bound to its loop's io_context rather than to a type-erased
// executor, which is 48 bytes less in the socket and in every wait it keeps pending while idle
// (docs/performance.md, section 17).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace ringcast {

using stream_socket =
    boost::asio::basic_stream_socket<boost::asio::ip::tcp, boost::asio::io_context::executor_type>;

}  // namespace ringcast

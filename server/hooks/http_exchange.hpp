// One HTTP/1.1 POST to a backend (http or https through net_stream), on the caller's io_context,
// with Boost.Beast: over a connection of its own, closed after the answer, or with a backend_pool
// over a kept-alive one, given back to the pool after the answer. The answer is read up to a body
// limit; nothing is followed (a redirect is an answer like any other, for the caller to refuse).
//
// Timeouts are the caller's: it arms them on its wheel and calls cancel(). Exactly one `done`
// per exchange, always posted (never inside start()); after cancel() it reports `cancelled`.
#pragma once

#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "protocol/http_url.hpp"
#include "tls/tls_context.hpp"

namespace ringcast {

class backend_pool;

struct http_answer {
  unsigned status = 0;  // 0: no answer; `failure` says why
  std::string body;
  std::string content_type;
  std::string failure;  // "connect failed: …", "body over 65536 bytes", "cancelled", …
};

class http_exchange {
 public:
  using header = std::pair<std::string, std::string>;
  using handler = std::function<void(http_answer)>;

  // `tls` is required for an https URL (else done reports the failure).
  static std::shared_ptr<http_exchange> post(boost::asio::io_context& io, const http_url& url,
                                             std::shared_ptr<const tls_context> tls,
                                             std::string body, std::vector<header> headers,
                                             std::size_t max_answer_body, handler done,
                                             std::shared_ptr<backend_pool> pool = nullptr);
  virtual ~http_exchange() = default;
  // Gives up: the socket is closed and done reports `cancelled` (unless it already reported).
  virtual void cancel() = 0;
};

}  // namespace ringcast

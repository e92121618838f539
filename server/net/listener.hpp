// Accepts TCP connections on --listen with one listening socket per event loop, all bound to the
// same address in one SO_REUSEPORT group: the kernel spreads new connections over the sockets and
// each loop accepts from its own and serves what it accepted (loop_acceptor.hpp), with no hand-off
// between loops (docs/performance.md section 16, third pass). Only a process of the same
// effective user can join a group on Linux; before the group binds, a socket without
// SO_REUSEPORT checks that nothing listens there already (docs/security.md, "Listening").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/connection_context.hpp"
#include "net/connection_limit.hpp"
#include "net/loop_acceptor.hpp"
#include "upgrade/process_handover.hpp"

namespace ringcast {

class listener {
 public:
  listener(std::vector<connection_context*> loops, connection_limit& limit);
  ~listener();

  // Binds and listens, a socket per loop (the port the first got when 0 was asked for); logs the
  // address.
  bool open(const std::string& host, std::uint16_t port);
  // Listens on the sockets an upgrading process handed over (no bind: what waits in their backlogs
  // is accepted here). Loop i accepts from sockets i, i + loops, ...; a loop left without one (the
  // old process had fewer loops) opens one more into the group.
  bool adopt(const std::vector<listening_socket>& handed);
  // Every listening socket, for an upgrade in place (the loops stopped).
  std::vector<listening_socket> handover();
  void close();  // from any thread
  // "host:port" as bound (the port chosen when 0 was asked for); set by open(), then constant.
  const std::string& address() const { return address_; }

 private:
  loop_acceptor& add(connection_context& loop);
  // Logs the address, grows the descriptor table and starts every socket's accepts on its loop.
  void listening();

  std::vector<connection_context*> loops_;
  connection_limit& limit_;
  std::vector<std::unique_ptr<loop_acceptor>> acceptors_;
  std::string address_;
};

}  // namespace ringcast

// Segments with data a TCP socket has received (TCP_INFO's tcpi_data_segs_in, Linux 4.6): how many
// writes of the peer's arrived, on loopback with TCP_NODELAY. Apart from the tests that include
// Asio: the kernel's struct tcp_info (linux/tcp.h) and glibc's older one cannot meet in one file.
#pragma once

#include <cstdint>

namespace ringcast::test {

std::uint32_t data_segments_in(int fd);

}  // namespace ringcast::test

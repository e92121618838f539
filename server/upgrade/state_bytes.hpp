// The primitives of the handover state's encoding (state_codec.hpp, process_handover.hpp):
// fixed-width little-endian integers, lists with a 32-bit count before them and strings with a
// length before them (32-bit in the node's state, 64-bit in the process's section). The reader
// checks every length against what is left before it trusts it: a list's count is refused if its
// elements could not fit in the bytes that remain (each takes at least `min_element_bytes`), so a
// corrupt count never makes it allocate more than a constant times its input.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace ringcast::upgrade {

// Anything the reader does not understand: the whole state is refused with this message.
class state_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The width of a string's length.
enum class length_bytes : std::uint8_t { four = 4, eight = 8 };

class byte_writer {
 public:
  explicit byte_writer(length_bytes lengths = length_bytes::four) : lengths_(lengths) {}
  template <class Int>
  requires std::is_integral_v<Int>
  void put(Int v) {
    using U = std::make_unsigned_t<Int>;
    auto u = static_cast<U>(v);
    for (std::size_t i = 0; i < sizeof(U); ++i) {
      out_.push_back(static_cast<char>(u & 0xff));
      if constexpr (sizeof(U) > 1) u >>= 8;
    }
  }
  void put_bool(bool b) { put<std::uint8_t>(b ? 1 : 0); }
  void put_count(std::size_t n) {
    if (n > UINT32_MAX) throw state_error("a list or string longer than 2^32-1");
    put(static_cast<std::uint32_t>(n));
  }
  void put_string(std::string_view s) {
    if (lengths_ == length_bytes::eight)
      put(static_cast<std::uint64_t>(s.size()));
    else
      put_count(s.size());
    out_.append(s);
  }
  std::string& bytes() { return out_; }

 private:
  length_bytes lengths_;
  std::string out_;
};

class byte_reader {
 public:
  explicit byte_reader(std::string_view in, length_bytes lengths = length_bytes::four)
      : in_(in), lengths_(lengths) {}

  template <class Int>
  requires std::is_integral_v<Int> Int get() {
    using U = std::make_unsigned_t<Int>;
    need(sizeof(U), "an integer");
    U u = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i)
      u |= static_cast<U>(static_cast<U>(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i));
    pos_ += sizeof(U);
    return static_cast<Int>(u);
  }
  bool get_bool() {
    const auto b = get<std::uint8_t>();
    if (b > 1) throw state_error("a flag that is neither 0 nor 1");
    return b == 1;
  }
  // A count of elements that each take at least `min_element_bytes` (at least 1).
  std::size_t get_count(std::size_t min_element_bytes, const char* what) {
    const auto n = get<std::uint32_t>();
    if (n > left() / (min_element_bytes ? min_element_bytes : 1))
      throw state_error(std::string("a count of ") + what + " larger than the state could hold");
    return n;
  }
  std::string get_string(const char* what) {
    std::size_t n = 0;
    if (lengths_ == length_bytes::four) {
      n = get_count(1, what);
    } else {
      const auto wide = get<std::uint64_t>();
      if (wide > left())
        throw state_error(std::to_string(wide) + " bytes announced, " + std::to_string(left()) +
                          " left");
      n = static_cast<std::size_t>(wide);
    }
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  std::string_view take(std::size_t n, const char* what) {
    need(n, what);
    const auto s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::size_t left() const { return in_.size() - pos_; }

 private:
  void need(std::size_t n, const char* what) {
    if (left() < n) throw state_error(std::string("the state ends inside ") + what);
  }
  std::string_view in_;
  length_bytes lengths_;
  std::size_t pos_ = 0;
};

}  // namespace ringcast::upgrade

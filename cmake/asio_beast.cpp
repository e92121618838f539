// The one translation unit that compiles Asio and Beast (see cmake/dependencies.cmake).
#include <boost/asio/impl/src.hpp>
#include <boost/beast/src.hpp>

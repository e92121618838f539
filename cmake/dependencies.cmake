# Every dependency comes from a Debian package (scripts/deps.sh installs them).
# The wheel needs none; the network parts need Boost 1.81 and fmt.
set(RINGCAST_WITH_NETWORK ON)

find_package(Threads REQUIRED)
find_package(Boost 1.81 CONFIG REQUIRED COMPONENTS json url program_options)
find_package(fmt REQUIRED)

# Asio and Beast are header-only by default, which would recompile them in every translation
# unit; compile them once into this library instead.
add_library(ringcast_asio STATIC ${CMAKE_SOURCE_DIR}/cmake/asio_beast.cpp)
target_compile_definitions(ringcast_asio PUBLIC
  BOOST_ASIO_SEPARATE_COMPILATION
  BOOST_BEAST_SEPARATE_COMPILATION
  BOOST_ASIO_NO_DEPRECATED)
target_link_libraries(ringcast_asio PUBLIC Boost::headers Threads::Threads)

// Boost.JSON and Boost.URL compiled into the fuzz targets instead of linked, so that their
// parsers are instrumented too and libFuzzer can find its way through the JSON and URL grammars.
#include <boost/json/src.hpp>
#include <boost/url/src.hpp>

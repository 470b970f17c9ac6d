// Catch2 v2 needs a translation unit that defines main; v3 links catch2-with-main instead.
#define CATCH_CONFIG_MAIN
#include "catch.hpp"

#include "ledger.h"

#include "catch.hpp"

TEST_CASE("ledger: second deleter call is reported", "[unit]") {
  dlc::DeleterLedger ledger;
  int tensor = 0;
  ledger.produced(&tensor);
  CHECK(ledger.calls(&tensor) == 0);
  CHECK(ledger.deleter_called(&tensor));
  CHECK_FALSE(ledger.deleter_called(&tensor));
  CHECK(ledger.calls(&tensor) == 2);
}

TEST_CASE("ledger: a deleter call on an unknown struct is a stray call", "[unit]") {
  dlc::DeleterLedger ledger;
  int never_produced = 0;
  CHECK_FALSE(ledger.deleter_called(&never_produced));
  CHECK(ledger.stray_calls() == 1);
  ledger.reset();
  CHECK(ledger.stray_calls() == 0);
  CHECK(ledger.size() == 0);
}

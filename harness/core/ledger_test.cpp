#include "ledger.h"

#include <dlpack/dlpack.h>

#include "catch.hpp"
#include "phase.h"

namespace {

int g_producer_deleter_calls = 0;
void producer_deleter(DLManagedTensorVersioned*) { ++g_producer_deleter_calls; }
void legacy_producer_deleter(DLManagedTensor*) { ++g_producer_deleter_calls; }

}  // namespace

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
}

TEST_CASE("ledger: the trampoline counts an uncooperative producer's deleter, forwards once",
          "[unit]") {
  dlc::DeleterLedger ledger;
  dlc::set_trampoline_ledger(&ledger);
  g_producer_deleter_calls = 0;
  DLManagedTensorVersioned m{};
  m.deleter = producer_deleter;
  REQUIRE(ledger.interpose(&m, dlc::abi::StructKind::versioned));
  CHECK(m.deleter != producer_deleter);  // the field now holds the trampoline
  CHECK(m.manager_ctx == nullptr);       // and nothing else changed
  {
    dlc::ScopedPhase phase("release()", "consumer-x", dlc::Party::consumer);
    m.deleter(&m);
    m.deleter(&m);
  }
  CHECK(g_producer_deleter_calls == 1);  // forwarded once
  const dlc::DeleterLedger::Entry* e = ledger.find(&m);
  REQUIRE(e != nullptr);
  CHECK(e->calls == 2);                  // both recorded
  CHECK(std::string(e->where[1]) == "release()");
  // A copy of the struct carries the trampoline but was never handed out: a stray call.
  DLManagedTensorVersioned copy = m;
  copy.deleter(&copy);
  CHECK(ledger.stray_calls() == 1);
  CHECK(g_producer_deleter_calls == 1);
  dlc::set_trampoline_ledger(nullptr);
}

TEST_CASE("ledger: a cooperating deleter is not counted twice", "[unit]") {
  static dlc::DeleterLedger ledger;
  dlc::set_trampoline_ledger(&ledger);
  struct Cooperating {
    static void deleter(DLManagedTensor* self) {
      // A mock producer reports to the host as well: inside the trampoline that is the same call.
      CHECK(ledger.deleter_called(self));
      ++g_producer_deleter_calls;
    }
  };
  g_producer_deleter_calls = 0;
  DLManagedTensor m{};
  m.deleter = Cooperating::deleter;
  REQUIRE(ledger.interpose(&m, dlc::abi::StructKind::legacy));
  m.deleter(&m);
  CHECK(ledger.calls(&m) == 1);
  CHECK(g_producer_deleter_calls == 1);
  // A NULL deleter is not interposed (LIFE-4: nothing to call).
  DLManagedTensor empty{};
  CHECK_FALSE(ledger.interpose(&empty, dlc::abi::StructKind::legacy));
  (void)legacy_producer_deleter;
  dlc::set_trampoline_ledger(nullptr);
}

// The Python bridge's workers never reset: once 1,024 structs had been handed out, every later
// one went unrecorded, and its deleter call counted as stray (JAX 0.12's rows failed so).
TEST_CASE("ledger: settled structs make room when nothing resets", "[unit]") {
  dlc::DeleterLedger ledger;
  static int tensors[dlc::DeleterLedger::kMaxEntries + 10];
  for (int& t : tensors) {
    ledger.produced(&t);
    CHECK(ledger.deleter_called(&t));
  }
  CHECK(ledger.stray_calls() == 0);
  int owed = 0;
  ledger.produced(&owed);
  CHECK_FALSE(ledger.deleter_called(&tensors[0]));  // settled long ago: now stray, still LIFE-3
  CHECK(ledger.stray_calls() == 1);
  ledger.clear_stray();
  CHECK(ledger.stray_calls() == 0);
  CHECK(ledger.deleter_called(&owed));
  CHECK(ledger.calls(&owed) == 1);
}

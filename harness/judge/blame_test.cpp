// infer_role: the party a framework row's finding is about, as the suppressions and the
// frameworks report read it.
#include "blame.h"

#include "catch.hpp"

namespace {

dlc::CaseResult row(const std::string& scenario, const std::string& producer,
                    const std::string& consumer, const std::string& cls,
                    const std::string& rule = "LAY-8") {
  dlc::CaseResult c;
  c.scenario = scenario;
  c.producer = {producer, producer + "@1"};
  c.consumer = {consumer, consumer + "@1"};
  c.finding_class = cls;
  c.rule_id = rule;
  return c;
}

}  // namespace

TEST_CASE("blame: the class's own role, dlconform's parties never, either-party classes by rule",
          "[unit]") {
  using dlc::Role;
  CHECK(dlc::infer_role(row("pairs", "numpy", "torch", "")) == Role::none);
  CHECK(dlc::infer_role(row("pairs", "numpy", "torch", "accepted-invalid")) == Role::consumer);
  CHECK(dlc::infer_role(row("pairs", "numpy", "torch", "producer-violation")) == Role::producer);
  // A crash in a pair is the importer's; with dlconform's own consumer, the framework's.
  CHECK(dlc::infer_role(row("pairs", "numpy", "torch", "crash")) == Role::consumer);
  CHECK(dlc::infer_role(row("framework", "jax", "dlconform-consumer", "wrong-data")) ==
        Role::producer);
  CHECK(dlc::infer_role(row("framework", "versioned-producer", "jax", "crash")) ==
        Role::consumer);
  // A refusal of the wrong type is the refuser's: __dlpack__ for STRM-3 and STRM-4.
  CHECK(dlc::infer_role(row("devices", "torch", "cupy", "wrong-refusal-exception", "STRM-4")) ==
        Role::producer);
  CHECK(dlc::infer_role(row("devices", "torch", "cupy", "wrong-refusal-exception", "DEV-3")) ==
        Role::consumer);
  dlc::CaseResult host_asked = row("pairs", "dpnp", "torch", "wrong-refusal-exception", "STRM-3");
  host_asked.id = "pairs/oneapi/dpnp@0.20.0/torch@2.13.0/f32_2x3/device=cpu";
  CHECK(dlc::infer_role(host_asked) == Role::consumer);  // from_dlpack(device=cpu) refused
  host_asked.id += ",copy=False";
  host_asked.rule_id = "STRM-4";
  CHECK(dlc::infer_role(host_asked) == Role::consumer);  // ... with copy=False too
  host_asked.id = "pairs/oneapi/dpnp@0.20.0/torch@2.13.0/device=cpu/f32_2x3";
  CHECK(dlc::infer_role(host_asked) == Role::producer);  // the last part alone says so
  CHECK(dlc::infer_role(row("negotiation", "jax", "numpy", "timeout")) == Role::producer);
}

// The catalogue, the planted-bug table and the plan, table-driven.
#include "plan.h"

#include <map>
#include <set>
#include <tuple>

#include "catch.hpp"
#include "geometry.hpp"

namespace {

int produce_nothing(void*, const DLCRequest*, DLCHandoff*, char*, size_t) { return DLC_ERR_BUFFER; }
int consume_nothing(void*, DLCHandoff*, const DLCRequest*, DLCObservation*, char*, size_t) {
  return DLC_ERR_BUFFER;
}

DLCPlugin table(const char* name, uint32_t roles, DLCVersion header, bool asks,
                const char* layout, const DLCProfile* profile) {
  DLCPlugin t{};
  t.header = {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr};
  t.name = name;
  t.roles = roles;
  t.dlpack_version = header;
  t.has_max_version = asks ? 1 : 0;
  t.max_version = asks ? header : DLCVersion{0, 0};
  t.layout = layout;
  t.produce = produce_nothing;
  t.consume = consume_nothing;
  t.profile = profile;
  return t;
}

dlc::Participant party(const DLCPlugin* t, bool builtin) {
  dlc::LoadedPlugin p;
  p.path = std::string("/nowhere/") + t->name + ".so";
  p.table = t;
  dlc::Participant out;
  std::string error;
  REQUIRE(dlc::describe(p, builtin, &out, &error));
  return out;
}

}  // namespace

TEST_CASE("plan: the catalogue's ids are unique and stable, its views de-duplicated", "[unit]") {
  const auto& c = dlc::tensor_catalogue();
  std::set<std::string> names;
  std::set<std::tuple<int, int, int, std::vector<int64_t>, std::vector<int64_t>, uint64_t, uint64_t>>
      layouts;
  size_t views = 0;
  for (const dlc::TensorCase& t : c) {
    INFO(t.name);
    CHECK(names.insert(t.name).second);
    CHECK(t.rule != dlc::Rule::none);
    if (!t.generated) continue;
    ++views;
    std::vector<int64_t> shape(t.spec.shape, t.spec.shape + t.spec.ndim);
    std::vector<int64_t> strides(t.spec.strides, t.spec.strides + t.spec.ndim);
    CHECK(layouts.insert({t.spec.dtype.code, t.spec.dtype.bits, t.spec.options, shape, strides,
                          t.spec.byte_offset, t.spec.pad_after})
              .second);
    // Every view is a valid host tensor whose values are known.
    CHECK(t.digest_known);
    CHECK(dlc::valid_for(t, DLCVersion{1, 3}, DLC_MAX_NDIM));
  }
  CHECK(views == dlc::generated_view_count());
  CHECK(views >= 150);
  CHECK(dlc::find_tensor("view/nd2/perm10/f32") >= 0);
  CHECK(dlc::find_tensor("view/nd3/window-reversed-byte-offset/f32") >= 0);
  CHECK(dlc::find_tensor("no such tensor") == -1);
  // NULL strides read column-major give other values than row-major (LAY-5's misreading), and
  // only a tensor with NULL strides has that reading.
  const dlc::TensorCase& null_strides = c[dlc::find_tensor("f32_8x8_null_strides")];
  REQUIRE(null_strides.misreading(dlc::Rule::LAY_5) != nullptr);
  CHECK(null_strides.misreading(dlc::Rule::LAY_5)->digest != null_strides.digest);
  CHECK(c[dlc::find_tensor("f64_8x4_transposed")].misreadings.empty());
  // Packed float4 read highest bits first, and a 4-lane float read one lane wide, give other
  // values (DT-3's misreadings); a 1-D tensor of one lane has no known misreading.
  const dlc::TensorCase& float4 = c[dlc::find_tensor("dtype_f4_e2m1fn")];
  REQUIRE(float4.misreading(dlc::Rule::DT_3) != nullptr);
  CHECK(float4.misreading(dlc::Rule::DT_3)->digest != float4.digest);
  const dlc::TensorCase& lanes = c[dlc::find_tensor("dtype_f32x4_lanes")];
  REQUIRE(lanes.misreading(dlc::Rule::DT_3) != nullptr);
  CHECK(lanes.misreading(dlc::Rule::DT_3)->digest != lanes.digest);
  CHECK(c[dlc::find_tensor("i16_128_byte_offset")].misreadings.empty());
}

TEST_CASE("plan: validity depends on the consumer's version and limits", "[unit]") {
  const auto& c = dlc::tensor_catalogue();
  const dlc::TensorCase& f8 = c[dlc::find_tensor("dtype_f8_e4m3fn")];
  CHECK_FALSE(dlc::valid_for(f8, {1, 0}, 32));  // float8 codes arrive with 1.1 (DT-1, VER-3)
  CHECK(dlc::valid_for(f8, {1, 1}, 32));
  const dlc::TensorCase& ndim20 = c[dlc::find_tensor("f32_ndim20")];
  CHECK_FALSE(dlc::valid_for(ndim20, {1, 3}, 16));
  CHECK(dlc::valid_for(ndim20, {1, 3}, 32));
  CHECK_FALSE(dlc::valid_for(c[dlc::find_tensor("shape_overflow_int64")], {1, 3}, 32));
  CHECK(dlc::valid_for(c[dlc::find_tensor("f32_0x4_null_data")], {0, 6}, 32));
}

TEST_CASE("plan: every planted bug names a known class, rule and exchange", "[unit]") {
  size_t rows = 0;
  for (const dlc::PlantedBug* p = dlc::planted_begin(); p != dlc::planted_end(); ++p) {
    INFO(p->name);
    ++rows;
    CHECK(dlc::class_from_name(p->cls) != dlc::FindingClass::none);
    CHECK(dlc::rule_from_id(p->rule) != dlc::Rule::none);
    if (p->in_matrix) {
      CHECK(dlc::find_tensor(p->tensor) >= 0);
      CHECK(std::string(p->partner).find('@') != std::string::npos);
    }
    CHECK(dlc::find_planted(p->name) == p);
  }
  CHECK(rows >= 30);
}

TEST_CASE("plan: expectations come from rules and profiles, never names", "[unit]") {
  static const DLCProfile mock = {sizeof(DLCProfile), nullptr, 0, nullptr, 0, 15u,
                                  DLC_FEATURE_READ_ONLY | DLC_FEATURE_ZERO_DIM |
                                      DLC_FEATURE_ZERO_SIZE | DLC_FEATURE_COPY |
                                      DLC_FEATURE_MISALIGNED | DLC_FEATURE_TEST_LAYOUTS |
                                      DLC_FEATURE_EVERY_DTYPE | DLC_FEATURE_EVERY_DEVICE,
                                  32, {0, 0}};
  static const DLCProfile future = {sizeof(DLCProfile), nullptr, 0, nullptr, 0, 15u,
                                    mock.features, 32, {2, 0}};
  static const DLCPlugin versioned =
      table("p-versioned", DLC_ROLE_PRODUCER, {1, 3}, false, "versioned", &mock);
  static const DLCPlugin major2 =
      table("p-major2", DLC_ROLE_PRODUCER, {1, 3}, false, "versioned", &future);
  static const DLCPlugin external =
      table("p-external", DLC_ROLE_PRODUCER, {1, 3}, false, "versioned", nullptr);
  static const DLCPlugin old_consumer = table("c-old", DLC_ROLE_CONSUMER, {0, 6}, false, nullptr, nullptr);
  static const DLCPlugin new_consumer = table("c-new", DLC_ROLE_CONSUMER, {1, 3}, true, nullptr, nullptr);
  const std::vector<dlc::Participant> parties = {
      party(&versioned, true), party(&major2, true), party(&external, false),
      party(&old_consumer, true), party(&new_consumer, true)};
  CHECK(parties[1].emits.major == 2);
  CHECK(parties[2].profile.source == dlc::Profile::Source::default_profile);
  std::map<std::string, const dlc::CaseDef*> by_id;
  const std::vector<dlc::CaseDef> plan = dlc::plan_matrix(parties);
  for (const dlc::CaseDef& c : plan) by_id[c.result.id] = &c;
  auto expect = [&](const std::string& id) {
    INFO(id);
    REQUIRE(by_id.count(id) == 1);
    return by_id[id]->result.expected;
  };
  using E = dlc::Expectation;
  // S0: a new producer, an old consumer; S1 needs an old producer, S2 none here.
  CHECK(by_id["S0/p-versioned@v1.3/c-old@v0.6/f32_8x8"] != nullptr);
  // A legacy struct cannot say READ_ONLY: the producer refuses (FLAG-1).
  CHECK(expect("S0/p-versioned@v1.3/c-old@v0.6/f32_8x8_read_only") == E::skip);
  CHECK(expect("native/p-versioned@v1.3/c-new@v1.3/f32_8x8_read_only") == E::pass);
  // A producer of another major refuses every older caller (VER-4).
  CHECK(expect("native/p-major2@v1.3/c-new@v1.3/f32_8x8") == E::skip);
  // An external producer is never asked for what only a mock makes (an invalid dtype), nor for
  // anything outside its (default) profile.
  CHECK(expect("edge/p-external@v1.3/c-new@v1.3/dtype_unknown_code_99") == E::skip);
  CHECK(expect("edge/p-external@v1.3/c-new@v1.3/dtype_f64") == E::skip);
  CHECK(expect("native/p-external@v1.3/c-new@v1.3/f32_8x8") == E::pass);
  // A consumer must take a valid tensor inside its profile, and only that.
  CHECK(by_id["native/p-versioned@v1.3/c-new@v1.3/f32_8x8"]->must_accept);
  CHECK_FALSE(by_id["edge/p-versioned@v1.3/c-new@v1.3/dtype_f64"]->must_accept);
  CHECK_FALSE(by_id["edge/p-versioned@v1.3/c-new@v1.3/f32_8x8_negative_stride"]->must_accept);
  // Views: the external producer meets every consumer.
  CHECK(by_id.count("views/p-external@v1.3/c-new@v1.3/view/nd2/perm10/f32") == 1);
  // Negotiation rows for each conformant versioned producer.
  CHECK(by_id.count("negotiation/p-versioned@v1.3/max_version=2.0") == 1);
  CHECK(by_id.count("negotiation/p-major2@v1.3/max_version=none") == 1);
}

TEST_CASE("plan: every consumer meets a used capsule of each struct it takes", "[unit]") {
  static const DLCPlugin legacy =
      table("legacy-producer", DLC_ROLE_PRODUCER, {0, 6}, false, "legacy", nullptr);
  static const DLCPlugin versioned =
      table("versioned-producer", DLC_ROLE_PRODUCER, {1, 3}, false, "versioned", nullptr);
  static const DLCPlugin old_consumer = table("c-old", DLC_ROLE_CONSUMER, {0, 6}, false, nullptr, nullptr);
  static const DLCPlugin new_consumer = table("c-new", DLC_ROLE_CONSUMER, {1, 3}, true, nullptr, nullptr);
  const std::vector<dlc::Participant> parties = {party(&legacy, true), party(&versioned, true),
                                                 party(&old_consumer, true),
                                                 party(&new_consumer, false)};
  std::map<std::string, const dlc::CaseDef*> used;
  for (const dlc::CaseDef& c : dlc::plan_matrix(parties)) {
    if (c.used_capsule) used[c.result.id] = new dlc::CaseDef(c);
  }
  CHECK(used.size() == 3);
  CHECK(used.count("used-capsule/legacy-producer@v0.6/c-old@v0.6/f32_8x8") == 1);
  CHECK(used.count("used-capsule/legacy-producer@v0.6/c-new@v1.3/f32_8x8") == 1);
  // A consumer that never asks for max_version is never handed a versioned capsule.
  CHECK(used.count("used-capsule/versioned-producer@v1.3/c-old@v0.6/f32_8x8") == 0);
  REQUIRE(used.count("used-capsule/versioned-producer@v1.3/c-new@v1.3/f32_8x8") == 1);
  const dlc::CaseDef& c = *used["used-capsule/versioned-producer@v1.3/c-new@v1.3/f32_8x8"];
  CHECK(c.result.scenario == "used-capsule");
  CHECK(c.result.expected == dlc::Expectation::pass);
  CHECK_FALSE(c.must_accept);
  for (auto& [id, def] : used) delete def;
}

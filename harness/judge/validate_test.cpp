// Each rule is proven twice: a violating tensor that is caught, and a conformant one that passes.
#include "validate.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "geometry.hpp"

namespace {

using dlc::abi::ManagedTensor;
using dlc::abi::ManagedTensorVersioned;

// A compact float32 tensor over caller-owned arrays.
struct Fixture {
  int64_t shape[2] = {2, 3};
  int64_t strides[2] = {3, 1};
  float data[6] = {1, 2, 3, 4, 5, 6};
  ManagedTensorVersioned versioned{};
  ManagedTensor legacy{};
  Fixture() {
    dlc::abi::Tensor t{data, {1, 0}, 2, {2, 32, 1}, shape, strides, 0};
    versioned.version = {1, 3};
    versioned.dl_tensor = t;
    legacy.dl_tensor = t;
  }
};

dlc::ValidateResult check(const char* name, void* p, dlc::Level level = dlc::Level::standard,
                          DLCVersion consumer = {1, 3}) {
  dlc::ValidateOptions o;
  o.level = level;
  o.consumer_version = consumer;
  dlc::ValidateResult r;
  dlc::validate(DLCHandoff{name, p}, o, &r);
  return r;
}

std::string first_rule(const dlc::ValidateResult& r) {
  const dlc::Violation* v = r.first_must();
  return v != nullptr ? dlc::id_of(v->rule) : "";
}

// Two pages; the second is PROT_NONE. Returns a pointer `before` bytes ahead of the boundary.
struct GuardedPage {
  uint8_t* base;
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  GuardedPage() {
    base = static_cast<uint8_t*>(
        mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(base + page, page, PROT_NONE);
  }
  ~GuardedPage() { munmap(base, 2 * page); }
  uint8_t* ending(size_t bytes) { return base + page - bytes; }
  uint8_t* poisoned() { return base + page; }
};

}  // namespace

TEST_CASE("validate: a conformant tensor passes at every level", "[unit]") {
  Fixture f;
  for (auto level : {dlc::Level::minimal, dlc::Level::standard, dlc::Level::full}) {
    CHECK(check("dltensor_versioned", &f.versioned, level).accepted);
    CHECK(check("dltensor", &f.legacy, level).accepted);
  }
  const auto full = check("dltensor_versioned", &f.versioned, dlc::Level::full);
  CHECK(full.observation.elements_read == 6);
  CHECK(full.observation.digest == dlc_digest_update(dlc_digest_init(), f.data, sizeof f.data));
}

TEST_CASE("validate: minimal never dereferences shape, strides or data", "[unit]") {
  GuardedPage page;
  Fixture f;
  f.versioned.dl_tensor.data = page.poisoned();
  f.versioned.dl_tensor.shape = reinterpret_cast<int64_t*>(page.poisoned());
  f.versioned.dl_tensor.strides = reinterpret_cast<int64_t*>(page.poisoned());
  CHECK(check("dltensor_versioned", &f.versioned, dlc::Level::minimal).accepted);
  // Standard reads shape and strides but not data.
  Fixture g;
  g.versioned.dl_tensor.data = page.poisoned();
  CHECK(check("dltensor_versioned", &g.versioned, dlc::Level::standard).accepted);
  // Full skips data it cannot read on the host (DEV-3).
  g.versioned.dl_tensor.device = {2, 0};
  const auto full = check("dltensor_versioned", &g.versioned, dlc::Level::full);
  CHECK(full.accepted);
  CHECK(full.observation.data_not_read == 1);
}

TEST_CASE("validate: another major touches nothing past the deleter (VER-2)", "[unit]") {
  GuardedPage page;
  // version, manager_ctx, deleter fill the last 24 bytes before the guard page.
  auto* m = reinterpret_cast<ManagedTensorVersioned*>(page.ending(24));
  m->version = {2, 0};
  const auto r = check("dltensor_versioned", m, dlc::Level::full);
  CHECK_FALSE(r.accepted);
  CHECK(first_rule(r) == "VER-2");
}

TEST_CASE("validate: NULL strides are legal before 1.2 only (LAY-5)", "[unit]") {
  Fixture f;
  f.versioned.dl_tensor.strides = nullptr;
  f.versioned.version = {1, 1};
  CHECK(check("dltensor_versioned", &f.versioned).accepted);
  f.versioned.version = {1, 2};
  CHECK(first_rule(check("dltensor_versioned", &f.versioned)) == "LAY-5");
  f.legacy.dl_tensor.strides = nullptr;
  CHECK(check("dltensor", &f.legacy).accepted);
}

TEST_CASE("validate: NULL shape only at ndim 0 (LAY-6), NULL data only when zero-size (LAY-7, LAY-4)",
          "[unit]") {
  Fixture scalar;  // ndim 0 may carry NULL shape and strides
  scalar.versioned.dl_tensor.ndim = 0;
  scalar.versioned.dl_tensor.shape = nullptr;
  scalar.versioned.dl_tensor.strides = nullptr;
  CHECK(check("dltensor_versioned", &scalar.versioned, dlc::Level::full).accepted);
  Fixture empty;  // a zero-size tensor may have NULL data
  empty.shape[0] = 0;
  empty.versioned.dl_tensor.data = nullptr;
  CHECK(check("dltensor_versioned", &empty.versioned, dlc::Level::full).accepted);

  Fixture no_shape, no_data;
  no_shape.versioned.dl_tensor.shape = nullptr;
  no_data.versioned.dl_tensor.data = nullptr;
  CHECK(first_rule(check("dltensor_versioned", &no_shape.versioned)) == "LAY-6");
  CHECK(first_rule(check("dltensor_versioned", &no_data.versioned)) == "LAY-4");
}

TEST_CASE("validate: dtype codes and widths (DT-1, DT-2)", "[unit]") {
  struct Case {
    uint8_t code, bits;
    bool ok;
  };
  const Case cases[] = {{0, 8, true},   {0, 12, false}, {4, 16, true}, {4, 32, false},
                        {5, 64, true},  {6, 8, true},   {6, 1, false}, {10, 8, true},
                        {15, 6, true},  {15, 8, false}, {17, 4, true}, {17, 8, false},
                        {99, 32, false}};
  for (const Case& c : cases) {
    Fixture f;
    f.versioned.dl_tensor.dtype = {c.code, c.bits, 1};
    INFO("code " << int(c.code) << " bits " << int(c.bits));
    CHECK(check("dltensor_versioned", &f.versioned).accepted == c.ok);
  }
  // A 0.6 consumer does not know Bool; a 1.0 consumer does not know float8 (VER-3 / DT-1).
  Fixture b;
  b.legacy.dl_tensor.dtype = {6, 8, 1};
  CHECK_FALSE(check("dltensor", &b.legacy, dlc::Level::standard, {0, 6}).accepted);
  CHECK(check("dltensor", &b.legacy, dlc::Level::standard, {0, 8}).accepted);
  Fixture z;
  z.versioned.dl_tensor.dtype = {2, 32, 0};
  CHECK(first_rule(check("dltensor_versioned", &z.versioned)) == "DT-1");
  // A width its code does not allow breaks the definition (DT-1: Float4 is 4 bits, and "the
  // consumer must stop importing"); a code no header defines, the derived DT-2. Both are refused,
  // whatever a finding on them weighs (DT-2 is SHOULD: the rule's tensor column, not severity).
  Fixture w;
  w.versioned.dl_tensor.dtype = {17, 8, 1};
  CHECK(first_rule(check("dltensor_versioned", &w.versioned)) == "DT-1");
  Fixture u;
  u.versioned.dl_tensor.dtype = {99, 32, 1};
  const dlc::ValidateResult unknown = check("dltensor_versioned", &u.versioned);
  CHECK(first_rule(unknown) == "DT-2");
  CHECK_FALSE(unknown.accepted);
  CHECK(dlc::info(dlc::Rule::DT_2).severity == dlc::Severity::should);
}

TEST_CASE("validate: devices (DEV-1, DEV-2)", "[unit]") {
  Fixture f;
  f.versioned.dl_tensor.device = {99, 0};
  CHECK(first_rule(check("dltensor_versioned", &f.versioned)) == "DEV-1");
  f.versioned.dl_tensor.device = {1, 3};
  CHECK(first_rule(check("dltensor_versioned", &f.versioned)) == "DEV-2");
  f.versioned.dl_tensor.device = {18, 0};  // Trn: known from 1.2
  CHECK(check("dltensor_versioned", &f.versioned, dlc::Level::minimal, {1, 2}).accepted);
  CHECK_FALSE(check("dltensor_versioned", &f.versioned, dlc::Level::minimal, {1, 1}).accepted);
}

TEST_CASE("validate: overflowing and negative shapes (LAY-10)", "[unit]") {
  Fixture f;
  f.shape[0] = INT64_MAX;
  f.shape[1] = 4;
  CHECK(first_rule(check("dltensor_versioned", &f.versioned)) == "LAY-10");
  Fixture g;
  g.shape[0] = -1;
  CHECK(first_rule(check("dltensor_versioned", &g.versioned)) == "LAY-10");
}

TEST_CASE("validate: a zero-size tensor's verdict does not depend on the order of its extents "
          "(LAY-10, LAY-7)", "[unit]") {
  // The non-zero extents' product must fit whatever the order, as NumPy's "array is too big".
  auto verdict = [](std::initializer_list<int64_t> extents) {
    int64_t shape[4], strides[4] = {1, 1, 1, 1};
    size_t n = 0;
    for (int64_t e : extents) shape[n++] = e;
    ManagedTensorVersioned m{};
    m.version = {1, 3};
    m.dl_tensor = dlc::abi::Tensor{nullptr, {1, 0}, 4, {2, 32, 1}, shape, strides, 0};
    return first_rule(check("dltensor_versioned", &m));
  };
  constexpr int64_t big = 2147483647, mid = 2097152;  // 2^31 - 1 and 2^21
  CHECK(verdict({big, big, big, 0}) == "LAY-10");
  CHECK(verdict({0, big, big, big}) == "LAY-10");
  CHECK(verdict({0, mid, mid, mid}) == "LAY-10");  // 2^63 elements of 4 bytes
  CHECK(verdict({mid, mid, mid, 0}) == "LAY-10");
  CHECK(verdict({mid, 0, mid, mid}) == "LAY-10");
  // A zero-size tensor whose other extents fit is valid in every order.
  CHECK(verdict({0, 1024, 1024, 1024}).empty());
  CHECK(verdict({1024, 1024, 1024, 0}).empty());
}

TEST_CASE("validate: capsule names (LIFE-1, LIFE-8) and unknown flags (FLAG-4)", "[unit]") {
  Fixture f;
  CHECK(first_rule(check("used_dltensor", &f.legacy)) == "LIFE-8");
  CHECK(first_rule(check("tensor", &f.legacy)) == "LIFE-1");
  f.versioned.flags = uint64_t{1} << 40;
  const auto r = check("dltensor_versioned", &f.versioned);
  CHECK(r.accepted);
  bool reported = false;
  for (int i = 0; i < r.count; ++i) {
    reported |= r.violations[i].rule == dlc::Rule::FLAG_4 &&
                r.violations[i].weight() == dlc::Severity::info;
  }
  CHECK(reported);
}

TEST_CASE("validate: address arithmetic that wraps is refused (LAY-10)", "[unit]") {
  Fixture f;
  f.versioned.dl_tensor.data = reinterpret_cast<void*>(~uintptr_t{0} - 15);
  f.versioned.dl_tensor.byte_offset = reinterpret_cast<uintptr_t>(f.data) + 16;
  CHECK(first_rule(check("dltensor_versioned", &f.versioned)) == "LAY-10");
  // What the fuzzers found: an offset of 2^63 and a stride of INT64_MIN reach no user address.
  Fixture h;
  int64_t one_stride[1] = {INT64_MIN};
  int64_t two[1] = {2};
  h.versioned.dl_tensor.ndim = 1;
  h.versioned.dl_tensor.shape = two;
  h.versioned.dl_tensor.strides = one_stride;
  h.versioned.dl_tensor.byte_offset = uint64_t{1} << 63;
  CHECK(first_rule(check("dltensor_versioned", &h.versioned)) == "LAY-10");
  h.legacy.dl_tensor = h.versioned.dl_tensor;
  h.legacy.dl_tensor.strides = nullptr;
  CHECK(first_rule(check("dltensor", &h.legacy, dlc::Level::standard, {0, 8})) == "LAY-10");
  // The same tensor reached without wrapping is fine.
  Fixture g;
  g.versioned.dl_tensor.data = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(g.data) - 8);
  g.versioned.dl_tensor.byte_offset = 2 * sizeof(float);
  CHECK(check("dltensor_versioned", &g.versioned, dlc::Level::full).accepted);
}

TEST_CASE("validate: severities come from the rule table, notes are INFO", "[unit]") {
  Fixture f;
  f.versioned.dl_tensor.data = reinterpret_cast<uint8_t*>(f.data) + 1;  // never read: minimal
  const auto r = check("dltensor_versioned", &f.versioned, dlc::Level::minimal);
  const dlc::Violation* lay9 = nullptr;
  for (int i = 0; i < r.count; ++i) {
    if (r.violations[i].rule == dlc::Rule::LAY_9) lay9 = &r.violations[i];
  }
  REQUIRE(lay9 != nullptr);
  CHECK(lay9->note);
  CHECK(lay9->weight() == dlc::Severity::info);  // LAY-9 itself is SHOULD
  CHECK(dlc::info(dlc::Rule::LAY_9).severity == dlc::Severity::should);
  CHECK(r.accepted);
}

TEST_CASE("validate: strided digests equal the compact copy's (LAY-4, LAY-8)", "[unit]") {
  // A 3x4 int16 tensor stored transposed with a negative stride and a byte offset.
  int64_t shape[2] = {3, 4}, strides[2] = {-1, 3};
  const DLCDtype i16{0, 16, 1};
  const dlc::geo::Geometry g = dlc::geo::geometry(2, shape, strides, i16, false);
  REQUIRE(g.valid);
  // Room on both sides, so that the wrong (compact) reading below stays inside the buffer.
  std::vector<uint8_t> storage(64 + g.storage_bytes + 64);
  uint8_t* origin = storage.data() + 64 + (-g.min_offset) * 2;
  dlc::geo::fill(g, 2, shape, strides, 7, origin);
  // The same values, compact, as a reader in logical order sees them.
  const dlc::geo::Geometry compact_g = dlc::geo::geometry(2, shape, nullptr, i16, false);
  std::vector<uint8_t> compact_storage(compact_g.storage_bytes);
  dlc::geo::fill(compact_g, 2, shape, nullptr, 7, compact_storage.data());
  const uint64_t expected = dlc_digest_update(dlc_digest_init(), compact_storage.data(),
                                              compact_storage.size());

  dlc::abi::ManagedTensorVersioned m{};
  m.version = {1, 3};
  m.dl_tensor = dlc::abi::Tensor{origin - 16, {1, 0}, 2, i16, shape, strides, 16};
  const auto r = check("dltensor_versioned", &m, dlc::Level::full);
  REQUIRE(r.accepted);
  CHECK(r.observation.digest == expected);
  CHECK(r.observation.elements_read == 12);
  // Reading it as compact instead gives a different digest: the check has teeth.
  m.dl_tensor.strides = nullptr;
  m.version = {1, 1};
  const auto wrong = check("dltensor_versioned", &m, dlc::Level::full);
  CHECK(wrong.observation.digest != expected);
}

namespace {

// The validator's verdict on one tensor at the standard level, and whether it noted LAY-10's
// band (an INFO note, and size_band).
struct BandVerdict {
  std::string first_must;
  bool noted = false;
};

BandVerdict band_verdict(std::vector<int64_t> shape, const int64_t* strides, DLCDtype dtype,
                         const char* name = "dltensor_versioned", void* data = nullptr) {
  static float storage[4];
  ManagedTensorVersioned m{};
  m.version = {1, 3};
  m.dl_tensor = dlc::abi::Tensor{data != nullptr ? data : storage, {1, 0},
                                 static_cast<int32_t>(shape.size()), dtype, shape.data(),
                                 const_cast<int64_t*>(strides), 0};
  ManagedTensor legacy{};
  legacy.dl_tensor = m.dl_tensor;
  const bool is_legacy = std::strcmp(name, "dltensor") == 0;
  const DLCVersion consumer = is_legacy ? DLCVersion{0, 8} : DLCVersion{1, 3};
  const dlc::ValidateResult r = check(name, is_legacy ? static_cast<void*>(&legacy) : &m,
                                      dlc::Level::standard, consumer);
  BandVerdict v;
  v.first_must = first_rule(r);
  for (int i = 0; i < r.count; ++i) {
    v.noted |= r.violations[i].rule == dlc::Rule::LAY_10 &&
               r.violations[i].weight() == dlc::Severity::info;
  }
  CHECK(v.noted == r.size_band);
  return v;
}

}  // namespace

TEST_CASE("validate: LAY-10's band is noted, neither accepted plainly nor refused", "[unit]") {
  const DLCDtype i8{0, 8, 1}, f16{2, 16, 1}, f32{2, 32, 1};
  constexpr int64_t two62 = int64_t{1} << 62;
  const int64_t ones[3] = {1, 1, 1};
  const int64_t zeros[3] = {0, 0, 0};
  struct Row {
    const char* what;
    std::vector<int64_t> shape;
    const int64_t* strides;
    DLCDtype dtype;
    const char* first_must;  // "" when valid
    bool band;
  };
  const Row rows[] = {
      // With an extent of 0: the non-zero extents' product times the element size.
      {"2^63 - 1 bytes", {0, INT64_MAX}, ones, i8, "", false},
      {"2^63 bytes", {0, two62}, ones, f16, "", true},
      {"2^64 - 2 bytes", {0, INT64_MAX}, ones, f16, "", true},
      {"2^64 - 1 bytes", {0, 3, 6148914691236517205}, ones, i8, "", true},
      {"2^64 bytes", {0, two62}, ones, f32, "LAY-10", false},
      {"2^64 bytes, the zero last", {two62, 4, 0}, ones, i8, "LAY-10", false},
      // With stride 0 and no extent of 0: one element of storage, the same size.
      {"2^63 - 2 bytes, stride 0", {two62 - 1}, zeros, f16, "", false},
      {"2^63 bytes, stride 0", {two62 >> 1, 2}, zeros, f16, "", true},
      {"2^64 - 1 bytes, stride 0", {3, 6148914691236517205}, zeros, i8, "", true},
      {"2^64 bytes, stride 0", {two62}, zeros, f32, "LAY-10", false},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    const BandVerdict v = band_verdict(row.shape, row.strides, row.dtype);
    CHECK(v.first_must == row.first_must);
    CHECK(v.noted == row.band);
  }
  // NULL strides on a zero-size tensor: the compact stride of an empty dimension would pass 2^63
  // elements, but the size (2^63 bytes) is in the band, not past 64 bits.
  const BandVerdict null_strides = band_verdict({0, two62, 2}, nullptr, i8, "dltensor");
  CHECK(null_strides.first_must.empty());
  CHECK(null_strides.noted);
  // Elements that really span 2^63 bytes lie outside any address space: refused for that.
  static uint16_t one_element;
  const BandVerdict spans = band_verdict({two62}, ones, f16, "dltensor_versioned", &one_element);
  CHECK(spans.first_must == "LAY-10");
  CHECK(spans.noted);
}

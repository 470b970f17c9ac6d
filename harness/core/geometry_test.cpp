// The one tensor geometry (mocks, judge, validator, fuzzers): spans, offsets, overflow checks and
// the logical order of the digest.
#include "geometry.hpp"

#include <cstring>
#include <vector>

#include "catch.hpp"

namespace {
const DLCDtype f32{2, 32, 1};
}

TEST_CASE("geometry: compact, transposed, negative and broadcast strides", "[unit]") {
  int64_t shape[2] = {3, 4};
  const dlc::geo::Geometry compact = dlc::geo::geometry(2, shape, nullptr, f32, false);
  REQUIRE(compact.valid);
  CHECK(compact.numel == 12);
  CHECK(compact.storage_bytes == 48);
  int64_t transposed[2] = {1, 3};
  CHECK(dlc::geo::geometry(2, shape, transposed, f32, false).storage_bytes == 48);
  int64_t negative[2] = {-4, 1};
  const dlc::geo::Geometry neg = dlc::geo::geometry(2, shape, negative, f32, false);
  CHECK(neg.min_offset == -8);
  CHECK(neg.max_offset == 3);
  CHECK(neg.storage_bytes == 48);
  int64_t broadcast[2] = {0, 1};
  CHECK(dlc::geo::geometry(2, shape, broadcast, f32, false).storage_bytes == 16);
}

TEST_CASE("geometry: every overflow and negative extent is invalid (LAY-10)", "[unit]") {
  int64_t huge[2] = {INT64_MAX, 4};
  CHECK_FALSE(dlc::geo::geometry(2, huge, nullptr, f32, false).valid);
  int64_t negative[1] = {-1};
  CHECK_FALSE(dlc::geo::geometry(1, negative, nullptr, f32, false).valid);
  int64_t shape[2] = {2, 2};
  int64_t far[2] = {INT64_MAX, 1};
  CHECK_FALSE(dlc::geo::geometry(2, shape, far, f32, false).valid);
  CHECK_FALSE(dlc::geo::geometry(2, shape, nullptr, DLCDtype{2, 32, 0}, false).valid);
  // Zero-size tensors reach nothing, whatever their strides.
  int64_t empty[2] = {0, 5};
  int64_t odd[2] = {INT64_MAX, -7};
  const dlc::geo::Geometry e = dlc::geo::geometry(2, empty, odd, f32, false);
  CHECK(e.valid);
  CHECK(e.storage_bytes == 0);
}

TEST_CASE("geometry: packed sub-byte types count bytes, padded ones elements (DT-3)", "[unit]") {
  int64_t shape[1] = {5};
  const dlc::geo::Geometry packed = dlc::geo::geometry(1, shape, nullptr, DLCDtype{17, 4, 1}, false);
  CHECK(packed.packed_subbyte);
  CHECK(packed.storage_bytes == 3);
  const dlc::geo::Geometry padded = dlc::geo::geometry(1, shape, nullptr, DLCDtype{17, 4, 1}, true);
  CHECK_FALSE(padded.packed_subbyte);
  CHECK(padded.storage_bytes == 5);
}

TEST_CASE("geometry: fill then digest reads logical order, whatever the strides", "[unit]") {
  int64_t shape[2] = {3, 4};
  int64_t transposed[2] = {1, 3};
  const dlc::geo::Geometry c = dlc::geo::geometry(2, shape, nullptr, f32, false);
  const dlc::geo::Geometry t = dlc::geo::geometry(2, shape, transposed, f32, false);
  std::vector<uint8_t> a(c.storage_bytes), b(t.storage_bytes);
  dlc::geo::fill(c, 2, shape, nullptr, 9, a.data());
  dlc::geo::fill(t, 2, shape, transposed, 9, b.data());
  CHECK(a != b);  // the bytes lie differently in memory ...
  uint64_t na = 0, nb = 0;
  // ... and read back in logical order, they are the same tensor.
  CHECK(dlc::geo::digest(c, 2, shape, nullptr, a.data(), &na) ==
        dlc::geo::digest(t, 2, shape, transposed, b.data(), &nb));
  CHECK(na == 12);
  // Reading the transposed storage as if compact is wrong: the digest has teeth.
  CHECK(dlc::geo::digest(t, 2, shape, nullptr, b.data(), &nb) !=
        dlc::geo::digest(c, 2, shape, nullptr, a.data(), &na));
}

TEST_CASE("geometry: a spec's effective strides", "[unit]") {
  DLCTensorSpec spec{};
  spec.dtype = f32;
  spec.ndim = 3;
  spec.shape[0] = 2;
  spec.shape[1] = 0;
  spec.shape[2] = 5;
  const dlc::geo::SpecGeometry s = dlc::geo::geometry(spec);
  CHECK(s.g.valid);
  CHECK(s.strides[0] == 5);  // extent 0 counts as 1
  CHECK(s.strides[2] == 1);
  spec.ndim = DLC_MAX_NDIM + 1;
  CHECK_FALSE(dlc::geo::geometry(spec).g.valid);
}

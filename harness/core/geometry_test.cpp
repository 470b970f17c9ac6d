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

TEST_CASE("geometry: packed sub-byte bits read highest first (DT-3's misreading)", "[unit]") {
  // float4 [1, 2, 3] packed lowest bits first is 0x21 0x03; read highest first, [2, 1, 0].
  const uint8_t four[2] = {0x21, 0x03};
  uint8_t out[2] = {0xaa, 0xaa};
  dlc::geo::repack_high_bits_first(four, 3, 4, out, 2);
  CHECK(out[0] == 0x12);
  CHECK(out[1] == 0x00);
  // float6 [1, 2] packed is 0x81 0x00; its bit stream read highest first gives [32, 16].
  const uint8_t six[2] = {0x81, 0x00};
  dlc::geo::repack_high_bits_first(six, 2, 6, out, 2);
  CHECK(out[0] == 0x20);
  CHECK(out[1] == 0x04);
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

TEST_CASE("geometry: LAY-10's band, 2^63 to 2^64 - 1 bytes, is its own class", "[unit]") {
  using dlc::geo::SizeClass;
  constexpr uint64_t two63 = uint64_t{1} << 63;
  CHECK(dlc::geo::kSizeBandStart == two63);
  CHECK(dlc::geo::classify_size(two63 - 1) == SizeClass::fits);
  CHECK(dlc::geo::classify_size(two63) == SizeClass::band);
  CHECK(dlc::geo::classify_size(UINT64_MAX) == SizeClass::band);
  // The size counts the non-zero extents, whatever an extent of 0 or a stride of 0 does.
  const DLCDtype i8{0, 8, 1}, f16{2, 16, 1};
  struct Row {
    const char* what;
    std::vector<int64_t> shape;
    DLCDtype dtype;
    SizeClass expected;
    uint64_t bytes;
  };
  const Row rows[] = {
      {"2^63 - 1 bytes", {0, INT64_MAX}, i8, SizeClass::fits, two63 - 1},
      {"2^63 bytes", {0, int64_t{1} << 62}, f16, SizeClass::band, two63},
      {"2^64 - 2 bytes", {0, INT64_MAX}, f16, SizeClass::band, UINT64_MAX - 1},
      {"2^64 - 1 bytes", {0, 3, 6148914691236517205}, i8, SizeClass::band, UINT64_MAX},
      {"2^64 bytes", {int64_t{1} << 62, 0, 4}, i8, SizeClass::overflow, 0},
      {"2^63 - 2 bytes, no zero", {(int64_t{1} << 62) - 1}, f16, SizeClass::fits, two63 - 2},
      {"2^63 bytes, no zero", {int64_t{1} << 61, 2}, f16, SizeClass::band, two63},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    const int64_t ndim = static_cast<int64_t>(row.shape.size());
    const uint64_t element_bytes = (uint64_t{row.dtype.bits} * row.dtype.lanes + 7) / 8;
    const dlc::geo::StorageSize size =
        dlc::geo::storage_size(ndim, row.shape.data(), element_bytes);
    CHECK(size.size_class == row.expected);
    if (row.expected != SizeClass::overflow) CHECK(size.bytes == row.bytes);
    // Broadcast (stride 0 everywhere): the size, not the one element of storage, decides.
    const std::vector<int64_t> zero(row.shape.size(), 0);
    const dlc::geo::Geometry g = dlc::geo::geometry(ndim, row.shape.data(), zero.data(), row.dtype,
                                                    false);
    CHECK(g.size_class == row.expected);
    CHECK(g.valid == (row.expected != SizeClass::overflow));
  }
}

TEST_CASE("geometry: a zero-size tensor in the band keeps NULL strides valid (LAY-10)", "[unit]") {
  // Compact strides reach 2^63 elements of one byte here, but there is no element to reach: the
  // size's class decides (band), not the stride of an empty dimension.
  int64_t shape[3] = {0, int64_t{1} << 62, 2};
  const dlc::geo::Geometry g = dlc::geo::geometry(3, shape, nullptr, DLCDtype{0, 8, 1}, false);
  CHECK(g.valid);
  CHECK(g.size_class == dlc::geo::SizeClass::band);
  CHECK(g.numel == 0);
  CHECK(g.storage_bytes == 0);
}

TEST_CASE("geometry: the first stride that is not the compact one", "[unit]") {
  const int64_t shape[3] = {2, 3, 4};
  const int64_t compact[3] = {12, 4, 1};
  CHECK(dlc::geo::first_noncompact_dim(3, shape, compact) == -1);
  const int64_t inner_off[3] = {12, 4, 2};
  CHECK(dlc::geo::first_noncompact_dim(3, shape, inner_off) == 2);
  const int64_t outer_off[3] = {13, 4, 1};
  CHECK(dlc::geo::first_noncompact_dim(3, shape, outer_off) == 0);
  // Extent 1 and 0 take any stride; extent 0 counts as 1 in the compact product.
  const int64_t ones[3] = {1, 0, 5};
  const int64_t any[3] = {-7, 99, 1};
  CHECK(dlc::geo::first_noncompact_dim(3, ones, any) == -1);
  // Past 2^63 elements (a zero-size tensor in LAY-10's band) the walk stops, without overflow.
  const int64_t band[3] = {2, int64_t{1} << 62, 4};
  const int64_t band_strides[3] = {5, 4, 1};
  CHECK(dlc::geo::first_noncompact_dim(3, band, band_strides) == -1);
}

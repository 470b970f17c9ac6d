// wild_address_rule: a wild read is named by the NULL field that explains its address, and a
// general-protection fault (a non-canonical pointer, reported at address 0) by the byte_offset
// or the element span that leaves the address space, never by a NULL field; and valid_edges'
// LAY-9, the misaligned elements that the known-bug routing leaves out.
#include "fuzz_harness.hpp"

#include <algorithm>

#include "catch.hpp"

namespace {

dlc_fuzz::TensorInput input(uint8_t layout, int32_t ndim, uint64_t byte_offset = 0) {
  dlc_fuzz::TensorInput in;
  in.layout = layout;
  in.ndim = ndim;
  in.byte_offset = byte_offset;
  return in;
}

}  // namespace

TEST_CASE("a wild read is named by the NULL field at its address") {
  using dlc::Rule;
  using dlc_fuzz::wild_address_rule;
  // Element 1 of a NULL shape, of NULL strides; data NULL near its byte_offset.
  CHECK(wild_address_rule(input(dlc_fuzz::kShapeNull, 2), 8, false) == Rule::LAY_6);
  CHECK(wild_address_rule(input(dlc_fuzz::kStridesNull, 2), 8, false) == Rule::LAY_5);
  CHECK(wild_address_rule(input(dlc_fuzz::kDataNull, 2, 4096), 4100, false) == Rule::LAY_4);
  // Strides and data both NULL: a whole element of strides at a multiple of 8, else the data.
  const auto both = input(dlc_fuzz::kStridesNull | dlc_fuzz::kDataNull, 2);
  CHECK(wild_address_rule(both, 0, false) == Rule::LAY_5);
  CHECK(wild_address_rule(both, 3, false) == Rule::LAY_4);
  // Past the arrays, no NULL data: nothing explains it.
  CHECK(wild_address_rule(input(dlc_fuzz::kStridesNull, 2), 16, false) == Rule::none);
  CHECK(wild_address_rule(input(0, 2), 0, false) == Rule::none);
}

TEST_CASE("a general-protection fault is named by the field that leaves the address space") {
  using dlc::Rule;
  using dlc_fuzz::wild_address_rule;
  // The kernel reports a non-canonical pointer's fault at address 0, which would otherwise read
  // as element 0 of the NULL shape or strides, or as NULL data at byte_offset 0: no NULL field
  // names it.
  CHECK(wild_address_rule(input(dlc_fuzz::kShapeNull, 2), 0, true) == Rule::none);
  CHECK(wild_address_rule(input(dlc_fuzz::kStridesNull | dlc_fuzz::kDataNull, 2), 0, true) ==
        Rule::none);
  CHECK(wild_address_rule(input(dlc_fuzz::kDataNull, 1), 0, true) == Rule::none);
  // A byte_offset of 2^47 or more: the first element is non-canonical whatever data is (JAX's
  // read of a float32 [7] at NULL + 2^63, named LAY-5 by the input's first rule before).
  auto far = input(dlc_fuzz::kStridesNull | dlc_fuzz::kDataNull, 1, uint64_t{1} << 63);
  far.shape[0] = 7;
  CHECK(wild_address_rule(far, 0, true) == Rule::LAY_4);
  CHECK(wild_address_rule(input(0, 1, uint64_t{1} << 47), 0, true) == Rule::LAY_4);
  // A negative byte_offset of a few pages stays canonical below a data pointer: not this.
  CHECK(wild_address_rule(input(0, 1, uint64_t{0} - 4096), 0, true) == Rule::none);
  // Elements 2^47 bytes or more past the first (a stride of 2^45 float32 over two rows), with a
  // negative stride too: LAY-10. A zero-size tensor has none to reach.
  auto wide = input(0, 1);
  wide.shape[0] = 2;
  wide.strides[0] = int64_t{1} << 45;
  CHECK(wild_address_rule(wide, 0, true) == Rule::LAY_10);
  wide.strides[0] = -(int64_t{1} << 45);
  CHECK(wild_address_rule(wide, 0, true) == Rule::LAY_10);
  wide.strides[0] = int64_t{1} << 44;
  CHECK(wild_address_rule(wide, 0, true) == Rule::none);
  wide.shape[0] = 0;
  wide.strides[0] = int64_t{1} << 45;
  CHECK(wild_address_rule(wide, 0, true) == Rule::none);
}

TEST_CASE("misaligned elements exercise LAY-9, by the data pointer or by byte_offset") {
  const auto exercises_lay9 = [](uint8_t code, uint8_t bits, uint64_t byte_offset,
                                 uint8_t misalign) {
    dlc_fuzz::TensorInput in = input(0, 1, byte_offset);
    in.dtype = {code, bits, 1};
    in.misalign = misalign;
    dlc::Rule edges[dlc_fuzz::kMaxEdges];
    const int n = dlc_fuzz::valid_edges(in, edges);
    return std::find(edges, edges + n, dlc::Rule::LAY_9) != edges + n;
  };
  CHECK(exercises_lay9(2, 32, 2, 0));   // CuPy's fault on the GPU run of 2026-11-30
  CHECK(exercises_lay9(2, 32, 0, 3));
  CHECK_FALSE(exercises_lay9(2, 32, 4, 0));
  CHECK_FALSE(exercises_lay9(2, 32, 4096, 0));
  CHECK_FALSE(exercises_lay9(1, 8, 3, 0));  // a byte is aligned anywhere
}

// wild_address_rule: a wild read is named by the NULL field that explains its address, and a
// general-protection fault (a non-canonical pointer, reported at address 0) by none of them.
#include "fuzz_harness.hpp"

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

TEST_CASE("a general-protection fault is named by no NULL field") {
  using dlc::Rule;
  using dlc_fuzz::wild_address_rule;
  // The kernel reports a non-canonical pointer's fault at address 0, which would otherwise read
  // as element 0 of the NULL shape or strides, or as NULL data at byte_offset 0.
  CHECK(wild_address_rule(input(dlc_fuzz::kShapeNull, 2), 0, true) == Rule::none);
  CHECK(wild_address_rule(input(dlc_fuzz::kStridesNull | dlc_fuzz::kDataNull, 2), 0, true) ==
        Rule::none);
  CHECK(wild_address_rule(input(dlc_fuzz::kDataNull, 1), 0, true) == Rule::none);
}

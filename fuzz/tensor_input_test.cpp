// The fuzz input format: encode and decode are inverses, and the committed seeds (written by
// tools/fuzz-seeds.py) decode to the tensors they are named after.
#include "tensor_input.hpp"

#include <fstream>
#include <iterator>
#include <random>

#include "catch.hpp"

namespace {

std::vector<uint8_t> read_seed(const std::string& target, const std::string& name) {
  const std::string path = std::string(DLC_CORPUS_DIR) + "/" + target + "/seeds/" + name + ".bin";
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string decoded(const std::string& name, bool versioned = true) {
  const std::vector<uint8_t> bytes = read_seed("import_versioned_fuzzer", name);
  return dlc_fuzz::describe(dlc_fuzz::decode(bytes.data(), bytes.size()), versioned);
}

}  // namespace

TEST_CASE("fuzz input: decode(encode(x)) == x", "[unit]") {
  std::minstd_rand rng(7);
  for (int round = 0; round < 2000; ++round) {
    dlc_fuzz::TensorInput in;
    in.layout = static_cast<uint8_t>(rng() & 0x1F);
    in.version = {static_cast<uint32_t>(rng() % 4), static_cast<uint32_t>(rng() % 200)};
    in.flags = (uint64_t{rng()} << 32) | rng();
    in.device = {static_cast<int32_t>(rng() % 20), static_cast<int32_t>(rng() % 4)};
    in.dtype = {static_cast<uint8_t>(rng()), static_cast<uint8_t>(rng()),
                static_cast<uint16_t>(rng())};
    in.ndim = static_cast<int32_t>(rng() % 70) - 3;
    in.byte_offset = rng();
    in.misalign = static_cast<uint8_t>(rng());
    for (int i = 0; i < dlc_fuzz::kExplicitDims; ++i) {
      in.shape[i] = static_cast<int64_t>(rng()) - 100;
      in.strides[i] = static_cast<int64_t>(rng()) - 100;
    }
    const std::vector<uint8_t> bytes = dlc_fuzz::encode(in);
    CHECK(bytes.size() <= dlc_fuzz::kMaxInputBytes);
    const dlc_fuzz::TensorInput out = dlc_fuzz::decode(bytes.data(), bytes.size());
    CHECK(dlc_fuzz::describe(out, true) == dlc_fuzz::describe(in, true));
    CHECK(dlc_fuzz::encode(out) == bytes);
  }
}

TEST_CASE("fuzz input: the seeds fuzz-seeds.py writes decode to what they are named", "[unit]") {
  CHECK(decoded("compact_f32_8x8") ==
        "versioned 1.3 flags=0 device=1:0 dtype=2:32:1 ndim=2 shape=[8,8] strides=[8,1] "
        "byte_offset=0 misalign=0");
  CHECK(decoded("negative_strides").find("strides=[-8,1]") != std::string::npos);
  CHECK(decoded("ndim0_null_shape").find("ndim=0 shape=NULL") != std::string::npos);
  CHECK(decoded("future_major").find("versioned 2.") == 0);
  CHECK(decoded("null_deleter").find("deleter=NULL") != std::string::npos);
  CHECK(decoded("byte_offset_i16").find("dtype=0:16:1") != std::string::npos);
  CHECK(decoded("byte_offset_i16").find("byte_offset=64") != std::string::npos);
  // An empty input is a valid float32 scalar of DLPack 1.3.
  const dlc_fuzz::TensorInput zero = dlc_fuzz::decode(nullptr, 0);
  CHECK(dlc_fuzz::describe(zero, true) ==
        "versioned 1.3 flags=0 device=1:0 dtype=2:32:1 ndim=0 shape=[] strides=[] byte_offset=0 "
        "misalign=0");
}

TEST_CASE("fuzz input: the input line holds every dimension, so that it rebuilds the input",
          "[unit]") {
  dlc_fuzz::TensorInput in;
  in.ndim = 15;
  for (int i = 0; i < in.ndim; ++i) {
    in.shape[i] = i + 1;
    in.strides[i] = -i;
  }
  const std::vector<uint8_t> bytes = dlc_fuzz::encode(in);
  const std::string line = dlc_fuzz::describe(dlc_fuzz::decode(bytes.data(), bytes.size()), true);
  CHECK(line.find(" shape=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15] ") != std::string::npos);
  CHECK(line.find(" strides=[0,-1,-2,-3,-4,-5,-6,-7,-8,-9,-10,-11,-12,-13,-14] ") !=
        std::string::npos);
  CHECK(line.find("...") == std::string::npos);
  // Past the dimensions an input carries, each is extent 1, stride 1: written as a repeat.
  in.ndim = dlc_fuzz::kExplicitDims + 6;
  for (int i = 0; i < dlc_fuzz::kExplicitDims; ++i) in.shape[i] = in.strides[i] = 1;
  in.shape[0] = 7;
  const std::string wide = dlc_fuzz::describe(in, false);
  std::string ones;
  for (int i = 1; i < dlc_fuzz::kExplicitDims; ++i) ones += ",1";
  CHECK(wide.find(" shape=[7" + ones + "]+[1]*6 strides=[1" + ones + "]+[1]*6 ") !=
        std::string::npos);
}

TEST_CASE("fuzz input: the Python keywords rebuild what the input says", "[unit]") {
  CHECK(dlc_fuzz::python_keywords(dlc_fuzz::decode(nullptr, 0), true) ==
        "dtype=(2, 32, 1), shape=[], strides=[], version=(1, 3)");
  const std::vector<uint8_t> bytes = read_seed("import_versioned_fuzzer", "compact_f32_8x8");
  dlc_fuzz::TensorInput in = dlc_fuzz::decode(bytes.data(), bytes.size());
  CHECK(dlc_fuzz::python_keywords(in, false) == "dtype=(2, 32, 1), shape=[8,8], strides=[8,1]");
  in.layout |= dlc_fuzz::kShapeNull | dlc_fuzz::kStridesNull | dlc_fuzz::kDataNull;
  in.byte_offset = 4;
  in.misalign = 3;
  in.device = {3, 1};
  in.flags = 5;
  in.version = {0, 9};
  CHECK(dlc_fuzz::python_keywords(in, true) ==
        "dtype=(2, 32, 1), shape=[8,8], null_shape=True, byte_offset=4, misalign=3, "
        "device=(3, 1), null_data=True, version=(0, 9), flags=5");
  in.ndim = -2;
  CHECK(dlc_fuzz::python_keywords(in, false).find("shape=[], ndim=-2") != std::string::npos);
}

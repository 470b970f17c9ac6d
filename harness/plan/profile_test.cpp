// Capability profiles: the file format, its errors, and what a profile admits.
#include "profile.h"

#include "catch.hpp"

namespace {

const dlc::TensorCase& tensor(const char* name) {
  const int i = dlc::find_tensor(name);
  REQUIRE(i >= 0);
  return dlc::tensor_catalogue()[i];
}

}  // namespace

TEST_CASE("profile: a profile file is parsed", "[unit]") {
  dlc::Profile p;
  std::string error;
  REQUIRE(dlc::parse_profile("# my adapter\n"
                             "dtypes = f32 f64 2:32:4\n"
                             "devices = cpu 13\n"
                             "strides = positive negative\n"
                             "features = read-only zero-dim zero-size\n"
                             "max_ndim = 4\n"
                             "emits_version = 1.3\n",
                             "x.profile", &p, &error));
  CHECK(p.source == dlc::Profile::Source::file);
  CHECK(p.dtypes.size() == 3);
  CHECK(p.device_types.size() == 2);
  CHECK(p.strides == (DLC_STRIDES_POSITIVE | DLC_STRIDES_NEGATIVE));
  CHECK(p.max_ndim == 4);
  CHECK(p.emits_version.minor == 3);
  CHECK(p.summary().find("f32 f64 2:32:4 · cpu cuda_managed · strides positive negative") == 0);
}

TEST_CASE("profile: a malformed line names the file, the line and what was expected", "[unit]") {
  const char* bad[][2] = {
      {"dtypes = f33\n", "x.profile:1: expected a dtype name"},
      {"\nstrides = sideways\n", "x.profile:2: expected one of: positive"},
      {"max_ndim = 99\n", "x.profile:1: expected max_ndim between 0 and 32"},
      {"colour = blue\n", "x.profile:1: expected one of dtypes, devices"},
      {"dtypes f32\n", "x.profile:1: expected KEY = VALUE"},
      {"emits_version = 1\n", "x.profile:1: expected emits_version as MAJOR.MINOR"},
  };
  for (const auto& row : bad) {
    dlc::Profile p;
    std::string error;
    INFO(row[0]);
    CHECK_FALSE(dlc::parse_profile(row[0], "x.profile", &p, &error));
    CHECK(error.rfind(row[1], 0) == 0);
  }
  dlc::Profile p;
  std::string error;
  CHECK_FALSE(dlc::load_profile_file("/nonexistent.profile", &p, &error));
  CHECK(error == "cannot read profile file /nonexistent.profile");
}

TEST_CASE("profile: what a profile admits", "[unit]") {
  const dlc::Profile d = dlc::default_profile();
  CHECK(dlc::consumer_supports(d, tensor("f32_8x8")));
  CHECK(dlc::consumer_supports(d, tensor("f64_8x4_transposed")) == false);  // f64: not in it
  CHECK(dlc::consumer_supports(d, tensor("view/nd2/perm10/f32")));          // positive strides
  CHECK_FALSE(dlc::consumer_supports(d, tensor("f32_8x8_negative_stride")));
  CHECK_FALSE(dlc::consumer_supports(d, tensor("f32_8x8_broadcast_zero_stride")));
  CHECK_FALSE(dlc::consumer_supports(d, tensor("f32_8x8_overlapping")));
  CHECK(dlc::consumer_supports(d, tensor("f32_scalar_null_shape")));
  CHECK(dlc::consumer_supports(d, tensor("f32_8x8_read_only")));  // the default imports them
  dlc::Profile writer = d;  // needs write access: refuses READ_ONLY rightly, never asked
  writer.features |= DLC_FEATURE_NEEDS_WRITE;
  CHECK_FALSE(dlc::consumer_supports(writer, tensor("f32_8x8_read_only")));
  CHECK(dlc::consumer_supports(writer, tensor("f32_8x8")));
  CHECK_FALSE(dlc::consumer_supports(d, tensor("f32_8x8_unknown_flag_bit")));  // FLAG-4
  CHECK_FALSE(dlc::consumer_supports(d, tensor("f32_8x8_misaligned_data")));
  {
    // A byte_offset that is no multiple of the element size misaligns the first element too.
    dlc::TensorCase odd = tensor("f32_8x8");
    odd.spec.byte_offset = 6;
    CHECK_FALSE(dlc::consumer_supports(d, odd));
    odd.spec.byte_offset = 8;
    CHECK(dlc::consumer_supports(d, odd));
    dlc::Profile takes_misaligned = d;
    takes_misaligned.features |= DLC_FEATURE_MISALIGNED;
    odd.spec.byte_offset = 6;
    CHECK(dlc::consumer_supports(takes_misaligned, odd));
  }
  CHECK_FALSE(dlc::consumer_supports(d, tensor("device_cuda")));
  // A producer is asked for a tensor only if it can make it.
  CHECK_FALSE(dlc::producer_can_make(d, tensor("f32_8x8_copy_true")));     // no copy feature
  CHECK_FALSE(dlc::producer_can_make(d, tensor("dtype_unknown_code_99")));  // a test layout
  dlc::Profile all = d;
  all.dtypes.clear();
  all.device_types.clear();
  all.strides = 15;
  all.features |= DLC_FEATURE_COPY | DLC_FEATURE_TEST_LAYOUTS | DLC_FEATURE_MISALIGNED;
  all.max_ndim = 32;
  dlc::Profile device = all;
  device.features |= DLC_FEATURE_REAL_DEVICE;
  size_t device_tensors = 0;
  for (const dlc::TensorCase& t : dlc::tensor_catalogue()) {
    INFO(t.name);
    // Real device memory comes only from a producer of it, which makes nothing else.
    CHECK(dlc::producer_can_make(all, t) == !t.real_device);
    CHECK(dlc::producer_can_make(device, t) == t.real_device);
    device_tensors += t.real_device ? 1 : 0;
  }
  CHECK(device_tensors >= 9);  // CUDA device, pinned and managed memory, and oneAPI
  // A consumer of real device memory need not take a host stand-in claiming a device (DEV-3).
  dlc::Profile cuda = d;
  cuda.device_types = {2, 3, 13};
  cuda.features |= DLC_FEATURE_REAL_DEVICE;
  CHECK_FALSE(dlc::consumer_supports(cuda, tensor("device_cuda")));
  CHECK(dlc::consumer_supports(cuda, tensor("cuda/f32_8x8")));
  CHECK(dlc::consumer_supports(cuda, tensor("cuda_managed/f32_8x8")));
  CHECK_FALSE(dlc::consumer_supports(cuda, tensor("oneapi/f32_8x8")));
}

TEST_CASE("profile: a stride of INT64_MAX is judged without overflow", "[unit]") {
  // Found by the soak of the differential fuzzer: the overlap check computed the span in
  // elements as max_offset - min_offset + 1 in signed arithmetic, 2^63 here.
  dlc::TensorCase t = tensor("f32_8x8");
  t.spec.dtype = DLCDtype{0, 8, 1};  // int8: a span of 2^63 bytes still fits 64 bits
  t.spec.ndim = 1;
  t.spec.shape[0] = 2;
  t.spec.strides[0] = INT64_MAX;
  t.spec.has_strides = 1;
  dlc::Profile any = dlc::default_profile();
  any.dtypes.clear();
  any.strides = 15;
  CHECK(dlc::consumer_supports(any, t));  // positive, far apart, not overlapping
}

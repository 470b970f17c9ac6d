// Decoding, encoding and edge mutation of TensorInput. The encoder is the decoder's exact inverse
// (FuzzWriter mirrors FuzzData), which the seed writer and the custom mutator rely on.
#include "tensor_input.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <utility>

#include "abi.h"
#include "fuzz_data.hpp"

// libFuzzer's own mutator. Weak: a replay build has no libFuzzer and never mutates.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size)
    __attribute__((weak));

namespace dlc_fuzz {
namespace {

constexpr uint32_t kBaseMajor = 1, kBaseMinor = 3;
constexpr int32_t kBaseDevice = 1;
constexpr uint8_t kBaseCode = 2, kBaseBits = 32;
constexpr uint16_t kBaseLanes = 1;

// Wrapping arithmetic, without signed overflow.
template <class T>
T plus(T base, T delta) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(base) + static_cast<U>(delta)));
}
template <class T>
T minus(T value, T base) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(value) - static_cast<U>(base)));
}

int explicit_dims(int32_t ndim) { return std::clamp<int32_t>(ndim, 0, kExplicitDims); }

template <class T, size_t N>
T pick(std::minstd_rand& rng, const T (&values)[N]) {
  return values[rng() % N];
}

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr uint32_t kU32Max = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

const int64_t kExtentEdges[] = {0, 1, 2, 3, -1, -2, kI64Max, kI64Min, int64_t{1} << 31,
                                int64_t{1} << 32, int64_t{1} << 62, (int64_t{1} << 32) + 1};
const int64_t kStrideEdges[] = {0,       1,       -1,      2,      -8,
                                kI64Max, kI64Min, kI64Min + 1, int64_t{1} << 32, -(int64_t{1} << 32),
                                int64_t{1} << 62};
const int32_t kNdimEdges[] = {0, 1, 2, -1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1024, kI32Max,
                              kI32Min};
const uint64_t kOffsetEdges[] = {0,  1,       2,        3,           4,       7,
                                 8,  255,     256,      4095,        4096,    uint64_t{1} << 32,
                                 kU64Max, kU64Max - 3, kU64Max - 255, uint64_t{1} << 63};
const uint8_t kCodeEdges[] = {0, 1, 2, 3, 4, 5, 6, 7, 14, 15, 16, 17, 18, 19, 42, 127, 255};
const uint8_t kBitsEdges[] = {0, 1, 2, 4, 6, 7, 8, 12, 16, 24, 32, 64, 128, 255};
const uint16_t kLanesEdges[] = {0, 1, 2, 3, 4, 16, 0xFFFF};
const int32_t kDeviceEdges[] = {0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 16, 17, 18, 19, -1,
                                kI32Max, kI32Min};
const int32_t kDeviceIdEdges[] = {0, 1, -1, 7, kI32Max, kI32Min};
const uint8_t kFlagBits[] = {0, 1, 2, 3, 4, 31, 32, 63};
const uint8_t kMisalignEdges[] = {0, 1, 2, 3, 4, 7, 8, 255};
// Valid (code, bits) pairs, so that mutations also land on tensors a consumer should accept.
const DLCDtype kValidDtypes[] = {{0, 8, 1},  {0, 64, 1}, {1, 16, 1},  {2, 16, 1}, {2, 64, 1},
                                 {4, 16, 1}, {5, 64, 1}, {5, 128, 1}, {6, 8, 1},  {10, 8, 1},
                                 {15, 6, 1}, {17, 4, 1}, {17, 4, 2},  {2, 32, 4}, {1, 1, 1}};

}  // namespace

TensorInput::TensorInput() {
  std::fill(std::begin(shape), std::end(shape), 1);
  std::fill(std::begin(strides), std::end(strides), 1);
}

void TensorInput::make_compact() {
  int64_t acc = 1;
  for (int i = explicit_dims(ndim) - 1; i >= 0; --i) {
    strides[i] = acc;
    acc = static_cast<int64_t>(static_cast<uint64_t>(acc) *
                               static_cast<uint64_t>(shape[i] == 0 ? 1 : shape[i]));
  }
}

TensorInput decode(const uint8_t* data, size_t size) {
  FuzzData d(data, size);
  TensorInput in;
  in.layout = d.take<uint8_t>();
  in.version.major = plus(kBaseMajor, d.take<uint32_t>());
  in.version.minor = plus(kBaseMinor, d.take<uint32_t>());
  in.flags = d.take<uint64_t>();
  in.device.device_type = plus(kBaseDevice, d.take<int32_t>());
  in.device.device_id = d.take<int32_t>();
  in.dtype.code = plus(kBaseCode, d.take<uint8_t>());
  in.dtype.bits = plus(kBaseBits, d.take<uint8_t>());
  in.dtype.lanes = plus(kBaseLanes, d.take<uint16_t>());
  in.ndim = d.take<int32_t>();
  in.byte_offset = d.take<uint64_t>();
  in.misalign = d.take<uint8_t>();
  for (int i = 0; i < explicit_dims(in.ndim); ++i) {
    in.shape[i] = plus<int64_t>(1, d.take<int64_t>());
    in.strides[i] = plus<int64_t>(1, d.take<int64_t>());
  }
  return in;
}

namespace {

void write_input(const TensorInput& in, FuzzWriter& w) {
  w.put(in.layout)
      .put(minus(in.version.major, kBaseMajor))
      .put(minus(in.version.minor, kBaseMinor))
      .put(in.flags)
      .put(minus(in.device.device_type, kBaseDevice))
      .put(in.device.device_id)
      .put(minus(in.dtype.code, kBaseCode))
      .put(minus(in.dtype.bits, kBaseBits))
      .put(minus(in.dtype.lanes, kBaseLanes))
      .put(in.ndim)
      .put(in.byte_offset)
      .put(in.misalign);
  for (int i = 0; i < explicit_dims(in.ndim); ++i) {
    w.put(minus<int64_t>(in.shape[i], 1)).put(minus<int64_t>(in.strides[i], 1));
  }
}

}  // namespace

std::vector<uint8_t> encode(const TensorInput& in) {
  FuzzWriter w;
  write_input(in, w);
  return w.bytes();
}

std::string dims_text(const int64_t* values, int32_t ndim) {
  std::string s = "[";
  for (int i = 0; i < explicit_dims(ndim); ++i) s += (i ? "," : "") + std::to_string(values[i]);
  s += "]";
  // The dimensions the input does not carry: as many as ndim says, up to 2^31 of them.
  if (ndim > kExplicitDims) s += "+[1]*" + std::to_string(ndim - kExplicitDims);
  return s;
}

std::string python_keywords(const TensorInput& in, bool versioned) {
  auto tuple = [](auto a, auto b, auto c) {
    return "(" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(c) + ")";
  };
  std::string s = "dtype=" + tuple(in.dtype.code, in.dtype.bits, in.dtype.lanes);
  // A NULL shape still has ndim extents for the storage; a list expression past 64 dimensions.
  s += ", shape=" + dims_text(in.shape, in.ndim);
  if (in.ndim < 0) s += ", ndim=" + std::to_string(in.ndim);
  if (in.layout & kShapeNull) s += ", null_shape=True";
  if (!(in.layout & kStridesNull)) s += ", strides=" + dims_text(in.strides, in.ndim);
  if (in.byte_offset != 0) s += ", byte_offset=" + std::to_string(in.byte_offset);
  if (in.misalign != 0) s += ", misalign=" + std::to_string(in.misalign);
  if (in.device.device_type != 1 || in.device.device_id != 0) {
    s += ", device=(" + std::to_string(in.device.device_type) + ", " +
         std::to_string(in.device.device_id) + ")";
  }
  if (in.layout & kDataNull) s += ", null_data=True";
  if (in.layout & kDeleterNull) s += ", null_deleter=True";
  if (versioned) {
    s += ", version=(" + std::to_string(in.version.major) + ", " +
         std::to_string(in.version.minor) + ")";
    if (in.flags != 0) s += ", flags=" + std::to_string(in.flags);
  }
  return s;
}

std::string describe(const TensorInput& in, bool versioned) {
  std::string s = versioned ? "versioned " + std::to_string(in.version.major) + "." +
                                  std::to_string(in.version.minor) + " flags=" +
                                  std::to_string(in.flags)
                            : std::string("legacy");
  s += " device=" + std::to_string(in.device.device_type) + ":" +
       std::to_string(in.device.device_id) + " dtype=" + std::to_string(in.dtype.code) + ":" +
       std::to_string(in.dtype.bits) + ":" + std::to_string(in.dtype.lanes) +
       " ndim=" + std::to_string(in.ndim);
  auto list = [&](const char* name, const int64_t* values, uint8_t null_bit) {
    s += std::string(" ") + name + "=";
    if (in.layout & null_bit) {
      s += "NULL";
      return;
    }
    s += dims_text(values, in.ndim);
  };
  list("shape", in.shape, kShapeNull);
  list("strides", in.strides, kStridesNull);
  s += " byte_offset=" + std::to_string(in.byte_offset) +
       " misalign=" + std::to_string(in.misalign) + ((in.layout & kDataNull) ? " data=NULL" : "") +
       ((in.layout & kDeleterNull) ? " deleter=NULL" : "");
  return s;
}

bool device_memory_backs(const TensorInput& in) {
  return dlc::abi::is_cuda_memory(in.device.device_type) && in.device.device_id == 0;
}

StoragePlan plan_storage(const TensorInput& in, bool versioned, bool device_backed) {
  StoragePlan p;
  p.byte_offset = in.byte_offset;
  if (in.ndim > kMaxBackedNdim) {
    p.why_skipped = "ndim above 1024";
    return p;
  }
  p.padded = versioned && (in.flags & dlc::abi::kFlagSubbytePadded) != 0;
  const bool strides_given = !(in.layout & kStridesNull);
  const int64_t dims = std::max<int64_t>(in.ndim, 0);
  // Static, as in build_tensor: one plan at a time, and no 16 KiB frame for ASan to clear.
  static int64_t shape[kMaxBackedNdim];
  static int64_t strides[kMaxBackedNdim];
  for (int64_t i = 0; i < dims; ++i) {
    shape[i] = in.extent(i);
    strides[i] = in.stride(i);
  }
  const dlc::geo::Geometry& g = p.geometry = dlc::geo::geometry(
      in.ndim, shape, strides_given ? strides : nullptr, in.dtype, p.padded);
  p.on_device = device_backed && device_memory_backs(in);
  const bool on_host = dlc::abi::is_host_accessible(in.device.device_type) || p.on_device;
  uint64_t end = 0;
  if (g.valid && on_host && !(in.layout & kDataNull) &&
      !__builtin_add_overflow(in.byte_offset, g.storage_bytes, &end)) {
    // A valid tensor is backed by exactly the memory it claims, or a consumer that rightly reads
    // it would be blamed. A large byte_offset cannot be backed, so it is taken modulo a page.
    p.byte_offset = in.byte_offset % 4096;
    const uint64_t bytes = g.storage_bytes + p.byte_offset + in.misalign;
    if (bytes > kMaxBackedBytes || g.numel > kMaxBackedElements ||
        g.numel * g.element_bytes > kMaxDigestedBytes) {
      p.why_skipped = "too large to back within a fuzzing budget";
      return p;
    }
    // The lowest element sits at the start of the storage, the highest ends at its end. A
    // lowest offset whose byte count overflows int64 (strides that wrap) cannot be backed.
    int64_t lowest_bytes = 0;
    if (__builtin_mul_overflow(g.min_offset, static_cast<int64_t>(g.element_bytes),
                               &lowest_bytes) ||
        lowest_bytes < -static_cast<int64_t>(kMaxBackedBytes) || lowest_bytes > 0) {
      p.why_skipped = "its lowest element lies too far below data to back";
      return p;
    }
    p.kind = StoragePlan::kBacked;
    p.bytes = bytes;
    p.data_offset = in.misalign + static_cast<uint64_t>(-lowest_bytes);
  } else if (in.layout & kDataNull) {
    p.kind = StoragePlan::kNull;
  } else if (!on_host) {
    p.kind = StoragePlan::kDevice;
  } else {
    p.kind = StoragePlan::kEmpty;
  }
  return p;
}

void mutate_to_edge(TensorInput& in, std::minstd_rand& rng, const EdgeHints& hints) {
  const int dims = explicit_dims(in.ndim);
  const int dim = dims > 0 ? static_cast<int>(rng() % static_cast<unsigned>(dims)) : 0;
  switch (rng() % 16) {
    case 0: {  // versions around the consumer's own: major 0/1/2, minor 0..99
      const uint32_t majors[] = {0, 1, 2, hints.own.major, hints.own.major + 1,
                                 hints.own.major - 1, kU32Max};
      const uint32_t minors[] = {0, 1, 2, 3, 99, hints.own.minor, hints.own.minor + 1,
                                 hints.own.minor - 1, kU32Max};
      in.version.major = pick(rng, majors);
      in.version.minor = rng() % 3 == 0 ? static_cast<uint32_t>(rng() % 100) : pick(rng, minors);
      break;
    }
    case 1:  // known and unknown flag bits (FLAG-4)
      in.flags = rng() % 4 == 0 ? 0 : in.flags ^ (uint64_t{1} << pick(rng, kFlagBits));
      break;
    case 2:
      in.device.device_type = pick(rng, kDeviceEdges);
      if (rng() % 2) in.device.device_id = pick(rng, kDeviceIdEdges);
      break;
    case 3:  // unknown codes, widths a code does not allow, zero lanes
      in.dtype.code = pick(rng, kCodeEdges);
      if (rng() % 2) in.dtype.bits = pick(rng, kBitsEdges);
      if (rng() % 4 == 0) in.dtype.lanes = pick(rng, kLanesEdges);
      break;
    case 4:
      in.dtype = pick(rng, kValidDtypes);
      break;
    case 5:  // ndim past every limit, negative, and back to a small shape
      in.ndim = pick(rng, kNdimEdges);
      break;
    case 6:
      in.shape[dim] = pick(rng, kExtentEdges);
      break;
    case 7:
      in.strides[dim] = pick(rng, kStrideEdges);
      break;
    case 8: {  // a product of extents that overflows 64 bits while each extent is positive
      const int64_t big[] = {int64_t{1} << 16, int64_t{1} << 21, int64_t{1} << 32,
                             (int64_t{1} << 31) - 1};
      const int64_t e = pick(rng, big);
      in.ndim = std::clamp(in.ndim, 4, 6);
      for (int i = 0; i < in.ndim; ++i) in.shape[i] = e;
      if (rng() % 2) in.make_compact();
      break;
    }
    case 9: {  // a strided view that is valid: compact, then transposed, reversed or broadcast
      if (in.ndim < 2 || in.ndim > 4) {  // a small shape of its own, so that the view differs
        in.ndim = 2 + static_cast<int32_t>(rng() % 3);
        for (int i = 0; i < in.ndim; ++i) in.shape[i] = 2 + static_cast<int64_t>(rng() % 5);
      }
      in.make_compact();
      const int a = static_cast<int>(rng() % static_cast<unsigned>(in.ndim));
      const int b = static_cast<int>(rng() % static_cast<unsigned>(in.ndim));
      switch (rng() % 3) {
        case 0:
          std::swap(in.shape[a], in.shape[b]);
          std::swap(in.strides[a], in.strides[b]);
          break;
        case 1:
          in.strides[a] = minus<int64_t>(0, in.strides[a]);
          break;
        default:
          in.strides[a] = 0;
          break;
      }
      break;
    }
    case 10:
      in.byte_offset = pick(rng, kOffsetEdges);
      break;
    case 11:  // misaligned data and offsets (LAY-9)
      in.misalign = pick(rng, kMisalignEdges);
      if (rng() % 2) in.byte_offset = static_cast<uint64_t>(rng() % 16);
      break;
    case 12:
      in.layout ^= static_cast<uint8_t>(1u << (rng() % (hints.vary_struct_kind ? 5 : 4)));
      break;
    case 13:  // a small, valid shape of a few dimensions
      in.ndim = static_cast<int32_t>(rng() % 5);
      for (int i = 0; i < in.ndim; ++i) in.shape[i] = static_cast<int64_t>(rng() % 9);
      in.make_compact();
      break;
    case 14:  // an extent of 0 (LAY-7), with or without data
      in.shape[dim] = 0;
      if (rng() % 2) in.layout ^= kDataNull;
      break;
    default:  // the same dimension pushed both ways
      in.shape[dim] = pick(rng, kExtentEdges);
      in.strides[dim] = pick(rng, kStrideEdges);
      break;
  }
}

size_t custom_mutate(uint8_t* data, size_t size, size_t max_size, unsigned int seed,
                     const EdgeHints& hints) {
  std::minstd_rand rng(seed);
  if (LLVMFuzzerMutate != nullptr && rng() % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  TensorInput in = decode(data, size);
  const unsigned rounds = 1 + rng() % 3;
  for (unsigned i = 0; i < rounds; ++i) mutate_to_edge(in, rng, hints);
  // Encoded in place: no heap block per mutation.
  FuzzWriter w;
  write_input(in, w);
  const size_t written = w.write_to(data, max_size);
  if (written == FuzzWriter::kTooLong) {
    return LLVMFuzzerMutate != nullptr ? LLVMFuzzerMutate(data, size, max_size) : size;
  }
  return written;
}

}  // namespace dlc_fuzz


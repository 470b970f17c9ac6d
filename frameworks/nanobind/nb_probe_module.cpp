// dlc_nb_probe: a nanobind extension module that puts nanobind's own nb::ndarray<> type caster
// (the DLPack importer of every C++ library bound with nanobind) under dlconform.
//
// The dlconform plugin "nanobind-ndarray" (nanobind_adapter.cpp) embeds Python, imports this
// module and calls it with a PyCapsule wrapping the producer's struct, exactly as a Python user
// would call a nanobind-bound function with the capsule a __dlpack__() returned:
//
//   inspect(a: nb::ndarray<>, subbyte_padded=False) -> (code, bits, lanes, shape, strides,
//                                 device_type, device_id, digest, count)
//       reads everything back from the nb::ndarray the caster built (dtype, shape, strides in
//       elements, device) and, for a CPU array, the dlc_digest of every element's bytes in
//       logical row-major order, walking the ndarray's own data(), shape and strides (digest is
//       None for a non-CPU array, which is not read). Packed sub-byte dtypes (bits * lanes < 8,
//       subbyte_padded False: nanobind does not keep the versioned flags, the caller passes
//       IS_SUBBYTE_TYPE_PADDED) are digested per storage byte, as dlconform defines.
//   hold(a, subbyte_padded=False) -> the same tuple, and keeps the ndarray in a module global, so that
//       the producer's deleter runs only when drop() releases it.
//   drop() -> None: releases the held ndarray (nanobind then calls the producer's deleter).
//   held() -> bool: whether an ndarray is held.
//
// Only nanobind's public API is used; the importer is reached through the ordinary argument
// caster of a bound function (nanobind's overload resolution included).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "dlconform/plugin.h"

namespace nb = nanobind;

namespace {

// The ndarray held between hold() and drop(). A heap object, never destroyed at exit: its
// destructor needs the GIL, and the interpreter is never finalized.
nb::ndarray<>* g_held = nullptr;

// Whether the elements of `a` lie in a storage whose size is computable: extents >= 0 and
// the highest and lowest element offsets (in bytes) fit in int64. nanobind checks none of this
// on import (LAY-10), so the probe does before it walks the data, to report what nanobind
// accepted instead of faulting in its own loop. Sets *numel. Packed sub-byte elements are
// compact by definition: their strides say nothing about the storage.
bool storage_computable(const nb::ndarray<>& a, size_t element, bool packed, uint64_t* numel) {
  const size_t ndim = a.ndim();
  __int128 count = 1;
  __int128 high = 0, low = 0;  // element offsets from data()
  for (size_t i = 0; i < ndim; ++i) {
    const int64_t e = static_cast<int64_t>(a.shape(i));
    if (e < 0) return false;
    count *= e;
    if (count > (__int128{1} << 62)) return false;
  }
  *numel = static_cast<uint64_t>(count);
  if (count == 0 || packed) return true;
  for (size_t i = 0; i < ndim; ++i) {
    const __int128 reach = static_cast<__int128>(a.stride(i)) * (static_cast<int64_t>(a.shape(i)) - 1);
    (reach < 0 ? low : high) += reach;
  }
  const __int128 limit = std::numeric_limits<int64_t>::max();
  return (high + 1) * static_cast<__int128>(element) <= limit &&
         -low * static_cast<__int128>(element) <= limit;
}

// (code, bits, lanes, shape, strides, device_type, device_id, digest, count)
nb::tuple describe(const nb::ndarray<>& a, bool subbyte_padded) {
  const nb::dlpack::dtype dt = a.dtype();
  const size_t ndim = a.ndim();
  // nanobind accepts ndim > 0 with a NULL shape (it fills in NULL strides from the shape only
  // when it has to): then no extent can be read; they are reported as None.
  const bool shape_known = ndim == 0 || (a.shape_ptr() != nullptr && a.stride_ptr() != nullptr);
  nb::list shape;
  nb::list strides;
  for (size_t i = 0; i < ndim; ++i) {
    if (shape_known) {
      shape.append(static_cast<long long>(a.shape(i)));
      strides.append(static_cast<long long>(a.stride(i)));
    } else {
      shape.append(nb::none());
      strides.append(nb::none());
    }
  }

  uint64_t digest = dlc_digest_init();
  uint64_t count = 0;
  bool read = false;
  const uint64_t width = static_cast<uint64_t>(dt.bits) * dt.lanes;  // bits per element
  const size_t element = static_cast<size_t>((width + 7) / 8);  // the dlconform digest unit
  uint64_t numel = 0;
  if (a.device_type() == nb::device::cpu::value && shape_known) {
    read = true;
    // data() already includes DLTensor.byte_offset.
    const auto* origin = static_cast<const uint8_t*>(a.data());
    const bool packed = width < 8 && !subbyte_padded;
    if (!storage_computable(a, element, packed, &numel) || numel == 0 ||
        (origin == nullptr && numel > 0)) {
      // Nothing to read, or nothing that can be read: imported, 0 elements read.
    } else if (packed) {
      // Packed sub-byte elements (DLPack 1.1+): compact by definition, several to a byte; the
      // dlconform unit is then the storage byte.
      const uint64_t n = (numel * width + 7) / 8;
      digest = dlc_digest_update(digest, origin, static_cast<size_t>(n));
      count = n;
    } else {
      std::vector<size_t> index(ndim, 0);
      int64_t offset = 0;  // in elements, from origin
      for (uint64_t k = 0; k < numel; ++k) {
        digest = dlc_digest_update(digest, origin + offset * static_cast<int64_t>(element),
                                   element);
        ++count;
        // Next index in logical row-major order.
        for (size_t d = ndim; d-- > 0;) {
          if (++index[d] < a.shape(d)) {
            offset += a.stride(d);
            break;
          }
          offset -= static_cast<int64_t>(a.shape(d) - 1) * a.stride(d);
          index[d] = 0;
        }
      }
    }
  }
  return nb::make_tuple(static_cast<int>(dt.code), static_cast<int>(dt.bits),
                        static_cast<int>(dt.lanes), nb::tuple(shape), nb::tuple(strides),
                        a.device_type(), a.device_id(),
                        read ? nb::cast(digest) : nb::none(), count);
}

}  // namespace

NB_MODULE(dlc_nb_probe, m) {
  m.doc() = "dlconform probe of nanobind's nb::ndarray<> DLPack importer";
  m.def(
      "inspect", [](nb::ndarray<> a, bool subbyte_padded) { return describe(a, subbyte_padded); },
      nb::arg("a"), nb::arg("subbyte_padded") = false,
        "Import `a` through nb::ndarray<> and describe what nanobind sees.");
  m.def(
      "hold",
      [](nb::ndarray<> a, bool subbyte_padded) {
        nb::tuple t = describe(a, subbyte_padded);
        delete g_held;
        g_held = new nb::ndarray<>(std::move(a));
        return t;
      },
      nb::arg("a"), nb::arg("subbyte_padded") = false, "Like inspect(), and keep the ndarray alive until drop().");
  m.def(
      "drop",
      [] {
        nb::ndarray<>* held = g_held;
        g_held = nullptr;
        delete held;
      },
      "Release the held ndarray (runs the producer's deleter).");
  m.def("held", [] { return g_held != nullptr; });
}

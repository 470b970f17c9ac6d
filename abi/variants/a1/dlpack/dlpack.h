/*
 * dlconform design variant "a1" of the DLPack versioning RFC: alternative A1, version and flags appended after the deleter.
 *
 * Not a DLPack release. It declares the layout one of the alternatives weighed while DLPack 1.0
 * was designed, so that the matrix can build producers and consumers of it and show, by running
 * them, which exchanges survive. What the RFC discussion concluded of it:
 * the first 64 bytes are the legacy struct, so an old consumer keeps working (S0 holds); a new
 * consumer handed an old producer's 64-byte struct reads its version past the end (S1 breaks
 * without the capsule name to tell them apart).
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLCONFORM_VARIANT "a1"
#define DLCONFORM_VARIANT_A1 1
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

#ifdef __cplusplus
extern "C" {
#endif

/* DLPackVersion and the v1.0 device and dtype declarations every variant shares. */
#include "../../variant_common.h"

/* The v1.0 DLTensor, unchanged in this design. */
DLCONFORM_VARIANT_STANDARD_TENSOR

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
  DLPackVersion version; /* appended: legacy readers never look here */
  uint64_t flags;
} DLManagedTensor;

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* DLPACK_DLPACK_H_ */

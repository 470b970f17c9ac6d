/*
 * dlconform design variant "a0" of the DLPack versioning RFC: alternative A0, the version as the first field of DLManagedTensor.
 *
 * Not a DLPack release. It declares the layout one of the alternatives weighed while DLPack 1.0
 * was designed, so that the matrix can build producers and consumers of it and show, by running
 * them, which exchanges survive. What the RFC discussion concluded of it:
 * every legacy offset shifts by 8 bytes, so neither an old consumer (S0) nor a new consumer of
 * an old producer's struct (S1) can read the other side without negotiation.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLCONFORM_VARIANT "a0"
#define DLCONFORM_VARIANT_A0 1
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
  DLPackVersion version; /* first, so a consumer can read it before anything else */
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* DLPACK_DLPACK_H_ */

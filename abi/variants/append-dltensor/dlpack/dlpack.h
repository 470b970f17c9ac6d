/*
 * dlconform design variant "append-dltensor" of the DLPack versioning RFC: the version appended to DLTensor (the first draft).
 *
 * Not a DLPack release. It declares the layout one of the alternatives weighed while DLPack 1.0
 * was designed, so that the matrix can build producers and consumers of it and show, by running
 * them, which exchanges survive. What the RFC discussion concluded of it:
 * growing DLTensor moves manager_ctx and deleter in DLManagedTensor, so an old consumer calls
 * the wrong pointer as the deleter: S0 breaks without negotiation. A new consumer reads a version
 * past the end of an old producer's struct: S1 breaks too.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLCONFORM_VARIANT "append-dltensor"
#define DLCONFORM_VARIANT_APPEND_DLTENSOR 1
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

#ifdef __cplusplus
extern "C" {
#endif

/* DLPackVersion and the v1.0 device and dtype declarations every variant shares. */
#include "../../variant_common.h"

/* The tensor view, with the producer's version at its end. */
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
  DLPackVersion version; /* the appended field: DLTensor grows to 56 bytes */
} DLTensor;

/* Same fields as the legacy struct, but after a bigger DLTensor: everything below moves. */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* DLPACK_DLPACK_H_ */

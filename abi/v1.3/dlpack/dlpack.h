/*
 * dlconform's clean-room declaration of the DLPack v1.3 ABI.
 *
 * Written from the published layout and rules, in our own words; it is meant to be a drop-in
 * replacement for the upstream header of that tag, so that a translation unit picks its DLPack
 * version through its include path. Layout facts are asserted by abi/abi_layout_test.cpp.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

/* C++ callers see C linkage for everything below. */
#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif

/* The major number changes only when DLManagedTensorVersioned's layout changes. */
#define DLPACK_MAJOR_VERSION 1

/* The minor number changes when enum values or flags are added; layout stays put. */
#define DLPACK_MINOR_VERSION 3

/* Import/export decoration for Windows DLLs; empty elsewhere. */
#ifdef _WIN32
#ifdef DLPACK_EXPORTS
#define DLPACK_DLL __declspec(dllexport)
#else
#define DLPACK_DLL __declspec(dllimport)
#endif
#else
#define DLPACK_DLL
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version a versioned tensor was produced for. A consumer whose major differs may only
 * call the deleter; every other field may sit elsewhere in another major. A newer minor is
 * usable as long as every enum value in the tensor is one the consumer knows.
 */
typedef struct {
  uint32_t major; /* layout generation */
  uint32_t minor; /* additions within a generation */
} DLPackVersion;

/* Where the memory lives. Values are fixed forever; gaps are retired values. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
  kDLCPU = 1, /* host memory */
  kDLCUDA = 2, /* CUDA device memory */
  kDLCUDAHost = 3, /* host memory pinned by cudaMallocHost */
  kDLOpenCL = 4, /* an OpenCL buffer */
  kDLVulkan = 7, /* a Vulkan buffer */
  kDLMetal = 8, /* Apple Metal memory */
  kDLVPI = 9, /* a Verilog simulator buffer */
  kDLROCM = 10, /* AMD ROCm device memory */
  kDLROCMHost = 11, /* host memory pinned by hipMallocHost */
  kDLExtDev = 12, /* reserved for experimental devices; meaning is up to the user */
  kDLCUDAManaged = 13, /* CUDA unified memory from cudaMallocManaged */
  kDLOneAPI = 14, /* oneAPI unified shared memory; the runtime tells its kind */
  kDLWebGPU = 15, /* a WebGPU buffer */
  kDLHexagon = 16, /* Qualcomm Hexagon DSP memory */
  kDLMAIA = 17, /* Microsoft MAIA accelerator memory */
  kDLTrn = 18, /* AWS Trainium memory */
} DLDeviceType;

/* A device: its type and its index. The index is 0 for host, pinned and managed memory. */
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

/* Element kinds for DLDataType.code (stored as uint8_t there). */
typedef enum {
  kDLInt = 0U, /* two's complement signed integer */
  kDLUInt = 1U, /* unsigned integer */
  kDLFloat = 2U, /* IEEE 754 binary floating point */
  kDLOpaqueHandle = 3U, /* an opaque handle; producer and consumer must agree on it */
  kDLBfloat = 4U, /* bfloat16 */
  kDLComplex = 5U, /* complex: a packed (real, imaginary) pair; bits is the pair's width */
  kDLBool = 6U, /* boolean, stored in 8 bits by convention */
  /* 8-bit floats; the suffix names exponent and mantissa widths and the special values. */
  kDLFloat8_e3m4 = 7U,
  kDLFloat8_e4m3 = 8U,
  kDLFloat8_e4m3b11fnuz = 9U,
  kDLFloat8_e4m3fn = 10U,
  kDLFloat8_e4m3fnuz = 11U,
  kDLFloat8_e5m2 = 12U,
  kDLFloat8_e5m2fnuz = 13U,
  kDLFloat8_e8m0fnu = 14U,
  /* 6-bit floats: bits must be 6, and a consumer must refuse anything else. */
  kDLFloat6_e2m3fn = 15U,
  kDLFloat6_e3m2fn = 16U,
  /* 4-bit float: bits must be 4, and a consumer must refuse anything else. */
  kDLFloat4_e2m1fn = 17U,
} DLDataTypeCode;

/*
 * An element type: code, width in bits and vector lanes. float32 is {kDLFloat, 32, 1}; a
 * vector of four float32 is {kDLFloat, 32, 4}. Values are in native byte order.
 * Sub-byte types are packed, lowest bits first, unless the producer sets
 * DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED.
 */
typedef struct {
  uint8_t code;   /* a DLDataTypeCode value */
  uint8_t bits;   /* width of one lane */
  uint16_t lanes; /* 1 for scalars */
} DLDataType;

/*
 * A view of an n-dimensional array. It owns nothing.
 *
 * Element i0..i(n-1) lives at (char*)data + byte_offset +
 * (i0 * strides[0] + ... ) * element size; strides count elements, not bytes. The storage
 * size is the product of the extents times (bits * lanes + 7) / 8. The header asks for data to
 * be 256-byte aligned, but widely used producers pass byte_offset 0 and unaligned pointers, so
 * consumers must not count on it. A zero-size tensor should carry data == NULL.
 */
typedef struct {
  void* data;          /* device pointer or handle for non-host devices */
  DLDevice device;
  int32_t ndim;        /* number of dimensions; 0 for a scalar */
  DLDataType dtype;
  int64_t* shape;      /* ndim extents; may be NULL when ndim == 0 */
  int64_t* strides;    /* ndim strides in elements; NULL only when ndim == 0 (was allowed
                          to mean compact row-major before v1.2) */
  uint64_t byte_offset; /* bytes from data to the first element */
} DLTensor;

/*
 * A tensor lent to another framework (the pre-1.0 exchange struct, kept for legacy callers).
 * The borrower calls deleter(self) once when done; the deleter releases manager_ctx and the
 * struct itself. deleter may be NULL when the producer has nothing to release.
 */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx; /* the producer's bookkeeping; may be NULL */
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

/* Bits of DLManagedTensorVersioned.flags. Unknown bits carry no agreed meaning. */
/* The consumer must not write through data. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
/* The producer made a copy: the consumer holds the only reference until it deletes. */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
/* Sub-byte elements each occupy a whole byte instead of being packed. */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/*
 * The versioned exchange struct. version, manager_ctx, deleter and flags keep their places in
 * every future major, so that a consumer of any version can always reach the deleter.
 */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version; /* what the producer built against */
  void* manager_ctx;     /* the producer's bookkeeping; may be NULL */
  void (*deleter)(struct DLManagedTensorVersioned* self); /* may be NULL */
  uint64_t flags;        /* DLPACK_FLAG_BITMASK_* bits; 0 by default */
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

/*
 * C exchange API. A Python tensor type publishes a DLPackExchangeAPI table as a PyCapsule
 * named "dlpack_exchange_api" in its type attribute __dlpack_c_exchange_api__; consumers may
 * cache it per type. The table lives as long as the process. No function throws.
 */

/* Make a new tensor like `prototype` (only dtype, ndim, shape and device count). Returns 0 and
   an owning *out, or non-zero after calling SetError exactly once. */
typedef int (*DLPackManagedTensorAllocator)(
    DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
    void (*SetError)(void* error_ctx, const char* kind, const char* message));

/* Export a Python tensor (of the table's own type) as an owning versioned tensor, without
   stream synchronisation. Returns 0, or -1 with a Python error set. */
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void* py_object,
                                                     DLManagedTensorVersioned** out);

/* Fill a caller-provided DLTensor that borrows from the Python tensor; valid only until
   control returns to the producer. Returns 0, or -1 with a Python error set. */
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void* py_object, DLTensor* out);

/* The producer's current work stream for a device; may be NULL for CPU. Returns 0 or -1. */
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id,
                                       void** out_current_stream);

/* Wrap an owning versioned tensor into a Python tensor of the table's type; takes ownership
   of `tensor`. Returns 0, or -1 with a Python error set. */
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned* tensor,
                                                   void** out_py_object);

/* The part of every exchange table that never moves: check version.major first, and walk
   prev_api (NULL when there is none) to find an older table you support. */
typedef struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  struct DLPackExchangeAPIHeader* prev_api;
} DLPackExchangeAPIHeader;

/* The exchange table. Every slot is non-NULL except dltensor_from_py_object_no_sync. */
typedef struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  DLPackManagedTensorAllocator managed_tensor_allocator;
  DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync; /* may be NULL */
  DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* DLPACK_DLPACK_H_ */

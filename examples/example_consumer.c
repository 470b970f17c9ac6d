/* A complete dlconform consumer adapter in C: imports a legacy "dltensor" capsule the way an
 * importer must (LIFE-1 rename, checks, exactly one deleter call) and reports what it read.
 * Build:  cc -shared -fPIC -o my_consumer.so example_consumer.c $(pkg-config --cflags dlconform)
 * Run:    dlconform matrix --plugin ./my_consumer.so */
#include <dlpack/dlpack.h>
#include <stddef.h>
#include <string.h>

#include "dlconform/plugin.h"

static DLManagedTensor* held; /* what the last consume() imported */

static int consume(void* state, DLCHandoff* h, const DLCRequest* request, DLCObservation* obs,
                   char* err, size_t err_len) {
  (void)state;
  (void)request;
  if (h->name == NULL || strcmp(h->name, "dltensor") != 0) {
    strncpy(err, "expected capsule dltensor", err_len - 1); /* not ours: producer keeps it */
    return DLC_ERR_BUFFER;
  }
  h->name = "used_dltensor"; /* LIFE-1: take ownership before anything can fail */
  held = (DLManagedTensor*)h->pointer;
  const DLTensor* t = &held->dl_tensor;
  if (t->device.device_type != kDLCPU || t->device.device_id != 0 || t->ndim < 0 || t->ndim > 32 ||
      t->dtype.lanes != 1 || t->dtype.bits == 0 || t->dtype.bits % 8 != 0 ||
      t->dtype.code > kDLComplex ||
      (t->ndim > 0 && !t->shape)) {
    strncpy(err, "unsupported tensor", err_len - 1);
    return DLC_ERR_BUFFER; /* release() still calls the deleter (LIFE-3) */
  }
  obs->struct_kind = DLC_STRUCT_LEGACY;
  obs->ndim = t->ndim;
  obs->dtype.code = t->dtype.code, obs->dtype.bits = t->dtype.bits, obs->dtype.lanes = 1;
  int64_t numel = 1, index[32] = {0};
  for (int i = 0; i < t->ndim; ++i) {
    if (t->shape[i] < 0 || (t->shape[i] > 0 && numel > INT64_MAX / t->shape[i])) {
      strncpy(err, "shape overflows int64 (LAY-10)", err_len - 1);
      return DLC_ERR_BUFFER;
    }
    obs->shape[i] = t->shape[i], numel *= t->shape[i];
  }
  if (numel > 0 && t->data == NULL) { /* only a zero-size tensor may have NULL data (LAY-7) */
    strncpy(err, "expected data != NULL for a non-empty tensor but found NULL", err_len - 1);
    return DLC_ERR_BUFFER;
  }
  /* Offsets must stay within int64 and the address space (LAY-10): a hostile stride must not
   * turn into a wrapped pointer. */
  int64_t reach = 0;
  for (int d = 0; t->strides != NULL && numel > 0 && d < t->ndim; ++d) {
    int64_t step = 0;
    if (t->strides[d] == INT64_MIN ||
        __builtin_mul_overflow(t->shape[d] - 1, t->strides[d] < 0 ? -t->strides[d] : t->strides[d],
                               &step) ||
        __builtin_add_overflow(reach, step, &reach)) {
      strncpy(err, "strides overflow int64 (LAY-10)", err_len - 1);
      return DLC_ERR_BUFFER;
    }
  }
  const ptrdiff_t size = t->dtype.bits / 8;
  if (t->byte_offset > (uint64_t)PTRDIFF_MAX / 2 || reach > PTRDIFF_MAX / 2 / size ||
      numel > PTRDIFF_MAX / 2 / size) {
    strncpy(err, "byte_offset or strides reach past the address space (LAY-10)", err_len - 1);
    return DLC_ERR_BUFFER;
  }
  uint64_t digest = dlc_digest_init();
  for (int64_t k = 0; k < numel; ++k) { /* every element in logical row-major order */
    int64_t offset = 0, compact = 1;
    for (int d = t->ndim - 1; d >= 0; --d) {
      offset += index[d] * (t->strides ? t->strides[d] : compact); /* NULL: compact (LAY-5) */
      compact *= t->shape[d];
    }
    const char* element = (const char*)t->data + (ptrdiff_t)t->byte_offset + offset * size;
    digest = dlc_digest_update(digest, element, (size_t)size);
    for (int d = t->ndim - 1; d >= 0 && ++index[d] == t->shape[d]; --d) index[d] = 0;
  }
  obs->digest = digest;
  obs->elements_read = (uint64_t)numel;
  return DLC_OK;
}

static void release(void* state) {
  (void)state;
  if (held != NULL && held->deleter != NULL) held->deleter(held); /* LIFE-3, LIFE-4 */
  held = NULL;
}

static const DLCPlugin plugin = {{DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), NULL},
                                 "example-consumer",
                                 "The README's example adapter",
                                 DLC_ROLE_CONSUMER,
                                 {0, DLPACK_VERSION / 10},
                                 0,
                                 {0, 0},
                                 NULL,
                                 NULL,
                                 NULL,
                                 NULL,
                                 consume,
                                 release,
                                 NULL, /* no profile: the default one (plugin ABI 2) */
                                 NULL, /* available: always (plugin ABI 3) */
                                 NULL /* ask: no stream, no device */};

__attribute__((visibility("default"))) const DLCPlugin* dlconform_plugin_entry(void) {
  return &plugin;
}

/* Plugins that misbehave on purpose, for the harness's own tests. MISBEHAVIOUR picks one:
 *   crash_consumer  - a consumer that dereferences a wild pointer in consume()
 *   hang_consumer   - a consumer that never returns from consume()
 *   wrong_abi       - a table with plugin-ABI version 999
 *   null_slots      - a consumer table without a consume slot
 *   no_entry        - a library without the entry point */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "dlconform/plugin.h"

#define CRASH_CONSUMER 1
#define HANG_CONSUMER 2
#define WRONG_ABI 3
#define NULL_SLOTS 4
#define NO_ENTRY 5

#if MISBEHAVIOUR == NO_ENTRY
int dlconform_not_the_entry_point(void) { return 42; }
#else
static int consume(void* state, DLCHandoff* handoff, const DLCRequest* request, DLCObservation* obs,
                   char* err, size_t err_len) {
  (void)state;
  (void)handoff;
  (void)request;
  (void)obs;
  (void)err;
  (void)err_len;
#if MISBEHAVIOUR == CRASH_CONSUMER
  volatile uintptr_t wild = 0x10; /* an address no tensor buffer can have */
  return *(volatile int*)wild;
#elif MISBEHAVIOUR == HANG_CONSUMER
  for (;;) pause();
#endif
  return DLC_ERR_BUFFER;
}

static const DLCPlugin kPlugin = {
    {MISBEHAVIOUR == WRONG_ABI ? 999u : DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), NULL},
    PLUGIN_NAME,
    "misbehaves on purpose",
    DLC_ROLE_CONSUMER,
    {1, 3},
    1,
    {1, 3},
    NULL,
    NULL,
    NULL,
    NULL,
    MISBEHAVIOUR == NULL_SLOTS ? NULL : consume,
    NULL,
    NULL,
    NULL,
    NULL,
};

__attribute__((visibility("default"))) const DLCPlugin* dlconform_plugin_entry(void) {
  return &kPlugin;
}
#endif

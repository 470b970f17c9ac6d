/* plugin.h must compile as plain C11 with every warning on (and as C++: plugin_header_test.cpp). */
#include "dlconform/plugin.h"

int main(void) {
  DLCPlugin table = {{DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), NULL}, "t", NULL,
                     DLC_ROLE_CONSUMER, {1, 3}, 1, {1, 3}, NULL, NULL, NULL, NULL,
                     NULL, NULL, NULL, NULL, NULL};
  const uint64_t digest = dlc_digest_update(dlc_digest_init(), "a", 1);
  return (table.roles == DLC_ROLE_CONSUMER && digest != dlc_digest_init() &&
          dlc_fill_byte(1, 0, 0) != dlc_fill_byte(1, 1, 0)) ? 0 : 1;
}

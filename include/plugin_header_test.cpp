// plugin.h must compile as C++ with every warning on, and keep C linkage.
#include "dlconform/plugin.h"

#include <type_traits>

static_assert(std::is_standard_layout_v<DLCPlugin>, "the plugin table crosses a C boundary");
static_assert(std::is_trivially_copyable_v<DLCRequest>, "requests are copied by value");

int main() {
  const DLCHandoff h{"dltensor", nullptr};
  return h.pointer == nullptr && dlc_digest_init() != 0 ? 0 : 1;
}

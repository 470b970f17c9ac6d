#include "layout.h"
namespace dlc { int layout_main(int, char**) noexcept { return 0; } }

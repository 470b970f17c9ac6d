#pragma once
namespace dlc {
int layout_main(int argc, char** argv) noexcept;
}

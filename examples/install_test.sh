#!/usr/bin/env bash
# Installs the build into a staging folder and uses only what was installed, as an adopting team
# would: the README's example adapter is compiled with `pkg-config --cflags dlconform`, then run in
# the installed CLI's matrix and replayed by an installed fuzz driver.
#   examples/install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: install_test.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: install_test.sh BUILD_DIR SOURCE_DIR}
stage=$(mktemp -d /tmp/dlconform-stage-XXXXXX)
trap 'rm -rf "$stage"' EXIT

meson install -C "$build" --destdir "$stage" --no-rebuild --quiet >/dev/null
pc=$(find "$stage" -name dlconform.pc)
bin=$(find "$stage" -path '*/bin/dlconform')
fuzzer=$(find "$stage" -path '*/libexec/dlconform/import_legacy_fuzzer')
for f in "$pc" "$bin" "$fuzzer" "$(find "$stage" -path '*/include/dlconform/plugin.h')"; do
  [[ -n $f ]] || { echo "install_test: expected dlconform.pc, bin/dlconform, plugin.h and the fuzz drivers in the staged install"; exit 1; }
done
echo "staged: $(find "$stage" -type f | wc -l) files; $(find "$stage" -name 'dlc-*.so' | wc -l) plugins"

# Adapter built against the installed header only (the build tree is not on any include path).
cflags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$stage pkg-config --cflags dlconform)
[[ $cflags == *"$stage"* ]] || { echo "install_test: expected -I into the staged prefix but pkg-config says '$cflags'"; exit 1; }
cc -std=c11 -Wall -Werror -shared -fPIC -o "$stage/my_consumer.so" "$src/examples/example_consumer.c" $cflags
echo "adapter: cc \$(pkg-config --cflags dlconform) -> $cflags"

# The installed CLI finds its installed plugins, and the adapter passes its matrix cells.
"$bin" matrix --plugin "$stage/my_consumer.so" --filter '*example-consumer*' --quiet \
  --json "$stage/report.json"
grep -q '"example-consumer"' "$stage/report.json"
echo "matrix: $(grep -c '"id": ' "$stage/report.json") cases with the adapter, all as expected"

# The installed fuzz driver replays the seeds against the adapter and a built-in consumer.
seeds=$src/corpus/import_legacy_fuzzer/seeds
DLCONFORM_PLUGIN=$stage/my_consumer.so UBSAN_OPTIONS=halt_on_error=1 "$fuzzer" "$seeds" >/dev/null
DLCONFORM_CONSUMER=strict-consumer-v1_3 UBSAN_OPTIONS=halt_on_error=1 "$fuzzer" "$seeds" >/dev/null
echo "fuzz driver: $(ls "$seeds" | wc -l) seeds replayed against the adapter and strict-consumer"

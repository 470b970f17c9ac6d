#!/usr/bin/env bash
# Builds the fuzz targets the way OSS-Fuzz and ClusterFuzzLite expect, into $OUT:
#   $OUT/<target>                       every installed *_fuzzer of fuzz/meson.build
#   $OUT/dlconform-plugins/dlc-*.so     every consumer and producer plugin (the targets look there
#                                       first: a folder named dlconform-plugins next to themselves)
#   $OUT/<target>_seed_corpus.zip       corpus/<target>/seeds and corpus/<target>/regressions
#   $OUT/<target>.options, .dict        copied from fuzz/ when present
#
# Inputs, as OSS-Fuzz sets them: CC, CXX, CFLAGS, CXXFLAGS (the sanitizer and coverage flags),
# LIB_FUZZING_ENGINE (the engine's link flags), OUT. WORK (default /tmp/dlconform-oss-fuzz-work)
# holds the Meson build folder. SRC is where the Dockerfile puts the checkout; the sources built
# are always those of the checkout this script is in. DLCONFORM_BUILD_JOBS caps ninja's -j.
#
# Locally, with clang's libFuzzer:
#   CC=clang CXX=clang++ CFLAGS="-fsanitize=address,undefined -fsanitize=fuzzer-no-link" \
#   CXXFLAGS="$CFLAGS" LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/ossfuzz-out \
#   tools/oss-fuzz-build.sh
set -euo pipefail

die() { echo "oss-fuzz-build: $*" >&2; exit 1; }

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -f $src/meson.build && -d $src/fuzz ]] || die "$src does not look like a dlconform checkout"
[[ -n ${OUT:-} ]] || die "OUT is not set (the folder the fuzz targets go to)"
[[ -n ${LIB_FUZZING_ENGINE:-} ]] || die "LIB_FUZZING_ENGINE is not set (e.g. -fsanitize=fuzzer)"
: "${CC:=clang}" "${CXX:=clang++}" "${CFLAGS:=}" "${CXXFLAGS:=}"
export CC CXX CFLAGS CXXFLAGS
command -v "${CC%% *}" >/dev/null || die "C compiler $CC not found"
command -v "${CXX%% *}" >/dev/null || die "C++ compiler $CXX not found"
for tool in meson ninja python3; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install meson ninja-build python3)"
done
[[ -f /usr/include/dlpack/dlpack.h ]] ||
  die "/usr/include/dlpack/dlpack.h not found (apt-get install libdlpack-dev: the DLPack v0.6 header)"

work=${WORK:-/tmp/dlconform-oss-fuzz-work}
build=$work/dlconform-build
mkdir -p "$work" "$OUT" || die "cannot create $work or $OUT"
jobs=${DLCONFORM_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}

# The sanitizer flags come in CFLAGS/CXXFLAGS, which Meson also passes at link time; plugins are
# then left with undefined sanitizer symbols that the fuzz target provides, hence b_lundef=false.
setup_args=(
  -Dfuzzing_engine=oss-fuzz
  "-Dfuzzer_ldflags=$LIB_FUZZING_ENGINE"
  -Dtests=disabled
  -Dcuda=disabled
  -Dpython=disabled
  -Dlibtorch=disabled
  -Db_lundef=false
  -Dbuildtype=debugoptimized
)
if [[ -f $build/meson-private/coredata.dat ]]; then
  # Flags from the environment are read at configure time only: start over.
  meson setup --wipe "${setup_args[@]}" "$build" "$src" || die "meson setup failed in $build"
else
  meson setup "${setup_args[@]}" "$build" "$src" || die "meson setup failed in $build"
fi
ninja -C "$build" -j "$jobs" || die "ninja failed in $build"

# The targets: executables named *_fuzzer that Meson installs. The baselines of the benchmark
# (naive_import_fuzzer, do_nothing_fuzzer, importer_floor_fuzzer) are not installed and not
# shipped: they judge nothing, and the naive harness crashes conformant consumers by design.
mapfile -t targets < <(meson introspect --targets "$build" | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    if t["type"] != "executable" or not t["name"].endswith("_fuzzer"):
        continue
    for f in t["filename"]:
        if t.get("installed"):
            print(f)
        else:
            print("oss-fuzz-build: not shipped (a benchmark baseline, not installed): "
                  + os.path.basename(f), file=sys.stderr)
') || die "meson introspect --targets failed in $build"
[[ ${#targets[@]} -gt 0 ]] || die "no *_fuzzer executable found in $build"

# Plugins, into one flat folder; two different files of the same name would be ambiguous.
plugins=$OUT/dlconform-plugins
rm -rf "$plugins" || die "cannot remove the old $plugins"
mkdir -p "$plugins" || die "cannot create $plugins"
count=0
while IFS= read -r -d '' so; do
  name=$(basename "$so")
  if [[ -e $plugins/$name ]]; then
    cmp -s "$so" "$plugins/$name" || die "two different plugins named $name in $build"
    continue
  fi
  cp "$so" "$plugins/$name" || die "cannot copy $so to $plugins"
  count=$((count + 1))
done < <(find "$build/consumers" "$build/producers" -name '*.p' -prune -o \
              -type f -name 'dlc-*.so' -print0 2>/dev/null)
[[ $count -gt 0 ]] || die "no plugin dlc-*.so found under $build/consumers or $build/producers"
echo "oss-fuzz-build: $count plugins -> $plugins"
# A framework's adapter (DLCONFORM_ADAPTER: a built .so, or one C or C++ source file) becomes
# dlc-adapter.so, which the import targets fuzz by default when it is there.
if [[ -n ${DLCONFORM_ADAPTER:-} ]]; then
  [[ -f $DLCONFORM_ADAPTER ]] || die "DLCONFORM_ADAPTER=$DLCONFORM_ADAPTER: no such file"
  case $DLCONFORM_ADAPTER in
    *.so) cp "$DLCONFORM_ADAPTER" "$plugins/dlc-adapter.so" || die "cannot copy $DLCONFORM_ADAPTER" ;;
    *.c) $CC $CFLAGS -shared -fPIC -I"$src/include" -o "$plugins/dlc-adapter.so" \
           "$DLCONFORM_ADAPTER" || die "cannot compile $DLCONFORM_ADAPTER" ;;
    *) $CXX $CXXFLAGS -shared -fPIC -I"$src/include" -o "$plugins/dlc-adapter.so" \
         "$DLCONFORM_ADAPTER" || die "cannot compile $DLCONFORM_ADAPTER" ;;
  esac
  echo "oss-fuzz-build: adapter $DLCONFORM_ADAPTER -> $plugins/dlc-adapter.so (the default consumer)"
fi

for exe in "${targets[@]}"; do
  target=$(basename "$exe")
  [[ -x $exe ]] || die "$exe was not built"
  cp "$exe" "$OUT/$target" || die "cannot copy $exe to $OUT"
  for extra in options dict; do
    if [[ -f $src/fuzz/$target.$extra ]]; then
      cp "$src/fuzz/$target.$extra" "$OUT/$target.$extra" || die "cannot copy fuzz/$target.$extra"
    fi
  done
  # Seeds and regressions, flat, README files left out. Fixed timestamps: the same corpus gives
  # the same zip.
  zip=$OUT/${target}_seed_corpus.zip
  rm -f "$zip"
  python3 - "$zip" "$src/corpus/$target/seeds" "$src/corpus/$target/regressions" <<'EOF' ||
import os, sys, zipfile
out, folders = sys.argv[1], [f for f in sys.argv[2:] if os.path.isdir(f)]
names = {}
for folder in folders:
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.startswith(".") or name.endswith(".md") or not os.path.isfile(path):
            continue
        arc = name if name not in names else os.path.basename(folder) + "-" + name
        names[arc] = path
if not names:
    print("oss-fuzz-build: no seeds for " + os.path.basename(out) + ", zip not written")
    sys.exit(0)
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for arc in sorted(names):
        info = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        with open(names[arc], "rb") as f:
            z.writestr(info, f.read())
print("oss-fuzz-build: %d seed files -> %s" % (len(names), out))
EOF
    die "cannot write $zip"
  echo "oss-fuzz-build: $target -> $OUT/$target"
done

#!/bin/bash -eu
# ClusterFuzzLite's build step: CC, CXX, CFLAGS, CXXFLAGS, LIB_FUZZING_ENGINE, SRC, WORK and OUT
# come from the base-builder image and the sanitizer being built.
# The adapter fuzzed on every pull request: here the README's example adapter; a framework that
# copies this folder points DLCONFORM_ADAPTER at its own adapter source (or a built .so).
export DLCONFORM_ADAPTER="${DLCONFORM_ADAPTER:-$SRC/dlconform/examples/example_consumer.c}"
"$SRC/dlconform/tools/oss-fuzz-build.sh"

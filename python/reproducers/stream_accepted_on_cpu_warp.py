# finding: warp STRM-1 stream-accepted-on-cpu: warp.array.__dlpack__ of a CPU array exports for stream=-1, where the Array API says that on CPU "only None is accepted"
# env: frameworks
# expect: exit 0
import warp as wp
wp.config.quiet = True
x = wp.array([0.0, 1.0, 2.0, 3.0], dtype=wp.float32, device="cpu")
assert type(x.__dlpack__(stream=-1)).__name__ == "PyCapsule", "fixed: warp refuses it on the CPU"

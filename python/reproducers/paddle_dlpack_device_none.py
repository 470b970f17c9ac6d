# finding: paddle DEV-2 malformed-device-answer: a CPU tensor's __dlpack_device__() answers (kDLCPU, None) instead of (1, 0), which JAX's from_dlpack cannot take
# env: frameworks
# expect: exit 0
import paddle
assert paddle.ones([2]).__dlpack_device__()[1] is None, "fixed"

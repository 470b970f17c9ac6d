# finding: paddle LAY-8 late-refusal: paddle.from_dlpack imports a tensor with negative strides, and reading it then fails (it sizes the storage as 2**64 - 24 bytes)
# env: frameworks
# expect: raises MemoryError: \(ResourceExhausted\) Fail to alloc memory of 18446744073709551592
import paddle
from dlconform_capsule import Producer
print(paddle.from_dlpack(Producer("f32", [8], strides=[-1])).numpy())

# finding: paddle LAY-8 crash: paddle.from_dlpack takes negative strides, which its profile leaves out, and sizes the storage as 2**64 - 24 bytes: reading it then fails here (a late refusal, no finding outside its profile), and under the sanitizers' allocator overflows the buffer it made (the case's crash)
# env: frameworks
# expect: raises MemoryError: \(ResourceExhausted\) Fail to alloc memory of 18446744073709551592
import paddle
from dlconform_capsule import Producer
print(paddle.from_dlpack(Producer("f32", [8], strides=[-1])).numpy())

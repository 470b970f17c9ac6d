# finding: torch LAY-10 crash: torch.from_dlpack aborts the interpreter (an uncaught c10::Error) on a shape whose storage size overflows int64, instead of raising BufferError
# env: frameworks mxnet debian gpu
# expect: SIGABRT
import torch
from dlconform_capsule import Producer
torch.from_dlpack(Producer("f32", [2**63 - 1, 4], strides=[1, 1]))

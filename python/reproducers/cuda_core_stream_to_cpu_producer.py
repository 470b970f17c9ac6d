# finding: cuda.core STRM-1 stream-on-cpu: StridedMemoryView(obj, stream_ptr) passes the consumer's stream to __dlpack__ as-is (documented) also when __dlpack_device__ says the producer is on the CPU, where the stream must be None
# env: gpu
# expect: exit 0
from cuda.core import Device; from cuda.core.utils import StridedMemoryView
from dlconform_capsule import Producer
d = Device(0); d.set_current(); s = d.create_stream(); p = Producer("f32", [4])
StridedMemoryView(p, stream_ptr=int(s.handle))
assert p.asks[0]["stream"] not in (None, -1), "fixed: a CPU producer gets stream=None"

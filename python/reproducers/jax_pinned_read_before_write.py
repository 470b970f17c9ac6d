# finding: jax STRM-1 stream-not-synchronised: from_dlpack of a pinned (kDLCUDAHost) tensor passes stream=None, which makes the producer order its pending write on the legacy default stream, then reads the memory without waiting for that stream: it reads the values from before the write
# env: gpu
# expect: raises AssertionError: read before the producer's write landed
import jax, numpy as np
from dlconform_capsule import PendingPinned
x = PendingPinned()
assert np.asarray(jax.dlpack.from_dlpack(x)).all(), "read before the producer's write landed"

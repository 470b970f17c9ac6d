# finding: jax STRM-4 copy-not-made: jax.dlpack.from_dlpack(x, copy=True) of an aligned CPU array returns an array that shares x's memory (the capsule carries no IS_COPIED): a later write to x shows through it
# env: frameworks latest gpu
# expect: exit 0
import jax, numpy as np
raw = np.zeros(1024, np.uint8); x = raw[-raw.ctypes.data % 256:][:256].view(np.float32)
y = jax.dlpack.from_dlpack(x, copy=True)
x[0] = 42.0
assert float(y[0]) == 42.0  # a copy, as asked for, would still hold 0

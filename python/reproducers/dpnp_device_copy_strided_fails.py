# finding: dpnp LAY-4 rejected-valid: dpnp.from_dlpack(x, device=its SYCL device) fails with ValueError on a transposed host array instead of copying it to the device
# env: oneapi
# expect: raises ValueError: To change to a dtype of a different size, the last axis must be contiguous
import dpnp, numpy
dpnp.from_dlpack(numpy.ones((3, 4), "float32").T, device=dpnp.zeros(1).sycl_device)

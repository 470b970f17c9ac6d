# finding: dpnp LAY-7 rejected-valid: dpnp.from_dlpack(x, device=its SYCL device) fails with ValueError on a zero-size host array instead of copying it to the device
# env: oneapi
# expect: raises ValueError: Number of bytes of request allocation must be positive
import dpnp, numpy
dpnp.from_dlpack(numpy.zeros((0, 4), "float32"), device=dpnp.zeros(1).sycl_device)

# finding: jax FLAG-1b producer-violation: a JAX array (immutable) asked with max_version=(1, 3) is exported as a legacy dltensor, which cannot say READ_ONLY: a consumer's write changes it
# env: frameworks oneapi gpu
# expect: exit 0
import jax.numpy as jnp
capsule = jnp.arange(4.0).__dlpack__(max_version=(1, 3))
assert '"dltensor"' in repr(capsule), "fixed: JAX answers with a versioned capsule"

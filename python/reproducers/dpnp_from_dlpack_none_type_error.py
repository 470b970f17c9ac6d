# finding: dpnp VER-4 no-attribute-error: dpnp.from_dlpack(None) raises TypeError, not the AttributeError the Array API's from_dlpack requires since 2023.12
# env: oneapi
# expect: raises TypeError: The argument of type <class 'NoneType'> does not implement
import dpnp
dpnp.from_dlpack(None)

"""``iree_linalg_ext.attention`` and ``online_attention``.

Assembled into the dialect by :mod:`iree_linalg_ext`.
"""

#: op classes of this module, registered by iree_linalg_ext.build_dialect
OPS = ()
#: attribute classes of this module
ATTRIBUTES = ()

"""How dimscope names a class: ``module.QualName``.

A leaf module (it imports nothing of dimscope) so that caches, cachelayers and
staticcache can all import the name at the top: caches builds on the other two, and
they need only this from it.
"""


def qualified_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"

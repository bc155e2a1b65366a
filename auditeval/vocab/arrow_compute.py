"""Arrow's compute functions without ``import pyarrow.compute`` (used as ``pc``).

Importing ``pyarrow.compute`` builds a Python wrapper, with a docstring and a signature, for each
of the ~500 functions in Arrow's registry: about 80 ms on a 2-core machine, a third of what
``import numpy, pyarrow`` costs, and paid by every ``auditeval trec-eval`` call (the
start-up goal: the drop-in within 2x that floor). This module makes a wrapper on first use
of a name, with pyarrow's own rules (pyarrow/compute.py ``_make_generic_wrapper`` and
``_handle_options``): the first ``arity`` positional arguments are the data, the rest and the
keyword arguments build the function's options class, ``options=`` passes one ready-made.
``cast`` and ``fill_null``, written in Python in pyarrow.compute, are here too, as there
(``cast``: ``CastOptions.safe``/``unsafe``; ``fill_null``: ``coalesce`` with the fill value
as a scalar of the values' type). A trailing underscore is dropped (``or_`` -> ``or``).

Arrow's methods that forward to ``pyarrow.compute`` (``Array.cast``, ``.filter``,
``.fill_null``, ``.dictionary_encode``, ``Table.sort_by``, ...) import it: the drop-in's path
calls the functions here instead (``tests/project/test_imports.py`` checks it stays so).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pyarrow as pa
import pyarrow._compute as _c


@cache
def _function(name: str) -> Any:
    fn = _c.get_function(name)
    cls_name = fn._doc.options_class
    cls = getattr(_c, cls_name) if cls_name else None
    arity = fn.arity

    def call(*args: Any, memory_pool: Any = None, options: Any = None, **kwargs: Any) -> Any:
        if cls is None:
            if kwargs:
                raise TypeError(f"{name} takes no options, got {', '.join(kwargs)}")
            return fn.call(args, None, memory_pool)
        option_args: tuple[Any, ...] = ()
        if arity is not Ellipsis:
            option_args, args = args[arity:], args[:arity]
        if option_args or kwargs:
            if options is not None:
                raise TypeError(f"{name} called with both an 'options' argument and additional arguments")
            options = cls(*option_args, **kwargs)
        elif isinstance(options, dict):
            options = cls(**options)
        return fn.call(args, options, memory_pool)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"Arrow compute function {name!r} (see pyarrow.compute.{name})."
    return call


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return _function(name[:-1] if name.endswith("_") else name)
    except pa.ArrowKeyError:
        raise AttributeError(f"no Arrow compute function {name!r}") from None


def cast(arr: Any, target_type: Any, safe: bool = True) -> Any:
    """``arr`` cast to ``target_type`` (pyarrow.compute.cast: ``CastOptions.safe`` unless
    ``safe=False``)."""
    t = pa.types.lib.ensure_type(target_type)
    options = _c.CastOptions.safe(t) if safe else _c.CastOptions.unsafe(t)
    return _c.call_function("cast", [arr], options)


def fill_null(values: Any, fill_value: Any) -> Any:
    """Nulls of ``values`` replaced by ``fill_value`` (pyarrow.compute.fill_null: ``coalesce``,
    a Python fill value made a scalar of the values' type)."""
    if not isinstance(fill_value, pa.Array | pa.ChunkedArray | pa.Scalar):
        fill_value = pa.scalar(fill_value, type=values.type)
    elif values.type != fill_value.type:
        fill_value = pa.scalar(fill_value.as_py(), type=values.type)
    return _c.call_function("coalesce", [values, fill_value])

"""mkdocs hooks (``hooks:`` in mkdocs.yml).

The docstrings are written for readers of the source, with Sphinx roles (``:func:`evaluate```);
mkdocstrings renders their text as Markdown, so a role would show as ``:func:`` before the
name. ``on_page_content`` drops the role and keeps the name as code. That every role names
something that exists is checked by ``tests/docs/test_docs_reference.py``, not here.
"""

from __future__ import annotations

import re

_ROLE = re.compile(r":(?:mod|func|class|data|meth|attr|exc|obj):(<code>)")


def on_page_content(html: str, **_: object) -> str:
    return _ROLE.sub(r"\1", html)

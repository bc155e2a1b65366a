"""The command line: :mod:`.main` (``auditeval``'s entry point and the subcommand table), one
module per command (:mod:`.eval`, :mod:`.sweep`, :mod:`.audit`, :mod:`.compare`,
:mod:`.verify`, :mod:`.verify_tools` for ``reproduce``/``diff``/``card``, :mod:`.pool`) and
:mod:`.common` (the argparse class and the options every command shares). Imported by nothing.
"""

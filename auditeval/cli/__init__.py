"""The command line: :mod:`.main` (``auditeval``'s entry point and the subcommand table), one
module per command (:mod:`.eval`, :mod:`.sweep`, :mod:`.audit`, :mod:`.verify`,
:mod:`.reproduce`, :mod:`.diff`, :mod:`.card`, :mod:`.compare`, :mod:`.pool`,
:mod:`.conventions`, :mod:`.measures`, :mod:`.references`) and :mod:`.common` (the argparse
class and the options every command shares). A command module parses its options, calls the
analysis and hands the result to a renderer of :mod:`auditeval.render`; it draws nothing itself.
Imported by nothing.
"""

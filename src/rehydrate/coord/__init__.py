"""Coordination across clones through the git remote: leases on Task items as refs taken
by compare-and-swap (``claims``, over the pure ``lease`` and ``items``), and a ledger
sync that merges, guards and pushes until it lands (``sync``). See docs/parallel-agents.md.
"""

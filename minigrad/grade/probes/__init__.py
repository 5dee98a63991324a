"""The child's side of every check: functions that run a submission on given inputs.

Nothing here computes a reference. The child process may import this package
(and the minigrad library); it never imports ``minigrad.grade.checks``, which
holds the references and, when the grader runs as root, is unreadable to it.
"""

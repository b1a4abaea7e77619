"""``arena class``: a folder of submissions to a gradebook and a class page.

The stages, in the order they run: intake (each student's folder checked, hashed and snapshot), validation
of every new submission, the league with the reference engines as fixed anchors, grades (anchored Elo
with its interval, bands by a sequential test), similar submissions, and the gradebook and class page.
"""

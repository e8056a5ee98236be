# affinity: filled in by its issue.

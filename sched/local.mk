# sched: filled in by its issue.

# docs: filled in by its issue.

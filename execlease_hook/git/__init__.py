"""What git knows: the repository, the index, commits and blobs."""

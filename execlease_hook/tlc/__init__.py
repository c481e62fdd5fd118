"""Running TLC: the job, its run, its output and progress, the JVM, Java and the pinned jar, the
result cache."""

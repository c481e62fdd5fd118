"""The slow stage, `execlease verify`: plan, run in one pool, judge, report, sync."""

-- Who a run belongs to: the token of the process (and lane lock) that started it. A run's final
-- write applies only while the run is still `running` and still this owner's; a process that takes
-- the lane over and marks the run `crashed` writes its own token here, so a frozen process that
-- wakes up later (SIGSTOP, a VM paused) cannot finish a run it no longer owns. NULL for runs
-- written before this column and by callers that name no owner.
ALTER TABLE runs ADD COLUMN owner TEXT;

-- placeholder for issue 42, filled in by its work
SELECT 1;
